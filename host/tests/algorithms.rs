//! Device reduce, arg-reduce, scan, rows and segments against the CPU model
//! (`warpkit_host::reference`) on fresh random data, every element type: integers exact
//! (wrapping), min/max exact bits (NaN, ±inf and ±0 among the inputs), float sums within a
//! stated bound of the exact sum; outputs poisoned before each run and every element checked;
//! each case run twice and compared bit for bit. Skips, saying so, where there is no GPU.

mod common;

use common::*;
use half::{bf16, f16};
use rand::{Rng, SeedableRng, rngs::StdRng};
use warpkit::ops::{ArgMax, ArgMin, Max, Min, Sum};
use warpkit_host::cudarc::driver::{CudaSlice, DevicePtr};
use warpkit_host::reference::{self, Fold, Model};
use warpkit_host::{
    ArgElement, ArgOp, ArgResult, DeviceOp, Element, Error, Queue, ScanKind, Warpkit,
};

/// A test element: random values and how results are compared.
trait TestElement: Element + Default
where
    Self::Accum: Model,
{
    /// Any value: for floats also NaN, ±inf, ±0 (one in 16 draws).
    fn random(rng: &mut StdRng) -> Self;
    /// A finite value (float sums are compared within a bound).
    fn finite(rng: &mut StdRng) -> Self {
        Self::random(rng)
    }
    /// Bound on a float sum's error, as a multiple of the sum of magnitudes (in the `f32`/
    /// `f64` accumulator): each thread adds up to a few thousand terms in sequence, so
    /// (n ε) with n ≤ 2^12, plus the tree.
    const SUM_TOLERANCE: f64 = 0.0;
    /// Relative rounding of a result stored as `Self` (`f16` 2^-11, `bf16` 2^-8).
    const ROUNDING: f64 = 0.0;
}

macro_rules! int_elements { ($($t:ty),*) => {$(
    impl TestElement for $t {
        fn random(rng: &mut StdRng) -> Self { rng.random() }
    }
)*}; }
int_elements!(u32, i32, u64, i64);

fn special(rng: &mut StdRng) -> Option<f64> {
    match rng.random_range(0..80) {
        0 => Some(f64::NAN),
        1 => Some(f64::INFINITY),
        2 => Some(f64::NEG_INFINITY),
        3 => Some(0.0),
        4 => Some(-0.0),
        _ => None,
    }
}

macro_rules! float_elements { ($($t:ty, $from:expr, $tol:expr, $round:expr;)*) => {$(
    impl TestElement for $t {
        fn random(rng: &mut StdRng) -> Self {
            let x = special(rng).unwrap_or_else(|| rng.random_range(-1.0..1.0));
            let f: fn(f64) -> $t = $from;
            f(x)
        }
        fn finite(rng: &mut StdRng) -> Self {
            let x = if rng.random_range(0..32) == 0 { [0.0, -0.0][rng.random_range(0..2)] } else { rng.random_range(-1.0..1.0) };
            let f: fn(f64) -> $t = $from;
            f(x)
        }
        const SUM_TOLERANCE: f64 = $tol;
        const ROUNDING: f64 = $round;
    }
)*}; }
float_elements! {
    f32, |x| x as f32, 2e-4, 0.0;
    f64, |x| x, 1e-12, 0.0;
    f16, f16::from_f64, 2e-4, 1.0 / 2048.0;
    bf16, bf16::from_f64, 2e-4, 1.0 / 256.0;
}

/// Compares a device result with the model's: bits (NaN: both NaN; the canonical NaN for
/// min/max in `f32`/`f64`), or for float sums within
/// `SUM_TOLERANCE × max(Σ|x|, 1) + ROUNDING × |reference|`.
fn same<T: TestElement>(
    got: T::Accum,
    want: T::Accum,
    magnitude: f64,
    op: &str,
    what: &dyn Fn() -> String,
) where
    T::Accum: Model,
{
    let float = T::Accum::canonical_nan().nan();
    if want.nan() {
        assert!(got.nan(), "{}: got {got:?}, want NaN", what());
        let exact_nan = op != "sum" && op != "arg" && T::ROUNDING == 0.0;
        if exact_nan {
            assert_eq!(
                bytemuck::bytes_of(&got),
                bytemuck::bytes_of(&want),
                "{}: not the canonical NaN",
                what()
            );
        }
        return;
    }
    if float && op == "sum" && want.wide().is_finite() {
        let (g, w) = (got.wide(), want.wide());
        let bound = T::SUM_TOLERANCE * magnitude.max(1.0) + T::ROUNDING * w.abs();
        assert!(
            (g - w).abs() <= bound,
            "{}: got {g}, reference {w}, bound {bound}",
            what()
        );
        return;
    }
    assert_eq!(
        bytemuck::bytes_of(&got),
        bytemuck::bytes_of(&want),
        "{}: got {got:?}, want {want:?}",
        what()
    );
}

fn sizes() -> Vec<usize> {
    let mut s = vec![0, 1, 31, 32, 33, 1023, 1024, 1025];
    for k in [12, 16, 17, 20, 24] {
        s.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    s
}

fn seed() -> StdRng {
    let s: u64 = rand::random();
    eprintln!("seed {s}");
    StdRng::seed_from_u64(s)
}

fn magnitude<T: Element>(data: &[T]) -> f64
where
    T::Accum: Model,
{
    data.iter()
        .map(|x| x.to_accum().wide().abs())
        .filter(|m| m.is_finite())
        .sum()
}

fn check_reduce<T: TestElement, O: DeviceOp>(q: &mut Queue, data: &[T], input: &impl DevicePtr<T>)
where
    T::Accum: Model,
{
    let want = reference::reduce::<T, O>(data);
    let mag = magnitude(data);
    let mut results = Vec::new();
    for _ in 0..2 {
        let mut out = poisoned::<T::Accum>(2);
        q.reduce_into(input, &mut out, O::default()).unwrap();
        q.synchronize().unwrap();
        let out = download(&out);
        let poison: T::Accum =
            bytemuck::cast_slice::<u8, T::Accum>(&[0xA5u8; 16][..std::mem::size_of::<T::Accum>()])
                [0];
        assert_eq!(
            bytemuck::bytes_of(&out[1]),
            bytemuck::bytes_of(&poison),
            "reduce_into wrote past output[0]"
        );
        results.push(out[0]);
        // `reduce` rounds the accumulator to T once.
        let host = q.reduce(input, O::default()).unwrap();
        assert_eq!(
            bytemuck::bytes_of(&host),
            bytemuck::bytes_of(&T::from_accum(out[0])),
            "reduce {} {} n={}: reduce and reduce_into disagree",
            O::NAME,
            T::NAME,
            data.len()
        );
    }
    for r in &results {
        same::<T>(*r, want, mag, O::NAME, &|| {
            format!("reduce {} {} n={}", O::NAME, T::NAME, data.len())
        });
    }
    assert_eq!(
        bytemuck::bytes_of(&results[0]),
        bytemuck::bytes_of(&results[1]),
        "reduce {} {} n={}: not deterministic",
        O::NAME,
        T::NAME,
        data.len()
    );
}

fn check_arg<T: TestElement + ArgElement, O: ArgOp>(
    q: &mut Queue,
    data: &[T],
    input: &impl DevicePtr<T>,
) where
    T::Accum: Model,
{
    let want = reference::arg_reduce::<T, O>(data);
    let got = q.arg_reduce(input, O::default()).unwrap();
    let what = || format!("{} {} n={}", O::NAME, T::NAME, data.len());
    match (got, want) {
        (None, None) => {}
        (Some((v, i)), Some((wv, wi))) => {
            assert_eq!(i, wi, "{}: index", what());
            same::<T>(v.to_accum(), wv, 0.0, "arg", &what);
        }
        _ => panic!("{}: got {got:?}, want {want:?}", what()),
    }
    let again = q.arg_reduce(input, O::default()).unwrap();
    assert_eq!(
        format!("{again:?}"),
        format!("{got:?}"),
        "{}: not deterministic",
        what()
    );
    // The same left on the device, in a poisoned slot: the value's bits and the index.
    let mut slot = poisoned::<ArgResult<T>>(1);
    let enqueued = q.arg_reduce_into(input, &mut slot, O::default());
    match got {
        None => assert!(
            matches!(enqueued, Err(Error::LengthMismatch { .. })),
            "{}: {enqueued:?}",
            what()
        ),
        Some((v, i)) => {
            enqueued.unwrap();
            let on_device = stream().clone_dtoh(&slot).unwrap()[0];
            assert_eq!(
                bytemuck::bytes_of(&on_device.value),
                bytemuck::bytes_of(&v),
                "{}: arg_reduce_into's value",
                what()
            );
            assert_eq!(
                on_device.index.into(),
                i as u64,
                "{}: arg_reduce_into's index",
                what()
            );
            assert!(
                bytemuck::bytes_of(&on_device.padding)
                    .iter()
                    .all(|&b| b == 0),
                "{}: arg_reduce_into's filler after the value: {:?}",
                what(),
                on_device.padding
            );
        }
    }
}

/// Scans `data[from..]`, uploaded as `input`, into a poisoned buffer `to` items in (so 4-byte
/// items at offsets 1-3 start off their 16-byte alignment), twice: checks every output item
/// against the model, the two runs bit for bit, and that the items before the output kept
/// their poison.
fn check_scan<T: TestElement, O: DeviceOp>(
    q: &mut Queue,
    data: &[T],
    input: &CudaSlice<T>,
    kind: ScanKind,
    (from, to): (usize, usize),
) where
    T::Accum: Model,
{
    let data = &data[from..];
    let what = || {
        format!(
            "{kind:?} scan {} {} n={} from offset {from} to offset {to}",
            O::NAME,
            T::NAME,
            data.len()
        )
    };
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut out = poisoned::<T>(to + data.len());
        q.scan(
            &input.slice(from..),
            &mut out.slice_mut(to..),
            O::default(),
            kind,
        )
        .unwrap();
        q.synchronize().unwrap();
        let all = download(&out);
        assert!(
            bytemuck::cast_slice::<T, u8>(&all[..to])
                .iter()
                .all(|&b| b == 0xA5),
            "{}: wrote before the output",
            what()
        );
        runs.push(all[to..].to_vec());
    }
    let mut fold = Fold::<T::Accum>::new(O::NAME);
    let mut mag = 0.0;
    for (i, &x) in data.iter().enumerate() {
        let (before, before_mag) = (fold.value(), mag);
        fold.push(x.to_accum());
        let w = x.to_accum().wide().abs();
        if w.is_finite() {
            mag += w;
        }
        let (want, m) = match kind {
            ScanKind::Inclusive => (fold.value(), mag),
            ScanKind::Exclusive => (before, before_mag),
        };
        same::<T>(runs[0][i].to_accum(), want, m, O::NAME, &|| {
            format!("{} at {i}", what())
        });
    }
    assert!(
        bytemuck::cast_slice::<T, u8>(&runs[0]) == bytemuck::cast_slice::<T, u8>(&runs[1]),
        "{}: not deterministic",
        what()
    );
}

/// Every operation of `T` at every size: sums on finite data, min/max/scans with NaN, ±inf, ±0.
fn device_algorithms<T: TestElement>(wk: &Warpkit, rng: &mut StdRng, sizes: &[usize])
where
    T::Accum: Model,
{
    let s = stream();
    let mut q = Queue::new(wk, &s).unwrap();
    for &n in sizes {
        let finite: Vec<T> = (0..n).map(|_| T::finite(rng)).collect();
        let input = upload(&finite);
        check_reduce::<T, Sum>(&mut q, &finite, &input);
        // Each scan also over the input without its first 1-3 items, into an output as far
        // into its buffer (unaligned, for items of up to 4 bytes).
        // Sums also from an unaligned input into an aligned output and back.
        let k = 1 + n % 3;
        let offsets = [(0, 0), (k, k)].map(|(a, b)| (a.min(n), b.min(n)));
        let mixed = [(k, 0), (0, k)].map(|(a, b)| (a.min(n), b.min(n)));
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for offsets in offsets.into_iter().chain(mixed) {
                check_scan::<T, Sum>(&mut q, &finite, &input, kind, offsets);
            }
        }
        // Reduces also from `k` items in: the items before the vectors' first line (or
        // 16-byte) boundary go one by one.
        check_reduce::<T, Sum>(
            &mut q,
            &finite[offsets[1].0..],
            &input.slice(offsets[1].0..),
        );
        let any: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
        let input = upload(&any);
        check_reduce::<T, Min>(&mut q, &any, &input);
        check_reduce::<T, Max>(&mut q, &any, &input);
        let from = offsets[1].0;
        check_reduce::<T, Min>(&mut q, &any[from..], &input.slice(from..));
        check_reduce::<T, Max>(&mut q, &any[from..], &input.slice(from..));
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for offsets in offsets {
                check_scan::<T, Min>(&mut q, &any, &input, kind, offsets);
                check_scan::<T, Max>(&mut q, &any, &input, kind, offsets);
            }
        }
        if n <= 4096 {
            // Sums over NaN and infinities: NaN, or the infinity, as IEEE says.
            check_reduce::<T, Sum>(&mut q, &any, &input);
        }
    }
    println!(
        "{}: reduce and scans checked at {} sizes up to {}",
        T::NAME,
        sizes.len(),
        sizes.iter().max().unwrap()
    );
}

fn arg_algorithms<T: TestElement + ArgElement>(wk: &Warpkit, rng: &mut StdRng, sizes: &[usize])
where
    T::Accum: Model,
{
    let s = stream();
    let mut q = Queue::new(wk, &s).unwrap();
    for &n in sizes {
        let any: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
        let input = upload(&any);
        check_arg::<T, ArgMin>(&mut q, &any, &input);
        check_arg::<T, ArgMax>(&mut q, &any, &input);
        // From 1-3 items in: indices count from the view's first item.
        let from = (1 + n % 3).min(n);
        check_arg::<T, ArgMin>(&mut q, &any[from..], &input.slice(from..));
        check_arg::<T, ArgMax>(&mut q, &any[from..], &input.slice(from..));
    }
    println!("{}: arg-min and arg-max checked", T::NAME);
}

#[test]
fn device_reduce_and_scan_every_type_and_operator() {
    let Some(wk) = device(None) else { return };
    let mut rng = seed();
    let sizes = sizes();
    device_algorithms::<u32>(&wk, &mut rng, &sizes);
    device_algorithms::<i32>(&wk, &mut rng, &sizes);
    device_algorithms::<f32>(&wk, &mut rng, &sizes);
    device_algorithms::<u64>(&wk, &mut rng, &sizes);
    device_algorithms::<i64>(&wk, &mut rng, &sizes);
    device_algorithms::<f64>(&wk, &mut rng, &sizes);
    device_algorithms::<f16>(&wk, &mut rng, &sizes);
    device_algorithms::<bf16>(&wk, &mut rng, &sizes);
}

/// Float min and max whose extreme is a zero of both signs, among NaNs of either sign and
/// payload: random data seldom has its minimum at zero, so the signed-zero rule (`-0.0 <
/// +0.0`) and the NaN rule are put where the result depends on them, the zeros at random
/// places (different threads and blocks), at sizes from one tile to many blocks, for `f32`
/// and `f64` (whose reduce folds with `min.f64`/`max.f64` on sm_80 and newer).
#[test]
fn float_min_max_of_signed_zeros_among_nans() {
    let Some(wk) = device(None) else { return };
    let mut rng = seed();
    let stream = wk.new_stream().unwrap();
    let mut q = Queue::new(&wk, &stream).unwrap();
    let nans = [f64::NAN, -f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)];
    for n in [2usize, 33, 5000, (1 << 20) + 1, (1 << 22) + 3] {
        for max in [false, true] {
            // Min: numbers in [1, 2) and zeros; max: in (-2, -1] and zeros.
            let sign = if max { -1.0 } else { 1.0 };
            let mut data: Vec<f64> = (0..n)
                .map(|_| match rng.random_range(0..64) {
                    0 => nans[rng.random_range(0..nans.len())],
                    _ => sign * rng.random_range(1.0..2.0),
                })
                .collect();
            let (neg, pos) = (rng.random_range(0..n), rng.random_range(0..n));
            data[pos] = 0.0;
            if neg != pos {
                data[neg] = -0.0;
            }
            // Max keeps +0.0; min keeps -0.0 where there is one.
            let want = if max || neg == pos { 0.0f64 } else { -0.0 };
            let d64 = stream.clone_htod(&data).unwrap();
            let f32s: Vec<f32> = data.iter().map(|&x| x as f32).collect();
            let d32 = stream.clone_htod(&f32s).unwrap();
            let (g64, g32) = if max {
                (q.reduce(&d64, Max).unwrap(), q.reduce(&d32, Max).unwrap())
            } else {
                (q.reduce(&d64, Min).unwrap(), q.reduce(&d32, Min).unwrap())
            };
            let what = format!("n {n}, max {max}, -0 at {neg}, +0 at {pos}");
            assert_eq!(g64.to_bits(), want.to_bits(), "f64 {what}: got {g64:?}");
            assert_eq!(
                g32.to_bits(),
                (want as f32).to_bits(),
                "f32 {what}: got {g32:?}"
            );
        }
    }
}

#[test]
fn device_arg_reduce_every_type() {
    let Some(wk) = device(None) else { return };
    let mut rng = seed();
    let sizes = sizes();
    arg_algorithms::<u32>(&wk, &mut rng, &sizes);
    arg_algorithms::<i32>(&wk, &mut rng, &sizes);
    arg_algorithms::<f32>(&wk, &mut rng, &sizes);
    arg_algorithms::<u64>(&wk, &mut rng, &sizes);
    arg_algorithms::<i64>(&wk, &mut rng, &sizes);
    arg_algorithms::<f64>(&wk, &mut rng, &sizes);
    arg_algorithms::<f16>(&wk, &mut rng, &sizes);
    arg_algorithms::<bf16>(&wk, &mut rng, &sizes);
}

/// The half min, max and arg-reduces, whose kernels fold each 16-byte vector of eight items at
/// once (min and max from sm_80 with `min`/`max.{f16,bf16}x2`; the arg-reduces on sm_90, the
/// lowest of eight packed ranks, then the first item that holds it): inputs of a few values
/// each, so that equal values sit in many vectors, threads and blocks (the lowest index must
/// win), both zeros (`-0.0` wins min and arg-min, `+0.0` max and arg-max), NaNs of both signs
/// and any payload (a number always beats them; an all-NaN input gives the canonical NaN, at
/// index 0), the infinities; at ragged sizes and 0-3 items into the buffer (so the vectors and
/// the items around them split differently). Each case against the host's model, twice.
#[test]
fn half_reduces_with_ties_zeros_and_nans() {
    let Some(wk) = device(None) else { return };
    let mut rng = seed();
    let s = stream();
    let mut q = Queue::new(&wk, &s).unwrap();
    fn case<T: TestElement + ArgElement>(
        q: &mut Queue,
        rng: &mut StdRng,
        from_bits: fn(u16) -> T,
        infinity: u16,
    ) where
        T::Accum: Model,
    {
        let nan = |rng: &mut StdRng| {
            let payload = rng.random_range(1..=!infinity & 0x7fff);
            infinity | payload | if rng.random() { 0x8000 } else { 0 }
        };
        // `None` is a NaN of random sign and payload.
        let pools: [&[Option<u16>]; 5] = [
            &[Some(0x0000), Some(0x8000)],
            &[Some(0x0000), Some(0x8000), None, Some(0x3c00)],
            &[None],
            &[None],
            &[
                Some(infinity),
                Some(infinity | 0x8000),
                None,
                Some(0x3c00),
                Some(0xbc00),
            ],
        ];
        for n in [
            1usize,
            7,
            8,
            9,
            100,
            4097,
            (1 << 16) + 5,
            (1 << 20) + 3,
            (1 << 22) + 7,
        ] {
            for (p, pool) in pools.iter().enumerate() {
                let mut data: Vec<T> = (0..n + 3)
                    .map(|_| pool[rng.random_range(0..pool.len())].unwrap_or_else(|| nan(rng)))
                    .map(from_bits)
                    .collect();
                if p == 3 {
                    // NaNs and one number.
                    let at = rng.random_range(0..data.len());
                    let sign = if rng.random() { 0x8000 } else { 0 };
                    data[at] = from_bits(rng.random_range(0..=infinity) | sign);
                }
                let input = upload(&data);
                for from in 0..=3 {
                    let view = &data[from..from + n];
                    let device = input.slice(from..from + n);
                    check_arg::<T, ArgMin>(q, view, &device);
                    check_arg::<T, ArgMax>(q, view, &device);
                    check_reduce::<T, Min>(q, view, &device);
                    check_reduce::<T, Max>(q, view, &device);
                }
            }
        }
        println!(
            "{}: min, max, arg-min and arg-max of ties, zeros and NaNs checked",
            T::NAME
        );
    }
    case::<f16>(&mut q, &mut rng, f16::from_bits, 0x7c00);
    case::<bf16>(&mut q, &mut rng, bf16::from_bits, 0x7f80);
}

/// Reduces and arg-reduces of views 1-3 items into their buffers, long enough that items of
/// every size read their head one by one up to a 128-byte line
/// (`layout::reduce_body_align`), with the view's largest and smallest items moved into that
/// head: a head item dropped or read twice changes the integer sums, and a dropped extreme
/// changes the min, the max and the arg-reduces' indices.
#[test]
fn reduces_from_an_offset_read_the_whole_head() {
    let Some(wk) = device(None) else { return };
    let mut rng = seed();
    let s = stream();
    let mut q = Queue::new(&wk, &s).unwrap();
    extremes_in_the_head::<u32>(&mut q, &mut rng);
    extremes_in_the_head::<i32>(&mut q, &mut rng);
    extremes_in_the_head::<f32>(&mut q, &mut rng);
    extremes_in_the_head::<u64>(&mut q, &mut rng);
    extremes_in_the_head::<i64>(&mut q, &mut rng);
    extremes_in_the_head::<f64>(&mut q, &mut rng);
    extremes_in_the_head::<f16>(&mut q, &mut rng);
    extremes_in_the_head::<bf16>(&mut q, &mut rng);
}

fn extremes_in_the_head<T: TestElement + ArgElement>(q: &mut Queue, rng: &mut StdRng)
where
    T::Accum: Model,
{
    let n = warpkit::abi::layout::REDUCE_LINE_BODY_MIN_LEN as usize + 64;
    for from in 1..=3 {
        let mut data: Vec<T> = (0..n).map(|_| T::finite(rng)).collect();
        // The maximum to the view's item 1, then the minimum to its item 2: both inside the
        // head (at least 16 - 3 items of 8 bytes).
        let (_, at) = reference::arg_reduce::<T, ArgMax>(&data[from..]).unwrap();
        data.swap(from + at, from + 1);
        let (_, at) = reference::arg_reduce::<T, ArgMin>(&data[from..]).unwrap();
        data.swap(from + at, from + 2);
        let input = upload(&data);
        let view = input.slice(from..);
        check_reduce::<T, Sum>(q, &data[from..], &view);
        check_reduce::<T, Min>(q, &data[from..], &view);
        check_reduce::<T, Max>(q, &data[from..], &view);
        check_arg::<T, ArgMin>(q, &data[from..], &view);
        check_arg::<T, ArgMax>(q, &data[from..], &view);
    }
    println!("{}: reduces from 1-3 items in checked", T::NAME);
}

#[test]
fn device_reduce_and_scan_at_two_to_the_thirty() {
    let Some(wk) = device(None) else { return };
    let mut rng = seed();
    let s = stream();
    let mut q = Queue::new(&wk, &s).unwrap();
    for n in [(1 << 30) - 1, 1 << 30, (1 << 30) + 1] {
        let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let input = upload(&data);
        check_reduce::<u32, Sum>(&mut q, &data, &input);
        drop(input);
        let data: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let input = upload(&data);
        check_scan::<f32, Sum>(&mut q, &data, &input, ScanKind::Inclusive, (0, 0));
    }
    println!("u32 sum reduce and f32 inclusive sum scan checked at 2^30-1, 2^30, 2^30+1");
}

#[test]
fn rows_and_segments_every_type() {
    let Some(wk) = device(None) else { return };
    for target in runnable_targets(&wk) {
        let wk = device(Some(target)).unwrap();
        let mut rng = seed();
        rows_and_segments::<u32>(&wk, &mut rng);
        rows_and_segments::<i32>(&wk, &mut rng);
        rows_and_segments::<f32>(&wk, &mut rng);
        rows_and_segments::<u64>(&wk, &mut rng);
        rows_and_segments::<i64>(&wk, &mut rng);
        rows_and_segments::<f64>(&wk, &mut rng);
        rows_and_segments::<f16>(&wk, &mut rng);
        rows_and_segments::<bf16>(&wk, &mut rng);
        wide_rows_sum_to_the_same_bits_at_every_offset::<f32>(&wk, &mut rng);
        wide_rows_sum_to_the_same_bits_at_every_offset::<f64>(&wk, &mut rng);
        wide_rows_sum_to_the_same_bits_at_every_offset::<f16>(&wk, &mut rng);
        println!("{target}: rows and segments checked for every type");
    }
}

/// Rows reduced by a block each sum to the same bits wherever they start: the vector and
/// item-by-item paths combine a row's items in the same order. The same values, 0 to 3 items
/// into their buffer, at a width whose rows start at every alignment and end in a partial step.
fn wide_rows_sum_to_the_same_bits_at_every_offset<T: TestElement>(wk: &Warpkit, rng: &mut StdRng)
where
    T::Accum: Model,
{
    let s = stream();
    let mut q = Queue::new(wk, &s).unwrap();
    let (rows, width) = (7, 3 * 4096 + 5);
    let data: Vec<T> = (0..rows * width).map(|_| T::finite(rng)).collect();
    let mut sums: Vec<Vec<T>> = Vec::new();
    for offset in 0..4 {
        let padded: Vec<T> = std::iter::repeat_n(data[0], offset)
            .chain(data.iter().copied())
            .collect();
        let input = upload(&padded);
        let mut out = poisoned::<T>(rows);
        q.rows_reduce(&input.slice(offset..), width, &mut out, Sum)
            .unwrap();
        q.synchronize().unwrap();
        sums.push(download(&out));
    }
    for (offset, got) in sums.iter().enumerate().skip(1) {
        assert_eq!(
            bytemuck::cast_slice::<T, u8>(got),
            bytemuck::cast_slice::<T, u8>(&sums[0]),
            "{}: rows of {width} summed {offset} items into the buffer differ from offset 0",
            T::NAME
        );
    }
}

fn rows_and_segments<T: TestElement>(wk: &Warpkit, rng: &mut StdRng)
where
    T::Accum: Model,
{
    let s = stream();
    let mut q = Queue::new(wk, &s).unwrap();
    for (rows, width) in [
        (1, 1),
        (1000, 7),
        (333, 32),
        (257, 100),
        (64, 1000),
        (4096, 129),
        // Rows of one width reduced by a block each (`ROWS_BLOCK_WIDTH`): exactly as wide,
        // few and wide (unaligned rows and partial steps), a few very wide.
        (40, 4096),
        (3, 70001),
        (2, 1 << 17),
    ] {
        let finite: Vec<T> = (0..rows * width).map(|_| T::finite(rng)).collect();
        let any: Vec<T> = (0..rows * width).map(|_| T::random(rng)).collect();
        let offsets: Vec<u64> = (0..=rows).map(|r| (r * width) as u64).collect();
        // Ragged rows given by offsets, some empty, not covering the whole input.
        let mut cuts: Vec<u64> = (0..rows)
            .map(|_| rng.random_range(0..=finite.len() as u64))
            .collect();
        cuts.push(0);
        cuts.sort();
        let (fin, all) = (upload(&finite), upload(&any));
        rows_case::<T, Sum>(&mut q, &finite, &fin, &offsets, Some(width));
        rows_case::<T, Min>(&mut q, &any, &all, &offsets, Some(width));
        rows_case::<T, Max>(&mut q, &any, &all, &offsets, Some(width));
        rows_case::<T, Sum>(&mut q, &finite, &fin, &cuts, None);
        rows_case::<T, Min>(&mut q, &any, &all, &cuts, None);
    }
}

fn rows_case<T: TestElement, O: DeviceOp>(
    q: &mut Queue,
    data: &[T],
    input: &CudaSlice<T>,
    offsets: &[u64],
    width: Option<usize>,
) where
    T::Accum: Model,
{
    let rows = offsets.len() - 1;
    let op = O::default();
    let mut reduced = poisoned::<T>(rows);
    match width {
        Some(w) => q.rows_reduce(input, w, &mut reduced, op).unwrap(),
        None => q.segments_reduce(input, offsets, &mut reduced, op).unwrap(),
    }
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let mut scanned = poisoned::<T>(data.len());
        let keep = download(&scanned);
        match width {
            Some(w) => q.rows_scan(input, w, &mut scanned, op, kind).unwrap(),
            None => q
                .segments_scan(input, offsets, &mut scanned, op, kind)
                .unwrap(),
        }
        q.synchronize().unwrap();
        let scanned = download(&scanned);
        let mut covered = vec![false; data.len()];
        for r in 0..rows {
            let (a, b) = (offsets[r] as usize, offsets[r + 1] as usize);
            let mut fold = Fold::<T::Accum>::new(O::NAME);
            let mut mag = 0.0;
            for i in a..b {
                covered[i] = true;
                let (before, before_mag) = (fold.value(), mag);
                fold.push(data[i].to_accum());
                mag += data[i].to_accum().wide().abs();
                let (want, m) = if kind == ScanKind::Inclusive {
                    (fold.value(), mag)
                } else {
                    (before, before_mag)
                };
                same::<T>(scanned[i].to_accum(), want, m, O::NAME, &|| {
                    format!("{kind:?} rows scan {} {} row {r} at {i}", O::NAME, T::NAME)
                });
            }
        }
        for i in (0..data.len()).filter(|&i| !covered[i]) {
            assert_eq!(
                bytemuck::bytes_of(&scanned[i]),
                bytemuck::bytes_of(&keep[i]),
                "rows scan wrote outside every row at {i}"
            );
        }
    }
    q.synchronize().unwrap();
    let reduced = download(&reduced);
    for r in 0..rows {
        let row = &data[offsets[r] as usize..offsets[r + 1] as usize];
        let want = reference::reduce::<T, O>(row);
        same::<T>(
            reduced[r].to_accum(),
            want,
            magnitude(row),
            O::NAME,
            &|| format!("rows reduce {} {} row {r} of {rows}", O::NAME, T::NAME),
        );
    }
}

/// One queue's reduce storage serves every accumulator size and both ends of the device
/// reduce: the flagged partials (which every launch must leave zero, whatever the type) and
/// the fenced ones. One queue interleaves reduces with 4-, 8- and 16-byte accumulators (u32
/// and f64 sums, f64 max, u64 arg-min, f32 arg-max) at sizes on both sides of the flagged
/// end's limit (`layout::reduce_flagged_batch` partials per thread of the last block), twice
/// round, on fresh data, each checked against the model.
#[test]
fn one_queue_interleaves_accumulator_sizes_and_both_reduce_ends() {
    let Some(wk) = device(None) else { return };
    let s = stream();
    let mut q = Queue::new(&wk, &s).unwrap();
    let mut rng = seed();
    for _ in 0..2 {
        for n in [
            1,
            4099,
            300_007,
            (1 << 20) + 3,
            (1 << 21) + 9,
            (1 << 23) + 1,
        ] {
            let ints: Vec<u32> = (0..n).map(|_| u32::random(&mut rng)).collect();
            check_reduce::<u32, Sum>(&mut q, &ints, &upload(&ints));
            let finite: Vec<f64> = (0..n).map(|_| f64::finite(&mut rng)).collect();
            check_reduce::<f64, Sum>(&mut q, &finite, &upload(&finite));
            let any: Vec<f64> = (0..n).map(|_| f64::random(&mut rng)).collect();
            check_reduce::<f64, Max>(&mut q, &any, &upload(&any));
            let wide: Vec<u64> = (0..n).map(|_| u64::random(&mut rng)).collect();
            check_arg::<u64, ArgMin>(&mut q, &wide, &upload(&wide));
            let floats: Vec<f32> = (0..n).map(|_| f32::random(&mut rng)).collect();
            check_arg::<f32, ArgMax>(&mut q, &floats, &upload(&floats));
        }
    }
}

/// On sm_90 with a CUDA 12.3 driver the library's kernels are programmatic dependents: each may
/// start while the kernel before it on the stream ends, and waits in its prologue. Each must
/// still see what the kernels before it wrote, and none may write what one before it still
/// reads. A chain with no synchronization between launches: a scan, a scan of its output, a
/// reduce and a segmented reduce of that, then a scan that overwrites the first output (which
/// the second scan read); at sizes from one item to several waves of tiles, every output
/// checked against the model.
#[test]
fn chained_launches_see_what_the_launch_before_wrote() {
    let Some(wk) = device(None) else { return };
    let s = stream();
    let mut q = Queue::new(&wk, &s).unwrap();
    let mut rng = seed();
    for n in [1, 33, 4099, (1 << 16) + 3, (1 << 20) + 5, (1 << 23) + 1] {
        let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let offsets = [0, n as u64 / 3, n as u64 / 3, n as u64];
        let input = upload(&data);
        let (mut first, mut second) = (poisoned::<u32>(n), poisoned::<u32>(n));
        let (mut total, mut segments) = (poisoned::<u32>(1), poisoned::<u32>(3));
        for _ in 0..3 {
            q.scan(&input, &mut first, Sum, ScanKind::Inclusive)
                .unwrap();
            q.scan(&first, &mut second, Max, ScanKind::Exclusive)
                .unwrap();
            q.reduce_into(&second, &mut total, Sum).unwrap();
            q.segments_reduce(&second, &offsets, &mut segments, Min)
                .unwrap();
            q.scan(&second, &mut first, Sum, ScanKind::Exclusive)
                .unwrap();
        }
        q.synchronize().unwrap();
        let sums = reference::scan::<u32, Sum>(&data, false);
        let maxima = reference::scan::<u32, Max>(&sums, true);
        assert_eq!(download(&second), maxima, "n {n}: scan of a scan");
        assert_eq!(
            download(&total)[0],
            reference::reduce::<u32, Sum>(&maxima),
            "n {n}: reduce of it"
        );
        let want: Vec<u32> = offsets
            .windows(2)
            .map(|w| reference::reduce::<u32, Min>(&maxima[w[0] as usize..w[1] as usize]))
            .collect();
        assert_eq!(download(&segments), want, "n {n}: segments of it");
        assert_eq!(
            download(&first),
            reference::scan::<u32, Sum>(&maxima, true),
            "n {n}: the scan written over the first"
        );
    }
}

#[test]
fn bad_input_is_refused_before_launch() {
    let Some(wk) = device(None) else { return };
    let s = stream();
    let mut q = Queue::new(&wk, &s).unwrap();
    let input = upload(&[1u32, 2, 3, 4]);
    let mut short = upload(&[7u32; 3]);
    let err = q
        .scan(&input, &mut short, Sum, ScanKind::Inclusive)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "scan: output has 3 elements, expected 4");
    assert_eq!(download(&short), [7, 7, 7], "nothing written");
    let mut out = upload(&[0u32; 2]);
    let err = q
        .segments_reduce(&input, &[0, 3, 2], &mut out, Sum)
        .unwrap_err()
        .to_string();
    assert!(err.contains("must not decrease"), "{err}");
    let err = q
        .segments_reduce(&input, &[0, 2, 9], &mut out, Sum)
        .unwrap_err()
        .to_string();
    assert!(err.contains("exceeds the input length 4"), "{err}");
    let err = q
        .segments_reduce(&input, &[0, 2], &mut out, Sum)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "segments_reduce: output (one element per row) has 2 elements, expected 1"
    );
    let err = q
        .rows_reduce(&input, 3, &mut out, Sum)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "rows_reduce: input (rows × width, rows = output length) has 4 elements, expected 6"
    );
    let err = q
        .rows_reduce(&input, usize::MAX, &mut out, Sum)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!("rows_reduce: 2 rows × width {} overflows usize", usize::MAX)
    );
    let mut four = upload(&[0u32; 4]);
    let err = q
        .rows_scan(&input, 3, &mut four, Sum, ScanKind::Inclusive)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "rows_scan: input (a whole number of rows of the width) has 4 elements, expected 3"
    );
    q.synchronize().unwrap();
    assert_eq!(download(&out), [0, 0]);
    assert_eq!(download(&four), [0; 4]);
    let mut none = upload::<u32>(&[]);
    let err = q
        .reduce_into(&input.slice(0..0), &mut none, Sum)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "reduce_into: output has 0 elements, expected 1");
    let empty = upload::<f32>(&[]);
    assert_eq!(
        q.reduce(&empty, Min).unwrap().to_bits(),
        0x7fff_ffff,
        "empty input gives the identity: the canonical NaN (the minimum of no number)"
    );
    assert_eq!(q.arg_reduce(&empty, ArgMax).unwrap(), None);
    let mut box1 = upload(&[5.0f32]);
    q.reduce_into(&empty, &mut box1, Max).unwrap();
    q.synchronize().unwrap();
    assert_eq!(download(&box1)[0].to_bits(), 0x7fff_ffff);
    let mut whole = upload(&[1u32, 2, 3, 4, 5]);
    q.scan_in_place(&mut whole, Sum, ScanKind::Inclusive)
        .unwrap();
    let mut tail = whole.slice_mut(1..5);
    q.scan_in_place(&mut tail, Max, ScanKind::Exclusive)
        .unwrap();
    q.synchronize().unwrap();
    assert_eq!(download(&whole), [1, 0, 3, 6, 10]);
}
