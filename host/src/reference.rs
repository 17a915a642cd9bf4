//! The CPU model of the library's operations: what every path (device reduce, scan, rows,
//! arg-reduce) must return, stated once.
//!
//! **Float `Min`/`Max`** (and the arg forms): NaN inputs are skipped; when every input is NaN
//! the result is the canonical NaN (`0x7fff_ffff`, `0x7fff_ffff_ffff_ffff`; for `f16`/`bf16`
//! the `f32` one, rounded); `-0.0` orders below `+0.0`. Empty input gives the identity, the
//! canonical NaN too: the minimum of no number is NaN (the device's identity, `warpkit::ops`).
//!
//! **Arg-min/arg-max**: the extreme value by the rule above and the lowest index holding
//! exactly those bits; all-NaN input gives a NaN and index 0 (an index inside the input);
//! empty input gives `None`.
//!
//! **Sums**: integers wrap; float sums are within a stated bound of the exact sum (the
//! device adds in a fixed tree, deterministic but not sequential), so the model gives the
//! exact sum rounded once ([`Fold`]); a NaN input, or both infinities, give NaN.

use crate::element::{ArgElement, ArgOp, DeviceOp, Element, Limits, sealed};

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
    if a == b && bytemuck::bytes_of(&a) != bytemuck::bytes_of(&b) {
        // ±0: the one with the sign bit (the last byte's top bit, little endian) is smaller.
        let a_negative = bytemuck::bytes_of(&a)
            .last()
            .is_some_and(|&h| h & 0x80 != 0);
        return if a_negative != max { a } else { b };
    }
    let b_wins = if max { b > a } else { b < a };
    if b_wins { b } else { a }
}

fn is_float<A: Model>() -> bool {
    A::canonical_nan().nan()
}

/// The model's running fold of one operator over an accumulator type: push values in index
/// order, read the result of everything pushed so far (O(1) per step, for scans).
#[derive(Clone, Copy, Debug)]
pub struct Fold<A: Model> {
    op: &'static str,
    any: bool,
    /// Integer sum, or the best non-NaN min/max so far.
    acc: Option<A>,
    /// Float sums: Neumaier's compensated sum and the special values seen.
    sum: f64,
    c: f64,
    nan: bool,
    pos_inf: bool,
    neg_inf: bool,
}

impl<A: Model> Fold<A> {
    /// A fold of the operator named `op` (`sum`, `min`, `max`: a [`DeviceOp::NAME`]).
    ///
    /// # Panics
    /// If `op` is another name.
    pub fn new(op: &'static str) -> Fold<A> {
        assert!(
            matches!(op, "sum" | "min" | "max"),
            "Fold::new: no operator {op:?}; the model folds \"sum\", \"min\" and \"max\""
        );
        Fold {
            op,
            any: false,
            acc: None,
            sum: 0.0,
            c: 0.0,
            nan: false,
            pos_inf: false,
            neg_inf: false,
        }
    }

    pub fn push(&mut self, x: A) {
        self.any = true;
        match self.op {
            "sum" if is_float::<A>() => {
                let w = x.wide();
                if w.is_nan() {
                    self.nan = true;
                } else if w == f64::INFINITY {
                    self.pos_inf = true;
                } else if w == f64::NEG_INFINITY {
                    self.neg_inf = true;
                } else {
                    let t = self.sum + w;
                    self.c += if self.sum.abs() >= w.abs() {
                        (self.sum - t) + w
                    } else {
                        (w - t) + self.sum
                    };
                    self.sum = t;
                }
            }
            "sum" => self.acc = Some(self.acc.unwrap_or(A::ZERO).add(x)),
            op => {
                if !x.nan() {
                    self.acc = Some(self.acc.map_or(x, |b| pick(b, x, op == "max")));
                }
            }
        }
    }

    /// The result so far: the identity when nothing was pushed; a float sum is the exact sum
    /// rounded once (NaN with a NaN input or both infinities, else the infinity seen).
    pub fn value(&self) -> A {
        match self.op {
            "sum" if is_float::<A>() => {
                if self.nan || (self.pos_inf && self.neg_inf) {
                    A::canonical_nan()
                } else if self.pos_inf {
                    A::narrow(f64::INFINITY)
                } else if self.neg_inf {
                    A::narrow(f64::NEG_INFINITY)
                } else {
                    A::narrow(self.sum + self.c)
                }
            }
            "sum" => self.acc.unwrap_or(A::ZERO),
            "min" => self.acc.unwrap_or(if self.any {
                A::canonical_nan()
            } else {
                A::HIGHEST
            }),
            _ => self.acc.unwrap_or(if self.any {
                A::canonical_nan()
            } else {
                A::LOWEST
            }),
        }
    }
}

/// The model's reduction of `data` by `O` (float sums: the exact sum rounded once).
pub fn reduce<T: Element, O: DeviceOp>(data: &[T]) -> T::Accum
where
    T::Accum: Model,
{
    let mut fold = Fold::new(O::NAME);
    data.iter().for_each(|x| fold.push(x.to_accum()));
    fold.value()
}

/// The model's scan of `data` by `O`.
pub fn scan<T: Element, O: DeviceOp>(data: &[T], exclusive: bool) -> Vec<T::Accum>
where
    T::Accum: Model,
{
    let mut fold = Fold::new(O::NAME);
    data.iter()
        .map(|x| {
            let before = fold.value();
            fold.push(x.to_accum());
            if exclusive { before } else { fold.value() }
        })
        .collect()
}

/// The model's arg-reduce of `data`.
pub fn arg_reduce<T: ArgElement, O: ArgOp>(data: &[T]) -> Option<(T::Accum, usize)>
where
    T::Accum: Model,
{
    let mut fold = Fold::new(if <O as sealed::ArgOp>::MAX {
        "max"
    } else {
        "min"
    });
    data.iter().for_each(|x| fold.push(x.to_accum()));
    if data.is_empty() {
        return None;
    }
    let best = fold.value();
    if best.nan() {
        return Some((best, 0));
    }
    let index = data
        .iter()
        .position(|v| bytemuck::bytes_of(&v.to_accum()) == bytemuck::bytes_of(&best))
        .expect("the extreme is an input");
    Some((best, index))
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
        assert_eq!(
            all_nan.to_bits(),
            0x7fff_ffff,
            "all-NaN min is the canonical NaN, not +inf"
        );
        assert_eq!(
            reduce::<f64, Max>(&[f64::NAN]).to_bits(),
            0x7fff_ffff_ffff_ffff
        );
        assert_eq!(
            reduce::<f32, Min>(&[]).to_bits(),
            0x7fff_ffff,
            "empty: the identity, the canonical NaN"
        );
        assert!(reduce::<f32, Min>(&[0.0, -0.0]).is_sign_negative());
        assert!(reduce::<f32, Max>(&[-0.0, 0.0]).is_sign_positive());
        assert!(reduce::<f64, Max>(&[-0.0]).is_sign_negative());
        let h = half::f16::from_f32;
        assert_eq!(reduce::<half::f16, Min>(&[h(f32::NAN), h(3.0)]), 3.0);
        assert_eq!(
            reduce::<half::bf16, Max>(&[half::bf16::NAN]).to_bits(),
            0x7fff_ffff
        );
    }

    #[test]
    fn arg_reduce_all_nan_gives_an_index_inside_the_input() {
        let nan = f64::NAN;
        let (v, i) = arg_reduce::<f64, ArgMin>(&[nan, nan, nan]).unwrap();
        assert!(v.is_nan());
        assert_eq!(i, 0, "not u64::MAX");
        assert_eq!(
            arg_reduce::<f32, ArgMax>(&[nan as f32, 1.0, 5.0, 5.0]),
            Some((5.0, 2))
        );
        assert_eq!(
            arg_reduce::<f32, ArgMin>(&[0.0, -0.0, -0.0]),
            Some((-0.0, 1))
        );
        assert_eq!(arg_reduce::<u32, ArgMin>(&[]), None);
        assert_eq!(arg_reduce::<i64, ArgMin>(&[3, -7, 2, -7]), Some((-7, 1)));
    }

    #[test]
    fn integer_sums_wrap_and_scans_follow() {
        assert_eq!(reduce::<u32, Sum>(&[u32::MAX, 2]), 1);
        assert_eq!(scan::<i32, Max>(&[1, 3, 2], true), [i32::MIN, 1, 3]);
        assert_eq!(scan::<u64, Sum>(&[1, 2, 3], false), [1, 3, 6]);
        assert_eq!(
            reduce::<f64, Sum>(&[1e16, 1.0, -1e16]),
            1.0,
            "the exact sum"
        );
        assert!(reduce::<f32, Sum>(&[1.0, f32::INFINITY, f32::NEG_INFINITY]).is_nan());
        assert_eq!(reduce::<f32, Sum>(&[1.0, f32::INFINITY]), f32::INFINITY);
        assert_eq!(
            scan::<f32, Min>(&[f32::NAN, 2.0], false)[0].to_bits(),
            0x7fff_ffff
        );
        assert_eq!(
            scan::<f32, Min>(&[f32::NAN, 2.0], true)[0].to_bits(),
            0x7fff_ffff
        );
    }
}
