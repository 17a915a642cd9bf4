//! `bench-pairs` (needs a GPU and nvcc): proves the in-process CUB plumbing and the paired
//! sampler without warpkit's kernels.
//!
//! 1. Builds `libwarpkit_cub.so` and checks every entry point (9 whole-array operations and
//!    4 row operations on 6 types) against a host reference on small non-zero inputs.
//! 2. Times, paired on one stream, warm and (where the data fits in L2) cold:
//!    - `aa_scan_inclusive_sum`: CUB against itself, an A/A test: the pair ratio must read
//!      1.00 within 10%, or the run fails;
//!    - `copy_vs_scan_inclusive_sum`: a device-to-device copy (`cuMemcpyDtoDAsync`, as "ours")
//!      against CUB's inclusive sum of the same u32 items.
//!
//! Writes pairs.md, pairs.csv, pairs.svg and criterion's report (one case) to
//! `$WARPKIT_BENCH_OUT` (default `target/warpkit-bench`).

use criterion::Criterion;
use cudarc::driver::{CudaContext, CudaStream, result, sys};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use warpkit_benches::cub::{self, CubCase, CubLib};
use warpkit_benches::mem::DeviceMem;
use warpkit_benches::pairs::{self, Comparison, Config, Sampler};
use warpkit_benches::report::{self, Row};

/// Inputs rotate over at least this many bytes (at most 16 buffers), as in the throughput bench.
const ROTATE_BYTES: usize = 256 << 20;

fn main() {
    // cudarc panics when it finds no libcuda: say so in one line instead.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let ctx = std::panic::catch_unwind(|| CudaContext::new(0));
    std::panic::set_hook(hook);
    let ctx = match ctx {
        Ok(Ok(ctx)) => ctx,
        Ok(Err(e)) => fail(&format!("no CUDA device: {e}")),
        Err(_) => fail("no CUDA driver library"),
    };
    let stream = ctx.new_stream().expect("stream");
    let out = std::env::var_os("WARPKIT_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/warpkit-bench"));
    std::fs::create_dir_all(&out).expect("output folder");
    let (major, minor) = ctx.compute_capability().expect("compute capability");
    let lib = CubLib::build(
        &cub::source(),
        &cub::build_dir(),
        (major as u32, minor as u32),
    )
    .unwrap_or_else(|e| fail(&format!("CUB library: {e}")));
    let name = ctx.name().unwrap_or_default();
    eprintln!(
        "{name}, sm_{major}{minor}, CUB {} ({})",
        lib.version,
        lib.path.display()
    );

    let checked = check_all(&lib, &ctx, &stream).unwrap_or_else(|e| fail(&e));
    eprintln!("checked {checked} CUB entry points against the host reference");

    let mut sampler =
        Sampler::new(&stream, Config::default()).unwrap_or_else(|e| fail(&e.to_string()));
    let l2 = sampler.l2_bytes().unwrap_or_else(|e| fail(&e.to_string()));
    let copy_bw = copy_limit(&ctx, &stream).unwrap_or_else(|e| fail(&format!("copy limit: {e}")));
    eprintln!(
        "L2 {} MiB; copy limit {:.0} GB/s (cuMemcpyDtoDAsync of 512 MiB, bytes read + written)",
        l2 >> 20,
        copy_bw / 1e9
    );
    let mut criterion = Criterion::default()
        .output_directory(&out.join("criterion"))
        .measurement_time(Duration::from_millis(500))
        .warm_up_time(Duration::from_millis(200))
        .sample_size(10)
        .without_plots();
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for n in [1usize << 16, 1 << 20, 1 << 26] {
        let bytes = n * 4;
        let host: Vec<u32> = (0..n).map(make_u32).collect();
        let count = ROTATE_BYTES.div_ceil(bytes).clamp(1, 16);
        let inputs: Vec<DeviceMem> = (0..count)
            .map(|_| DeviceMem::from_slice(&ctx, &host).expect("input"))
            .collect();
        let ptrs: Vec<sys::CUdeviceptr> = inputs.iter().map(|m| m.ptr()).collect();
        let output = DeviceMem::new(&ctx, bytes).expect("output");
        let scan = |ctx_stream: &Arc<CudaStream>| {
            CubCase::device(
                &lib,
                "scan_inclusive_sum",
                "u32",
                &ptrs,
                output.ptr(),
                n,
                ctx_stream,
            )
            .expect("CUB case")
        };
        let (mut a, mut b) = (scan(&stream), scan(&stream));
        let mut copy = |s: sys::CUstream, run: u64| {
            let src = ptrs[(run % ptrs.len() as u64) as usize];
            unsafe { result::memcpy_dtod_async(output.ptr(), src, bytes, s) }
                .map_err(|e| format!("cuMemcpyDtoDAsync of {bytes} bytes: {e}"))
        };
        let mut modes = vec![pairs::L2::Warm];
        if sampler
            .fits_in_l2(2 * bytes)
            .unwrap_or_else(|e| fail(&e.to_string()))
        {
            modes.push(pairs::L2::Cold);
        }
        let k = n.trailing_zeros();
        for &mode in &modes {
            let aa = sampler
                .compare(mode, &mut a, &mut b)
                .unwrap_or_else(|e| fail(&format!("A/A 2^{k} {}: {e}", mode.name())));
            let r = aa.ratio();
            if !(0.9..=1.1).contains(&r) {
                failed.push(format!(
                    "A/A 2^{} {}: ratio {r:.3}",
                    n.trailing_zeros(),
                    mode.name()
                ));
            }
            show("aa_scan_inclusive_sum", n, &aa);
            rows.push(Row::from_comparison(
                "aa_scan_inclusive_sum",
                "u32",
                n,
                2.0 * bytes as f64,
                &aa,
                copy_bw,
                "copy",
            ));
            let c = sampler
                .compare(mode, &mut copy, &mut a)
                .unwrap_or_else(|e| fail(&format!("copy vs CUB 2^{k} {}: {e}", mode.name())));
            show("copy_vs_scan_inclusive_sum", n, &c);
            rows.push(Row::from_comparison(
                "copy_vs_scan_inclusive_sum",
                "u32",
                n,
                2.0 * bytes as f64,
                &c,
                copy_bw,
                "copy",
            ));
        }
        if n == 1 << 20 {
            let id = format!("copy_vs_scan_inclusive_sum/u32/{n}");
            pairs::criterion_sides(&mut criterion, &id, &stream, &mut copy, &mut a);
        }
    }
    let header = format!(
        "Device: {name}. CUB {}. Copy limit {:.0} GB/s. Paired A/B sampling, {} pairs per row; \
         \"ours\" is CUB itself (aa_) or a device-to-device copy (copy_vs_).",
        lib.version,
        copy_bw / 1e9,
        Config::default().pairs
    );
    let md = report::markdown(&rows, &header);
    std::fs::write(out.join("pairs.md"), &md).expect("write pairs.md");
    std::fs::write(out.join("pairs.csv"), report::csv(&rows)).expect("write pairs.csv");
    if let Err(e) = report::plot(&rows, &out.join("pairs.svg")) {
        eprintln!("plot failed: {e}");
    }
    println!("{md}");
    println!(
        "wrote {0}/pairs.md, {0}/pairs.csv, {0}/pairs.svg",
        out.display()
    );
    if !failed.is_empty() {
        fail(&format!(
            "A/A ratios off 1.00 by more than 10%: {}",
            failed.join("; ")
        ));
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("bench-pairs: {msg}");
    std::process::exit(1)
}

fn show(what: &str, n: usize, c: &Comparison) {
    let (o, b, r) = (c.ours(), c.cub(), c.ratios());
    eprintln!(
        "{what} 2^{} {}: iters {}, ours {:.2} µs [{:.2}, {:.2}], CUB {:.2} µs [{:.2}, {:.2}], \
         CUB/ours {:.3} [{:.3}, {:.3}] (median [p10, p90])",
        n.trailing_zeros(),
        c.l2.name(),
        c.iters,
        o.median * 1e6,
        o.p10 * 1e6,
        o.p90 * 1e6,
        b.median * 1e6,
        b.p10 * 1e6,
        b.p90 * 1e6,
        r.median,
        r.p10,
        r.p90
    );
}

fn make_u32(i: usize) -> u32 {
    ((i as u64).wrapping_mul(2654435761) % 1000) as u32
}

/// The copy limit: median of 5 samples of 5 back-to-back 512 MiB copies.
fn copy_limit(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>) -> Result<f64, String> {
    let bytes = 512usize << 20;
    let src = DeviceMem::new(ctx, bytes).map_err(|e| format!("allocate: {e}"))?;
    let dst = DeviceMem::new(ctx, bytes).map_err(|e| format!("allocate: {e}"))?;
    unsafe { result::memset_d8_async(src.ptr(), 7, bytes, stream.cu_stream()) }
        .map_err(|e| format!("memset: {e}"))?;
    let mut copy = |s: sys::CUstream, _run: u64| {
        unsafe { result::memcpy_dtod_async(dst.ptr(), src.ptr(), bytes, s) }
            .map_err(|e| format!("cuMemcpyDtoDAsync: {e}"))
    };
    pairs::time_runs(stream, 20, &mut copy).map_err(|e| e.to_string())?;
    let mut samples = Vec::new();
    for _ in 0..5 {
        let t = pairs::time_runs(stream, 5, &mut copy).map_err(|e| e.to_string())?;
        samples.push(t.as_secs_f64() / 5.0);
    }
    Ok(2.0 * bytes as f64 / pairs::median(&samples))
}

/// Host-side reference arithmetic for the six types.
trait Elem: Copy + std::fmt::Debug {
    const NAME: &'static str;
    const ZERO: Self;
    /// Identities of min and max (what the library's exclusive min/max scans start with).
    const MIN_ID: Self;
    const MAX_ID: Self;
    fn make(i: usize) -> Self;
    fn add(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn magnitude(self) -> f64;
    /// Equal for integers; within rounding for floats (`scale`: sum of magnitudes so far).
    fn close(got: Self, want: Self, scale: f64) -> bool;
}

macro_rules! int_elems { ($($t:ty, $name:expr, $offset:expr;)*) => {$(
    impl Elem for $t {
        const NAME: &'static str = $name;
        const ZERO: Self = 0;
        const MIN_ID: Self = <$t>::MAX;
        const MAX_ID: Self = <$t>::MIN;
        fn make(i: usize) -> Self { make_u32(i) as $t - $offset }
        fn add(self, o: Self) -> Self { self.wrapping_add(o) }
        fn min(self, o: Self) -> Self { Ord::min(self, o) }
        fn max(self, o: Self) -> Self { Ord::max(self, o) }
        fn magnitude(self) -> f64 { (self as f64).abs() }
        fn close(got: Self, want: Self, _: f64) -> bool { got == want }
    }
)*}}
int_elems! { u32, "u32", 0; i32, "i32", 500; u64, "u64", 0; i64, "i64", 500; }

macro_rules! float_elems { ($($t:ty, $name:expr;)*) => {$(
    impl Elem for $t {
        const NAME: &'static str = $name;
        const ZERO: Self = 0.0;
        const MIN_ID: Self = <$t>::INFINITY;
        const MAX_ID: Self = <$t>::NEG_INFINITY;
        fn make(i: usize) -> Self { make_u32(i) as $t * 1e-3 - 0.5 }
        fn add(self, o: Self) -> Self { self + o }
        fn min(self, o: Self) -> Self { if o < self { o } else { self } }
        fn max(self, o: Self) -> Self { if o > self { o } else { self } }
        fn magnitude(self) -> f64 { (self as f64).abs() }
        fn close(got: Self, want: Self, scale: f64) -> bool {
            got == want || ((got - want) as f64).abs() <= 64.0 * <$t>::EPSILON as f64 * scale
        }
    }
)*}}
float_elems! { f32, "f32"; f64, "f64"; }

/// `(values, magnitude scale)` of `algo` on `x`, computed on the host.
fn reference<T: Elem>(algo: &str, x: &[T]) -> Vec<(T, f64)> {
    let (op, id): (fn(T, T) -> T, T) = if algo.ends_with("_sum") {
        (T::add, T::ZERO)
    } else if algo.ends_with("_min") {
        (T::min, T::MIN_ID)
    } else {
        (T::max, T::MAX_ID)
    };
    let (mut acc, mut scale) = (id, 0.0);
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        if algo.starts_with("scan_exclusive") {
            out.push((acc, scale));
        }
        acc = op(acc, v);
        scale += v.magnitude();
        if algo.starts_with("scan_inclusive") {
            out.push((acc, scale));
        }
    }
    if algo.starts_with("reduce") {
        out.push((acc, scale));
    }
    out
}

fn check_all(
    lib: &CubLib,
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
) -> Result<usize, String> {
    Ok(check::<u32>(lib, ctx, stream)?
        + check::<i32>(lib, ctx, stream)?
        + check::<u64>(lib, ctx, stream)?
        + check::<i64>(lib, ctx, stream)?
        + check::<f32>(lib, ctx, stream)?
        + check::<f64>(lib, ctx, stream)?)
}

/// Runs every entry point for `T` once and compares with [`reference`]; the output is
/// poisoned before each run.
fn check<T: Elem>(
    lib: &CubLib,
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
) -> Result<usize, String> {
    let e = |e: cudarc::driver::DriverError| e.to_string();
    let (n, rows, width) = (10_007usize, 37usize, 300usize);
    let host: Vec<T> = (0..n.max(rows * width)).map(T::make).collect();
    let input = DeviceMem::from_slice(ctx, &host).map_err(e)?;
    let out = DeviceMem::new(ctx, host.len() * size_of::<T>()).map_err(e)?;
    let raw = stream.cu_stream();
    let run = |case: &mut CubCase, len: usize| -> Result<Vec<T>, String> {
        unsafe { result::memset_d8_async(out.ptr(), 0xa5, out.bytes(), raw) }.map_err(e)?;
        case.launch(raw, 0)?;
        stream.synchronize().map_err(e)?;
        let mut got = vec![T::ZERO; len];
        out.read(&mut got).map_err(e)?;
        Ok(got)
    };
    let compare = |what: &str, got: &[T], want: &[(T, f64)]| -> Result<(), String> {
        for (i, (g, (w, scale))) in got.iter().zip(want).enumerate() {
            if !T::close(*g, *w, *scale) {
                return Err(format!(
                    "{what} {}: item {i} is {g:?}, expected {w:?}",
                    T::NAME
                ));
            }
        }
        Ok(())
    };
    let mut checked = 0;
    for algo in cub::DEVICE_ALGOS {
        let want = reference(algo, &host[..n]);
        let mut case = CubCase::device(lib, algo, T::NAME, &[input.ptr()], out.ptr(), n, stream)?;
        let got = run(&mut case, want.len())?;
        compare(algo, &got, &want)?;
        checked += 1;
    }
    for algo in cub::ROW_ALGOS {
        let per_row = if algo.contains("reduce") {
            "reduce_sum"
        } else {
            "scan_inclusive_sum"
        };
        let want: Vec<(T, f64)> = host[..rows * width]
            .chunks(width)
            .flat_map(|row| reference(per_row, row))
            .collect();
        let mut case = CubCase::rows(
            lib,
            algo,
            T::NAME,
            &[input.ptr()],
            out.ptr(),
            rows,
            width,
            stream,
        )?;
        let got = run(&mut case, want.len())?;
        compare(algo, &got, &want)?;
        checked += 1;
    }
    Ok(checked)
}
