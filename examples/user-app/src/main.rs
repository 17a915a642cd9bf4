//! Launches the example kernels of `user-kernels`, type-checked through their `#[kernel]`
//! descriptors, runs warpkit's reduce and scan on the same cudarc buffers and on the kernel
//! crate's own types (composing affine maps, which is not commutative, and an arg-max over
//! key/index pairs), and checks every result against the CPU. Without a GPU it says so and
//! exits successfully.
//!
//! Run on a GPU machine: `cargo run --release -p user-app` (or the binary from `cargo xtask
//! gpu-pack`). It prints the module load time of the PTX and of the cubin, then one line per
//! check; it exits non-zero at the first mismatch. `--child print|assert` are the kernels run
//! in a child process (their output goes to the process's stdout; a trap kills the context).
//! `--child multi` runs the custom type over two GPUs ([`multi`]).

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig};
use half::f16;
use rand::Rng;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::Instant;
use warpkit_builder::Target;
use warpkit_host::launch::{
    Image, Kernel, Module, device_ptr, device_ptr_mut, driver_version, launch, launch_cluster,
    launch_dependent,
};

include!(concat!(env!("OUT_DIR"), "/user_kernels_ptx.rs"));

mod multi;

type Error = Box<dyn std::error::Error>;

fn cfg(grid: u32, block: u32, shared: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: shared,
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let child_at = args.iter().position(|a| a == "--child");
    let child = child_at.and_then(|i| args.get(i + 1));
    let child_args = child_at.map_or(&args[..0], |i| &args[(i + 2).min(args.len())..]);
    // SAFETY: only probes whether libcuda can be opened.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        println!("skipped: no CUDA driver library (libcuda) on this machine");
        return ExitCode::SUCCESS;
    }
    let ctx = match CudaContext::new(0) {
        Ok(c) => c,
        Err(e) => {
            println!("skipped: no CUDA device ({e})");
            return ExitCode::SUCCESS;
        }
    };
    let result = match child.map(String::as_str) {
        Some("print") => child_print(&ctx),
        Some("assert") => child_assert(&ctx),
        Some("multi") => multi::check(&ctx),
        Some("rank") => multi::rank_process(&ctx, child_args),
        Some(other) => Err(format!("unknown child {other}").into()),
        None => run(&ctx),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            println!("FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The best module for the device: the cubin of exactly its compute capability if there is
/// one, else the PTX of the newest target it runs. Prints what it chose.
fn load_best(ctx: &Arc<CudaContext>, quiet: bool) -> Result<Module, Error> {
    let (major, minor) = ctx.compute_capability()?;
    let (major, minor) = (major as u32, minor as u32);
    let exact = |t: &Target| t.compute == major * 10 + minor;
    if let Some((t, cubin)) = USER_KERNELS_PTX_CUBIN
        .iter()
        .filter(|(t, _)| Target::parse(t).is_some_and(|t| exact(&t)))
        .max_by_key(|(t, _)| Target::parse(t).map(|t| t.arch_specific))
    {
        if !quiet {
            println!("loading the cubin for {t}");
        }
        return Ok(Module::load(ctx, Image::Cubin(cubin))?);
    }
    let (t, ptx) = best_ptx(major, minor)?;
    if !quiet {
        println!("loading the PTX for {t} (no cubin for compute {major}.{minor})");
    }
    Ok(Module::load(ctx, Image::Ptx(ptx))?)
}

/// The PTX of the newest target that runs on compute capability `major.minor` and that the
/// driver compiles (an sm_90 device under a CUDA 12.0 driver gets `sm_80`: the `sm_90` PTX is
/// 8.1).
fn best_ptx(major: u32, minor: u32) -> Result<(&'static str, &'static str), Error> {
    let driver = driver_version()?;
    Target::best_for_driver(USER_KERNELS_PTX, major, minor, driver).ok_or_else(|| {
        format!(
            "no PTX of user-kernels runs on compute {major}.{minor} under driver {driver}: \
             build it for an older target (`Target` list in build.rs) or update the driver"
        )
        .into()
    })
}

/// Module load time of the PTX (JIT-compiled by the driver) and of the cubin, for the
/// device's own target.
fn measure_load_times(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    let (major, minor) = ctx.compute_capability()?;
    let (major, minor) = (major as u32, minor as u32);
    let cache = if std::env::var_os("CUDA_CACHE_DISABLE").is_some_and(|v| v == "1") {
        "JIT cache disabled"
    } else {
        "JIT cache on: set CUDA_CACHE_DISABLE=1 for cold numbers"
    };
    match best_ptx(major, minor) {
        Ok((t, ptx)) => {
            for round in 0..2 {
                let start = Instant::now();
                let m = Module::load(ctx, Image::Ptx(ptx))?;
                let took = start.elapsed();
                drop(m);
                println!(
                    "module load, PTX {t} ({} bytes), load {}: {:.2} ms ({cache})",
                    ptx.len(),
                    round + 1,
                    took.as_secs_f64() * 1e3
                );
            }
        }
        Err(e) => println!("module load of the PTX not measured: {e}"),
    }
    match USER_KERNELS_PTX_CUBIN
        .iter()
        .find(|(t, _)| Target::parse(t).is_some_and(|t| t.compute == major * 10 + minor))
    {
        Some((t, cubin)) => {
            for round in 0..2 {
                let start = Instant::now();
                let m = Module::load(ctx, Image::Cubin(cubin))?;
                let took = start.elapsed();
                drop(m);
                println!(
                    "module load, cubin {t} ({} bytes), load {}: {:.2} ms",
                    cubin.len(),
                    round + 1,
                    took.as_secs_f64() * 1e3
                );
            }
        }
        None => println!("no cubin for compute {major}.{minor}: PTX only"),
    }
    // warpkit's own library module (about a hundred kernels): PTX (JIT) against its cubin.
    type Load = fn(&Arc<CudaContext>) -> Result<warpkit_host::Warpkit, warpkit_host::Error>;
    let loads: [(&str, Load); 2] = [
        ("PTX, JIT-compiled", warpkit_host::Warpkit::from_ptx),
        ("best: cubin if embedded", warpkit_host::Warpkit::on),
    ];
    for (label, load) in loads {
        let start = Instant::now();
        let wk = load(ctx)?;
        println!(
            "warpkit library module load, {label}: {:.2} ms ({}; {cache})",
            start.elapsed().as_secs_f64() * 1e3,
            wk.describe()
        );
    }
    Ok(())
}

fn run(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    println!("{} (compute {:?})", ctx.name()?, ctx.compute_capability()?);
    measure_load_times(ctx)?;
    let module = load_best(ctx, false)?;
    let stream = ctx.new_stream()?;
    check_warp_stats(&module, &stream)?;
    check_block_shapes(&module, &stream)?;
    check_histogram(&module, &stream)?;
    check_math(&module, &stream)?;
    check_half(&module, &stream)?;
    check_dependent_chain(&module, &stream)?;
    check_clusters(&module, &stream)?;
    check_library(ctx, &stream)?;
    check_child("print", check_print_output)?;
    check_child("assert", check_assert_output)?;
    check_child("multi", check_multi_output)?;
    println!("all checks passed");
    Ok(())
}

/// 64 launches of `chain_step` as programmatic dependents, each reading what the one before
/// wrote, with no synchronization between them (small grids, where a launch's start overlaps
/// the previous kernel most).
fn check_dependent_chain(module: &Module, stream: &Arc<CudaStream>) -> Result<(), Error> {
    let n = 4099;
    let mut rng = rand::rng();
    let start: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let mut a = stream.clone_htod(&start)?;
    let mut b = stream.clone_htod(&vec![u32::MAX; n])?;
    let k = Kernel::<user_kernels::chain_step>::find(module)?;
    let grid = (n as u32).div_ceil(256);
    for step in 0..64 {
        let (x, out) = if step % 2 == 0 {
            (&a, &mut b)
        } else {
            (&b, &mut a)
        };
        // SAFETY: both buffers hold `n` values; the kernel waits in its prologue.
        unsafe {
            launch_dependent(
                &k,
                stream,
                cfg(grid, 256, 0),
                (device_ptr(x, stream), device_ptr_mut(out, stream), n as u32),
            )?;
        }
    }
    let got = stream.clone_dtoh(&a)?;
    let want: Vec<u32> = start
        .iter()
        .map(|&v| (0..64).fold(v, |v, _| v.wrapping_mul(3).wrapping_add(1)))
        .collect();
    if got != want {
        return Err("dependent launch chain: results differ from the CPU's".into());
    }
    // SAFETY: a function of a loaded module; the query only reads its attributes.
    let ptx_target = unsafe {
        cudarc::driver::result::function::get_function_attribute(
            k.cu_function(),
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PTX_VERSION,
        )
    }?;
    println!(
        "ok: 64 dependent launches of chain_step (PTX target {ptx_target}), each saw the one before"
    );
    Ok(())
}

/// `cluster_sums` in clusters of 1, 2, 8 and the most blocks the device holds in one (16 on an
/// H100 or H200), each block's and each cluster's sum checked against the CPU; a grid that is
/// not a whole number of clusters, and a cluster larger than the device holds, refused before
/// the launch.
fn check_clusters(module: &Module, stream: &Arc<CudaStream>) -> Result<(), Error> {
    let (major, minor) = stream.context().compute_capability()?;
    if major < 9 {
        println!("skipped: thread block clusters need compute 9.0 (this is {major}.{minor})");
        return Ok(());
    }
    let k = Kernel::<user_kernels::cluster_sums>::find(module)?;
    let block = 128u32;
    let max = k.max_cluster_blocks(cfg(1, block, 0))?;
    if max < 8 {
        return Err(
            format!("clusters of 8 blocks are portable, but the device holds {max}").into(),
        );
    }
    // (`cluster_sums` has slots for 16 blocks, the most any device holds today.)
    let mut sizes = vec![1, 2, 8, max.min(16)];
    sizes.dedup();
    let clusters = 37u32;
    let largest = clusters * sizes[sizes.len() - 1];
    let mut rng = rand::rng();
    let values: Vec<u32> = (0..largest * block).map(|_| rng.random()).collect();
    let dv = stream.clone_htod(&values)?;
    let poison = vec![u64::MAX; largest as usize];
    let mut sums = stream.clone_htod(&poison)?;
    let mut echoes = stream.clone_htod(&poison)?;
    let launch_sums = |grid: u32, shape, sums: &mut CudaSlice<u64>, echoes: &mut _| {
        let args = (
            device_ptr(&dv, stream),
            device_ptr_mut(sums, stream),
            device_ptr_mut(echoes, stream),
        );
        // SAFETY: 1-D grids of at most `largest` blocks of 128 threads, as many as the buffers
        // have values, sums and echoes for; clusters of at most 16 blocks along x (the refused
        // ones below never launch: `launch_cluster` checks them first).
        unsafe { launch_cluster(&k, stream, cfg(grid, block, 0), shape, args) }
    };
    for &size in &sizes {
        let grid = size * clusters;
        stream.memcpy_htod(&poison, &mut sums)?;
        stream.memcpy_htod(&poison, &mut echoes)?;
        launch_sums(grid, (size, 1, 1), &mut sums, &mut echoes)?;
        let blocks: Vec<u64> = values[..(grid * block) as usize]
            .chunks(block as usize)
            .map(|b| b.iter().map(|&v| u64::from(v)).sum())
            .collect();
        let want: Vec<u64> = blocks
            .chunks(size as usize)
            .map(|c| c.iter().sum())
            .collect();
        let (got_sums, got_echoes) = (stream.clone_dtoh(&sums)?, stream.clone_dtoh(&echoes)?);
        // Past this launch's blocks and clusters the poison stays.
        let (got_echoes, echoes_past) = got_echoes.split_at(grid as usize);
        let (got_sums, sums_past) = got_sums.split_at(clusters as usize);
        let untouched = echoes_past.iter().chain(sums_past).all(|&v| v == u64::MAX);
        if got_echoes != blocks || got_sums != want || !untouched {
            return Err(format!(
                "cluster_sums in clusters of {size}: results differ from the CPU's"
            )
            .into());
        }
    }
    // Refused before the launch: a partial cluster, a cluster larger than the device holds, a
    // cluster with a y extent on a grid without one.
    let refused = [
        (2 * clusters + 1, (2, 1, 1)),
        (max + 1, (max + 1, 1, 1)),
        (4, (2, 2, 1)),
    ];
    for (grid, shape) in refused {
        match launch_sums(grid, shape, &mut sums, &mut echoes) {
            Err(warpkit_host::Error::BadCluster { .. }) => {}
            other => {
                return Err(format!(
                    "a grid of {grid} blocks in clusters of {shape:?} was not refused: {other:?}"
                )
                .into());
            }
        }
    }
    println!(
        "ok: cluster_sums in clusters of {sizes:?} blocks (the device holds at most {max}), sums through distributed shared memory; partial and oversized clusters refused"
    );
    Ok(())
}

fn check_warp_stats(module: &Module, stream: &Arc<CudaStream>) -> Result<(), Error> {
    let n = 1 << 16;
    let mut rng = rand::rng();
    let values: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let keys: Vec<u32> = (0..n).map(|_| rng.random_range(0..4)).collect();
    let (dv, dk) = (stream.clone_htod(&values)?, stream.clone_htod(&keys)?);
    let mut sums = stream.clone_htod(&vec![f32::NAN; n / 32])?;
    let mut maxima = stream.clone_htod(&vec![f32::NAN; n / 8])?;
    let mut ranks = stream.clone_htod(&vec![u32::MAX; n])?;
    let k = Kernel::<user_kernels::warp_stats>::find(module)?;
    // SAFETY: one thread per value, outputs sized as the kernel documents.
    unsafe {
        launch(
            &k,
            stream,
            cfg((n / 256) as u32, 256, 0),
            (
                device_ptr(&dv, stream),
                device_ptr(&dk, stream),
                device_ptr_mut(&mut sums, stream),
                device_ptr_mut(&mut maxima, stream),
                device_ptr_mut(&mut ranks, stream),
            ),
        )?;
    }
    let values_u: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
    let du = stream.clone_htod(&values_u)?;
    let mut prefix = stream.clone_htod(&vec![u32::MAX; n])?;
    let k = Kernel::<user_kernels::block_prefix_sums>::find(module)?;
    // SAFETY: 256-thread blocks cover the input.
    unsafe {
        launch(
            &k,
            stream,
            cfg((n / 256) as u32, 256, 0),
            (device_ptr(&du, stream), device_ptr_mut(&mut prefix, stream)),
        )?;
    }
    let (s, m, r, p) = (
        stream.clone_dtoh(&sums)?,
        stream.clone_dtoh(&maxima)?,
        stream.clone_dtoh(&ranks)?,
        stream.clone_dtoh(&prefix)?,
    );
    for (w, got) in s.iter().enumerate() {
        let want: f64 = values[w * 32..][..32].iter().map(|&x| x as f64).sum();
        if (*got as f64 - want).abs() >= 1e-4 {
            return Err(format!("warp {w}: {got} vs {want}").into());
        }
    }
    for (g, got) in m.iter().enumerate() {
        let want = values[g * 8..][..8]
            .iter()
            .cloned()
            .fold(f32::NEG_INFINITY, f32::max);
        if *got != want {
            return Err(format!("group {g}: max {got} vs {want}").into());
        }
    }
    for i in 0..n {
        let base = i / 32 * 32;
        let want = (base..i).filter(|&j| keys[j] == keys[i]).count() as u32;
        if r[i] != want {
            return Err(format!("rank of lane {i}: {} vs {want}", r[i]).into());
        }
        let block = i / 256 * 256;
        let want: u32 = values_u[block..=i].iter().sum();
        if p[i] != want {
            return Err(format!("block prefix at {i}: {} vs {want}", p[i]).into());
        }
    }
    println!("ok: warp sums, Tile<8> maxima, match.any ranks, block prefix sums of {n} values");
    Ok(())
}

fn check_block_shapes(module: &Module, stream: &Arc<CudaStream>) -> Result<(), Error> {
    let mut rng = rand::rng();
    let k = Kernel::<user_kernels::block_scan_any_shape>::find(module)?;
    for shape in [
        (16u32, 16u32, 1u32),
        (32, 8, 1),
        (8, 4, 8),
        (96, 1, 1),
        (2, 16, 3),
    ] {
        let threads = (shape.0 * shape.1 * shape.2) as usize;
        let blocks = 37;
        let n = threads * blocks;
        let values: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
        let dv = stream.clone_htod(&values)?;
        let mut out = stream.clone_htod(&vec![u32::MAX; n])?;
        let mut totals = stream.clone_htod(&vec![u32::MAX; blocks])?;
        let config = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: shape,
            shared_mem_bytes: 0,
        };
        // SAFETY: one value per thread; every shape has a multiple of 32 threads.
        unsafe {
            launch(
                &k,
                stream,
                config,
                (
                    device_ptr(&dv, stream),
                    device_ptr_mut(&mut out, stream),
                    device_ptr_mut(&mut totals, stream),
                ),
            )?;
        }
        let (got, got_totals) = (stream.clone_dtoh(&out)?, stream.clone_dtoh(&totals)?);
        for b in 0..blocks {
            let mut acc = 0u32;
            for t in 0..threads {
                acc += values[b * threads + t];
                if got[b * threads + t] != acc {
                    return Err(format!(
                        "block shape {shape:?}, block {b}, thread {t}: {} vs {acc}",
                        got[b * threads + t]
                    )
                    .into());
                }
            }
            if got_totals[b] != acc {
                return Err(
                    format!("block shape {shape:?}, block {b}: total {}", got_totals[b]).into(),
                );
            }
        }
    }
    println!(
        "ok: block scans with 16x16, 32x8, 8x4x8, 96x1 and 2x16x3 blocks (warpkit::block by linear thread index)"
    );
    Ok(())
}

fn check_histogram(module: &Module, stream: &Arc<CudaStream>) -> Result<(), Error> {
    let mut rng = rand::rng();
    let n = 1_000_003usize;
    let nbins = 1000u32;
    // Values past the last bin land in it.
    let values: Vec<u32> = (0..n).map(|_| rng.random_range(0..nbins + 50)).collect();
    let weights: Vec<f32> = (0..n).map(|_| rng.random_range(0.0..1.0)).collect();
    let (dv, dw) = (stream.clone_htod(&values)?, stream.clone_htod(&weights)?);
    let mut bins = stream.alloc_zeros::<u32>(nbins as usize)?;
    let mut max = stream.alloc_zeros::<u32>(1)?;
    let mut total = stream.alloc_zeros::<f32>(1)?;
    let k = Kernel::<user_kernels::histogram>::find(module)?;
    // SAFETY: sizes as documented; 4 bytes of dynamic shared memory per bin.
    unsafe {
        launch(
            &k,
            stream,
            cfg(264, 256, 4 * nbins),
            (
                device_ptr(&dv, stream),
                device_ptr(&dw, stream),
                n as u32,
                device_ptr_mut(&mut bins, stream),
                nbins,
                device_ptr_mut(&mut max, stream),
                device_ptr_mut(&mut total, stream),
            ),
        )?;
    }
    let got = stream.clone_dtoh(&bins)?;
    let mut want = vec![0u32; nbins as usize];
    for &v in &values {
        want[(v.min(nbins - 1)) as usize] += 1;
    }
    if got != want {
        let b = (0..want.len()).find(|&b| got[b] != want[b]).unwrap();
        return Err(format!("histogram bin {b}: {} vs {}", got[b], want[b]).into());
    }
    let got_max = stream.clone_dtoh(&max)?[0];
    if got_max != *values.iter().max().unwrap() {
        return Err(format!("atomic max {got_max}").into());
    }
    // f32 atomic adds in any order: each add rounds (relative 2^-24) on partial sums of at
    // most the total, so |error| <= n * 2^-24 * sum.
    let got_total = stream.clone_dtoh(&total)?[0] as f64;
    let exact: f64 = weights.iter().map(|&w| w as f64).sum();
    if (got_total - exact).abs() > n as f64 * 2f64.powi(-24) * exact {
        return Err(format!("atomic f32 sum {got_total} vs {exact}").into());
    }
    println!(
        "ok: histogram of {n} values in dynamic shared memory (atom.relaxed.cta/gpu.add.u32), atomic max, f32 atomic sum"
    );
    Ok(())
}

/// Ordered distance in ulps (both NaN: 0; -0 and +0: 0).
fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let o = |x: f32| {
        let u = x.to_bits() as i64;
        if u & 0x8000_0000 != 0 {
            -(u & 0x7fff_ffff)
        } else {
            u
        }
    };
    (o(a) - o(b)).unsigned_abs()
}

fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let o = |x: f64| {
        let u = x.to_bits() as i128;
        if u & (1 << 63) != 0 {
            -(u & 0x7fff_ffff_ffff_ffff)
        } else {
            u
        }
    };
    (o(a) - o(b)).unsigned_abs().min(u64::MAX as u128) as u64
}

/// The host's f64 function for each name of `MATH_FUNCTIONS`, and glibc's documented
/// maximum ulp error for it on x86_64 (the GNU C Library manual, "Known Maximum Errors in
/// Math Functions"), which the f64 comparison must allow on top of CUDA's bound.
fn host_f64(name: &str, x: f64, y: f64, z: f64) -> (f64, u64) {
    match name {
        "sqrt" => (x.sqrt(), 0),
        "cbrt" => (x.cbrt(), 4),
        "exp" => (x.exp(), 1),
        "exp2" => (x.exp2(), 1),
        "exp10" => (10f64.powf(x), 2),
        "expm1" => (x.exp_m1(), 1),
        "log" => (x.ln(), 1),
        "log2" => (x.log2(), 2),
        "log10" => (x.log10(), 2),
        "log1p" => (x.ln_1p(), 1),
        "sin" => (x.sin(), 1),
        "cos" => (x.cos(), 1),
        "tan" => (x.tan(), 1),
        "asin" => (x.asin(), 1),
        "acos" => (x.acos(), 1),
        "atan" => (x.atan(), 1),
        "sinh" => (x.sinh(), 2),
        "cosh" => (x.cosh(), 2),
        "tanh" => (x.tanh(), 2),
        "erf" => (erf(x), 1),
        "erfc" => (erfc(x), 5),
        "pow" => (x.powf(y), 1),
        "atan2" => (x.atan2(y), 1),
        "hypot" => (x.hypot(y), 1),
        "fma" => (x.mul_add(y, z), 0),
        _ => unreachable!("{name}"),
    }
}

unsafe extern "C" {
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
}

fn erf(x: f64) -> f64 {
    // SAFETY: libm's erf is defined for every double.
    unsafe { c_erf(x) }
}

fn erfc(x: f64) -> f64 {
    // SAFETY: libm's erfc is defined for every double.
    unsafe { c_erfc(x) }
}

/// Inputs: special values first, then a third uniform in [-4, 4], a third with a random
/// exponent (2^-40..2^40, either sign), a third uniform in [-1, 1].
fn math_inputs(n: usize, rng: &mut impl Rng) -> Vec<f64> {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-40,
        -1e-40,
        88.7,
        -103.0,
        1e30,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2,
    ];
    let mut v: Vec<f64> = specials.to_vec();
    while v.len() < n {
        let x = match v.len() % 3 {
            0 => rng.random_range(-4.0..4.0),
            1 => {
                let s = if rng.random() { 1.0 } else { -1.0 };
                s * 2f64.powf(rng.random_range(-40.0..40.0))
            }
            _ => rng.random_range(-1.0..1.0),
        };
        v.push(x);
    }
    v
}

fn check_math(module: &Module, stream: &Arc<CudaStream>) -> Result<(), Error> {
    let names = user_kernels::MATH_FUNCTIONS;
    let bound = |name: &str, f64_: bool| -> u64 {
        let key = if f64_ {
            name.to_owned()
        } else {
            format!("{name}f")
        };
        warpkit::math::ULP_BOUNDS
            .iter()
            .find(|(n, _, _)| *n == key)
            .map(|&(_, _, b)| b as u64)
            .unwrap_or_else(|| panic!("no bound for {key}"))
    };
    let mut rng = rand::rng();
    let n = 1 << 16;
    let (x, mut y, z) = (
        math_inputs(n, &mut rng),
        math_inputs(n, &mut rng),
        math_inputs(n, &mut rng),
    );
    // Pair the specials with each other too.
    y.rotate_left(3);
    let mut worst = Vec::new();
    // f32: the reference is the host's f64 result rounded to f32 (within 0.5 ulp + 2^-29 ulp
    // of the exact value), so the GPU may be off by CUDA's bound + 1.
    {
        let (x32, y32, z32): (Vec<f32>, Vec<f32>, Vec<f32>) = (
            x.iter().map(|&v| v as f32).collect(),
            y.iter().map(|&v| v as f32).collect(),
            z.iter().map(|&v| v as f32).collect(),
        );
        let (dx, dy, dz) = (
            stream.clone_htod(&x32)?,
            stream.clone_htod(&y32)?,
            stream.clone_htod(&z32)?,
        );
        let mut out = stream.alloc_zeros::<f32>(n * names.len())?;
        let k = Kernel::<user_kernels::math_f32>::find(module)?;
        // SAFETY: sizes as documented.
        unsafe {
            launch(
                &k,
                stream,
                cfg((n / 256) as u32, 256, 0),
                (
                    device_ptr(&dx, stream),
                    device_ptr(&dy, stream),
                    device_ptr(&dz, stream),
                    device_ptr_mut(&mut out, stream),
                    n as u32,
                ),
            )?;
        }
        let got = stream.clone_dtoh(&out)?;
        for (f, name) in names.iter().enumerate() {
            let allowed = bound(name, false) + 1;
            let mut max = 0;
            for i in 0..n {
                let (a, b, c) = (x32[i] as f64, y32[i] as f64, z32[i] as f64);
                let want = host_f64(name, a, b, c).0 as f32;
                let g = got[f * n + i];
                let d = ulps32(g, want);
                if d > allowed {
                    return Err(format!(
                        "{name}f({a:e}, {b:e}, {c:e}) = {g:e} on the GPU, {want:e} on the host: {d} ulp > {allowed}"
                    )
                    .into());
                }
                max = max.max(d);
            }
            worst.push(format!("{name}f {max}/{allowed}"));
        }
    }
    // f64: the reference is glibc's, itself off by up to its documented bound.
    {
        let (dx, dy, dz) = (
            stream.clone_htod(&x)?,
            stream.clone_htod(&y)?,
            stream.clone_htod(&z)?,
        );
        let mut out = stream.alloc_zeros::<f64>(n * names.len())?;
        let k = Kernel::<user_kernels::math_f64>::find(module)?;
        // SAFETY: sizes as documented.
        unsafe {
            launch(
                &k,
                stream,
                cfg((n / 256) as u32, 256, 0),
                (
                    device_ptr(&dx, stream),
                    device_ptr(&dy, stream),
                    device_ptr(&dz, stream),
                    device_ptr_mut(&mut out, stream),
                    n as u32,
                ),
            )?;
        }
        let got = stream.clone_dtoh(&out)?;
        for (f, name) in names.iter().enumerate() {
            let mut max = 0;
            for i in 0..n {
                let (want, host_err) = host_f64(name, x[i], y[i], z[i]);
                let allowed = bound(name, true) + host_err;
                let g = got[f * n + i];
                let d = ulps64(g, want);
                if d > allowed.max(1) && !(g == 0.0 && want.abs() < 1e-300) {
                    return Err(format!(
                        "{name}({:e}, {:e}, {:e}) = {g:e} on the GPU, {want:e} on the host: {d} ulp > {allowed}",
                        x[i], y[i], z[i]
                    )
                    .into());
                }
                max = max.max(d);
            }
            worst.push(format!("{name} {max}"));
        }
    }
    println!(
        "ok: libdevice math on {n} inputs (specials included) within CUDA's ulp bounds (worst seen / allowed): {}",
        worst.join(", ")
    );
    Ok(())
}

fn check_half(module: &Module, stream: &Arc<CudaStream>) -> Result<(), Error> {
    let mut rng = rand::rng();
    let n = 1 << 14;
    let mut values: Vec<f16> = (0..n)
        .map(|_| f16::from_f32(rng.random_range(-100.0..100.0)))
        .collect();
    // Warp 1 all NaN, warp 2 half NaN, warp 3 signed zeros only.
    values[32..64].fill(f16::NAN);
    for i in (64..96).step_by(2) {
        values[i] = f16::NAN;
    }
    for (i, v) in values.iter_mut().enumerate().take(128).skip(96) {
        *v = if i % 3 == 0 { f16::ZERO } else { f16::NEG_ZERO };
    }
    let dv = stream.clone_htod(&values)?;
    let mut sums = stream.alloc_zeros::<f16>(n / 32)?;
    let mut minima = stream.alloc_zeros::<f16>(n / 32)?;
    let mut maxima = stream.alloc_zeros::<f16>(n / 32)?;
    let k = Kernel::<user_kernels::half_warp_reduce>::find(module)?;
    // SAFETY: one thread per value.
    unsafe {
        launch(
            &k,
            stream,
            cfg((n / 256) as u32, 256, 0),
            (
                device_ptr(&dv, stream),
                device_ptr_mut(&mut sums, stream),
                device_ptr_mut(&mut minima, stream),
                device_ptr_mut(&mut maxima, stream),
            ),
        )?;
    }
    let (s, lo, hi) = (
        stream.clone_dtoh(&sums)?,
        stream.clone_dtoh(&minima)?,
        stream.clone_dtoh(&maxima)?,
    );
    for w in 0..n / 32 {
        let warp = &values[w * 32..][..32];
        let numbers: Vec<f32> = warp
            .iter()
            .map(|v| v.to_f32())
            .filter(|v| !v.is_nan())
            .collect();
        // Min/Max: exact, NaN skipped, -0 < +0, all-NaN gives the canonical NaN 0x7fff.
        let (want_lo, want_hi) = if numbers.is_empty() {
            (0x7fff, 0x7fff)
        } else {
            let key = |v: &f32| (*v, v.is_sign_positive());
            let lo = numbers
                .iter()
                .min_by(|a, b| key(a).partial_cmp(&key(b)).unwrap())
                .unwrap();
            let hi = numbers
                .iter()
                .max_by(|a, b| key(a).partial_cmp(&key(b)).unwrap())
                .unwrap();
            (f16::from_f32(*lo).to_bits(), f16::from_f32(*hi).to_bits())
        };
        if (lo[w].to_bits(), hi[w].to_bits()) != (want_lo, want_hi) {
            return Err(format!(
                "f16 warp {w}: min/max {:#x}/{:#x}, expected {want_lo:#x}/{want_hi:#x}",
                lo[w].to_bits(),
                hi[w].to_bits()
            )
            .into());
        }
        // Sum: a tree of 5 levels, each combine rounded to f16 (unit roundoff 2^-11):
        // |error| <= ((1 + 2^-11)^5 - 1) * sum |x|.
        let got = s[w].to_f32() as f64;
        if numbers.len() < 32 {
            if !got.is_nan() {
                return Err(format!("f16 warp {w}: sum {got} of values with NaN").into());
            }
            continue;
        }
        let exact: f64 = warp.iter().map(|v| v.to_f64()).sum();
        let abs: f64 = warp.iter().map(|v| v.to_f64().abs()).sum();
        let tol = ((1.0 + 2f64.powi(-11)).powi(5) - 1.0) * abs;
        if (got - exact).abs() > tol {
            return Err(format!("f16 warp {w}: sum {got} vs {exact} (tolerance {tol})").into());
        }
    }
    println!("ok: f16 warp sum (within the 5-rounding bound), min, max (exact, NaN and ±0 rules)");
    Ok(())
}

/// Runs this program with `--child <what>`, returns (exit status success, stdout).
fn check_child(what: &str, check: fn(bool, &str) -> Result<(), Error>) -> Result<(), Error> {
    let out = Command::new(std::env::current_exe()?)
        .args(["--child", what])
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    check(out.status.success(), &stdout)
        .map_err(|e| format!("child `{what}`: {e}\n--- its stdout ---\n{stdout}").into())
}

const HELLO_LINES: u32 = 40;

fn child_print(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    let module = load_best(ctx, true)?;
    let stream = ctx.new_stream()?;
    let k = Kernel::<user_kernels::say_hello>::find(&module)?;
    // SAFETY: no pointers.
    unsafe { launch(&k, &stream, cfg(2, 64, 0), (HELLO_LINES, 0.5f32))? };
    stream.synchronize()?;
    Ok(())
}

fn check_print_output(ok: bool, stdout: &str) -> Result<(), Error> {
    if !ok {
        return Err("exited with an error".into());
    }
    for i in 0..HELLO_LINES {
        let line = format!(
            "hello from thread {i}: {i} squared times 0.5 is {}",
            (i * i) as f32 * 0.5
        );
        let count = stdout.lines().filter(|l| *l == line).count();
        if count != 1 {
            return Err(format!("`{line}` printed {count} times").into());
        }
    }
    let hellos = stdout.lines().filter(|l| l.starts_with("hello")).count();
    if hellos != HELLO_LINES as usize {
        return Err(format!("{hellos} hello lines, expected {HELLO_LINES}").into());
    }
    println!("ok: println! from {HELLO_LINES} GPU threads, each line once and whole");
    Ok(())
}

fn check_multi_output(ok: bool, stdout: &str) -> Result<(), Error> {
    if !ok {
        return Err("exited with an error".into());
    }
    for line in stdout
        .lines()
        .filter(|l| l.starts_with("ok:") || l.starts_with("skipped:"))
    {
        println!("{line}");
    }
    Ok(())
}

const ZERO_AT: usize = 77;

fn child_assert(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    // The panic handler must fit the default per-thread stack (ptxas cannot bound `core::fmt`'s
    // frames, so the kernel gets the context's limit): print it, and leave it as it is.
    let stack = ctx.get_limit(cudarc::driver::sys::CUlimit::CU_LIMIT_STACK_SIZE)?;
    println!("per-thread stack limit: {stack} bytes");
    let module = load_best(ctx, true)?;
    let stream = ctx.new_stream()?;
    let n = 256;
    let num: Vec<u32> = (0..n as u32).collect();
    let den: Vec<u32> = (0..n).map(|i| if i == ZERO_AT { 0 } else { 1 }).collect();
    let (dn, dd) = (stream.clone_htod(&num)?, stream.clone_htod(&den)?);
    let mut out = stream.alloc_zeros::<u32>(n)?;
    let k = Kernel::<user_kernels::checked_divide>::find(&module)?;
    // SAFETY: arrays of n elements.
    unsafe {
        launch(
            &k,
            &stream,
            cfg(1, n as u32, 0),
            (
                device_ptr(&dn, &stream),
                device_ptr(&dd, &stream),
                device_ptr_mut(&mut out, &stream),
                n as u32,
            ),
        )?
    };
    match stream.synchronize() {
        Ok(()) => Err("the kernel did not trap".into()),
        Err(e) => {
            println!("synchronize after the trap: {e}");
            // The context is dead: leave without cleaning up (drops would report errors).
            std::process::exit(3)
        }
    }
}

fn check_assert_output(_ok: bool, stdout: &str) -> Result<(), Error> {
    let file = user_kernels::ASSERT_FILE;
    let line = user_kernels::ASSERT_LINE;
    let want = format!("zero denominator at index {ZERO_AT}");
    if !stdout.contains("synchronize after the trap") {
        return Err("the host saw no launch error".into());
    }
    // The panic handler prints `panicked at file:line:col: message (...)` with vprintf, then
    // CUDA's assertion path prints `file:line: Rust kernel: ... Assertion `message` failed.`
    // Both must name the file, line and message; at least one must be there.
    let mut found = Vec::new();
    for l in stdout.lines() {
        let location = if let Some(rest) = l.strip_prefix("panicked at ") {
            rest.split(": ").next().unwrap_or("")
        } else if l.contains("Assertion `") {
            l.split(": ").next().unwrap_or("")
        } else {
            continue;
        };
        // `file:line:col` or `file:line`.
        let parts: Vec<&str> = location.split(':').collect();
        let (got_file, got_line) = match parts.as_slice() {
            [f, l, c] if c.parse::<u32>().is_ok() => (*f, *l),
            [f, l] => (*f, *l),
            _ => return Err(format!("cannot read the location in `{l}`").into()),
        };
        if got_line != line.to_string() {
            return Err(format!("line {got_line} in `{l}`, expected {line}").into());
        }
        if got_file.is_empty() || !(got_file.ends_with(file) || file.ends_with(got_file)) {
            return Err(format!("file `{got_file}` in `{l}`, expected `{file}`").into());
        }
        if !l.contains(&want) {
            return Err(format!("`{l}` lacks the message `{want}`").into());
        }
        found.push(l.to_owned());
    }
    if found.is_empty() {
        return Err("no `panicked at` or `Assertion` line".into());
    }
    println!(
        "ok: failed assert! printed {} and trapped",
        found
            .iter()
            .map(|l| format!("`{l}`"))
            .collect::<Vec<_>>()
            .join(" and ")
    );
    Ok(())
}

/// warpkit's library kernels on the same cudarc stream, on plain and on the kernel crate's
/// own types (`warpkit::custom_kernels!` in `user-kernels`, `CustomKernels` here).
fn check_library(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>) -> Result<(), Error> {
    use user_kernels::{Affine, Compose, KeyValue, MaxKey};
    use warpkit::ops::{Max, ReduceOp, Sum};
    use warpkit_host::{CustomKernels, Queue, ScanKind, Warpkit};

    let wk = Warpkit::on(ctx)?;
    let mut queue = Queue::new(&wk, stream)?;
    let mut rng = rand::rng();
    let n = (1 << 16) + 7;
    let values: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
    let dv = stream.clone_htod(&values)?;
    let mut prefix = stream.clone_htod(&vec![u32::MAX; n])?;
    let total = queue.reduce(&dv, Sum)?;
    if total != values.iter().sum::<u32>() {
        return Err(format!("library reduce: {total}").into());
    }
    queue.scan(&dv, &mut prefix, Max, ScanKind::Inclusive)?;
    let running_max = stream.clone_dtoh(&prefix)?;
    let mut best = 0;
    for (i, &x) in values.iter().enumerate() {
        best = best.max(x);
        if running_max[i] != best {
            return Err(format!("library running max at {i}: {}", running_max[i]).into());
        }
    }

    let (major, minor) = ctx.compute_capability()?;
    let (_, ptx) = best_ptx(major as u32, minor as u32)?;
    // SAFETY: `ptx` is this example's kernel crate, whose `custom_kernels!` emitted these.
    let affine = unsafe { CustomKernels::<Affine, Compose>::load(&wk, ptx, "user_affine") }?;
    // SAFETY: as above.
    let argmax = unsafe { CustomKernels::<KeyValue, MaxKey>::load(&wk, ptx, "user_argmax") }?;
    for n in [1usize, 1000, (1 << 20) + 3] {
        let maps = random_maps(&mut rng, n);
        let input = stream.clone_htod(&maps)?;
        let mut scanned = stream.alloc_zeros::<Affine>(n)?;
        let total = queue.custom(&affine)?.reduce(&input)?;
        queue
            .custom(&affine)?
            .scan(&input, &mut scanned, ScanKind::Inclusive)?;
        let acc = check_composed(&maps, &stream.clone_dtoh(&scanned)?, "composed maps")?;
        if total != acc {
            return Err(format!("composition of {n} maps: {total:?} vs {acc:?}").into());
        }
        // Rows of 333 maps (the last one short), reduced and scanned one warp per row.
        let width = 333;
        let rows = n.div_ceil(width);
        let mut per_row = stream.alloc_zeros::<Affine>(n / width)?;
        let mut row_scans = stream.alloc_zeros::<Affine>(n / width * width)?;
        let whole = input.slice(..n / width * width);
        queue
            .custom(&affine)?
            .rows_reduce(&whole, width, &mut per_row)?;
        queue
            .custom(&affine)?
            .rows_scan(&whole, width, &mut row_scans, ScanKind::Exclusive)?;
        let (got_rows, got_scans) = (stream.clone_dtoh(&per_row)?, stream.clone_dtoh(&row_scans)?);
        for (r, got_row) in got_rows.iter().enumerate() {
            let mut acc = Compose.identity();
            for i in r * width..(r + 1) * width {
                if got_scans[i] != acc {
                    return Err(format!(
                        "row {r} exclusive scan at {i}: {:?} vs {acc:?}",
                        got_scans[i]
                    )
                    .into());
                }
                acc = Compose.combine(acc, maps[i]);
            }
            if *got_row != acc {
                return Err(format!("row {r} of {rows}: {got_row:?} vs {acc:?}").into());
            }
        }
        let pairs: Vec<KeyValue> = (0..n)
            .map(|i| KeyValue {
                key: rng.random_range(-1000..1000),
                index: i as u32,
            })
            .collect();
        let input = stream.clone_htod(&pairs)?;
        let best = queue.custom(&argmax)?.reduce(&input)?;
        let want = pairs
            .iter()
            .fold(MaxKey.identity(), |a, &b| MaxKey.combine(a, b));
        if best != want {
            return Err(format!("arg-max of {n} keys: {best:?} vs {want:?}").into());
        }
    }
    replay_custom_scan_after_drop(ctx, stream, &mut queue, affine)?;
    println!(
        "ok: warpkit reduce and scan on the same stream; custom kernels: affine-map composition (reduce, scan, rows reduce and exclusive scan, a scan captured in a CUDA graph and replayed after its kernels were dropped) and key arg-max"
    );
    Ok(())
}

/// A custom scan captured into a CUDA graph, replayed with fresh data after its kernels are
/// dropped: the operation that is captured keeps their module loaded for good (no destructor
/// of the operation's handle is needed for that, which safe code could skip).
fn replay_custom_scan_after_drop(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    queue: &mut warpkit_host::Queue,
    affine: warpkit_host::CustomKernels<user_kernels::Affine, user_kernels::Compose>,
) -> Result<(), Error> {
    use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
    use user_kernels::Affine;
    use warpkit_host::ScanKind;

    let mut rng = rand::rng();
    let n = (1 << 18) + 5;
    let mut input = stream.clone_htod(&random_maps(&mut rng, n))?;
    let mut scanned = stream.alloc_zeros::<Affine>(n)?;
    // Once outside the capture, so the queue's storage exists.
    queue
        .custom(&affine)?
        .scan(&input, &mut scanned, ScanKind::Inclusive)?;
    stream.synchronize()?;
    // SAFETY: nothing else uses these buffers on other streams during the capture.
    unsafe { ctx.disable_event_tracking() };
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    let captured = queue
        .custom(&affine)?
        .scan(&input, &mut scanned, ScanKind::Inclusive);
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    // SAFETY: the capture has ended.
    unsafe { ctx.enable_event_tracking() };
    captured?;
    let graph = graph?.ok_or("the capture made no graph")?;
    drop(affine);
    for replay in 0..2 {
        let maps = random_maps(&mut rng, n);
        stream.memcpy_htod(&maps, &mut input)?;
        let poison = Affine {
            a: 0xA5A5_A5A5,
            b: 0xA5A5_A5A5,
        };
        stream.memcpy_htod(&vec![poison; n], &mut scanned)?;
        graph.launch()?;
        let label = format!("replay {replay} of the captured custom scan");
        check_composed(&maps, &stream.clone_dtoh(&scanned)?, &label)?;
    }
    Ok(())
}

/// `n` random affine maps (odd `a`, so every composition is invertible and none collapses).
fn random_maps(rng: &mut impl Rng, n: usize) -> Vec<user_kernels::Affine> {
    (0..n)
        .map(|_| user_kernels::Affine {
            a: rng.random::<u32>() | 1,
            b: rng.random(),
        })
        .collect()
}

/// Checks that `got` is the inclusive scan of `maps` under `Compose`; returns their whole
/// composition.
fn check_composed(
    maps: &[user_kernels::Affine],
    got: &[user_kernels::Affine],
    label: &str,
) -> Result<user_kernels::Affine, Error> {
    use user_kernels::Compose;
    use warpkit::ops::ReduceOp;
    let mut acc = Compose.identity();
    for (i, &f) in maps.iter().enumerate() {
        acc = Compose.combine(acc, f);
        if got[i] != acc {
            let n = maps.len();
            return Err(format!("{label}, prefix {i} of {n}: {:?} vs {acc:?}", got[i]).into());
        }
    }
    Ok(acc)
}
