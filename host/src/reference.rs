//! The CPU model of the library's operations: what every path (device reduce, scan, rows,
//! arg-reduce) must return, stated once.
//!
//! **Float `Min`/`Max`** (and the arg forms): NaN inputs are skipped; when every input is NaN
//! the result is the canonical NaN (`0x7fff_ffff`, `0x7fff_ffff_ffff_ffff`; for `f16`/`bf16`
//! the `f32` one, rounded); `-0.0` orders below `+0.0`. Empty input gives the identity
//! (`+inf` for `Min`, `-inf` for `Max`).
//!
//! **Arg-min/arg-max**: the extreme value by the rule above and the lowest index holding
//! exactly those bits; all-NaN input gives a NaN and index 0 (an index inside the input);
//! empty input gives `None`.
//!
//! **Sums**: integers wrap; float sums are within a stated bound of the exact sum (the
//! device adds in a fixed tree, deterministic but not sequential), so the model gives the
//! exact sum rounded once ([`exact_sum`]).

use crate::element::{ArgElement, ArgOp, DeviceOp, Element, Limits, identity, sealed};

/// The arithmetic of an accumulator type the model needs. Sealed.
pub trait Model: Limits + sealed::Limits + PartialOrd + bytemuck::Pod {
    /// Whether the value is a NaN (never for integers).
    fn nan(self) -> bool;
    /// The NaN a float min/max of all-NaN input gives.
    fn canonical_nan() -> Self;
    /// Wrapping integer sum, or the float sum.
    fn add(self, other: Self) -> Self;
    /// The value as `f64` (integers too; only used for float sums).
    fn wide(self) -> f64;
    /// An `f64` rounded to this type (float sums).
    fn narrow(x: f64) -> Self;
}

macro_rules! int_model {
    ($($t:ty),*) => {$(
        impl Model for $t {
            fn nan(self) -> bool { false }
            fn canonical_nan() -> Self { 0 }
            fn add(self, other: Self) -> Self { self.wrapping_add(other) }
            fn wide(self) -> f64 { self as f64 }
            fn narrow(x: f64) -> Self { x as $t }
        }
    )*};
}
int_model!(u32, i32, u64, i64);

macro_rules! float_model {
    ($($t:ty, $nan:expr);*) => {$(
        impl Model for $t {
            fn nan(self) -> bool { self.is_nan() }
            fn canonical_nan() -> Self { <$t>::from_bits($nan) }
            fn add(self, other: Self) -> Self { self + other }
            fn wide(self) -> f64 { self as f64 }
            fn narrow(x: f64) -> Self { x as $t }
        }
    )*};
}
float_model!(f32, 0x7fff_ffff; f64, 0x7fff_ffff_ffff_ffff);

/// `Min` or `Max` of two non-NaN values, `-0.0 < +0.0`.
fn pick<A: Model>(a: A, b: A, max: bool) -> A {
    let bits = |x: A| bytemuck::bytes_of(&x).to_vec();
    if a == b && bits(a) != bits(b) {
        // ±0: the one with the sign bit is the smaller.
        let a_negative = bytemuck::bytes_of(&a).last().is_some_and(|&h| h & 0x80 != 0);
        return if a_negative != max { a } else { b };
    }
    let b_wins = if max { b > a } else { b < a };
    if b_wins { b } else { a }
}

fn is_max<O: DeviceOp>() -> bool {
    O::NAME == "max"
}

/// The model's reduction of `data` by `O` (float sums: see [`exact_sum`]).
pub fn reduce<T: Element, O: DeviceOp>(data: &[T]) -> T::Accum
where
    T::Accum: Model,
{
    let values = data.iter().map(|&x| x.to_accum());
    match O::NAME {
        "sum" if is_float::<T>() => {
            <T::Accum as Model>::narrow(exact_sum(values.map(Model::wide)))
        }
        "sum" => values.fold(<T::Accum as Limits>::ZERO, Model::add),
        _ => min_max(values, is_max::<O>()).unwrap_or_else(identity::<T, O>),
    }
}

fn is_float<T: Element>() -> bool
where
    T::Accum: Model,
{
    <T::Accum as Model>::canonical_nan().nan()
}

/// `Min`/`Max` by the rule above; `None` for empty input.
fn min_max<A: Model>(values: impl Iterator<Item = A>, max: bool) -> Option<A> {
    let mut any = false;
    let mut best: Option<A> = None;
    for v in values {
        any = true;
        if v.nan() {
            continue;
        }
        best = Some(best.map_or(v, |b| pick(b, v, max)));
    }
    any.then(|| best.unwrap_or_else(A::canonical_nan))
}

/// The model's scan of `data` by `O` (integers and min/max exact; float sums: each prefix is
/// the exact sum rounded once).
pub fn scan<T: Element, O: DeviceOp>(data: &[T], exclusive: bool) -> Vec<T::Accum>
where
    T::Accum: Model,
{
    let mut out = Vec::with_capacity(data.len());
    for i in 0..data.len() {
        let end = if exclusive { i } else { i + 1 };
        out.push(reduce::<T, O>(&data[..end]));
    }
    out
}

/// The model's arg-reduce of `data`.
pub fn arg_reduce<T: ArgElement, O: ArgOp>(data: &[T]) -> Option<(T::Accum, usize)>
where
    T::Accum: Model,
{
    let values: Vec<T::Accum> = data.iter().map(|&x| x.to_accum()).collect();
    let best = min_max(values.iter().copied(), <O as sealed::ArgOp>::MAX)?;
    if best.nan() {
        return Some((best, 0));
    }
    let index = values
        .iter()
        .position(|v| bytemuck::bytes_of(v) == bytemuck::bytes_of(&best))
        .expect("the extreme is an input");
    Some((best, index))
}

/// The sum of `values` rounded once to `f64` (Neumaier's compensated sum; exact enough to
/// judge the device's float sums against a bound).
pub fn exact_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut c) = (0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        c += if sum.abs() >= x.abs() {
            (sum - t) + x
        } else {
            (x - t) + sum
        };
        sum = t;
    }
    sum + c
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpkit::ops::{ArgMax, ArgMin, Max, Min, Sum};

    #[test]
    fn float_min_max_skip_nan_and_all_nan_is_canonical_nan() {
        let nan = f32::NAN;
        assert_eq!(reduce::<f32, Min>(&[nan, 2.0, nan, -1.0]), -1.0);
        assert_eq!(reduce::<f32, Max>(&[nan, 2.0, nan, -1.0]), 2.0);
        let all_nan = reduce::<f32, Min>(&[nan, -nan, nan]);
        assert_eq!(all_nan.to_bits(), 0x7fff_ffff, "all-NaN min is the canonical NaN, not +inf");
        assert_eq!(reduce::<f64, Max>(&[f64::NAN]).to_bits(), 0x7fff_ffff_ffff_ffff);
        assert_eq!(reduce::<f32, Min>(&[]), f32::INFINITY, "empty: the identity");
        assert!(reduce::<f32, Min>(&[0.0, -0.0]).is_sign_negative());
        assert!(reduce::<f32, Max>(&[-0.0, 0.0]).is_sign_positive());
        assert!(reduce::<f64, Max>(&[-0.0]).is_sign_negative());
        let h = half::f16::from_f32;
        assert_eq!(reduce::<half::f16, Min>(&[h(f32::NAN), h(3.0)]), 3.0);
        assert_eq!(reduce::<half::bf16, Max>(&[half::bf16::NAN]).to_bits(), 0x7fff_ffff);
    }

    #[test]
    fn arg_reduce_all_nan_gives_an_index_inside_the_input() {
        let nan = f64::NAN;
        let (v, i) = arg_reduce::<f64, ArgMin>(&[nan, nan, nan]).unwrap();
        assert!(v.is_nan());
        assert_eq!(i, 0, "not u64::MAX");
        assert_eq!(arg_reduce::<f32, ArgMax>(&[nan as f32, 1.0, 5.0, 5.0]), Some((5.0, 2)));
        assert_eq!(arg_reduce::<f32, ArgMin>(&[0.0, -0.0, -0.0]), Some((-0.0, 1)));
        assert_eq!(arg_reduce::<u32, ArgMin>(&[]), None);
        assert_eq!(arg_reduce::<i64, ArgMin>(&[3, -7, 2, -7]), Some((-7, 1)));
    }

    #[test]
    fn integer_sums_wrap_and_scans_follow() {
        assert_eq!(reduce::<u32, Sum>(&[u32::MAX, 2]), 1);
        assert_eq!(scan::<i32, Max>(&[1, 3, 2], true), [i32::MIN, 1, 3]);
        assert_eq!(scan::<u64, Sum>(&[1, 2, 3], false), [1, 3, 6]);
        assert_eq!(reduce::<f64, Sum>(&[1e16, 1.0, -1e16]), 1.0, "the exact sum");
    }
}
