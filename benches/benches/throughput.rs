//! `cargo xtask bench`: throughput of warpkit's device reduce and scan and its batched (one
//! warp per row) reduce and scan, beside the measured bandwidth limits and CUB, on one GPU in
//! one run. Writes `target/warpkit-bench/{bench.md,bench.csv,throughput.svg}` and criterion's
//! HTML report. Runs from the built executable too (`--quick` for fewer sizes).

use criterion::Criterion;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use warpkit::ops::{Max, Min, Sum};
use warpkit_benches::{report, timing};
use warpkit_host::{Element, Queue, ScanKind, Warpkit, arg};

/// Inputs rotate over at least this many bytes so that repeated runs do not hit in L2.
const ROTATE_BYTES: usize = 256 << 20;
/// Row width of the batched cases.
const ROW_WIDTH: usize = 1024;

struct Bench<'a> {
    wk: &'a Warpkit,
    stream: &'a Arc<CudaStream>,
    criterion: Criterion,
    read_bw: f64,
    copy_bw: f64,
    rows: Vec<report::Row>,
    progress: ProgressBar,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--plot-from") {
        // Redraw a plot from a saved CSV: `--plot-from results.csv plot.svg` (no GPU needed).
        let (csv, svg) = (
            args.get(i + 1).expect("a CSV path"),
            args.get(i + 2).expect("an SVG path"),
        );
        let rows = report::parse_csv(&std::fs::read_to_string(csv).expect("read the CSV"))
            .expect("parse the CSV");
        report::plot(&rows, std::path::Path::new(svg)).expect("draw the plot");
        println!("wrote {svg}");
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let wk = match Warpkit::new(0) {
        Ok(wk) => wk,
        Err(e) => {
            eprintln!(
                "warpkit bench: {e}\nThe benchmark needs an NVIDIA GPU; nothing was measured."
            );
            std::process::exit(1);
        }
    };
    // One stream, and all buffers used on it only: the benchmark orders its work itself, as
    // CUB's raw pointers do, so cudarc's per-use event records are off.
    // SAFETY: no buffer below is used on another stream.
    unsafe { wk.context().disable_event_tracking() };
    let stream = wk.new_stream().expect("stream");
    let out = std::env::var_os("WARPKIT_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/warpkit-bench"));
    std::fs::create_dir_all(&out).expect("output folder");
    let (measure, warm) = if quick {
        (Duration::from_millis(400), Duration::from_millis(150))
    } else {
        (Duration::from_secs(1), Duration::from_millis(300))
    };
    let criterion = Criterion::default()
        .output_directory(&out.join("criterion"))
        .measurement_time(measure)
        .warm_up_time(warm)
        .sample_size(20)
        .without_plots();
    let sizes: Vec<usize> = if quick {
        vec![1 << 16, 1 << 20, 1 << 24, 1 << 28]
    } else {
        (16..=30).step_by(2).map(|k| 1 << k).collect()
    };
    let types = ["u32", "f32", "u64", "f64"];
    let total = sizes.len() * types.len() * 5 + 2 * 2 * 2;
    let progress = ProgressBar::new(total as u64);
    progress
        .set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").expect("template"));
    let mut b = Bench {
        wk: &wk,
        stream: &stream,
        criterion,
        read_bw: 0.0,
        copy_bw: 0.0,
        rows: Vec::new(),
        progress,
    };
    b.measure_limits();
    eprintln!(
        "{}\nread bandwidth {:.0} GB/s, copy bandwidth {:.0} GB/s (bytes read + written)",
        wk.describe(),
        b.read_bw / 1e9,
        b.copy_bw / 1e9
    );
    for &n in &sizes {
        b.device_cases::<u32>(n);
        b.device_cases::<f32>(n);
        b.device_cases::<u64>(n);
        b.device_cases::<f64>(n);
    }
    for n in [1 << 24, 1 << 28] {
        b.row_cases::<u32>(n);
        b.row_cases::<f32>(n);
    }
    b.progress.finish_with_message("done");
    let header = format!(
        "Device: {}. Date: {}. Read limit {:.0} GB/s, copy limit {:.0} GB/s (measured in this run). \
         CUB is compared pair by pair in `bench-pairs` (not yet in this table).",
        wk.describe(),
        date(),
        b.read_bw / 1e9,
        b.copy_bw / 1e9,
    );
    let md = report::markdown(&b.rows, &header);
    std::fs::write(out.join("bench.md"), &md).expect("write bench.md");
    std::fs::write(out.join("bench.csv"), report::csv(&b.rows)).expect("write bench.csv");
    if let Err(e) = report::plot(&b.rows, &out.join("throughput.svg")) {
        eprintln!("plot failed: {e}");
    }
    println!("{md}");
    println!(
        "wrote {0}/bench.md, {0}/bench.csv, {0}/throughput.svg, {0}/criterion/",
        out.display()
    );
}

fn date() -> String {
    std::process::Command::new("date")
        .arg("+%Y-%m-%d")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// Buffers to rotate over so that at least `ROTATE_BYTES` are touched (one when larger).
fn inputs<T: Element>(
    stream: &Arc<CudaStream>,
    n: usize,
    make: impl Fn(usize) -> T,
) -> Vec<CudaSlice<T>> {
    let bytes = n * std::mem::size_of::<T>();
    let count = ROTATE_BYTES.div_ceil(bytes).clamp(1, 16);
    let host: Vec<T> = (0..n).map(make).collect();
    (0..count)
        .map(|_| stream.clone_htod(&host).expect("allocate input"))
        .collect()
}

trait BenchElement: Element + Default + DeviceRepr {
    fn make(i: usize) -> Self;
}
macro_rules! bench_elements { ($($t:ty => $e:expr;)*) => {$(impl BenchElement for $t { fn make(i: usize) -> Self { let f: fn(usize) -> $t = $e; f(i) } })*}; }
bench_elements! {
    u32 => |i| (i as u32).wrapping_mul(2654435761) % 1000;
    u64 => |i| (i as u64).wrapping_mul(2654435761) % 1000;
    f32 => |i| ((i as u32).wrapping_mul(2654435761) % 1000) as f32 * 1e-3 - 0.5;
    f64 => |i| ((i as u32).wrapping_mul(2654435761) % 1000) as f64 * 1e-3 - 0.5;
}

impl Bench<'_> {
    fn measure_limits(&mut self) {
        let vectors = (1usize << 30) / 16;
        let stream = self.stream;
        let src = stream
            .clone_htod(&vec![[1u32, 2, 3, 4]; vectors])
            .expect("allocate");
        let dst = stream.alloc_zeros::<[u32; 4]>(vectors).expect("allocate");
        let sink = stream.alloc_zeros::<u32>(1).expect("allocate");
        let (s, d, k, v) = (
            src.device_ptr(stream).0,
            dst.device_ptr(stream).0,
            sink.device_ptr(stream).0,
            vectors as u64,
        );
        // The probes are test kernels (`warpkit-test-kernels`), not in the library's PTX.
        let (major, minor) = self.wk.compute_capability();
        let (_, ptx) =
            warpkit_builder::Target::best_for(warpkit_tests::ptx::TEST_KERNELS_PTX, major, minor)
                .expect("a test-kernel PTX for this device");
        let probes = self
            .wk
            .context()
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .expect("load the bandwidth probes");
        // The limit is the best a plain streaming kernel reaches: several grid shapes, each
        // timed as the cases are (launches back to back between two events), median per shape.
        let bandwidth = |kernel: &str, args: &[*mut std::ffi::c_void], bytes: f64| {
            let function = probes.load_function(kernel).expect("probe kernel");
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
                            cudarc::driver::result::launch_kernel(
                                function.cu_function(),
                                (grid, 1, 1),
                                (256, 1, 1),
                                0,
                                self.stream.cu_stream(),
                                &mut args,
                            )
                        }
                        .expect("bandwidth probe")
                    });
                }
                best = best.max(bytes / timing::median(&mut samples));
            }
            best
        };
        let bytes = (vectors * 16) as f64;
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

    /// Times one case with criterion (CUDA-event timing); returns the median seconds.
    fn time(&mut self, id: &str, mut work: impl FnMut(u64)) -> f64 {
        let mut samples = Vec::new();
        let stream = self.stream;
        self.criterion.bench_function(id, |b| {
            b.iter_custom(|iters| timing::time_iters(stream, iters, &mut samples, &mut work))
        });
        timing::median(&mut samples)
    }

    fn record(
        &mut self,
        algo: &str,
        ty: &'static str,
        n: usize,
        bytes: f64,
        ours: f64,
        reduce_like: bool,
    ) {
        let (limit, limit_name) = if reduce_like {
            (self.read_bw, "read")
        } else {
            (self.copy_bw, "copy")
        };
        self.rows.push(report::Row {
            algo: algo.into(),
            ty,
            n,
            bytes,
            ours,
            cub: None,
            limit,
            limit_name,
            ..Default::default()
        });
        self.progress.inc(1);
        self.progress
            .set_message(format!("{algo} {ty} 2^{}", n.trailing_zeros()));
    }

    fn device_cases<T: BenchElement>(&mut self, n: usize) {
        let size = std::mem::size_of::<T>();
        let Ok(mut output) = self.stream.alloc_zeros::<T>(n) else {
            eprintln!(
                "{} 2^{}: out of device memory, skipped",
                T::NAME,
                n.trailing_zeros()
            );
            return;
        };
        let inputs = inputs::<T>(self.stream, n, T::make);
        let (wk, stream) = (self.wk, self.stream);
        let mut result = stream.alloc_zeros::<T::Accum>(1).expect("allocate");
        for (algo, op) in [("reduce_sum", 0), ("reduce_min", 1), ("reduce_max", 2)] {
            let mut q = Queue::new(wk, stream).expect("queue");
            let t = self.time(&format!("{algo}/{}/{n}", T::NAME), |i| {
                let input = &inputs[i as usize % inputs.len()];
                match op {
                    0 => q.reduce_into(input, &mut result, Sum),
                    1 => q.reduce_into(input, &mut result, Min),
                    _ => q.reduce_into(input, &mut result, Max),
                }
                .expect("reduce")
            });
            self.record(algo, T::NAME, n, (n * size) as f64, t, true);
        }
        for (algo, kind) in [
            ("scan_inclusive_sum", ScanKind::Inclusive),
            ("scan_exclusive_sum", ScanKind::Exclusive),
        ] {
            let mut q = Queue::new(wk, stream).expect("queue");
            let t = self.time(&format!("{algo}/{}/{n}", T::NAME), |i| {
                q.scan(&inputs[i as usize % inputs.len()], &mut output, Sum, kind)
                    .expect("scan")
            });
            self.record(algo, T::NAME, n, (2 * n * size) as f64, t, false);
        }
    }

    fn row_cases<T: BenchElement>(&mut self, n: usize) {
        let size = std::mem::size_of::<T>();
        let rows = n / ROW_WIDTH;
        let inputs = inputs::<T>(self.stream, n, T::make);
        let mut reduced = self.stream.alloc_zeros::<T>(rows).expect("allocate");
        let mut scanned = self.stream.alloc_zeros::<T>(n).expect("allocate");
        let (wk, stream) = (self.wk, self.stream);
        let mut q = Queue::new(wk, stream).expect("queue");
        let t = self.time(&format!("rows_reduce_sum/{}/{n}", T::NAME), |i| {
            q.rows_reduce(
                &inputs[i as usize % inputs.len()],
                ROW_WIDTH,
                &mut reduced,
                Sum,
            )
            .expect("rows reduce")
        });
        self.record(
            "rows_reduce_sum",
            T::NAME,
            n,
            ((n + rows) * size) as f64,
            t,
            true,
        );
        let t = self.time(&format!("rows_scan_sum/{}/{n}", T::NAME), |i| {
            q.rows_scan(
                &inputs[i as usize % inputs.len()],
                ROW_WIDTH,
                &mut scanned,
                Sum,
                ScanKind::Inclusive,
            )
            .expect("rows scan")
        });
        self.record("rows_scan_sum", T::NAME, n, (2 * n * size) as f64, t, false);
    }
}
