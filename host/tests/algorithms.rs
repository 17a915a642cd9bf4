//! Device reduce, arg-reduce, scan, rows and segments against CPU references on fresh random
//! data: integers exact (wrapping), floats within a stated bound of a wider reference,
//! outputs poisoned before each run and every element checked, each case run twice and
//! compared bit for bit. Skips, saying so, where there is no GPU.

mod common;

use common::*;
use cust::memory::DeviceBuffer;
use rand::{Rng, SeedableRng, rngs::StdRng};
use warpkit::ops::{ArgMax, ArgMin, Max, Min, ReduceOp, Sum};
use warpkit_host::{ArgOp, DeviceOp, Element, Queue, ScanKind, Warpkit};

/// A test element: random values and how results are compared.
trait TestElement: Element + Default {
    fn random(rng: &mut StdRng) -> Self;
    /// `Some` for floats: the value as `f64` (sums are compared within a bound).
    fn as_f64(self) -> Option<f64>;
    /// Relative bound on a float sum's error, as a multiple of the sum of magnitudes.
    const SUM_TOLERANCE: f64 = 0.0;
}

macro_rules! int_elements { ($($t:ty),*) => {$(
    impl TestElement for $t {
        fn random(rng: &mut StdRng) -> Self { rng.random() }
        fn as_f64(self) -> Option<f64> { None }
    }
)*}; }
int_elements!(u32, i32, u64, i64);

impl TestElement for f32 {
    fn random(rng: &mut StdRng) -> Self {
        rng.random_range(-1.0..1.0)
    }
    fn as_f64(self) -> Option<f64> {
        Some(self as f64)
    }
    // Each thread adds up to a few thousand terms in sequence: (n ε) with ε = 2^-24, n ≤ 2^12.
    const SUM_TOLERANCE: f64 = 2e-4;
}

impl TestElement for f64 {
    fn random(rng: &mut StdRng) -> Self {
        rng.random_range(-1.0..1.0)
    }
    fn as_f64(self) -> Option<f64> {
        Some(self)
    }
    const SUM_TOLERANCE: f64 = 1e-12;
}

/// Neumaier-compensated sum: a reference more precise than f64's plain sum.
#[derive(Default, Clone, Copy)]
struct Compensated {
    sum: f64,
    c: f64,
    magnitude: f64,
}

impl Compensated {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.c += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
        self.magnitude += x.abs();
    }
    fn value(&self) -> f64 {
        self.sum + self.c
    }
}

/// Compares a device result with the exact fold (ints, min, max) or the wide sum (float sums).
fn same<T: TestElement>(got: T, exact: T, wide: Option<&Compensated>, what: &dyn Fn() -> String) {
    match (got.as_f64(), wide) {
        (Some(g), Some(w)) => {
            let bound = T::SUM_TOLERANCE * w.magnitude.max(1.0);
            assert!(
                (g - w.value()).abs() <= bound,
                "{}: got {g}, reference {}, bound {bound}",
                what(),
                w.value()
            );
        }
        _ => assert_eq!(
            bytemuck::bytes_of(&got),
            bytemuck::bytes_of(&exact),
            "{}: got {got:?}, want {exact:?}",
            what()
        ),
    }
}

fn sizes() -> Vec<usize> {
    let mut s = vec![0, 1, 31, 32, 33, 1023, 1024, 1025];
    for k in [12, 16, 20, 24] {
        s.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    s
}

fn seed() -> StdRng {
    let s: u64 = rand::random();
    eprintln!("seed {s}");
    StdRng::seed_from_u64(s)
}

fn check_reduce<T: TestElement, O: DeviceOp<T> + std::fmt::Debug>(
    q: &mut Queue,
    data: &[T],
    input: &DeviceBuffer<T>,
    op: O,
) {
    let exact = data.iter().fold(op.identity(), |a, &b| op.combine(a, b));
    let mut wide = Compensated::default();
    let is_sum = O::NAME == "sum";
    data.iter()
        .for_each(|x| wide.add(x.as_f64().unwrap_or(0.0)));
    let mut results = Vec::new();
    for _ in 0..2 {
        let mut out = poisoned::<T>(1);
        q.reduce_into(input, &mut out, op).unwrap();
        q.synchronize().unwrap();
        results.push(download(&out)[0]);
        results.push(q.reduce(input, op).unwrap());
    }
    for r in &results {
        same(*r, exact, is_sum.then_some(&wide), &|| {
            format!("reduce {op:?} {} n={}", T::NAME, data.len())
        });
        assert_eq!(
            bytemuck::bytes_of(r),
            bytemuck::bytes_of(&results[0]),
            "reduce {op:?} {} n={}: not deterministic",
            T::NAME,
            data.len()
        );
    }
}

fn check_arg<T: TestElement, O: ArgOp<T> + std::fmt::Debug>(
    q: &mut Queue,
    data: &[T],
    input: &DeviceBuffer<T>,
    op: O,
    max: bool,
) where
    warpkit::ops::Indexed<T, T::Index>: bytemuck::Pod,
    Min: ReduceOp<T>,
    Max: ReduceOp<T>,
{
    let extreme = if max {
        data.iter().fold(Max.identity(), |a: T, &b| {
            <Max as ReduceOp<T>>::combine(Max, a, b)
        })
    } else {
        data.iter().fold(Min.identity(), |a: T, &b| {
            <Min as ReduceOp<T>>::combine(Min, a, b)
        })
    };
    let index = data
        .iter()
        .position(|x| bytemuck::bytes_of(x) == bytemuck::bytes_of(&extreme));
    let got = q.arg_reduce(input, op).unwrap();
    assert_eq!(
        got,
        index.map(|i| (extreme, i)),
        "{op:?} {} n={}",
        T::NAME,
        data.len()
    );
    assert_eq!(
        q.arg_reduce(input, op).unwrap(),
        got,
        "{op:?} {}: not deterministic",
        T::NAME
    );
}

fn check_scan<T: TestElement, O: DeviceOp<T> + std::fmt::Debug>(
    q: &mut Queue,
    data: &[T],
    input: &DeviceBuffer<T>,
    op: O,
    kind: ScanKind,
) {
    let is_sum = O::NAME == "sum";
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut out = poisoned::<T>(data.len());
        q.scan(input, &mut out, op, kind).unwrap();
        q.synchronize().unwrap();
        runs.push(download(&out));
    }
    let mut exact = op.identity();
    let mut wide = Compensated::default();
    for (i, &x) in data.iter().enumerate() {
        let (before_exact, before_wide) = (exact, wide);
        exact = op.combine(exact, x);
        wide.add(x.as_f64().unwrap_or(0.0));
        let (want, want_wide) = match kind {
            ScanKind::Inclusive => (exact, wide),
            ScanKind::Exclusive => (before_exact, before_wide),
        };
        same(runs[0][i], want, is_sum.then_some(&want_wide), &|| {
            format!("{kind:?} scan {op:?} {} n={} at {i}", T::NAME, data.len())
        });
    }
    assert!(
        bytemuck::cast_slice::<T, u8>(&runs[0]) == bytemuck::cast_slice::<T, u8>(&runs[1]),
        "{kind:?} scan {op:?} {} n={}: not deterministic",
        T::NAME,
        data.len()
    );
}

fn device_algorithms<T: TestElement>(wk: &Warpkit, rng: &mut StdRng, sizes: &[usize])
where
    Sum: DeviceOp<T>,
    Min: DeviceOp<T>,
    Max: DeviceOp<T>,
    ArgMin: ArgOp<T>,
    ArgMax: ArgOp<T>,
    warpkit::ops::Indexed<T, T::Index>: bytemuck::Pod,
{
    let s = stream();
    let mut q = Queue::new(wk, &s);
    for &n in sizes {
        let data: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
        let input = DeviceBuffer::from_slice(&data).unwrap();
        check_reduce(&mut q, &data, &input, Sum);
        check_reduce(&mut q, &data, &input, Min);
        check_reduce(&mut q, &data, &input, Max);
        check_arg(&mut q, &data, &input, ArgMin, false);
        check_arg(&mut q, &data, &input, ArgMax, true);
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            check_scan(&mut q, &data, &input, Sum, kind);
            check_scan(&mut q, &data, &input, Min, kind);
            check_scan(&mut q, &data, &input, Max, kind);
        }
    }
    println!(
        "{}: reduce, arg-reduce, scans checked at {} sizes up to {}",
        T::NAME,
        sizes.len(),
        sizes.iter().max().unwrap()
    );
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
}

#[test]
fn device_reduce_and_scan_at_two_to_the_thirty() {
    let Some(wk) = device(None) else { return };
    let mut rng = seed();
    let sizes = [(1 << 30) - 1, 1 << 30, (1 << 30) + 1];
    let s = stream();
    let mut q = Queue::new(&wk, &s);
    for n in sizes {
        let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let input = DeviceBuffer::from_slice(&data).unwrap();
        check_reduce(&mut q, &data, &input, Sum);
        drop(input);
        let data: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let input = DeviceBuffer::from_slice(&data).unwrap();
        check_scan(&mut q, &data, &input, Sum, ScanKind::Inclusive);
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
        println!("{target}: rows and segments checked for every type");
    }
}

fn rows_and_segments<T: TestElement>(wk: &Warpkit, rng: &mut StdRng)
where
    Sum: DeviceOp<T>,
    Min: DeviceOp<T>,
{
    let s = stream();
    let mut q = Queue::new(wk, &s);
    for (rows, width) in [
        (1, 1),
        (1000, 7),
        (333, 32),
        (257, 100),
        (64, 1000),
        (4096, 129),
    ] {
        let data: Vec<T> = (0..rows * width).map(|_| T::random(rng)).collect();
        let input = DeviceBuffer::from_slice(&data).unwrap();
        let offsets: Vec<u64> = (0..=rows).map(|r| (r * width) as u64).collect();
        rows_case(&mut q, &data, &input, &offsets, Some(width), Sum);
        rows_case(&mut q, &data, &input, &offsets, Some(width), Min);
        // Ragged rows given by offsets, some empty, not covering the whole input.
        let mut cuts: Vec<u64> = (0..rows)
            .map(|_| rng.random_range(0..=data.len() as u64))
            .collect();
        cuts.push(0);
        cuts.sort();
        rows_case(&mut q, &data, &input, &cuts, None, Sum);
        rows_case(&mut q, &data, &input, &cuts, None, Min);
    }
}

fn rows_case<T: TestElement, O: DeviceOp<T> + std::fmt::Debug>(
    q: &mut Queue,
    data: &[T],
    input: &DeviceBuffer<T>,
    offsets: &[u64],
    width: Option<usize>,
    op: O,
) {
    let rows = offsets.len() - 1;
    let is_sum = O::NAME == "sum";
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
            let (mut exact, mut wide) = (op.identity(), Compensated::default());
            for i in a..b {
                covered[i] = true;
                let (pe, pw) = (exact, wide);
                exact = op.combine(exact, data[i]);
                wide.add(data[i].as_f64().unwrap_or(0.0));
                let (we, ww) = if kind == ScanKind::Inclusive {
                    (exact, wide)
                } else {
                    (pe, pw)
                };
                same(scanned[i], we, is_sum.then_some(&ww), &|| {
                    format!("{kind:?} rows scan {op:?} {} row {r} at {i}", T::NAME)
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
        let exact = row.iter().fold(op.identity(), |a, &b| op.combine(a, b));
        let mut wide = Compensated::default();
        row.iter().for_each(|x| wide.add(x.as_f64().unwrap_or(0.0)));
        same(reduced[r], exact, is_sum.then_some(&wide), &|| {
            format!("rows reduce {op:?} {} row {r} of {rows}", T::NAME)
        });
    }
}

#[test]
fn bad_input_is_refused_before_launch() {
    let Some(wk) = device(None) else { return };
    let s = stream();
    let mut q = Queue::new(&wk, &s);
    let input = DeviceBuffer::from_slice(&[1u32, 2, 3, 4]).unwrap();
    let mut short = DeviceBuffer::from_slice(&[7u32; 3]).unwrap();
    let err = q
        .scan(&input, &mut short, Sum, ScanKind::Inclusive)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("output has 3 elements but input has 4"),
        "{err}"
    );
    assert_eq!(download(&short), [7, 7, 7], "nothing written");
    let mut whole = DeviceBuffer::from_slice(&[1u32, 2, 3, 4, 5]).unwrap();
    let head = whole.index(0..4);
    let mut tail = whole.index(1..5);
    let err = q
        .scan(&head, &mut tail, Sum, ScanKind::Inclusive)
        .unwrap_err()
        .to_string();
    assert!(err.contains("overlap"), "{err}");
    let mut out = DeviceBuffer::from_slice(&[0u32; 2]).unwrap();
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
    assert_eq!(download(&out), [0, 0]);
    let empty = DeviceBuffer::<f32>::from_slice(&[]).unwrap();
    assert_eq!(
        q.reduce(&empty, Min).unwrap(),
        f32::INFINITY,
        "empty input gives the identity"
    );
    assert_eq!(q.arg_reduce(&empty, ArgMax).unwrap(), None);
    let mut box1 = DeviceBuffer::from_slice(&[5.0f32]).unwrap();
    q.reduce_into(&empty, &mut box1, Sum).unwrap();
    assert_eq!(download(&box1), [0.0]);
    q.scan_in_place(&mut whole, Sum, ScanKind::Inclusive)
        .unwrap();
    q.synchronize().unwrap();
    assert_eq!(download(&whole), [1, 3, 6, 10, 15]);
}
