//! Sharded reduce, scan and arg-reduce over several GPUs (feature `nccl`) against warpkit's
//! single-GPU kernels over the whole input: arg-min/arg-max bit for bit with the same index,
//! integers and every min/max bit for bit, float sums within a bound of an `f64`
//! (compensated) sum. Random data (NaN, ±inf, ±0 among the floats for
//! min/max), even, uneven and empty shards, poisoned outputs with every element checked, the
//! result on every GPU compared, each case run twice and compared bit for bit.
//!
//! Skips, saying why, without a GPU or without NCCL (fails instead with
//! `WARPKIT_REQUIRE_GPU=1`). With one GPU it tests the one-rank path and says the two-rank
//! part was skipped (fails instead with `WARPKIT_REQUIRE_GPUS=2`).

mod common;

use common::{assert_captured_nothing, gpu_required};
use half::{bf16, f16};
use rand::{Rng, SeedableRng, rngs::StdRng};
use warpkit::ops::{ArgMax, ArgMin, Max, Min, Sum};
use warpkit_host::cudarc::driver::CudaSlice;
use warpkit_host::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use warpkit_host::multi::MultiGpu;
use warpkit_host::reference::{self, Model};
use warpkit_host::{ArgElement, DeviceOp, Element, Error, Queue, ScanKind, Warpkit, open_device};

fn gpus_required() -> usize {
    std::env::var("WARPKIT_REQUIRE_GPUS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The device count, or `None` (printed) where this machine has no GPU.
fn device_count() -> Option<usize> {
    match open_device(0) {
        Ok(_) => Some(warpkit_host::cudarc::driver::result::device::get_count().unwrap() as usize),
        Err(e) if e.is_no_gpu() && !gpu_required() => {
            eprintln!("skipped: {e}; this test runs on the GPU machine");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// The communicators to test: one rank, and two where there are two GPUs.
/// NCCL communicators on the same GPUs used at the same time by two tests can deadlock
/// (NCCL's docs, "Using multiple NCCL communicators concurrently"): one test at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn configurations() -> Vec<Vec<usize>> {
    let Some(count) = device_count() else {
        return vec![];
    };
    if let Err(e) = warpkit_host::multi::nccl::library() {
        if gpu_required() {
            panic!("WARPKIT_REQUIRE_GPU=1 but: {e}");
        }
        eprintln!("skipped: {e}");
        return vec![];
    }
    let (path, v) = warpkit_host::multi::nccl::library().unwrap();
    eprintln!("NCCL {}.{}.{} from {}", v.0, v.1, v.2, path.display());
    let mut c = vec![vec![0]];
    if count >= 2 {
        c.push(vec![0, 1]);
    } else {
        assert!(
            gpus_required() < 2,
            "WARPKIT_REQUIRE_GPUS={} but the driver reports {count} device(s)",
            gpus_required()
        );
        eprintln!("only {count} GPU: the one-rank path is tested, the two-rank part is SKIPPED");
    }
    c
}

trait TestElement: Element + Default
where
    Self::Accum: Model,
{
    fn random(rng: &mut StdRng) -> Self;
    fn finite(rng: &mut StdRng) -> Self {
        Self::random(rng)
    }
    /// Bound on a float sum's error as a multiple of Σ|x| (0 for integers: exact).
    const TOLERANCE: f64 = 0.0;
}

macro_rules! ints { ($($t:ty),*) => {$(
    impl TestElement for $t { fn random(rng: &mut StdRng) -> Self { rng.random() } }
)*}; }
ints!(u32, i32, u64, i64);

fn special(rng: &mut StdRng) -> f64 {
    match rng.random_range(0..64) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => 0.0,
        4 => -0.0,
        _ => rng.random_range(-1.0..1.0),
    }
}

macro_rules! floats { ($($t:ty, $from:expr, $tol:expr;)*) => {$(
    impl TestElement for $t {
        fn random(rng: &mut StdRng) -> Self { let f: fn(f64) -> $t = $from; f(special(rng)) }
        fn finite(rng: &mut StdRng) -> Self { let f: fn(f64) -> $t = $from; f(rng.random_range(-1.0..1.0)) }
        const TOLERANCE: f64 = $tol;
    }
)*}; }
floats! {
    f32, |x| x as f32, 2e-4;
    f64, |x| x, 1e-12;
    f16, f16::from_f64, 2e-3;
    bf16, bf16::from_f64, 1e-2;
}

/// Uploads `data` cut at `lengths` to the GPUs.
fn shards<T: Element>(gpus: &MultiGpu, data: &[T], lengths: &[usize]) -> Vec<CudaSlice<T>> {
    let mut start = 0;
    (0..lengths.len())
        .map(|i| {
            let s = gpus
                .stream(i)
                .clone_htod(&data[start..start + lengths[i]])
                .unwrap();
            start += lengths[i];
            s
        })
        .collect()
}

fn poisoned<T: Element>(gpus: &MultiGpu, lengths: &[usize]) -> Vec<CudaSlice<T>> {
    (0..lengths.len())
        .map(|i| {
            let mut host = vec![T::zeroed(); lengths[i]];
            bytemuck::cast_slice_mut::<T, u8>(&mut host).fill(0xA5);
            gpus.stream(i).clone_htod(&host).unwrap()
        })
        .collect()
}

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// `Σ x` in f64 with Kahan compensation, and `Σ |x|`.
fn kahan<A: Model>(xs: impl Iterator<Item = A>) -> (f64, f64) {
    let (mut s, mut c, mut m) = (0.0f64, 0.0f64, 0.0f64);
    for x in xs {
        let x = x.wide();
        m += x.abs();
        let y = x - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    (s, m)
}

/// Compares a multi-GPU value with the single-GPU one: bits, or for float sums both within
/// `TOLERANCE × max(Σ|x|, 1)` of the compensated sum.
fn agree<T: TestElement>(
    got: T::Accum,
    single: T::Accum,
    exact: Option<(f64, f64)>,
    what: &dyn Fn() -> String,
) where
    T::Accum: Model,
{
    if let Some((sum, mag)) = exact {
        let bound = T::TOLERANCE * mag.max(1.0);
        let g = got.wide();
        assert!(
            (g - sum).abs() <= bound,
            "{}: got {g}, compensated sum {sum}, bound {bound}",
            what()
        );
        return;
    }
    if single.nan() && T::TOLERANCE > 0.0 {
        assert!(got.nan(), "{}: got {got:?}, single GPU NaN", what());
        return;
    }
    assert_eq!(
        bytemuck::bytes_of(&got),
        bytemuck::bytes_of(&single),
        "{}: got {got:?}, single GPU {single:?}",
        what()
    );
}

fn check<T: TestElement, O: DeviceOp>(
    gpus: &mut MultiGpu,
    single: &mut Queue,
    data: &[T],
    lengths: &[usize],
) where
    T::Accum: Model + Element,
{
    let float_sum = T::TOLERANCE > 0.0 && O::NAME == "sum";
    let what = |k: &str| format!("{k} {} {} lengths {lengths:?}", O::NAME, T::NAME);
    let input = shards(gpus, data, lengths);
    let whole = single.stream().clone_htod(data).unwrap();
    // Reduce: on every GPU, twice, the same bits; equal to one GPU's.
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut out = poisoned::<T::Accum>(gpus, &vec![2; lengths.len()]);
        gpus.reduce_into(&input, &mut out, O::default()).unwrap();
        gpus.synchronize().unwrap();
        let got = gpus.gather(&out).unwrap();
        for (i, pair) in got.chunks(2).enumerate() {
            assert_eq!(
                bytemuck::bytes_of(&pair[1]),
                &[0xA5u8; 8][..size_of::<T::Accum>()],
                "{}: wrote past output[0] on GPU {i}",
                what("reduce")
            );
            assert_eq!(
                bytemuck::bytes_of(&pair[0]),
                bytemuck::bytes_of(&got[0]),
                "{}: GPUs disagree",
                what("reduce")
            );
        }
        runs.push(got[0]);
    }
    assert_eq!(
        bytemuck::bytes_of(&runs[0]),
        bytemuck::bytes_of(&runs[1]),
        "{}: not deterministic",
        what("reduce")
    );
    let mut one = single.stream().alloc_zeros::<T::Accum>(1).unwrap();
    single.reduce_into(&whole, &mut one, O::default()).unwrap();
    let one = single.stream().clone_dtoh(&one).unwrap()[0];
    let exact = float_sum.then(|| kahan(data.iter().map(|x| x.to_accum())));
    agree::<T>(runs[0], one, exact, &|| what("reduce"));
    let host: T = gpus.reduce(&input, O::default()).unwrap();
    assert_eq!(
        bytemuck::bytes_of(&host),
        bytemuck::bytes_of(&T::from_accum(runs[0])),
        "{}: reduce and reduce_into",
        what("reduce")
    );
    // Scans: every element, twice.
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut out = poisoned::<T>(gpus, lengths);
            gpus.scan(&input, &mut out, O::default(), kind).unwrap();
            gpus.synchronize().unwrap();
            runs.push(gpus.gather(&out).unwrap());
        }
        assert!(
            bits(&runs[0]) == bits(&runs[1]),
            "{}: not deterministic",
            what(&format!("{kind:?} scan"))
        );
        let mut one = single.stream().alloc_zeros::<T>(data.len().max(1)).unwrap();
        let mut view = one.slice_mut(0..data.len());
        single.scan(&whole, &mut view, O::default(), kind).unwrap();
        let one = single.stream().clone_dtoh(&one).unwrap();
        let (mut s, mut c, mut m) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..data.len() {
            let before = (s, m);
            if float_sum {
                let x = data[i].to_accum().wide();
                m += x.abs();
                let y = x - c;
                let t = s + y;
                c = (t - s) - y;
                s = t;
            }
            let exact = float_sum.then_some(if kind == ScanKind::Inclusive {
                (s, m)
            } else {
                before
            });
            // Half types are rounded to 2 or 3 significant digits per element.
            let exact = exact.map(|(s, m)| (s, m + s.abs()));
            agree::<T>(runs[0][i].to_accum(), one[i].to_accum(), exact, &|| {
                format!("{} at {i}", what(&format!("{kind:?} scan")))
            });
        }
    }
}

fn every_op<T: TestElement>(gpus: &mut MultiGpu, single: &mut Queue, rng: &mut StdRng)
where
    T::Accum: Model + Element,
{
    let world = gpus.world_size();
    for n in [0usize, 1, 2, 33, 1025, 100_003, (1 << 20) + 7] {
        let mut cuts = vec![MultiGpu::shard_lengths(n, world)];
        if world == 2 {
            cuts.push(vec![n, 0]);
            cuts.push(vec![0, n]);
            let k = if n == 0 { 0 } else { rng.random_range(0..=n) };
            cuts.push(vec![k, n - k]);
        }
        let finite: Vec<T> = (0..n).map(|_| T::finite(rng)).collect();
        let any: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
        for lengths in &cuts {
            check::<T, Sum>(gpus, single, &finite, lengths);
            check::<T, Min>(gpus, single, &any, lengths);
            check::<T, Max>(gpus, single, &any, lengths);
            if T::TOLERANCE == 0.0 {
                check::<T, Sum>(gpus, single, &any, lengths);
            }
        }
    }
    println!("{} ranks: {}: reduce and scans checked", world, T::NAME);
}

/// Runs `each` on every configuration with a fresh seed (printed), the communicators and a
/// queue on GPU 0 for the single-GPU results.
fn with_each_configuration(mut each: impl FnMut(&mut MultiGpu, &mut Queue, &mut StdRng)) {
    let s: u64 = rand::random();
    eprintln!("seed {s}");
    let mut rng = StdRng::seed_from_u64(s);
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for ordinals in configurations() {
        let mut gpus = MultiGpu::new(&ordinals).unwrap();
        let wk = Warpkit::new(0).unwrap();
        let stream = wk.new_stream().unwrap();
        let mut single = Queue::new(&wk, &stream).unwrap();
        each(&mut gpus, &mut single, &mut rng);
    }
}

#[test]
fn sharded_reduce_and_scan_every_type_and_operator() {
    with_each_configuration(|gpus, single, rng| {
        every_op::<u32>(gpus, single, rng);
        every_op::<i32>(gpus, single, rng);
        every_op::<u64>(gpus, single, rng);
        every_op::<i64>(gpus, single, rng);
        every_op::<f32>(gpus, single, rng);
        every_op::<f64>(gpus, single, rng);
        every_op::<f16>(gpus, single, rng);
        every_op::<bf16>(gpus, single, rng);
    });
}

/// Arg-min and arg-max over the shards against one GPU's over the whole input: the same
/// value bits and the same index (ties repeated across shards: the lowest index wins).
fn every_arg<T: TestElement + ArgElement>(
    gpus: &mut MultiGpu,
    single: &mut Queue,
    rng: &mut StdRng,
    extra: &[T],
) where
    T::Accum: Model + Element,
{
    let world = gpus.world_size();
    let bits = |r: Option<(T, usize)>| r.map(|(v, i)| (bytemuck::bytes_of(&v).to_vec(), i));
    for n in [0usize, 1, 33, 100_003, (1 << 20) + 7] {
        let any: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
        let repeated: Vec<T> = (0..n).map(|i| any[i % 7]).collect();
        let same: Vec<T> = extra.iter().copied().cycle().take(n).collect();
        let k = if n == 0 { 0 } else { rng.random_range(0..=n) };
        let mut cuts = vec![MultiGpu::shard_lengths(n, world)];
        if world == 2 {
            cuts.extend([vec![n, 0], vec![0, n], vec![k, n - k]]);
        }
        for data in [&any, &repeated, &same] {
            let input = single.stream().clone_htod(data).unwrap();
            for lengths in &cuts {
                let input_shards = shards(gpus, data, lengths);
                let want = bits(single.arg_reduce(&input, ArgMin).unwrap());
                let got = bits(gpus.arg_reduce(&input_shards, ArgMin).unwrap());
                assert_eq!(got, want, "{} arg-min, n {n}, shards {lengths:?}", T::NAME);
                let want = bits(single.arg_reduce(&input, ArgMax).unwrap());
                let got = bits(gpus.arg_reduce(&input_shards, ArgMax).unwrap());
                assert_eq!(got, want, "{} arg-max, n {n}, shards {lengths:?}", T::NAME);
            }
        }
    }
    println!("{} ranks: {}: arg-min and arg-max checked", world, T::NAME);
}

#[test]
fn sharded_arg_reduce_every_type() {
    with_each_configuration(|gpus, single, rng| {
        every_arg::<u32>(gpus, single, rng, &[5]);
        every_arg::<i32>(gpus, single, rng, &[-5, 5]);
        every_arg::<u64>(gpus, single, rng, &[u64::MAX]);
        every_arg::<i64>(gpus, single, rng, &[i64::MIN]);
        every_arg::<f32>(gpus, single, rng, &[f32::NAN]);
        every_arg::<f64>(gpus, single, rng, &[f64::NAN, -0.0, 0.0]);
        every_arg::<f16>(gpus, single, rng, &[f16::NAN, f16::NEG_ZERO, f16::ZERO]);
        every_arg::<bf16>(gpus, single, rng, &[bf16::NAN, bf16::INFINITY]);
    });
}

#[test]
fn bad_shards_are_refused_before_anything_is_enqueued() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for ordinals in configurations() {
        let mut gpus = MultiGpu::new(&ordinals).unwrap();
        let world = gpus.world_size();
        let input = gpus.scatter(&[1u32, 2, 3, 4, 5]).unwrap();
        let lengths = MultiGpu::shard_lengths(5, world);
        let mut short: Vec<_> = gpus
            .alloc::<u32>(&lengths.iter().map(|l| l - 1).collect::<Vec<_>>())
            .unwrap();
        let e = gpus
            .scan(&input, &mut short, Sum, ScanKind::Inclusive)
            .unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
        let e = gpus
            .reduce::<u32, _, _>(&input[..0], Sum)
            .unwrap_err()
            .to_string();
        assert!(e.contains("shards (one per GPU of this process)"), "{e}");
        let mut empty_out = gpus.alloc::<u32>(&vec![0; world]).unwrap();
        let e = gpus
            .reduce_into(&input, &mut empty_out, Sum)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("output has 0 elements, expected 1"), "{e}");
        if world == 2 {
            // Shards swapped: each on the other GPU's context.
            let swapped = vec![input[1].clone(), input[0].clone()];
            let e = gpus.reduce::<u32, _, _>(&swapped, Sum).unwrap_err();
            assert!(matches!(e, Error::WrongContext { .. }), "{e}");
        }
        let nothing: Vec<u32> = vec![];
        let empty = gpus.scatter(&nothing).unwrap();
        assert_eq!(gpus.reduce(&empty, Sum).unwrap(), 0u32);
        assert_eq!(gpus.reduce(&empty, Min).unwrap(), u32::MAX);
        assert!(matches!(
            MultiGpu::new(&[0, 0]),
            Err(Error::BadShards { .. })
        ));
    }
}

/// Whether NVLink SHARP is possible is asked of the driver (attribute 132, which warpkit's
/// CUDA 11.8 bindings do not name); a device that does not exist is an error, not `false`.
#[test]
fn multicast_support_is_asked_of_the_driver() {
    let Some(count) = device_count() else {
        return;
    };
    if warpkit_host::multi::nccl::library().is_err() && !gpu_required() {
        eprintln!("skipped: no NCCL");
        return;
    }
    for ordinal in 0..count {
        let supported = warpkit_host::multi::nccl::multicast_supported(ordinal).unwrap();
        eprintln!("device {ordinal}: multicast objects supported: {supported}");
    }
    let e = warpkit_host::multi::nccl::multicast_supported(count).unwrap_err();
    assert!(
        matches!(e, Error::NoDevice { ordinal, .. } if ordinal == count),
        "{e}"
    );
}

/// Small ragged shards of two types (what `compute-sanitizer` runs: scripts/device-run.sh).
#[test]
fn ragged_shards_small() {
    let mut rng = StdRng::seed_from_u64(7);
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for ordinals in configurations() {
        let mut gpus = MultiGpu::new(&ordinals).unwrap();
        let wk = Warpkit::new(0).unwrap();
        let stream = wk.new_stream().unwrap();
        let mut single = Queue::new(&wk, &stream).unwrap();
        let n = 70_001;
        let lengths = if ordinals.len() == 2 {
            vec![40_003, n - 40_003]
        } else {
            vec![n]
        };
        let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        check::<u32, Sum>(&mut gpus, &mut single, &data, &lengths);
        let data: Vec<f64> = (0..n).map(|_| f64::finite(&mut rng)).collect();
        check::<f64, Sum>(&mut gpus, &mut single, &data, &lengths);
    }
}

/// A graph that captured a sharded reduce keeps using the rank's scratch and communicator
/// after the `MultiGpu` is gone: the first capture, before the rank has scratch, is refused
/// with nothing captured (an allocation inside a graph exists only while it runs); after a
/// warm-up the captured reduce replays right, twice, after the `MultiGpu` was dropped (which
/// leaks what the graph uses rather than freeing it). One rank; two below.
#[test]
fn captured_reduce_replays_after_the_gpus_are_gone() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if configurations().is_empty() {
        return;
    }
    let mut gpus = MultiGpu::new(&[0]).unwrap();
    let mut rng = StdRng::seed_from_u64(11);
    let data: Vec<u32> = (0..(1 << 20) + 3).map(|_| rng.random()).collect();
    let want = reference::reduce::<u32, Sum>(&data);
    let input = shards(&gpus, &data, &[data.len()]);
    let mut out = poisoned::<u32>(&gpus, &[1]);
    let stream = gpus.stream(0).clone();
    let ctx = stream.context().clone();
    let capture = |gpus: &mut MultiGpu, out: &mut Vec<CudaSlice<u32>>| {
        // SAFETY: nothing else uses these buffers on other streams during the capture.
        unsafe { ctx.disable_event_tracking() };
        stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .unwrap();
        let reduced = gpus.reduce_into(&input, out, Sum);
        let graph = stream.end_capture(CUgraphInstantiate_flags(0)).unwrap();
        unsafe { ctx.enable_event_tracking() };
        (reduced, graph)
    };
    let (reduced, graph) = capture(&mut gpus, &mut out);
    match reduced {
        Err(e @ Error::Capturing { .. }) => {
            assert!(e.to_string().contains("before capturing"), "{e}")
        }
        other => panic!("the first capture: {other:?}"),
    }
    assert_captured_nothing(graph, "the refused reduce");
    gpus.reduce_into(&input, &mut out, Sum).unwrap();
    assert_eq!(stream.clone_dtoh(&out[0]).unwrap()[0], want, "warm-up");
    let (reduced, graph) = capture(&mut gpus, &mut out);
    reduced.unwrap();
    let graph = graph.expect("a graph");
    drop(gpus);
    for replay in 0..2 {
        stream.memcpy_htod(&[0xA5A5_A5A5u32], &mut out[0]).unwrap();
        graph.launch().unwrap();
        let got = stream.clone_dtoh(&out[0]).unwrap()[0];
        assert_eq!(got, want, "replay {replay}");
    }
}

/// The same over two GPUs: one capture, begun on rank 0's stream, with rank 1's stream forked
/// into it and joined back by events (how one thread captures NCCL work on several GPUs),
/// replayed after the `MultiGpu` is dropped. The graph holds both ranks' parts of NCCL's
/// all-gather, so the replays are right only if the communicators outlived the `MultiGpu`
/// (which leaks them once captured).
#[test]
fn captured_two_rank_reduce_replays_after_the_gpus_are_gone() {
    let Some((_one, mut gpus)) = two_ranks() else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(12);
    let data: Vec<u32> = (0..(1 << 20) + 3).map(|_| rng.random()).collect();
    let want = reference::reduce::<u32, Sum>(&data);
    let input = shards(&gpus, &data, &MultiGpu::shard_lengths(data.len(), 2));
    let mut out = poisoned::<u32>(&gpus, &[1, 1]);
    gpus.reduce_into(&input, &mut out, Sum).unwrap();
    gpus.synchronize().unwrap();
    let (first, second) = (gpus.stream(0).clone(), gpus.stream(1).clone());
    let (reduced, graph) = capture_two_ranks(&mut gpus, |g| g.reduce_into(&input, &mut out, Sum));
    reduced.unwrap();
    let graph = graph.expect("a graph");
    drop(gpus);
    for replay in 0..2 {
        first.memcpy_htod(&[0xA5A5_A5A5u32], &mut out[0]).unwrap();
        second.memcpy_htod(&[0xA5A5_A5A5u32], &mut out[1]).unwrap();
        second.synchronize().unwrap();
        graph.launch().unwrap();
        first.synchronize().unwrap();
        for (rank, (s, o)) in [&first, &second].into_iter().zip(&out).enumerate() {
            assert_eq!(
                s.clone_dtoh(o).unwrap()[0],
                want,
                "replay {replay}, rank {rank}"
            );
        }
    }
}

/// Two ranks for the two-rank capture tests, with the lock that runs NCCL tests one at a time,
/// or `None` (said) where this machine has fewer than two GPUs.
fn two_ranks() -> Option<(std::sync::MutexGuard<'static, ()>, MultiGpu)> {
    let one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(ordinals) = configurations().into_iter().find(|c| c.len() == 2) else {
        eprintln!("skipped: the two-rank capture needs two GPUs");
        return None;
    };
    Some((one, MultiGpu::new(&ordinals).unwrap()))
}

/// `enqueue` captured in one graph, begun on rank 0's stream, with rank 1's stream forked into
/// it and joined back by events (how one thread captures NCCL work on several GPUs).
fn capture_two_ranks<R>(
    gpus: &mut MultiGpu,
    enqueue: impl FnOnce(&mut MultiGpu) -> R,
) -> (R, Option<warpkit_host::cudarc::driver::CudaGraph>) {
    let (first, second) = (gpus.stream(0).clone(), gpus.stream(1).clone());
    for s in [&first, &second] {
        // SAFETY: nothing else uses the tests' buffers on other streams during the capture.
        unsafe { s.context().disable_event_tracking() };
    }
    first
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    let fork = first.record_event(None).unwrap();
    second.wait(&fork).unwrap();
    let enqueued = enqueue(gpus);
    let join = second.record_event(None).unwrap();
    first.wait(&join).unwrap();
    let graph = first.end_capture(CUgraphInstantiate_flags(0)).unwrap();
    for s in [&first, &second] {
        // SAFETY: as above.
        unsafe { s.context().enable_event_tracking() };
    }
    (enqueued, graph)
}

/// A two-rank scan captured where only rank 1's queue lacks storage (a warm-up with an empty
/// shard on rank 1 readied rank 0's alone) is refused before rank 0 enqueues anything: the
/// graph is empty. After the same call outside the capture, the capture holds the scan, and
/// its replays after the `MultiGpu` is gone give the scan of the whole input.
#[test]
fn two_rank_capture_is_refused_before_any_rank_enqueues() {
    let Some((_one, mut gpus)) = two_ranks() else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(13);
    let n = (1 << 16) + 5;
    let data: Vec<u32> = (0..2 * n).map(|_| rng.random()).collect();
    let warm = shards(&gpus, &data[..n], &[n, 0]);
    let mut warm_out = poisoned::<u32>(&gpus, &[n, 0]);
    gpus.scan(&warm, &mut warm_out, Sum, ScanKind::Inclusive)
        .unwrap();
    gpus.synchronize().unwrap();
    let lengths = [n, n];
    let input = shards(&gpus, &data, &lengths);
    let mut out = poisoned::<u32>(&gpus, &lengths);
    let (scanned, graph) = capture_two_ranks(&mut gpus, |g| {
        g.scan(&input, &mut out, Sum, ScanKind::Inclusive)
    });
    match scanned {
        Err(e @ Error::Capturing { .. }) => {
            assert!(e.to_string().contains("before capturing"), "{e}")
        }
        other => panic!("the first capture: {other:?}"),
    }
    assert_captured_nothing(graph, "the refused scan");
    let want = reference::scan::<u32, Sum>(&data, false);
    gpus.scan(&input, &mut out, Sum, ScanKind::Inclusive)
        .unwrap();
    assert_eq!(gpus.gather(&out).unwrap(), want, "outside the capture");
    let (scanned, graph) = capture_two_ranks(&mut gpus, |g| {
        g.scan(&input, &mut out, Sum, ScanKind::Inclusive)
    });
    scanned.unwrap();
    let graph = graph.expect("a graph");
    let streams = [gpus.stream(0).clone(), gpus.stream(1).clone()];
    drop(gpus);
    for replay in 0..2 {
        for (s, o) in streams.iter().zip(&mut out) {
            s.memcpy_htod(&vec![0xA5A5_A5A5u32; o.len()], o).unwrap();
            s.synchronize().unwrap();
        }
        graph.launch().unwrap();
        streams[0].synchronize().unwrap();
        let got: Vec<u32> = streams
            .iter()
            .zip(&out)
            .flat_map(|(s, o)| s.clone_dtoh(o).unwrap())
            .collect();
        assert_eq!(got, want, "replay {replay}");
    }
}
