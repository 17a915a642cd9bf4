//! One test per defect of issue 9, each failing on the old host crate. GPU tests skip, saying
//! so, where there is no GPU (and fail with `WARPKIT_REQUIRE_GPU=1`). The compile-time ones
//! (sealed traits, a freed slice) are `compile_fail` doc tests in `warpkit_host`'s docs.

mod common;

use common::*;
use rand::{Rng, SeedableRng, rngs::StdRng};
use warpkit::ops::{ArgMin, Max, Min, Sum};
use warpkit_host::cudarc::driver::sys::{self, CUgraphInstantiate_flags, CUstreamCaptureMode};
use warpkit_host::reference;
use warpkit_host::{ArgResult, Error, Queue, ScanKind, Warpkit};

fn rng() -> StdRng {
    let s: u64 = rand::random();
    eprintln!("seed {s}");
    StdRng::seed_from_u64(s)
}

/// Temporary storage was zeroed and offsets uploaded on the legacy default stream, which a
/// non-blocking stream does not wait for. Now: with the legacy stream busy on an 8 GiB copy,
/// a fresh queue on a fresh non-blocking stream (fresh storage, first use) still computes
/// the right reduce, scan and segments.
#[test]
fn busy_default_stream_does_not_matter() {
    let Some(wk) = device(None) else { return };
    let ctx = wk.context();
    let legacy = ctx.default_stream();
    let bytes = 8usize << 30;
    let (free, _) = ctx.mem_get_info().unwrap();
    assert!(
        free > 2 * bytes + (1 << 30),
        "needs 17 GiB of free device memory, have {free}"
    );
    let src = legacy.alloc_zeros::<u8>(bytes).unwrap();
    let mut dst = unsafe { legacy.alloc::<u8>(bytes) }.unwrap();
    legacy.synchronize().unwrap();
    let mut rng = rng();
    let data: Vec<u32> = (0..(1 << 22) + 7).map(|_| rng.random()).collect();
    let offsets = [0u64, 5, 5, 1000, 1 << 20];
    let stream = wk.new_stream().unwrap();
    let input = stream.clone_htod(&data).unwrap();
    let mut scanned = stream.alloc_zeros::<u32>(data.len()).unwrap();
    let mut rows = stream.alloc_zeros::<u32>(offsets.len() - 1).unwrap();
    stream.synchronize().unwrap();
    // The copy keeps the legacy stream busy for milliseconds.
    legacy.memcpy_dtod(&src, &mut dst).unwrap();
    let mut q = Queue::new(&wk, &stream).unwrap();
    let total = q.reduce(&input, Sum).unwrap();
    q.scan(&input, &mut scanned, Sum, ScanKind::Inclusive)
        .unwrap();
    q.segments_reduce(&input, &offsets, &mut rows, Max).unwrap();
    q.synchronize().unwrap();
    assert_eq!(total, reference::reduce::<u32, Sum>(&data));
    assert_eq!(
        stream.clone_dtoh(&scanned).unwrap(),
        reference::scan::<u32, Sum>(&data, false)
    );
    let want: Vec<u32> = offsets
        .windows(2)
        .map(|w| reference::reduce::<u32, Max>(&data[w[0] as usize..w[1] as usize]))
        .collect();
    assert_eq!(stream.clone_dtoh(&rows).unwrap(), want);
    legacy.synchronize().unwrap();
}

/// The scan epoch was a by-value kernel parameter, so a replayed graph reused it. Now: reduce,
/// arg-min and scan captured once, replayed 3 times with fresh data copied into the same buffers; with
/// grids of one wave and of several, and a scan small enough to launch as one thread block
/// cluster (sm_90+).
#[test]
fn graph_capture_replays_with_fresh_data() {
    let Some(wk) = device(None) else { return };
    for n in [(1 << 16) - 3, (1 << 20) + 3, (1 << 23) + 3] {
        capture_and_replay(&wk, n);
    }
}

fn capture_and_replay(wk: &Warpkit, n: usize) {
    let stream = wk.new_stream().unwrap();
    let mut input = stream.alloc_zeros::<u32>(n).unwrap();
    let mut scanned = stream.alloc_zeros::<u32>(n).unwrap();
    let mut total = stream.alloc_zeros::<u32>(1).unwrap();
    let mut lowest = stream.alloc_zeros::<ArgResult<u32>>(1).unwrap();
    let mut q = Queue::new(wk, &stream).unwrap();
    // One call of each, so the queue's storage exists before the capture.
    q.reduce_into(&input, &mut total, Sum).unwrap();
    q.arg_reduce_into(&input, &mut lowest, ArgMin).unwrap();
    q.scan(&input, &mut scanned, Sum, ScanKind::Exclusive)
        .unwrap();
    q.synchronize().unwrap();
    let ctx = wk.context().clone();
    // SAFETY: nothing else uses these buffers on other streams during the capture.
    unsafe { ctx.disable_event_tracking() };
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    q.reduce_into(&input, &mut total, Sum).unwrap();
    q.arg_reduce_into(&input, &mut lowest, ArgMin).unwrap();
    q.scan(&input, &mut scanned, Sum, ScanKind::Exclusive)
        .unwrap();
    assert!(matches!(
        q.reduce(&input, Sum),
        Err(Error::Capturing { .. })
    ));
    let graph = stream
        .end_capture(CUgraphInstantiate_flags(0))
        .unwrap()
        .expect("a graph");
    unsafe { ctx.enable_event_tracking() };
    let mut rng = rng();
    // The queue's scan storage grows after the capture, then the queue goes: the graph keeps
    // the storage it captured, which the queue leaks rather than frees. A fresh queue's work
    // on the same stream between replays takes what a freed storage would have left.
    let big_len = (8 * n).max(1 << 24);
    let big_data: Vec<u32> = (0..big_len).map(|_| rng.random()).collect();
    let big = stream.clone_htod(&big_data).unwrap();
    let mut big_out = stream.alloc_zeros::<u32>(big_len).unwrap();
    q.scan(&big, &mut big_out, Sum, ScanKind::Inclusive)
        .unwrap();
    drop(q);
    let mut fresh = Queue::new(wk, &stream).unwrap();
    for replay in 0..3 {
        fresh
            .scan(&big, &mut big_out, Sum, ScanKind::Exclusive)
            .unwrap();
        let data: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
        stream.memcpy_htod(&data, &mut input).unwrap();
        stream
            .memcpy_htod(&[0xA5A5_A5A5u32; 1], &mut total)
            .unwrap();
        let poison = ArgResult::new(0xA5A5_A5A5u32, 0xA5A5_A5A5);
        stream.memcpy_htod(&[poison], &mut lowest).unwrap();
        graph.launch().unwrap();
        stream.synchronize().unwrap();
        let found = stream.clone_dtoh(&lowest).unwrap()[0];
        let want = reference::arg_reduce::<u32, ArgMin>(&data).expect("not empty");
        assert_eq!(
            (found.value, found.index as usize),
            want,
            "n {n}, replay {replay}: arg-min"
        );
        assert_eq!(
            stream.clone_dtoh(&total).unwrap()[0],
            reference::reduce::<u32, Sum>(&data),
            "n {n}, replay {replay}"
        );
        let got = stream.clone_dtoh(&scanned).unwrap();
        assert_eq!(
            got,
            reference::scan::<u32, Sum>(&data, true),
            "n {n}, replay {replay}: scan"
        );
        assert!(
            stream.clone_dtoh(&big_out).unwrap() == reference::scan::<u32, Sum>(&big_data, true),
            "n {n}, replay {replay}: the fresh queue's scan"
        );
    }
}

/// A capture could allocate the queue's storage inside the graph (which exists only once
/// the graph runs) and free the old in it. Now: an operation that needs more storage than the
/// queue has is refused during a capture, saying what to run first, and nothing is captured;
/// after that warm-up, the same operations capture and replay.
#[test]
fn capture_refuses_operations_that_need_new_storage() {
    let Some(wk) = device(None) else { return };
    let stream = wk.new_stream().unwrap();
    let mut q = Queue::new(&wk, &stream).unwrap();
    let mut rng = rng();
    let n = (1 << 22) + 5;
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let input = stream.clone_htod(&data).unwrap();
    let mut scanned = stream.alloc_zeros::<u32>(n).unwrap();
    let mut total = stream.alloc_zeros::<u32>(1).unwrap();
    let ctx = wk.context().clone();
    let capture = |q: &mut Queue, scanned: &mut _, total: &mut _| {
        // SAFETY: nothing else uses these buffers on other streams during the capture.
        unsafe { ctx.disable_event_tracking() };
        stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .unwrap();
        let scan = q.scan(&input, scanned, Sum, ScanKind::Inclusive);
        let reduce = q.reduce_into(&input, total, Sum);
        let graph = stream.end_capture(CUgraphInstantiate_flags(0)).unwrap();
        unsafe { ctx.enable_event_tracking() };
        (scan, reduce, graph)
    };
    let (scan, reduce, graph) = capture(&mut q, &mut scanned, &mut total);
    for (what, result) in [("scan", scan), ("reduce", reduce)] {
        match result {
            Err(e @ Error::Capturing { .. }) => {
                assert!(e.to_string().contains("before capturing"), "{e}")
            }
            other => panic!("{what} during the capture: {other:?}"),
        }
    }
    // The driver returns a graph, with no nodes.
    assert_captured_nothing(graph, "the refused operations");
    // The warm-up, then the same capture.
    q.scan(&input, &mut scanned, Sum, ScanKind::Inclusive)
        .unwrap();
    q.reduce_into(&input, &mut total, Sum).unwrap();
    let (scan, reduce, graph) = capture(&mut q, &mut scanned, &mut total);
    scan.unwrap();
    reduce.unwrap();
    let graph = graph.expect("a graph");
    let want_scan = reference::scan::<u32, Sum>(&data, false); // inclusive
    let want_total = reference::reduce::<u32, Sum>(&data);
    for replay in 0..2 {
        stream.memset_zeros(&mut scanned).unwrap();
        stream.memset_zeros(&mut total).unwrap();
        graph.launch().unwrap();
        assert!(
            stream.clone_dtoh(&scanned).unwrap() == want_scan,
            "replay {replay}: scan"
        );
        assert_eq!(
            stream.clone_dtoh(&total).unwrap()[0],
            want_total,
            "replay {replay}"
        );
    }
}

/// Float Min over all-NaN returned +inf and arg-min of all-NaN returned index 4294967295.
#[test]
fn all_nan_min_and_arg_min() {
    let Some(wk) = device(None) else { return };
    let stream = wk.new_stream().unwrap();
    let mut q = Queue::new(&wk, &stream).unwrap();
    for n in [1usize, 33, 5000, (1 << 20) + 1] {
        let nan32 = stream.clone_htod(&vec![f32::NAN; n]).unwrap();
        let nan64 = stream.clone_htod(&vec![-f64::NAN; n]).unwrap();
        assert_eq!(
            q.reduce(&nan32, Min).unwrap().to_bits(),
            0x7fff_ffff,
            "f32 min n={n}"
        );
        assert_eq!(
            q.reduce(&nan64, Max).unwrap().to_bits(),
            0x7fff_ffff_ffff_ffff,
            "f64 max n={n}"
        );
        let (v, i) = q.arg_reduce(&nan32, ArgMin).unwrap().unwrap();
        assert!(v.is_nan() && i == 0, "f32 arg-min n={n}: ({v}, {i})");
        let (v, i) = q.arg_reduce(&nan64, ArgMin).unwrap().unwrap();
        assert!(v.is_nan() && i == 0, "f64 arg-min n={n}: ({v}, {i})");
        let h = stream.clone_htod(&vec![half::f16::NAN; n]).unwrap();
        assert!(q.reduce(&h, Min).unwrap().is_nan(), "f16 min n={n}");
        let mut scanned = stream.alloc_zeros::<f32>(n).unwrap();
        q.scan(&nan32, &mut scanned, Min, ScanKind::Inclusive)
            .unwrap();
        let got = stream.clone_dtoh(&scanned).unwrap();
        assert!(
            got.iter().all(|x| x.to_bits() == 0x7fff_ffff),
            "f32 min scan n={n}"
        );
    }
}

/// rows_reduce computed rows × width after checked_mul failed (a panic in debug builds).
#[test]
fn rows_reduce_with_usize_max_width_is_an_error() {
    let Some(wk) = device(None) else { return };
    let stream = wk.new_stream().unwrap();
    let mut q = Queue::new(&wk, &stream).unwrap();
    let input = stream.clone_htod(&[1u32, 2]).unwrap();
    let mut out = stream.alloc_zeros::<u32>(3).unwrap();
    let err = q
        .rows_reduce(&input, usize::MAX, &mut out, Sum)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Overflow {
                rows: 3,
                width: usize::MAX,
                ..
            }
        ),
        "{err}"
    );
}

/// A Queue moved to another thread failed with InvalidContext.
#[test]
fn queue_used_from_another_thread() {
    let Some(wk) = device(None) else { return };
    let stream = wk.new_stream().unwrap();
    let mut q = Queue::new(&wk, &stream).unwrap();
    let data: Vec<i64> = (0..100_003).map(|i| (i * 7919) % 1001 - 500).collect();
    let input = stream.clone_htod(&data).unwrap();
    let mut out = stream.alloc_zeros::<i64>(data.len()).unwrap();
    q.reduce(&input, Sum).unwrap(); // storage made on this thread
    let (total, scanned) = std::thread::spawn(move || {
        let total = q.reduce(&input, Sum).unwrap();
        q.scan(&input, &mut out, Min, ScanKind::Inclusive).unwrap();
        q.synchronize().unwrap();
        (total, q.stream().clone_dtoh(&out).unwrap())
    })
    .join()
    .unwrap();
    assert_eq!(total, data.iter().sum::<i64>());
    assert_eq!(scanned, reference::scan::<i64, Min>(&data, false));
}

/// Device 0 was hard-coded and every context error became NoDevice.
#[test]
fn device_selection_by_ordinal() {
    let Some(_) = device(None) else { return };
    let count = warpkit_host::cudarc::driver::CudaContext::device_count().unwrap() as usize;
    for ordinal in 0..count {
        let wk = Warpkit::new(ordinal).unwrap();
        assert_eq!(wk.ordinal(), ordinal);
        assert_eq!(wk.context().ordinal(), ordinal);
        assert!(wk.describe().contains(&format!("device {ordinal}")));
        let stream = wk.new_stream().unwrap();
        let mut q = Queue::new(&wk, &stream).unwrap();
        let input = stream.clone_htod(&[1u64, 2, 3]).unwrap();
        assert_eq!(q.reduce(&input, Sum).unwrap(), 6, "device {ordinal}");
    }
    match Warpkit::new(count) {
        Err(Error::NoDevice { ordinal, count: c }) => assert_eq!((ordinal, c), (count, count)),
        Err(e) => panic!("out-of-range ordinal: {e}"),
        Ok(_) => panic!("device {count} of {count} opened"),
    }
    let msg = Warpkit::new(count + 5).err().unwrap().to_string();
    assert_eq!(
        msg,
        format!(
            "no CUDA device {}: the driver reports {count} device(s)",
            count + 5
        )
    );
}

/// A slice dropped right after enqueuing work on it is freed after that work (cudarc's
/// events), not under it.
#[test]
fn dropping_inputs_after_enqueue_is_safe() {
    let Some(wk) = device(None) else { return };
    let stream = wk.new_stream().unwrap();
    let other = wk.new_stream().unwrap(); // the buffers live on another stream
    let mut q = Queue::new(&wk, &stream).unwrap();
    let mut rng = rng();
    let mut out = other.alloc_zeros::<f64>(1 << 22).unwrap();
    for _ in 0..4 {
        let data: Vec<f64> = (0..1 << 22).map(|_| rng.random_range(-1.0..1.0)).collect();
        let input = other.clone_htod(&data).unwrap();
        q.scan(&input, &mut out, Max, ScanKind::Inclusive).unwrap();
        drop(input); // freed on `other` after the scan on `stream`
        let _reuse = other.clone_htod(&vec![f64::NAN; 1 << 22]).unwrap();
        let got = other.clone_dtoh(&out).unwrap();
        assert_eq!(got, reference::scan::<f64, Max>(&data, false));
    }
}

/// Queues refuse buffers and streams of another context.
#[test]
fn wrong_context_is_refused() {
    let Some(wk) = device(None) else { return };
    let count = warpkit_host::cudarc::driver::CudaContext::device_count().unwrap() as usize;
    if count < 2 {
        eprintln!("skipped: one device; the wrong-context check needs two");
        return;
    }
    let other = Warpkit::new(1).unwrap();
    let s1 = other.new_stream().unwrap();
    assert!(matches!(
        Queue::new(&wk, &s1),
        Err(Error::WrongContext { .. })
    ));
    let s0 = wk.new_stream().unwrap();
    let mut q = Queue::new(&wk, &s0).unwrap();
    let input = s1.clone_htod(&[1u32]).unwrap();
    assert!(matches!(
        q.reduce(&input, Sum),
        Err(Error::WrongContext { .. })
    ));
}

/// Every embedded target either loads (those this device runs: each then reduces right) or is
/// refused by name with the targets that do run here, never with the driver's bare error (an
/// `sm_100a` module on an H200 was `CUDA_ERROR_NO_BINARY_FOR_GPU` before).
#[test]
fn named_targets_load_or_say_which_run_here() {
    let Some(wk) = device(None) else { return };
    let ctx = wk.context().clone();
    let (major, minor) = ctx.compute_capability().unwrap();
    let (major, minor) = (major as u32, minor as u32);
    let data: Vec<u32> = (0..100_003u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let want = reference::reduce::<u32, Sum>(&data);
    let mut loaded = 0;
    let mut driver = 0;
    // SAFETY: writes one integer.
    unsafe { sys::cuDriverGetVersion(&mut driver) }
        .result()
        .unwrap();
    let driver = driver as u32;
    for target in warpkit_host::ptx::targets() {
        match Warpkit::with_target(&ctx, target) {
            Ok(wk) => {
                let t = warpkit_builder::Target::parse(target).unwrap();
                assert!(
                    t.runs_on(major, minor),
                    "{target} loaded on {major}.{minor}"
                );
                let stream = wk.new_stream().unwrap();
                let mut q = Queue::new(&wk, &stream).unwrap();
                let input = stream.clone_htod(&data).unwrap();
                assert_eq!(q.reduce(&input, Sum).unwrap(), want, "{target}");
                loaded += 1;
            }
            Err(e @ Error::TargetCannotRun { .. }) => {
                let message = e.to_string();
                let Error::TargetCannotRun { runnable, .. } = e else {
                    unreachable!()
                };
                // Refused only where the device or the driver cannot run it.
                let t = warpkit_builder::Target::parse(target).unwrap();
                let ptx = warpkit_host::ptx::for_target(target).unwrap();
                let needs = warpkit_builder::driver_for_ptx(ptx).unwrap();
                assert!(
                    !t.runs_on(major, minor) || needs > driver,
                    "{target} refused on {major}.{minor} under driver {driver}: {message}"
                );
                let runnable: Vec<&str> = runnable.split(", ").collect();
                assert!(runnable.contains(&"sm_70"), "{message}");
                assert!(!runnable.contains(&target), "{message}");
                eprintln!("refused as expected: {message}");
            }
            Err(e) => panic!("{target}: {e}"),
        }
    }
    assert!(
        loaded >= 2,
        "sm_70 and sm_80 run on every device these tests target"
    );
    // The target `Warpkit::on` picks loads by name too.
    Warpkit::with_target(&ctx, wk.target()).unwrap();
    assert!(matches!(
        Warpkit::with_target(&ctx, "sm_52"),
        Err(Error::UnknownTarget(..))
    ));
}
