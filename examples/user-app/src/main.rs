//! Launches the example kernels of `user-kernels` with cudarc, runs warpkit's reduce and scan
//! on the same cudarc buffers, and (feature `custom`) warpkit's device reduce and scan on the
//! custom types of `user-kernels`: composing affine maps (not commutative) and an arg-max
//! over key/index pairs. Everything is checked against the CPU. Without a GPU it says so and
//! exits successfully.

use cudarc::driver::{LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use rand::Rng;
use warpkit::ops::{Max, Sum};
use warpkit_builder::Target;
use warpkit_host::{Queue, ScanKind, Warpkit, open_device};

include!(concat!(env!("OUT_DIR"), "/user_kernels_ptx.rs"));

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = match open_device(0) {
        Ok(c) => c,
        Err(e) if e.is_no_gpu() => {
            println!("skipped: {e}");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let (major, minor) = ctx.compute_capability()?;
    let (major, minor) = (major as u32, minor as u32);
    let (target, ptx) = USER_KERNELS_PTX
        .iter()
        .filter(|(t, _)| Target::parse(t).is_some_and(|t| t.runs_on(major, minor)))
        .max_by_key(|(t, _)| Target::parse(t).map(|t| (t.compute, t.arch_specific)))
        .ok_or("no PTX for this device")?;
    println!(
        "{} (compute {major}.{minor}): loading PTX for {target}",
        ctx.name()?
    );
    let module = ctx.load_module(Ptx::from_src(*ptx))?;
    let stream = ctx.new_stream()?;

    let n = 1 << 16;
    let mut rng = rand::rng();
    let values: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let keys: Vec<u32> = (0..n).map(|_| rng.random_range(0..4)).collect();
    let (dv, dk) = (stream.clone_htod(&values)?, stream.clone_htod(&keys)?);
    let mut sums = stream.clone_htod(&vec![f32::NAN; n / 32])?;
    let mut maxima = stream.clone_htod(&vec![f32::NAN; n / 8])?;
    let mut ranks = stream.clone_htod(&vec![u32::MAX; n])?;
    let cfg = LaunchConfig {
        grid_dim: ((n / 256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let warp_stats = module.load_function("warp_stats")?;
    // SAFETY: the kernel takes these five pointers; one thread per value.
    unsafe {
        stream
            .launch_builder(&warp_stats)
            .arg(&dv)
            .arg(&dk)
            .arg(&mut sums)
            .arg(&mut maxima)
            .arg(&mut ranks)
            .launch(cfg)?;
    }
    let values_u: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
    let du = stream.clone_htod(&values_u)?;
    let mut prefix = stream.clone_htod(&vec![u32::MAX; n])?;
    let block_prefix_sums = module.load_function("block_prefix_sums")?;
    // SAFETY: the kernel takes two pointers; 256-thread blocks cover the input.
    unsafe {
        stream
            .launch_builder(&block_prefix_sums)
            .arg(&du)
            .arg(&mut prefix)
            .launch(cfg)?;
    }
    let (s, m) = (stream.clone_dtoh(&sums)?, stream.clone_dtoh(&maxima)?);
    let (r, p) = (stream.clone_dtoh(&ranks)?, stream.clone_dtoh(&prefix)?);
    for (w, got) in s.iter().enumerate() {
        let want: f64 = values[w * 32..][..32].iter().map(|&x| x as f64).sum();
        assert!(
            (*got as f64 - want).abs() < 1e-4,
            "warp {w}: {got} vs {want}"
        );
    }
    for (g, got) in m.iter().enumerate() {
        let want = values[g * 8..][..8]
            .iter()
            .cloned()
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(*got, want, "group {g}");
    }
    for i in 0..n {
        let base = i / 32 * 32;
        let want = (base..i).filter(|&j| keys[j] == keys[i]).count() as u32;
        assert_eq!(r[i], want, "rank of lane {i}");
        let block = i / 256 * 256;
        let want: u32 = values_u[block..=i].iter().sum();
        assert_eq!(p[i], want, "block prefix at {i}");
    }
    println!(
        "warp sums, Tile<8> maxima, match.any ranks and block prefix sums of {n} values: all match the CPU"
    );

    // warpkit's library kernels on the same cudarc buffers and stream.
    let wk = Warpkit::on(&ctx)?;
    let mut queue = Queue::new(&wk, &stream)?;
    let total = queue.reduce(&du, Sum)?;
    assert_eq!(total, values_u.iter().sum::<u32>());
    queue.scan(&du, &mut prefix, Max, ScanKind::Inclusive)?;
    let running_max = stream.clone_dtoh(&prefix)?;
    let mut best = 0;
    for (i, &x) in values_u.iter().enumerate() {
        best = best.max(x);
        assert_eq!(running_max[i], best, "running max at {i}");
    }
    println!("warpkit reduce and scan on the same buffers: match the CPU");

    #[cfg(feature = "custom")]
    custom::run(&wk, &mut queue, ptx)?;
    Ok(())
}

#[cfg(feature = "custom")]
mod custom {
    use rand::Rng;
    use user_kernels::{Affine, Compose, KeyValue, MaxKey};
    use warpkit::ops::ReduceOp;
    use warpkit_host::{CustomKernels, Queue, ScanKind, Warpkit};

    pub fn run(
        wk: &Warpkit,
        queue: &mut Queue,
        ptx: &str,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let stream = queue.stream().clone();
        let mut rng = rand::rng();
        let affine = CustomKernels::<Affine, Compose>::load(wk, ptx, "user_affine")?;
        let argmax = CustomKernels::<KeyValue, MaxKey>::load(wk, ptx, "user_argmax")?;
        for n in [1usize, 1000, (1 << 20) + 3] {
            let maps: Vec<Affine> = (0..n)
                .map(|_| Affine {
                    a: rng.random::<u32>() | 1,
                    b: rng.random(),
                })
                .collect();
            let input = stream.clone_htod(&maps)?;
            let mut scanned = stream.alloc_zeros::<Affine>(n)?;
            let total = queue.custom(&affine)?.reduce(&input)?;
            queue
                .custom(&affine)?
                .scan(&input, &mut scanned, ScanKind::Inclusive)?;
            let got = stream.clone_dtoh(&scanned)?;
            let mut acc = Compose.identity();
            for (i, &f) in maps.iter().enumerate() {
                acc = Compose.combine(acc, f);
                assert_eq!(got[i], acc, "composed maps, prefix {i} of {n}");
            }
            assert_eq!(total, acc, "composition of {n} maps");

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
            assert_eq!(best, want, "arg-max of {n} keys");
        }
        println!(
            "custom kernels: affine-map composition (reduce, scan) and key arg-max match the CPU"
        );
        Ok(())
    }
}
