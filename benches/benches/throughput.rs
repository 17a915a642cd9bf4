//! `cargo xtask bench` (`bench-throughput` on the GPU machine): warpkit against CUB, in one
//! process, on one stream, sample by sample.
//!
//! Rows: reduce (sum, min, max) and inclusive scan (sum) of `u32 i32 f32 u64 i64 f64 f16
//! bf16`, exclusive scan (sum) of the same but the halves (CUB's library has none for them),
//! arg-min of `f32`, `f64`, `f16` and `bf16`, and batched rows of the six 4- and 8-byte types
//! (`rows_reduce_sum_w<W>`: each row of `W` items summed, against CUB's
//! `DeviceSegmentedReduce::Sum`; `rows_scan_sum_w<W>`: each row's inclusive sum, against
//! `DeviceScan::InclusiveSumByKey` keyed by row; the whole rows of the size, at each width of
//! `--row-widths`), at 2^20, 2^24 and 2^28 items (any of 2^1..2^31 on request). Each row:
//!
//! 1. is checked first: both outputs are poisoned (all bytes 0xff), warpkit and CUB run once
//!    each, and both results must equal the host's exact result bit for bit; warpkit runs a
//!    second time and must give the same bits (determinism). See [`Data`] for why floats can
//!    be held to bits. A failed row is reported (what differs, where) and not timed; the run
//!    then exits non-zero after writing the report.
//! 2. is timed with [`Sampler::warm`]: warpkit and CUB alternate sample by sample (A B, B A,
//!    …) after a common warm-up; inputs rotate over at least 256 MiB so L2 does not serve
//!    them; the table gives the medians and the median of the per-pair ratios.
//! 3. (unless `--no-criterion`) gets both sides into criterion's report, unpaired.
//!
//! Bytes per row: what the operation must move at least (reduce: the input; scan: input and
//! output). Limits, measured in the run with streaming kernels: read bandwidth for the
//! reductions, copy bandwidth (bytes read + written) for the scans.
//!
//! Writes `bench.md`, `bench.csv`, `bench.json`, `percent.svg` (% of the limit per row,
//! warpkit and CUB) and `throughput.svg` (GB/s against size) to `$WARPKIT_BENCH_OUT`
//! (default `target/warpkit-bench`), and criterion's report under `criterion/`.
//!
//! Arguments (cargo bench passes `--bench`, ignored; `BENCH_ARGS` in scripts/device-run.sh):
//! `--sizes 20,24,28` (log2 of the item counts; `24-1` or `20+3` for 2^24 - 1 or 2^20 + 3
//! items, a run whose last tile is partial), `--types u32,i32,f32,u64,i64,f64,f16`,
//! `--ops reduce,minmax,scan,exscan,argmin,rowsreduce,rowsscan` (`reduce` and `scan` are
//! sums, `exscan` the exclusive sum scan), `--row-widths 1024` (the default; a list, each
//! width its own batched rows), `--no-criterion`, `--quick` (2^20 and 2^24, no criterion),
//! `--offset K` (inputs and scan outputs start K items into their buffers, unaligned where
//! K items are not a multiple of 16 bytes; rows are named `operation@+K`),
//! `--pairs N` (default 31). The same as environment variables: `WARPKIT_BENCH_SIZES`,
//! `WARPKIT_BENCH_TYPES`, `WARPKIT_BENCH_OPS`, `WARPKIT_BENCH_ROW_WIDTHS`. `--plot-from results.csv plot.svg` redraws
//! the plots from a saved CSV (no GPU).

use criterion::Criterion;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits, result, sys};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use warpkit::ops::{ArgMin, Max, Min, Sum};
use warpkit_benches::cub::{self, CubCase, CubLib};
use warpkit_benches::pairs::{self, Comparison, Config, Enqueue as _, Sampler};
use warpkit_benches::par;
use warpkit_benches::report::{self, Row};
use warpkit_benches::timing;
use warpkit_host::half::{bf16, f16};
use warpkit_host::{Element, Queue, ScanKind, Warpkit};

/// Inputs rotate over at least this many bytes so that repeated runs do not hit in L2.
const ROTATE_BYTES: usize = 256 << 20;
const ALL_TYPES: [&str; 8] = ["u32", "i32", "f32", "u64", "i64", "f64", "f16", "bf16"];
const ALL_OPS: [&str; 7] = [
    "reduce",
    "minmax",
    "scan",
    "exscan",
    "argmin",
    "rowsreduce",
    "rowsscan",
];
/// Types of the batched rows: those of CUB's row entry points (`cub::TYPES`).
const ROWS_TYPES: [&str; 6] = ["u32", "i32", "f32", "u64", "i64", "f64"];

/// What to run.
struct Options {
    /// Item counts.
    sizes: Vec<usize>,
    types: Vec<String>,
    ops: Vec<String>,
    criterion: bool,
    pairs: usize,
    /// Items before each input's and scan output's first item.
    offset: usize,
    /// Row widths of the batched rows (`rowsreduce`, `rowsscan`).
    row_widths: Vec<usize>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let value = |flag: &str, env: &str| -> Option<String> {
            args.iter()
                .position(|a| a == flag)
                .and_then(|i| args.get(i + 1).cloned())
                .or_else(|| std::env::var(env).ok())
        };
        let list = |s: String| -> Vec<String> {
            s.split(',')
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect()
        };
        let quick = args.iter().any(|a| a == "--quick");
        let sizes = match value("--sizes", "WARPKIT_BENCH_SIZES") {
            Some(s) => list(s)
                .iter()
                .map(|size| report::parse_size(size))
                .collect::<Result<_, _>>()?,
            None if quick => vec![1 << 20, 1 << 24],
            None => vec![1 << 20, 1 << 24, 1 << 28],
        };
        let pick = |flag: &str, env: &str, all: &[&str]| -> Result<Vec<String>, String> {
            let chosen = value(flag, env).map(list);
            let chosen = chosen.unwrap_or_else(|| all.iter().map(|s| s.to_string()).collect());
            match chosen.iter().find(|c| !all.contains(&c.as_str())) {
                Some(bad) => Err(format!("{flag}: unknown `{bad}` (have {})", all.join(","))),
                None => Ok(chosen),
            }
        };
        let pairs = match value("--pairs", "WARPKIT_BENCH_PAIRS") {
            Some(p) => p
                .parse::<usize>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or(format!("--pairs: `{p}` is not a positive count"))?,
            None => Config::default().pairs,
        };
        let offset = match value("--offset", "WARPKIT_BENCH_OFFSET") {
            Some(k) => k
                .parse::<usize>()
                .ok()
                .filter(|&k| k < 1024)
                .ok_or(format!("--offset: `{k}` is not an item count below 1024"))?,
            None => 0,
        };
        let row_widths = match value("--row-widths", "WARPKIT_BENCH_ROW_WIDTHS") {
            Some(w) => list(w.clone())
                .iter()
                .map(|w| w.parse::<usize>().ok().filter(|&w| w > 0))
                .collect::<Option<Vec<_>>>()
                .ok_or(format!(
                    "--row-widths: `{w}` is not a list of positive widths"
                ))?,
            None => vec![1024],
        };
        Ok(Options {
            offset,
            row_widths,
            sizes,
            types: pick("--types", "WARPKIT_BENCH_TYPES", &ALL_TYPES)?,
            ops: pick("--ops", "WARPKIT_BENCH_OPS", &ALL_OPS)?,
            criterion: !quick && !args.iter().any(|a| a == "--no-criterion"),
            pairs,
        })
    }

    fn wants(&self, ty: &str, op: &str) -> bool {
        self.types.iter().any(|t| t == ty) && self.ops.iter().any(|o| o == op)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--plot-from") {
        // Redraw the plots from a saved CSV: `--plot-from results.csv plot.svg` (no GPU).
        let (csv, svg) = (
            args.get(i + 1).expect("a CSV path"),
            args.get(i + 2).expect("an SVG path"),
        );
        let rows = report::parse_csv(&std::fs::read_to_string(csv).expect("read the CSV"))
            .expect("parse the CSV");
        report::plot(&rows, Path::new(svg)).expect("draw the plot");
        let bars = Path::new(svg).with_extension("percent.svg");
        std::fs::write(&bars, report::percent_bars_svg(&rows, csv)).expect("write the bars");
        println!("wrote {svg}, {}", bars.display());
        return;
    }
    let options = Options::parse(&args).unwrap_or_else(|e| fail(&e));
    let wk = Warpkit::new(0).unwrap_or_else(|e| {
        fail(&format!(
            "{e}\nThe benchmark needs an NVIDIA GPU; nothing was measured."
        ))
    });
    // One stream, and all buffers used on it only: the benchmark orders its work itself, as
    // CUB's raw pointers do, so cudarc's per-use event records are off.
    // SAFETY: no buffer below is used on another stream.
    unsafe { wk.context().disable_event_tracking() };
    let stream = wk
        .new_stream()
        .unwrap_or_else(|e| fail(&format!("create a stream: {e}")));
    let out = std::env::var_os("WARPKIT_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/warpkit-bench"));
    std::fs::create_dir_all(&out).unwrap_or_else(|e| fail(&format!("{}: {e}", out.display())));
    let (major, minor) = wk.compute_capability();
    let lib = CubLib::build(&cub::source(), &cub::build_dir(), (major, minor))
        .unwrap_or_else(|e| fail(&format!("CUB library: {e}")));
    let config = Config {
        pairs: options.pairs,
        ..Config::default()
    };
    let sampler = Sampler::new(&stream, config).unwrap_or_else(|e| fail(&e.to_string()));
    let criterion = Criterion::default()
        .output_directory(&out.join("criterion"))
        .measurement_time(Duration::from_millis(500))
        .warm_up_time(Duration::from_millis(200))
        .sample_size(10)
        .without_plots();
    let mut b = Bench {
        wk: &wk,
        stream: &stream,
        lib: &lib,
        sampler,
        criterion: options.criterion.then_some(criterion),
        read_bw: 0.0,
        copy_bw: 0.0,
        rows: Vec::new(),
        failed: Vec::new(),
        offset: options.offset,
        row_widths: options.row_widths.clone(),
    };
    b.measure_limits();
    eprintln!(
        "{}, CUB {}\nread limit {:.0} GB/s, copy limit {:.0} GB/s (bytes read + written)",
        wk.describe(),
        lib.version,
        b.read_bw / 1e9,
        b.copy_bw / 1e9
    );
    for &n in &options.sizes {
        for ty in &options.types {
            let rows = Rows {
                reduce: options.wants(ty, "reduce"),
                // CUB's library has no half exclusive scan.
                minmax: options.wants(ty, "minmax"),
                scan: options.wants(ty, "scan"),
                exscan: options.wants(ty, "exscan") && !matches!(ty.as_str(), "f16" | "bf16"),
                rows_reduce: options.wants(ty, "rowsreduce") && ROWS_TYPES.contains(&ty.as_str()),
                rows_scan: options.wants(ty, "rowsscan") && ROWS_TYPES.contains(&ty.as_str()),
            };
            match ty.as_str() {
                "u32" => b.rows_of::<u32>(n, rows),
                "i32" => b.rows_of::<i32>(n, rows),
                "f32" => b.rows_of::<f32>(n, rows),
                "u64" => b.rows_of::<u64>(n, rows),
                "i64" => b.rows_of::<i64>(n, rows),
                "f64" => b.rows_of::<f64>(n, rows),
                "f16" => b.rows_of::<f16>(n, rows),
                "bf16" => b.rows_of::<bf16>(n, rows),
                _ => unreachable!("checked by Options::parse"),
            }
        }
        if options.wants("f32", "argmin") {
            b.arg_min::<f32>(n);
        }
        if options.wants("f64", "argmin") {
            b.arg_min::<f64>(n);
        }
        if options.wants("f16", "argmin") {
            b.arg_min::<f16>(n);
        }
        if options.wants("bf16", "argmin") {
            b.arg_min::<bf16>(n);
        }
    }
    let header = format!(
        "Device: {}. Date: {}. CUB {}. Read limit {:.0} GB/s, copy limit {:.0} GB/s (measured in \
         this run). warpkit and CUB sampled alternately on one stream ({} pairs per row; warm L2, \
         and cold (an L2 flush before each sample) where the data fits in L2; inputs rotated \
         over 256 MiB); times are medians, \"CUB / ours\" the median of the \
         per-pair ratios (above 1: warpkit faster). Every row's outputs were checked bit for bit \
         against the host before timing.{}{}",
        wk.describe(),
        date(),
        lib.version,
        b.read_bw / 1e9,
        b.copy_bw / 1e9,
        options.pairs,
        match options.offset {
            0 => String::new(),
            k => format!(
                " Inputs and scan outputs start {k} items into their buffers (rows `@+{k}`)."
            ),
        },
        if b.failed.is_empty() {
            String::new()
        } else {
            format!(
                "\n\n**Rows that failed the check (not timed):**\n\n- {}",
                b.failed.join("\n- ")
            )
        }
    );
    let md = report::markdown(&b.rows, &header);
    let meta = [
        ("device", wk.describe()),
        ("date", date()),
        ("cub", lib.version.clone()),
        ("read_limit_bytes_per_second", format!("{:e}", b.read_bw)),
        ("copy_limit_bytes_per_second", format!("{:e}", b.copy_bw)),
        ("pairs", options.pairs.to_string()),
        ("offset_items", options.offset.to_string()),
        ("failed", b.failed.join("; ")),
    ];
    let write = |name: &str, text: &str| {
        std::fs::write(out.join(name), text)
            .unwrap_or_else(|e| fail(&format!("write {}: {e}", out.join(name).display())))
    };
    write("bench.md", &md);
    write("bench.csv", &report::csv(&b.rows));
    write("bench.json", &report::json(&b.rows, &meta));
    if !b.rows.is_empty() {
        let title = format!(
            "% of the measured limit (reduce: read {:.0} GB/s; scan: copy {:.0} GB/s), {}",
            b.read_bw / 1e9,
            b.copy_bw / 1e9,
            wk.device_name()
        );
        write("percent.svg", &report::percent_bars_svg(&b.rows, &title));
        if let Err(e) = report::plot(&b.rows, &out.join("throughput.svg")) {
            eprintln!("plot failed: {e}");
        }
    }
    println!("{md}");
    println!(
        "wrote {0}/bench.md, bench.csv, bench.json, percent.svg, throughput.svg{1}",
        out.display(),
        if options.criterion {
            ", criterion/"
        } else {
            ""
        }
    );
    if !b.failed.is_empty() {
        fail(&format!(
            "{} row(s) failed the check:\n{}",
            b.failed.len(),
            b.failed.join("\n")
        ));
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("bench-throughput: {msg}");
    std::process::exit(1)
}

fn date() -> String {
    std::process::Command::new("date")
        .arg("+%Y-%m-%d")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// The test data, and the host's exact results.
///
/// Inputs are random (seeded, so runs are comparable) and never all zero. Integers are
/// uniform over the whole type; sums wrap. Floats are random multiples of a power of two in
/// [-8, 8] (symmetric: mean 0): `f32` and `f16` multiples of 2^-4, `f64` multiples of 2^-20. Then a sum is exact
/// in any order and association as long as every partial sum stays below 2^20 (`f32`
/// accumulator, used for `f16` too) or 2^31 (`f64`: 2^28 items of at most 8 always do).
/// The data has mean 0, so partial sums of `m` items are about 4.6 √m (at most about 7.5e4
/// for 2^28 items): reaching 2^20 would take a deviation of more than 13 standard
/// deviations. So every order of addition gives the exact sum, and both libraries must
/// match the host bit for bit: reductions the exact sum, scans each exact prefix (`f16`
/// outputs rounded once to nearest even, as both libraries round their `f32` prefix).
trait Data: Element + Default {
    fn random(rng: &mut StdRng) -> Self;
    /// The value as an integer on the type's grid (floats: times 2^4 or 2^20), exactly.
    fn code(self) -> i128;
    /// The exact sum of codes as the accumulator type: integers wrap, floats are scaled back
    /// (exact or rounded once).
    fn accum(sum: i128) -> Self::Accum;
    /// CUB's output of the min or max row for this extreme, where it differs from warpkit's
    /// (`Sides::cub_first`).
    fn cub_extreme(self) -> Option<Self::Accum> {
        None
    }
}

/// Integers: uniform over the whole type; sums wrap.
macro_rules! integer_data {
    ($($t:ty),*) => {$(
        impl Data for $t {
            fn random(rng: &mut StdRng) -> Self {
                rng.random()
            }
            fn code(self) -> i128 {
                self as i128
            }
            fn accum(sum: i128) -> $t {
                sum as $t
            }
        }
    )*};
}

integer_data!(u32, i32, u64, i64);

const F32_GRID: f64 = 16.0;
const F64_GRID: f64 = (1u64 << 20) as f64;

impl Data for f32 {
    fn random(rng: &mut StdRng) -> Self {
        (rng.random_range(-128i32..=128) as f64 / F32_GRID) as f32
    }
    fn code(self) -> i128 {
        (self as f64 * F32_GRID) as i128
    }
    fn accum(sum: i128) -> f32 {
        (sum as f64 / F32_GRID) as f32
    }
}

/// A 4-byte output slot after CUB wrote a half's two bytes (`bits`) into it: the next two are
/// left as the check's poison (0xff), where warpkit writes the `f32` or zeros.
fn cub_half_in_word(bits: u16) -> u32 {
    0xffff_0000 | bits as u32
}

/// The halves as `f32`, on the same grid: multiples of 2^-4 in [-8, 8] have at most 8
/// significant bits, so `f16` and `bf16` hold them exactly. CUB's `DeviceReduce::Min`/`Max`
/// on `__half`/`__nv_bfloat16` write the extreme as a half ([`cub_half_in_word`]).
macro_rules! half_data {
    ($($t:ty),*) => {$(
        impl Data for $t {
            fn random(rng: &mut StdRng) -> Self {
                <$t>::from_f64(rng.random_range(-128i32..=128) as f64 / F32_GRID)
            }
            fn code(self) -> i128 {
                (self.to_f64() * F32_GRID) as i128
            }
            fn accum(sum: i128) -> f32 {
                (sum as f64 / F32_GRID) as f32
            }
            fn cub_extreme(self) -> Option<f32> {
                Some(f32::from_bits(cub_half_in_word(self.to_bits())))
            }
        }
    )*};
}

half_data!(f16, bf16);

impl Data for f64 {
    fn random(rng: &mut StdRng) -> Self {
        rng.random_range(-(8 << 20)..=(8i64 << 20)) as f64 / F64_GRID
    }
    fn code(self) -> i128 {
        (self * F64_GRID) as i128
    }
    fn accum(sum: i128) -> f64 {
        sum as f64 / F64_GRID
    }
}

/// `n` random items, seeded by the type and size; never all zero.
fn random_data<T: Data>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = StdRng::seed_from_u64(seed ^ n as u64);
    let mut data: Vec<T> = (0..n).map(|_| T::random(&mut rng)).collect();
    if data.iter().all(|x| x.code() == 0) {
        // Only possible for tiny n; keep the promise anyway.
        data[0] = T::random(&mut StdRng::seed_from_u64(1));
        while data[0].code() == 0 {
            data[0] = T::random(&mut rng);
        }
    }
    data
}

/// The exact sum.
fn exact_sum<T: Data>(data: &[T]) -> T::Accum {
    T::accum(
        par::part_sums(data.len(), |i| data[i].code())
            .into_iter()
            .sum(),
    )
}

/// The exact prefix sums, inclusive or exclusive (as the output type; the exclusive scan's
/// first item is `first`, which the libraries choose differently for floats).
fn exact_scan<T: Data>(data: &[T], kind: ScanKind, first: T) -> Vec<T> {
    let mut scan = vec![T::default(); data.len()];
    par::running_sums(
        &mut scan,
        |i| data[i].code(),
        |i, before, through| match kind {
            ScanKind::Inclusive => T::from_accum(T::accum(through)),
            ScanKind::Exclusive if i == 0 => first,
            ScanKind::Exclusive => T::from_accum(T::accum(before)),
        },
    );
    scan
}

/// The smallest and the largest item (the data holds no NaN and no -0.0).
fn extremes<T: Data>(data: &[T]) -> (T, T) {
    let by_code = |a: &&T, b: &&T| a.code().cmp(&b.code());
    (
        *data.iter().min_by(by_code).expect("not empty"),
        *data.iter().max_by(by_code).expect("not empty"),
    )
}

/// The exact sum of each row of `width` items.
fn exact_row_sums<T: Data>(items: &[T], width: usize) -> Vec<T> {
    items
        .chunks(width)
        .map(|row| T::from_accum(T::accum(row.iter().map(|x| x.code()).sum())))
        .collect()
}

/// The exact inclusive prefix sums of each row of `width` items.
fn exact_row_scans<T: Data>(items: &[T], width: usize) -> Vec<T> {
    let mut scans = Vec::with_capacity(items.len());
    for row in items.chunks(width) {
        let mut through = 0i128;
        scans.extend(row.iter().map(|x| {
            through += x.code();
            T::from_accum(T::accum(through))
        }));
    }
    scans
}

/// Which rows of one type to run.
#[derive(Clone, Copy)]
struct Rows {
    reduce: bool,
    minmax: bool,
    scan: bool,
    exscan: bool,
    /// Batched rows of each `--row-widths` width: reduce (sum) and inclusive scan (sum).
    rows_reduce: bool,
    rows_scan: bool,
}

/// `None` when `got` equals `want` bit for bit; else what differs: the first items that
/// differ and how many do.
fn differs<V: bytemuck::Pod + Sync + std::fmt::Debug>(
    what: &str,
    got: &[V],
    want: &[V],
) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!(
            "{what}: {} items read back, {} expected",
            got.len(),
            want.len()
        ));
    }
    let differ = |i: &usize| bytemuck::bytes_of(&got[*i]) != bytemuck::bytes_of(&want[*i]);
    let count: usize = par::map(got.len(), |part| part.filter(differ).count())
        .into_iter()
        .sum();
    if count == 0 {
        return None;
    }
    let show: Vec<String> = (0..got.len())
        .filter(differ)
        .take(3)
        .map(|i| format!("item {i}: {:?}, expected {:?}", got[i], want[i]))
        .collect();
    Some(format!(
        "{what}: {count} of {} items differ ({})",
        got.len(),
        show.join("; ")
    ))
}

struct Bench<'a> {
    wk: &'a Warpkit,
    stream: &'a Arc<CudaStream>,
    lib: &'a CubLib,
    sampler: Sampler,
    criterion: Option<Criterion>,
    read_bw: f64,
    copy_bw: f64,
    rows: Vec<Row>,
    failed: Vec<String>,
    /// Items before each input's and scan output's first item (`--offset`).
    offset: usize,
    /// Widths of the batched rows (`--row-widths`).
    row_widths: Vec<usize>,
}

/// Input and queue of run `run`, rotated over the input buffers.
fn rotated<'q>(ptrs: &[u64], queues: &'q mut [Queue], run: u64) -> (u64, &'q mut Queue) {
    let at = (run % ptrs.len() as u64) as usize;
    (ptrs[at], &mut queues[at])
}

/// Buffers to rotate over so that at least `ROTATE_BYTES` are touched (one when larger),
/// each holding `host` after `offset` items, and the address of each one's first item.
fn upload<T: DeviceRepr + Default + Clone>(
    stream: &Arc<CudaStream>,
    host: &[T],
    offset: usize,
) -> Result<(Vec<CudaSlice<T>>, Vec<u64>), String> {
    let bytes = std::mem::size_of_val(host).max(1);
    let count = ROTATE_BYTES.div_ceil(bytes).clamp(1, 16);
    let padded: Vec<T> = std::iter::repeat_n(T::default(), offset)
        .chain(host.iter().cloned())
        .collect();
    let buffers = (0..count)
        .map(|i| {
            stream
                .clone_htod(&padded)
                .map_err(|e| format!("upload input copy {i} ({bytes} bytes): {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let first = (offset * std::mem::size_of::<T>()) as u64;
    let ptrs = buffers.iter().map(|b| ptr(stream, b) + first).collect();
    Ok((buffers, ptrs))
}

fn alloc<T: DeviceRepr + ValidAsZeroBits>(
    stream: &Arc<CudaStream>,
    n: usize,
) -> Result<CudaSlice<T>, String> {
    stream
        .alloc_zeros::<T>(n)
        .map_err(|e| format!("allocate {n} items of output: {e}"))
}

fn ptr<T>(stream: &CudaStream, s: &CudaSlice<T>) -> u64 {
    s.device_ptr(stream).0
}

/// Fills `s` with 0xff bytes (NaN for floats, the largest value for integers) on the stream.
fn poison<T>(stream: &CudaStream, s: &CudaSlice<T>) -> Result<(), String> {
    let bytes = s.len() * std::mem::size_of::<T>();
    unsafe { result::memset_d8_async(ptr(stream, s), 0xff, bytes, stream.cu_stream()) }
        .map_err(|e| format!("poison the output: {e}"))
}

fn read<T: DeviceRepr>(stream: &Arc<CudaStream>, s: &CudaSlice<T>) -> Result<Vec<T>, String> {
    stream
        .clone_dtoh(s)
        .map_err(|e| format!("read the output back: {e}"))
}

impl Bench<'_> {
    /// The limits: the best of a streaming read and a streaming copy kernel over three grid
    /// shapes, each timed as the cases are (launches back to back between two events).
    fn measure_limits(&mut self) {
        let vectors = (1usize << 30) / 16;
        let stream = self.stream;
        let src = stream
            .clone_htod(&vec![[1u32, 2, 3, 4]; vectors])
            .unwrap_or_else(|e| fail(&format!("bandwidth probe: allocate: {e}")));
        let dst = alloc::<[u32; 4]>(stream, vectors).unwrap_or_else(|e| fail(&e));
        let sink = alloc::<u32>(stream, 1).unwrap_or_else(|e| fail(&e));
        let (s, d, k, v) = (
            ptr(stream, &src),
            ptr(stream, &dst),
            ptr(stream, &sink),
            vectors as u64,
        );
        // The probes are test kernels (`warpkit-test-kernels`), not in the library's PTX.
        let (major, minor) = self.wk.compute_capability();
        let (_, ptx) =
            warpkit_builder::Target::best_for(warpkit_tests::ptx::TEST_KERNELS_PTX, major, minor)
                .unwrap_or_else(|| fail("no test-kernel PTX for this device"));
        let probes = self
            .wk
            .context()
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .unwrap_or_else(|e| fail(&format!("load the bandwidth probes: {e}")));
        let bandwidth = |kernel: &str, args: &[*mut std::ffi::c_void], bytes: f64| {
            let function = probes
                .load_function(kernel)
                .unwrap_or_else(|e| fail(&format!("probe kernel {kernel}: {e}")));
            let mut best: f64 = 0.0;
            for blocks_per_sm in [2, 4, 8] {
                let grid = self.wk.multiprocessors() * blocks_per_sm;
                let mut samples = Vec::new();
                for _ in 0..10 {
                    timing::time_iters(self.stream, 5, &mut samples, |_| {
                        let mut args = args.to_vec();
                        // SAFETY: each probe takes exactly these arguments; the buffers live
                        // until the stream is synchronized below.
                        unsafe {
                            result::launch_kernel(
                                function.cu_function(),
                                (grid, 1, 1),
                                (256, 1, 1),
                                0,
                                self.stream.cu_stream(),
                                &mut args,
                            )
                        }
                        .unwrap_or_else(|e| fail(&format!("bandwidth probe {kernel}: {e}")))
                    });
                }
                best = best.max(bytes / timing::median(&mut samples));
            }
            best
        };
        let bytes = (vectors * 16) as f64;
        let arg = |v: &u64| v as *const u64 as *mut std::ffi::c_void;
        self.copy_bw = bandwidth(
            "warpkit_bandwidth_copy",
            &[arg(&s), arg(&d), arg(&v)],
            2.0 * bytes,
        );
        self.read_bw = bandwidth(
            "warpkit_bandwidth_read",
            &[arg(&s), arg(&v), arg(&k)],
            bytes,
        );
    }

    /// Times a checked row: paired samples, then criterion's two sides; adds the row.
    #[allow(clippy::too_many_arguments)]
    fn time(
        &mut self,
        algo: &str,
        ty: &'static str,
        n: usize,
        bytes: f64,
        read_limit: bool,
        ours: &mut impl pairs::Enqueue,
        cub: &mut impl pairs::Enqueue,
    ) {
        let algo = &match self.offset {
            0 => algo.to_owned(),
            k => format!("{algo}@+{k}"),
        };
        let id = format!("{algo}/{ty}/{}", report::size_label(n));
        let (limit, limit_name) = if read_limit {
            (self.read_bw, "read")
        } else {
            (self.copy_bw, "copy")
        };
        // Warm always; cold too where the data fits in L2 (else every run is cold anyway).
        let mut modes = vec![pairs::L2::Warm];
        match self.sampler.fits_in_l2(bytes as usize) {
            Ok(true) => modes.push(pairs::L2::Cold),
            Ok(false) => {}
            Err(e) => fail(&format!("{id}: {e}")),
        }
        for mode in modes {
            let c = match self.sampler.compare(mode, ours, cub) {
                Ok(c) => c,
                Err(e) => fail(&format!("{id} {}: paired timing: {e}", mode.name())),
            };
            show(&id, bytes, &c);
            self.rows.push(Row::from_comparison(
                algo, ty, n, bytes, &c, limit, limit_name,
            ));
        }
        if let Some(criterion) = self.criterion.as_mut() {
            pairs::criterion_sides(criterion, &id, self.stream, ours, cub);
        }
    }

    /// The rows of `n` items of `T` that `rows` asks for.
    fn rows_of<T: Data>(&mut self, n: usize, rows: Rows) {
        if !(rows.reduce
            || rows.minmax
            || rows.scan
            || rows.exscan
            || rows.rows_reduce
            || rows.rows_scan)
        {
            return;
        }
        if let Err(e) = self.try_rows::<T>(n, rows) {
            fail(&format!("{} {}: {e}", T::NAME, report::size_label(n)));
        }
    }

    fn try_rows<T: Data>(&mut self, n: usize, rows: Rows) -> Result<(), String> {
        let stream = self.stream;
        let seed = T::NAME.bytes().fold(0u64, |h, b| h * 131 + b as u64);
        let host = random_data::<T>(n, seed);
        let (_inputs, ptrs) = upload(stream, &host, self.offset)?;
        if rows.reduce {
            self.reduce_row::<T, Sum>(&ptrs, n, "reduce_sum", exact_sum(&host), None)?;
        }
        if rows.minmax {
            let (min, max) = extremes(&host);
            self.reduce_row::<T, Min>(&ptrs, n, "reduce_min", min.to_accum(), min.cub_extreme())?;
            self.reduce_row::<T, Max>(&ptrs, n, "reduce_max", max.to_accum(), max.cub_extreme())?;
        }
        if rows.scan {
            let want = exact_scan(&host, ScanKind::Inclusive, T::default());
            self.scan_row(&ptrs, n, ScanKind::Inclusive, &want, None)?;
        }
        if rows.exscan {
            // warpkit's exclusive scan starts with the operator's identity (-0.0 for float
            // sums), CUB's with a zero-initialized value (+0.0).
            let ours = T::from_accum(warpkit_host::identity::<T, Sum>());
            let want = exact_scan(&host, ScanKind::Exclusive, ours);
            let cub_first = T::default();
            self.scan_row(&ptrs, n, ScanKind::Exclusive, &want, Some(cub_first))?;
        }
        for width in self.row_widths.clone() {
            // Whole rows only: the last `n % width` items are left out.
            let count = n / width;
            if count == 0 {
                continue;
            }
            let items = &host[..count * width];
            if rows.rows_reduce {
                let want = exact_row_sums(items, width);
                self.rows_reduce_row(&ptrs, width, &want)?;
            }
            if rows.rows_scan {
                let want = exact_row_scans(items, width);
                self.rows_scan_row(&ptrs, width, &want)?;
            }
        }
        stream
            .synchronize()
            .map_err(|e| format!("wait for the stream before freeing the buffers: {e}"))
    }

    /// Both sides' scan outputs of `n` items, each `--offset` items into its buffer, and the
    /// address of each one's first item.
    fn scan_outputs<T: Data>(
        &self,
        n: usize,
    ) -> Result<(CudaSlice<T>, CudaSlice<T>, u64, u64), String> {
        let stream = self.stream;
        let ours_out = alloc::<T>(stream, self.offset + n)?;
        let cub_out = alloc::<T>(stream, self.offset + n)?;
        let first = (self.offset * std::mem::size_of::<T>()) as u64;
        let (o, c) = (
            ptr(stream, &ours_out) + first,
            ptr(stream, &cub_out) + first,
        );
        Ok((ours_out, cub_out, o, c))
    }

    /// One queue per input buffer: run `i` takes input and queue `i % count`, as CUB's side
    /// rotates its temporary storage ([`CubCase`]), so that neither side's figure rests on
    /// where one allocation of its storage landed.
    fn queues(&self, count: usize) -> Result<Vec<Queue>, String> {
        (0..count)
            .map(|_| Queue::new(self.wk, self.stream).map_err(|e| e.to_string()))
            .collect()
    }

    /// One reduce row: `O` over the `n` items at each of `ptrs` (rotated), into one value.
    /// `cub_want`: CUB's output where it differs from `want`.
    fn reduce_row<T: Data, O: warpkit_host::DeviceOp>(
        &mut self,
        ptrs: &[u64],
        n: usize,
        algo: &str,
        want: T::Accum,
        cub_want: Option<T::Accum>,
    ) -> Result<(), String> {
        let (stream, lib) = (self.stream, self.lib);
        let ours_out = alloc::<T::Accum>(stream, 1)?;
        let cub_out = alloc::<T::Accum>(stream, 1)?;
        let (o, c) = (ptr(stream, &ours_out), ptr(stream, &cub_out));
        let mut queues = self.queues(ptrs.len())?;
        let mut theirs = CubCase::device(lib, algo, T::NAME, ptrs, c, n, stream)?;
        let mut ours = |_: sys::CUstream, i: u64| {
            let (input, q) = rotated(ptrs, &mut queues, i);
            // SAFETY: `input` holds n items of T and `o` one accumulator, both alive until
            // `row` has waited for the stream.
            unsafe { q.reduce_into_raw::<T, O>(input, n, o, 1) }.map_err(|e| e.to_string())
        };
        let side = Sides {
            ours_out: &ours_out,
            cub_out: &cub_out,
            want: &[want],
            cub_first: cub_want,
            skip: 0,
        };
        let bytes = (n * std::mem::size_of::<T>()) as f64;
        self.row(algo, T::NAME, n, bytes, true, &mut ours, &mut theirs, side)
    }

    /// One scan row (sums): the `n` items at each of `ptrs` (rotated) into an output of `n`.
    /// `cub_first`: CUB's first item where it differs from `want[0]`.
    fn scan_row<T: Data>(
        &mut self,
        ptrs: &[u64],
        n: usize,
        kind: ScanKind,
        want: &[T],
        cub_first: Option<T>,
    ) -> Result<(), String> {
        let (stream, lib) = (self.stream, self.lib);
        let algo = match kind {
            ScanKind::Inclusive => "scan_inclusive_sum",
            ScanKind::Exclusive => "scan_exclusive_sum",
        };
        let (ours_out, cub_out, o, c) = self.scan_outputs::<T>(n)?;
        let mut queues = self.queues(ptrs.len())?;
        let mut theirs = CubCase::device(lib, algo, T::NAME, ptrs, c, n, stream)?;
        let mut ours = |_: sys::CUstream, i: u64| {
            let (input, q) = rotated(ptrs, &mut queues, i);
            // SAFETY: `input` and `o` hold n items of T each, disjoint, alive until `row` has
            // waited for the stream.
            unsafe { q.scan_raw::<T, Sum>(input, o, n, kind) }.map_err(|e| e.to_string())
        };
        let side = Sides {
            ours_out: &ours_out,
            cub_out: &cub_out,
            want,
            cub_first,
            skip: self.offset,
        };
        let bytes = (2 * n * std::mem::size_of::<T>()) as f64;
        self.row(algo, T::NAME, n, bytes, false, &mut ours, &mut theirs, side)
    }

    /// Batched rows: each of the `want.len()` rows of `width` items at each of `ptrs`
    /// (rotated) summed into one item, against CUB's `DeviceSegmentedReduce::Sum`.
    fn rows_reduce_row<T: Data>(
        &mut self,
        ptrs: &[u64],
        width: usize,
        want: &[T],
    ) -> Result<(), String> {
        let (stream, lib) = (self.stream, self.lib);
        let (count, n) = (want.len(), want.len() * width);
        let ours_out = alloc::<T>(stream, count)?;
        let cub_out = alloc::<T>(stream, count)?;
        let (o, c) = (ptr(stream, &ours_out), ptr(stream, &cub_out));
        let mut queues = self.queues(ptrs.len())?;
        let algo = "rows_reduce_sum";
        let mut theirs = CubCase::rows(lib, algo, T::NAME, ptrs, c, count, width, stream)?;
        let mut ours = |_: sys::CUstream, i: u64| {
            let (input, q) = rotated(ptrs, &mut queues, i);
            // SAFETY: `input` holds n items of T and `o` `count`, alive until `row` has waited
            // for the stream.
            unsafe { q.rows_reduce_raw::<T, Sum>(input, n, width, o, count) }
                .map_err(|e| e.to_string())
        };
        let side = Sides {
            ours_out: &ours_out,
            cub_out: &cub_out,
            want,
            cub_first: None,
            skip: 0,
        };
        let bytes = ((n + count) * std::mem::size_of::<T>()) as f64;
        let name = format!("{algo}_w{width}");
        self.row(&name, T::NAME, n, bytes, true, &mut ours, &mut theirs, side)
    }

    /// Batched rows: the inclusive sum scan of each row of `width` items at each of `ptrs`
    /// (rotated), against CUB's `DeviceScan::InclusiveSumByKey` with the row as the key.
    fn rows_scan_row<T: Data>(
        &mut self,
        ptrs: &[u64],
        width: usize,
        want: &[T],
    ) -> Result<(), String> {
        let (stream, lib) = (self.stream, self.lib);
        let n = want.len();
        let (ours_out, cub_out, o, c) = self.scan_outputs::<T>(n)?;
        let mut queues = self.queues(ptrs.len())?;
        let algo = "rows_scan_sum";
        let count = n / width;
        let mut theirs = CubCase::rows(lib, algo, T::NAME, ptrs, c, count, width, stream)?;
        let mut ours = |_: sys::CUstream, i: u64| {
            let (input, q) = rotated(ptrs, &mut queues, i);
            // SAFETY: `input` and `o` hold n items of T each, disjoint, alive until `row` has
            // waited for the stream.
            unsafe { q.rows_scan_raw::<T, Sum>(input, o, n, width, ScanKind::Inclusive) }
                .map_err(|e| e.to_string())
        };
        let side = Sides {
            ours_out: &ours_out,
            cub_out: &cub_out,
            want,
            cub_first: None,
            skip: self.offset,
        };
        let bytes = (2 * n * std::mem::size_of::<T>()) as f64;
        let name = format!("{algo}_w{width}");
        self.row(
            &name,
            T::NAME,
            n,
            bytes,
            false,
            &mut ours,
            &mut theirs,
            side,
        )
    }

    /// Arg-min of `n` random `f32` or `f64` (multiples of 2^-8 in [-2^15, 2^15): at 2^28
    /// items each value occurs about 16 times, so the lowest-index rule is exercised).
    fn arg_min<T: ArgMinValue>(&mut self, n: usize) {
        if let Err(e) = self.try_arg_min::<T>(n) {
            fail(&format!(
                "arg_min {} {}: {e}",
                T::NAME,
                report::size_label(n)
            ));
        }
    }

    fn try_arg_min<T: ArgMinValue>(&mut self, n: usize) -> Result<(), String> {
        let (stream, lib) = (self.stream, self.lib);
        let mut rng = StdRng::seed_from_u64(0xa59 ^ n as u64);
        let host: Vec<T> = (0..n)
            .map(|_| T::from_grid(rng.random_range(-(1i32 << 23)..(1 << 23))))
            .collect();
        let mut at = 0usize;
        for (i, &x) in host.iter().enumerate() {
            if x < host[at] {
                at = i;
            }
        }
        let (want, host_min) = (host[at].words(at), host[at]);
        let (_inputs, ptrs) = upload(stream, &host, self.offset)?;
        drop(host);
        let mut queues = self.queues(ptrs.len())?;
        // Both outputs: the value's bits, then the index, each a word of the value's width.
        let ours_out = alloc::<T::Word>(stream, 2)?;
        let cub_out = alloc::<T::Word>(stream, 2)?;
        let (o, c) = (ptr(stream, &ours_out), ptr(stream, &cub_out));
        let mut theirs = CubCase::device(lib, "arg_min", T::NAME, &ptrs, c, n, stream)?;
        let mut ours = |_: sys::CUstream, i: u64| {
            let (input, q) = rotated(&ptrs, &mut queues, i);
            // SAFETY: `input` holds n items, `o` two words, alive until `row` has waited.
            unsafe { q.arg_reduce_into_raw::<T, ArgMin>(input, n, o) }.map_err(|e| e.to_string())
        };
        let side = Sides {
            ours_out: &ours_out,
            cub_out: &cub_out,
            want: &want,
            cub_first: T::cub_value_word(host_min),
            skip: 0,
        };
        let bytes = (n * size_of::<T>()) as f64;
        self.row(
            "arg_min",
            T::NAME,
            n,
            bytes,
            true,
            &mut ours,
            &mut theirs,
            side,
        )
    }

    /// Checks a row ([`Bench::check`]); times it if it passed, reports it if not; then waits
    /// for the stream, so that the caller may free the row's buffers.
    #[allow(clippy::too_many_arguments)]
    fn row<V: Out>(
        &mut self,
        algo: &str,
        ty: &'static str,
        n: usize,
        bytes: f64,
        read_limit: bool,
        ours: &mut impl pairs::Enqueue,
        theirs: &mut CubCase,
        side: Sides<V>,
    ) -> Result<(), String> {
        let what = format!("{algo} {ty} {}", report::size_label(n));
        match self.check(&what, ours, theirs, &side)? {
            None => self.time(algo, ty, n, bytes, read_limit, ours, theirs),
            Some(e) => self.reject(e),
        }
        self.stream
            .synchronize()
            .map_err(|e| format!("{what}: wait for the stream before freeing the outputs: {e}"))
    }

    /// One run of each side into poisoned outputs, compared with the host's result bit for
    /// bit, then a second warpkit run compared with its first. `Ok(Some(..))`: what differs.
    fn check<V: Out>(
        &mut self,
        what: &str,
        ours: &mut impl pairs::Enqueue,
        theirs: &mut CubCase,
        side: &Sides<V>,
    ) -> Result<Option<String>, String> {
        let stream = self.stream;
        let raw = stream.cu_stream();
        let sync = |step: &str| {
            stream
                .synchronize()
                .map_err(|e| format!("{what}: check: {step}: {e}"))
        };
        poison(stream, side.ours_out)?;
        poison(stream, side.cub_out)?;
        ours.enqueue(raw, 0)
            .map_err(|e| format!("{what}: check run of warpkit: {e}"))?;
        sync("warpkit's run")?;
        theirs
            .enqueue(raw, 0)
            .map_err(|e| format!("{what}: check run of CUB: {e}"))?;
        sync("CUB's run")?;
        // (The items before `skip` are left in the vectors: no copy of the rest.)
        let first_run = read(stream, side.ours_out)?;
        let first = &first_run[side.skip..];
        let mut cub_run = read(stream, side.cub_out)?;
        let cub = &mut cub_run[side.skip..];
        // CUB's own first item, where its convention differs, checked here; the rest below.
        let cub_first = side.cub_first.map(|f| (f, cub.first().copied()));
        if let Some((f, Some(got))) = cub_first {
            if bytemuck::bytes_of(&got) != bytemuck::bytes_of(&f) {
                return Ok(Some(format!(
                    "{what}: CUB's first item {got:?}, expected {f:?}"
                )));
            }
            cub[0] = side.want[0];
        }
        let mut problems: Vec<String> = [
            differs("warpkit against the host", first, side.want),
            differs("CUB against the host", cub, side.want),
        ]
        .into_iter()
        .flatten()
        .collect();
        poison(stream, side.ours_out)?;
        ours.enqueue(raw, 0)
            .map_err(|e| format!("{what}: second check run of warpkit: {e}"))?;
        sync("warpkit's second run")?;
        let second = read(stream, side.ours_out)?;
        problems.extend(differs(
            "warpkit's second run against its first",
            &second[side.skip..],
            first,
        ));
        Ok((!problems.is_empty()).then(|| format!("{what}: {}", problems.join(" | "))))
    }

    fn reject(&mut self, e: String) {
        eprintln!("CHECK FAILED: {e}");
        self.failed.push(e);
    }
}

/// What a row's outputs are read as: device values compared bit for bit.
trait Out: bytemuck::Pod + Sync + std::fmt::Debug + DeviceRepr {}
impl<V: bytemuck::Pod + Sync + std::fmt::Debug + DeviceRepr> Out for V {}

/// A value type of the arg-min rows: its output is two words of its width (its bits, then the
/// index), warpkit's layout, which CUB's entry point writes too.
trait ArgMinValue: warpkit_host::ArgElement + DeviceRepr + Default + PartialOrd {
    type Word: Out + ValidAsZeroBits;
    /// `k × 2^-8`.
    fn from_grid(k: i32) -> Self;
    /// The output for this value as the minimum, at `index`.
    fn words(self, index: usize) -> [Self::Word; 2];
    /// CUB's first word where it differs from warpkit's (`Sides::cub_first`).
    fn cub_value_word(self) -> Option<Self::Word> {
        None
    }
}

/// `k × 2^-8` rounded to the nearest half (many ties: the lowest-index rule is exercised at
/// every size). CUB writes the value's two bytes ([`cub_half_in_word`]); warpkit writes the
/// next two as zero.
macro_rules! half_arg_min_value {
    ($($t:ty),*) => {$(
        impl ArgMinValue for $t {
            type Word = u32;
            fn from_grid(k: i32) -> $t {
                <$t>::from_f32(k as f32 / 256.0)
            }
            fn words(self, index: usize) -> [u32; 2] {
                [self.to_bits() as u32, index as u32]
            }
            fn cub_value_word(self) -> Option<u32> {
                Some(cub_half_in_word(self.to_bits()))
            }
        }
    )*};
}

half_arg_min_value!(f16, bf16);

impl ArgMinValue for f32 {
    type Word = u32;
    fn from_grid(k: i32) -> f32 {
        k as f32 / 256.0
    }
    fn words(self, index: usize) -> [u32; 2] {
        [self.to_bits(), index as u32]
    }
}

impl ArgMinValue for f64 {
    type Word = u64;
    fn from_grid(k: i32) -> f64 {
        k as f64 / 256.0
    }
    fn words(self, index: usize) -> [u64; 2] {
        [self.to_bits(), index as u64]
    }
}

/// A row's two output buffers and the host's expected contents.
struct Sides<'a, V> {
    ours_out: &'a CudaSlice<V>,
    cub_out: &'a CudaSlice<V>,
    want: &'a [V],
    /// CUB's first item, where its convention differs from warpkit's `want[0]`.
    cub_first: Option<V>,
    /// Items of the buffers before the outputs' first item (left as poisoned).
    skip: usize,
}

fn show(id: &str, bytes: f64, c: &Comparison) {
    let (o, b, r) = (c.ours(), c.cub(), c.ratios());
    eprintln!(
        "{id}: warpkit {:.2} µs ({:.0} GB/s) [p10 {:.2}, p90 {:.2}], CUB {:.2} µs ({:.0} GB/s) \
         [{:.2}, {:.2}], CUB/warpkit {:.3} [{:.3}, {:.3}], {} runs per sample",
        o.median * 1e6,
        bytes / o.median / 1e9,
        o.p10 * 1e6,
        o.p90 * 1e6,
        b.median * 1e6,
        bytes / b.median / 1e9,
        b.p10 * 1e6,
        b.p90 * 1e6,
        r.median,
        r.p10,
        r.p90,
        c.iters
    );
}
