//! Associative operators for reductions and scans, each with its identity.
//!
//! Integer sums wrap. Float `Min`/`Max` follow `redux.sync`'s rules on every target: a NaN
//! input is skipped, `-0.0 < +0.0`, and the result is NaN (the canonical NaN `0x7fff_ffff`)
//! only when no number was seen at all: all-NaN input and empty input give NaN, so NaN is
//! their identity. The identity of a float `Sum` is `-0.0`, the neutral element of IEEE
//! addition (`-0.0 + x == x` for every `x`, `-0.0` included). Your own
//! operator implements [`ReduceOp`], or wraps a closure in [`FnOp`].

use crate::instr::LaneMask;

pub mod half;
pub mod ranked;

/// An associative operator with an identity.
pub trait ReduceOp<T>: Copy {
    /// `identity ⊕ x == x` for every `x`.
    fn identity(self) -> T;
    /// `a ⊕ b`; `a` comes from lower indices than `b`.
    fn combine(self, a: T, b: T) -> T;
    /// Whether every order and grouping of the operands gives the same bits (associative and
    /// commutative exactly: integer sums, min, max, bitwise operations; not float sums). Such
    /// operators may be combined in any tree shape; others only in index order, left to right.
    const ORDER_INDEPENDENT: bool = false;
    /// Whether `a ⊕ b` and `b ⊕ a` have the same bits for every `a`, `b` (float sums are
    /// commutative though not associative). Then the device reduce may give each thread a
    /// strided share of the input, which is faster; otherwise (the default, e.g. composing
    /// maps) every combine keeps index order. Order-independent operators are commutative.
    const COMMUTATIVE: bool = Self::ORDER_INDEPENDENT;
    /// A reduction over `mask` with `redux.sync` where the target has it (one instruction for
    /// 32-bit integers, two for 64-bit minimum and maximum); `None` makes the caller use
    /// shuffles.
    #[inline(always)]
    fn redux(self, mask: LaneMask, value: T) -> Option<T> {
        let _ = (mask, value);
        None
    }
}

/// `a + b` (wrapping for integers); identity `0`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;
/// The smaller; identity the type's largest value (the canonical NaN for floats, see the
/// [module docs](self)).
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;
/// The larger; identity the type's smallest value (the canonical NaN for floats).
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;
/// `a & b`; identity all ones.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitAnd;
/// `a | b`; identity `0`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitOr;
/// `a ^ b`; identity `0`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitXor;

/// An operator from a closure and its identity.
#[derive(Clone, Copy, Debug)]
pub struct FnOp<T, F> {
    pub identity: T,
    pub combine: F,
}

impl<T: Copy, F: Fn(T, T) -> T + Copy> ReduceOp<T> for FnOp<T, F> {
    #[inline(always)]
    fn identity(self) -> T {
        self.identity
    }
    #[inline(always)]
    fn combine(self, a: T, b: T) -> T {
        (self.combine)(a, b)
    }
}

/// Emits `redux` for the types and targets that have the instruction (two of them for the
/// 64-bit minimum and maximum, [`redux_pair`]).
macro_rules! redux_hook {
    (u32, $f:ident) => { redux_hook!(@ u32, crate::instr::redux::$f); };
    (i32, $f:ident) => { redux_hook!(@ i32, crate::instr::redux::$f); };
    (u64, redux_add_u64) => { redux_hook!(@ u64, redux_add_u64); };
    (i64, redux_add_i64) => { redux_hook!(@ i64, redux_add_i64); };
    (u64, redux_min_u64) => { redux_hook!(@ u64, redux_min_u64); };
    (u64, redux_max_u64) => { redux_hook!(@ u64, redux_max_u64); };
    (i64, redux_min_i64) => { redux_hook!(@ i64, redux_min_i64); };
    (i64, redux_max_i64) => { redux_hook!(@ i64, redux_max_i64); };
    ($t:ty, $f:ident) => {};
    (@ $t:ty, $f:path) => {
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        #[inline(always)]
        fn redux(self, mask: LaneMask, value: $t) -> Option<$t> {
            Some($f(mask, value as _) as $t)
        }
    };
}

/// The lowest (`max` false) or highest `(high, low)` pair over `mask`, in every lane, by two
/// `redux.sync`: the high words, then the low words of the lanes that hold the winning high
/// word. What the 64-bit minimum and maximum and [`ranked::LowestRank`] reduce with on sm_80
/// and newer, instead of five shuffle rounds of two words each. On an H200 (device reduce, A/B
/// against the shuffles, `h200-2026-11-27-reduce-block0-tiles-redux-pair-ab.csv`): `u64`/`i64`
/// min and max 2-5% faster at 2^16 and 2^20 items (cold L2: `u64` min 5.25 → 5.02 µs at 2^16),
/// 1.2-1.5% at 2^24; the `f32` arg-min 4-5% at 2^16 and 2^20 cold (5.6 → 5.35 µs, 7.2-7.3 →
/// 6.9 µs), 3% at 2^24.
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
pub(crate) fn redux_pair(mask: LaneMask, high: u32, low: u32, max: bool) -> (u32, u32) {
    use crate::instr::redux::{redux_sync_max_u32, redux_sync_min_u32};
    if max {
        let winner = redux_sync_max_u32(mask, high);
        (
            winner,
            redux_sync_max_u32(mask, if high == winner { low } else { 0 }),
        )
    } else {
        let winner = redux_sync_min_u32(mask, high);
        let low = if high == winner { low } else { u32::MAX };
        (winner, redux_sync_min_u32(mask, low))
    }
}

/// `u64` minimum or maximum over `mask` ([`redux_pair`]).
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_u64(mask: LaneMask, value: u64, max: bool) -> u64 {
    let (high, low) = redux_pair(mask, (value >> 32) as u32, value as u32, max);
    (high as u64) << 32 | low as u64
}

/// `i64` minimum or maximum over `mask`: the `u64` one with the sign bit flipped, which
/// orders the signed values as unsigned ones.
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_i64(mask: LaneMask, value: i64, max: bool) -> i64 {
    const SIGN: u64 = 1 << 63;
    (redux_u64(mask, value as u64 ^ SIGN, max) ^ SIGN) as i64
}

/// Wrapping `u64` sum over `mask` by three `redux.sync.add.u32`, of bits 0-21, 22-42 and
/// 43-63 of each value: 32 lanes' sums of 22 bits fit in 32. On an H200 (device reduce, A/B
/// against the shuffles, `h200-2026-11-27-reduce-redux-sum-float-ab.csv`): `u64`/`i64` sums
/// 2% faster at 2^16 items cold, 1.5-3.5% at 2^20 cold, 4-5% at 2^20 warm; unchanged at 2^24
/// and 2^28.
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_add_u64(mask: LaneMask, value: u64) -> u64 {
    use crate::instr::redux::redux_sync_add_u32;
    let low = redux_sync_add_u32(mask, (value & 0x3f_ffff) as u32) as u64;
    let middle = redux_sync_add_u32(mask, (value >> 22 & 0x1f_ffff) as u32) as u64;
    let high = redux_sync_add_u32(mask, (value >> 43) as u32) as u64;
    low.wrapping_add(middle << 22).wrapping_add(high << 43)
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_add_i64(mask: LaneMask, value: i64) -> i64 {
    redux_add_u64(mask, value as u64) as i64
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_min_u64(mask: LaneMask, value: u64) -> u64 {
    redux_u64(mask, value, false)
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_max_u64(mask: LaneMask, value: u64) -> u64 {
    redux_u64(mask, value, true)
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_min_i64(mask: LaneMask, value: i64) -> i64 {
    redux_i64(mask, value, false)
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_max_i64(mask: LaneMask, value: i64) -> i64 {
    redux_i64(mask, value, true)
}

macro_rules! int_ops {
    ($($t:ident: $add:ident $min:ident $max:ident;)*) => {$(
        impl ReduceOp<$t> for Sum {
            #[inline(always)] fn identity(self) -> $t { 0 }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { a.wrapping_add(b) }
            const ORDER_INDEPENDENT: bool = true;
            redux_hook!($t, $add);
        }
        impl ReduceOp<$t> for Min {
            #[inline(always)] fn identity(self) -> $t { $t::MAX }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { if b < a { b } else { a } }
            const ORDER_INDEPENDENT: bool = true;
            redux_hook!($t, $min);
        }
        impl ReduceOp<$t> for Max {
            #[inline(always)] fn identity(self) -> $t { $t::MIN }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { if b > a { b } else { a } }
            const ORDER_INDEPENDENT: bool = true;
            redux_hook!($t, $max);
        }
        impl ReduceOp<$t> for BitAnd {
            #[inline(always)] fn identity(self) -> $t { !0 }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { a & b }
            const ORDER_INDEPENDENT: bool = true;
            redux_hook!($t, redux_sync_and_b32);
        }
        impl ReduceOp<$t> for BitOr {
            #[inline(always)] fn identity(self) -> $t { 0 }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { a | b }
            const ORDER_INDEPENDENT: bool = true;
            redux_hook!($t, redux_sync_or_b32);
        }
        impl ReduceOp<$t> for BitXor {
            #[inline(always)] fn identity(self) -> $t { 0 }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { a ^ b }
            const ORDER_INDEPENDENT: bool = true;
            redux_hook!($t, redux_sync_xor_b32);
        }
    )*};
}

int_ops! {
    u8: x x x; u16: x x x; i8: x x x; i16: x x x;
    u64: redux_add_u64 redux_min_u64 redux_max_u64;
    i64: redux_add_i64 redux_min_i64 redux_max_i64;
    u32: redux_sync_add_u32 redux_sync_min_u32 redux_sync_max_u32;
    i32: redux_sync_add_i32 redux_sync_min_i32 redux_sync_max_i32;
}

/// `Min`/`Max` on floats by [`FloatRedux`]'s rules, generic over the float's width.
macro_rules! float_ops {
    ($($t:ident;)*) => {$(
        impl ReduceOp<$t> for Sum {
            #[inline(always)] fn identity(self) -> $t { -0.0 }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { a + b }
            const COMMUTATIVE: bool = true;
        }
        impl ReduceOp<$t> for Min {
            #[inline(always)] fn identity(self) -> $t { <$t as Float>::CANONICAL_NAN }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { float_minmax(a, b, false) }
            const ORDER_INDEPENDENT: bool = true;
            #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
            #[inline(always)]
            fn redux(self, mask: LaneMask, value: $t) -> Option<$t> { Some(redux_float(mask, value, false)) }
        }
        impl ReduceOp<$t> for Max {
            #[inline(always)] fn identity(self) -> $t { <$t as Float>::CANONICAL_NAN }
            #[inline(always)] fn combine(self, a: $t, b: $t) -> $t { float_minmax(a, b, true) }
            const ORDER_INDEPENDENT: bool = true;
            #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
            #[inline(always)]
            fn redux(self, mask: LaneMask, value: $t) -> Option<$t> { Some(redux_float(mask, value, true)) }
        }
    )*};
}

float_ops! { f32; f64; }

/// A float type whose [`Min`]/[`Max`] (and `f64`'s [`MinNumF64`]/[`MaxNumF64`]) reduce a warp
/// with `redux.sync` on its values' ranks ([`ranked::Rankable`]).
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
trait ReduxFloat: ranked::Rankable {
    /// The lowest rank over `mask`, in every lane.
    fn lowest_rank(mask: LaneMask, rank: Self::Rank) -> Self::Rank;
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
impl ReduxFloat for f32 {
    #[inline(always)]
    fn lowest_rank(mask: LaneMask, rank: u32) -> u32 {
        crate::instr::redux::redux_sync_min_u32(mask, rank)
    }
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
impl ReduxFloat for f64 {
    #[inline(always)]
    fn lowest_rank(mask: LaneMask, rank: u64) -> u64 {
        redux_u64(mask, rank, false)
    }
}

/// The smallest (`max` false) or largest number over `mask` by [`Min`]/[`Max`]'s rules (NaN
/// skipped, `-0.0 < +0.0`, the canonical NaN when every value is NaN), in every lane: the
/// lowest of the values' ranks, which order numbers so and every NaN last, by one
/// `redux.sync` for `f32` and two for `f64` ([`redux_pair`]). On an H200 (same run as
/// [`redux_add_u64`]) the `f64` min and max device reduces, which fold with `min.f64`/`max.f64`
/// and reduce their warps so: 2^16 items cold 5.41-5.47 → 5.18-5.34 µs, 2^20 cold 1.3-1.6%
/// faster, warm 3.5-5%, 2^24 1%.
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
#[inline(always)]
fn redux_float<T: ReduxFloat>(mask: LaneMask, value: T, max: bool) -> T {
    T::unrank(T::lowest_rank(mask, value.rank_masked(max)), max)
}

/// A float type `Min`/`Max` can order.
pub trait Float: Copy + PartialOrd {
    /// `0x7fff_ffff` / `0x7fff_ffff_ffff_ffff`, the NaN `min`/`max` return when both inputs are NaN.
    const CANONICAL_NAN: Self;
    fn is_nan(self) -> bool;
    /// IEEE minNum / maxNum: a NaN operand is ignored (`min.f32`/`max.f32` on the GPU).
    fn min_max_num(self, other: Self, max: bool) -> Self;
    /// For equal operands (only ±0 differ in bits): max keeps +0.0, min keeps -0.0.
    fn sign_merge(a: Self, b: Self, keep_positive: bool) -> Self;
}

macro_rules! float_impl {
    ($($t:ty, $nan:expr;)*) => {$(
        impl Float for $t {
            const CANONICAL_NAN: $t = <$t>::from_bits($nan);
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn min_max_num(self, other: $t, max: bool) -> $t {
                if max { self.max(other) } else { self.min(other) }
            }
            #[inline(always)]
            fn sign_merge(a: $t, b: $t, keep_positive: bool) -> $t {
                <$t>::from_bits(if keep_positive { a.to_bits() & b.to_bits() } else { a.to_bits() | b.to_bits() })
            }
        }
    )*};
}

float_impl! { f32, 0x7fff_ffff; f64, 0x7fff_ffff_ffff_ffff; }

/// The smaller (or larger) of two floats: NaN skipped (both NaN: the canonical NaN),
/// `-0.0 < +0.0`. Branch-free: `min`/`max`, then two selects.
#[inline(always)]
pub(crate) fn float_minmax<T: Float>(a: T, b: T, max: bool) -> T {
    let m = a.min_max_num(b, max);
    let m = if a == b { T::sign_merge(a, b, max) } else { m };
    canonical_nan(m)
}

/// `min.f64`: the smaller number, a NaN operand ignored (two NaNs give a NaN), `-0.0 <
/// +0.0` (PTX ISA, [`min`](https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-min)).
/// Every grouping of the same values thus gives the same number, and the same NaN-ness: the
/// device reduce of `f64` [`Min`] folds with it and canonicalizes a NaN result once, at the
/// end ([`canonical_nan`]), instead of ranking every item. Identity: NaN.
#[derive(Clone, Copy, Debug, Default)]
pub struct MinNumF64;
/// `max.f64`: as [`MinNumF64`] for the larger number (`+0.0 > -0.0`; PTX ISA,
/// [`max`](https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-max)).
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxNumF64;

macro_rules! num_f64_op {
    ($op:ident, $instr:literal, $max:expr) => {
        impl ReduceOp<f64> for $op {
            #[inline(always)]
            fn identity(self) -> f64 {
                f64::CANONICAL_NAN
            }
            /// The same number as `min.f64`/`max.f64` folds give, and the canonical NaN
            /// where every value is NaN.
            #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
            #[inline(always)]
            fn redux(self, mask: LaneMask, value: f64) -> Option<f64> {
                Some(redux_float(mask, value, $max))
            }
            #[inline(always)]
            fn combine(self, a: f64, b: f64) -> f64 {
                #[cfg(target_arch = "nvptx64")]
                {
                    let d: f64;
                    // SAFETY: a register-only instruction.
                    unsafe {
                        core::arch::asm!(concat!($instr, " {d}, {a}, {b};"),
                            d = out(reg64) d, a = in(reg64) a, b = in(reg64) b,
                            options(nomem, nostack, preserves_flags));
                    }
                    d
                }
                // The same numbers on the host (where two NaNs give the canonical NaN, one
                // of the NaNs the instruction may give).
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    float_minmax(a, b, $max)
                }
            }
            const ORDER_INDEPENDENT: bool = true;
        }
    };
}

num_f64_op!(MinNumF64, "min.f64", false);
num_f64_op!(MaxNumF64, "max.f64", true);

/// `x`, or the canonical NaN if `x` is a NaN.
#[inline(always)]
pub fn canonical_nan<T: Float>(x: T) -> T {
    if x.is_nan() { T::CANONICAL_NAN } else { x }
}

/// A value with the index it came from: the element type of arg-min/arg-max reductions.
/// The index is `u32` beside 32-bit values and `u64` beside 64-bit ones, so there is no padding.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Indexed<T, I> {
    pub value: T,
    pub index: I,
}

macro_rules! indexed_pod {
    ($($t:ty, $i:ty;)*) => {$(
        // SAFETY: two fields of the same size and alignment: no padding, any bits valid.
        unsafe impl bytemuck::Zeroable for Indexed<$t, $i> {}
        // SAFETY: as above.
        unsafe impl bytemuck::Pod for Indexed<$t, $i> {}
        // SAFETY: plain data with no pointers.
        unsafe impl cust_core::DeviceCopy for Indexed<$t, $i> {}
    )*};
}

indexed_pod! { u32, u32; i32, u32; f32, u32; u64, u64; i64, u64; f64, u64; }

/// The smallest value and, among equal ones, the lowest index. For floats, NaN never wins over
/// a number; when every value is NaN the result is the canonical NaN at the lowest index. The
/// identity (no element) is the canonical NaN at index `I::MAX`, which only empty input returns.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArgMin;
/// The largest value and, among equal ones, the lowest index; NaN as for [`ArgMin`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ArgMax;

/// What arg-min/arg-max need of a value type.
pub trait ArgValue: Copy + PartialOrd {
    /// The value that stands for "no element": the canonical NaN for floats, the type's
    /// largest (arg-min) or smallest (arg-max) value for integers.
    fn none(max: bool) -> Self;
    /// Whether this is a NaN (never for integers).
    fn is_nan(self) -> bool;
    /// Whether `a` beats `b`: smaller for arg-min, larger for arg-max, `-0.0 < +0.0`.
    fn beats(a: Self, b: Self, max: bool) -> bool;
}

macro_rules! int_arg_value {
    ($($t:ty),*) => {$(
        impl ArgValue for $t {
            #[inline(always)] fn none(max: bool) -> $t { if max { <$t>::MIN } else { <$t>::MAX } }
            #[inline(always)] fn is_nan(self) -> bool { false }
            #[inline(always)] fn beats(a: $t, b: $t, max: bool) -> bool { if max { a > b } else { a < b } }
        }
    )*};
}

int_arg_value!(u32, i32, u64, i64);

macro_rules! float_arg_value {
    ($($t:ty),*) => {$(
        impl ArgValue for $t {
            #[inline(always)] fn none(_: bool) -> $t { <$t as Float>::CANONICAL_NAN }
            #[inline(always)] fn is_nan(self) -> bool { <$t>::is_nan(self) }
            #[inline(always)]
            fn beats(a: $t, b: $t, max: bool) -> bool {
                // Total order on numbers with -0.0 < +0.0: compare (value, sign bit).
                if a == b {
                    a.is_sign_negative() != b.is_sign_negative() && (a.is_sign_negative() != max)
                } else if max { a > b } else { a < b }
            }
        }
    )*};
}

float_arg_value!(f32, f64);

/// Arg-min/arg-max of two indexed values by the rules on [`ArgMin`].
#[inline(always)]
fn arg_combine<T: ArgValue, I: Copy + PartialOrd>(
    a: Indexed<T, I>,
    b: Indexed<T, I>,
    max: bool,
) -> Indexed<T, I> {
    let lower = if b.index < a.index { b } else { a };
    match (a.value.is_nan(), b.value.is_nan()) {
        (true, true) => Indexed {
            value: T::none(max),
            index: lower.index,
        },
        (true, false) => b,
        (false, true) => a,
        _ if T::beats(b.value, a.value, max) => b,
        _ if T::beats(a.value, b.value, max) => a,
        _ => lower,
    }
}

macro_rules! arg_ops {
    ($($t:ty, $i:ty;)*) => {$(
        impl ReduceOp<Indexed<$t, $i>> for ArgMin {
            #[inline(always)]
            fn identity(self) -> Indexed<$t, $i> {
                Indexed { value: <$t as ArgValue>::none(false), index: <$i>::MAX }
            }
            #[inline(always)]
            fn combine(self, a: Indexed<$t, $i>, b: Indexed<$t, $i>) -> Indexed<$t, $i> {
                arg_combine(a, b, false)
            }
            const ORDER_INDEPENDENT: bool = true;
        }
        impl ReduceOp<Indexed<$t, $i>> for ArgMax {
            #[inline(always)]
            fn identity(self) -> Indexed<$t, $i> {
                Indexed { value: <$t as ArgValue>::none(true), index: <$i>::MAX }
            }
            #[inline(always)]
            fn combine(self, a: Indexed<$t, $i>, b: Indexed<$t, $i>) -> Indexed<$t, $i> {
                arg_combine(a, b, true)
            }
            const ORDER_INDEPENDENT: bool = true;
        }
    )*};
}

arg_ops! { u32, u32; i32, u32; f32, u32; u64, u64; i64, u64; f64, u64; }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_neutral() {
        for x in [0u32, 1, 7, u32::MAX, 0x8000_0000] {
            for op_result in [
                Sum.combine(Sum.identity(), x),
                Min.combine(Min.identity(), x),
                Max.combine(Max.identity(), x),
                BitAnd.combine(BitAnd.identity(), x),
                BitOr.combine(BitOr.identity(), x),
                BitXor.combine(BitXor.identity(), x),
            ] {
                assert_eq!(op_result, x);
            }
        }
        for x in [
            -1.5f64,
            0.0,
            -0.0,
            3.25,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let same = |y: f64| y.to_bits() == x.to_bits();
            assert!(same(Min.combine(<Min as ReduceOp<f64>>::identity(Min), x)));
            assert!(same(Max.combine(x, <Max as ReduceOp<f64>>::identity(Max))));
            assert!(same(Sum.combine(<Sum as ReduceOp<f64>>::identity(Sum), x)));
            assert!(same(Sum.combine(x, <Sum as ReduceOp<f64>>::identity(Sum))));
        }
        assert!(<Min as ReduceOp<f32>>::identity(Min).is_nan());
    }

    #[test]
    fn float_min_max_skip_nan_and_order_zeros() {
        assert_eq!(Min.combine(f64::NAN, 2.0), 2.0);
        assert_eq!(Max.combine(1.0f64, f64::NAN), 1.0);
        assert!(Min.combine(f64::NAN, f64::NAN).is_nan());
        assert!(Max.combine(-0.0f64, 0.0).is_sign_positive());
        assert!(Min.combine(0.0f64, -0.0).is_sign_negative());
        assert!(Min.combine(0.0f32, -0.0).is_sign_negative());
    }

    /// The `f64` reduce's `min.f64`/`max.f64` fold, its NaN made canonical at the end, gives
    /// the bits `Min`/`Max` give, in either order, for every pair of tricky values and over
    /// all of them in several orders (the model of the instruction stands for it on the host;
    /// the GPU tests check the device against the reference).
    #[test]
    fn num_f64_folds_give_min_and_max_bits() {
        let tricky = [
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff8_0000_0000_0001),
            f64::from_bits(0xffff_ffff_ffff_ffff),
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.5,
            -1.5,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::MAX,
            f64::MIN,
        ];
        let bits = |x: f64| x.to_bits();
        for a in tricky {
            for b in tricky {
                let min = canonical_nan(MinNumF64.combine(a, b));
                let max = canonical_nan(MaxNumF64.combine(a, b));
                assert_eq!(bits(min), bits(Min.combine(a, b)), "min {a:?} {b:?}");
                assert_eq!(bits(max), bits(Max.combine(a, b)), "max {a:?} {b:?}");
            }
        }
        // The bits of `values` folded with `op` from its identity, a NaN made canonical.
        fn fold(op: impl ReduceOp<f64>, values: &[f64]) -> u64 {
            let r = values
                .iter()
                .fold(op.identity(), |acc, &x| op.combine(acc, x));
            canonical_nan(r).to_bits()
        }
        let mut values = tricky;
        for rotation in 0..values.len() {
            values.rotate_left(rotation);
            let mut reversed = values;
            reversed.reverse();
            let (min, max) = (fold(Min, &values), fold(Max, &values));
            for v in [&values, &reversed] {
                assert_eq!(fold(MinNumF64, v), min);
                assert_eq!(fold(MaxNumF64, v), max);
            }
        }
        assert_eq!(bits(canonical_nan(f64::NAN)), 0x7fff_ffff_ffff_ffff);
    }

    #[test]
    fn arg_ops_prefer_the_lower_index_on_ties() {
        let a = Indexed {
            value: 3.0f32,
            index: 9u32,
        };
        let b = Indexed {
            value: 3.0f32,
            index: 4u32,
        };
        let c = Indexed {
            value: f32::NAN,
            index: 0u32,
        };
        assert_eq!(ArgMin.combine(a, b).index, 4);
        assert_eq!(ArgMax.combine(b, a).index, 4);
        assert_eq!(ArgMin.combine(c, a).index, 9);
        // All NaN: the canonical NaN at the lowest index, whichever side the identity is on.
        let nan = Indexed {
            value: f32::from_bits(0xffc0_0001),
            index: 7u32,
        };
        let both = ArgMin.combine(ArgMin.identity(), ArgMin.combine(nan, c));
        assert_eq!((both.value.to_bits(), both.index), (0x7fff_ffff, 0));
        assert_eq!(ArgMax.combine(nan, ArgMax.identity()).index, 7);
        // -0.0 < +0.0, whatever the indices.
        let neg = Indexed {
            value: -0.0f32,
            index: 5u32,
        };
        let pos = Indexed {
            value: 0.0f32,
            index: 1u32,
        };
        assert_eq!(ArgMin.combine(pos, neg).index, 5);
        assert_eq!(ArgMax.combine(neg, pos).index, 1);
        let lo = Indexed {
            value: -5i64,
            index: 10u64,
        };
        assert_eq!(ArgMin.combine(a_i64(), lo), lo);
    }

    fn a_i64() -> Indexed<i64, u64> {
        Indexed { value: 2, index: 1 }
    }
}
