//! `redux.sync`: a reduction across the lanes of `membermask`, the result in every lane.
//!
//! | operation | types | instruction needs |
//! |---|---|---|
//! | `add`, `min`, `max` | `u32`, `i32` (`.s32`); `add` wraps | PTX 7.0, sm_80 |
//! | `and`, `or`, `xor` | `.b32` (here `u32`) | PTX 7.0, sm_80 |
//! | `min`, `max`, with `.abs` and/or `.NaN` | `f32` | PTX 8.6, sm_100a |
//!
//! On a target without the instruction each function compiles, at compile time, to a shuffle
//! reduction with identical results: a butterfly for the full warp, a tree over the lanes'
//! ranks for any other mask. For `f32` the rules are those of the instruction: without `.NaN`
//! a NaN input is skipped and the result is NaN only when every input is; with `.NaN` any NaN
//! gives the canonical NaN; `+0.0` is greater than `-0.0`; `.abs` reduces absolute values.

#[cfg(target_arch = "nvptx64")]
use crate::lane::LaneMask;

/// The NaN that `redux.sync` and `min`/`max` with `.NaN` return: `0x7fffffff`.
pub const CANONICAL_NAN: u32 = 0x7fff_ffff;

/// One of the eight `f32` forms `redux.sync.{min,max}{.abs}{.NaN}.f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatRedux {
    /// `max` rather than `min`.
    pub max: bool,
    /// `.abs`: reduce absolute values.
    pub abs: bool,
    /// `.NaN`: a NaN input makes the result NaN.
    pub nan: bool,
}

impl FloatRedux {
    /// All eight forms.
    pub const ALL: [FloatRedux; 8] = {
        let mut all = [FloatRedux {
            max: false,
            abs: false,
            nan: false,
        }; 8];
        let mut i = 0;
        while i < 8 {
            all[i] = FloatRedux {
                max: i & 1 != 0,
                abs: i & 2 != 0,
                nan: i & 4 != 0,
            };
            i += 1;
        }
        all
    };

    /// The operation on one input, before combining (`.abs`).
    #[inline(always)]
    pub fn prepare(self, x: f32) -> f32 {
        if self.abs {
            f32::from_bits(x.to_bits() & 0x7fff_ffff)
        } else {
            x
        }
    }

    /// Combines two prepared inputs by the instruction's rules: those of [`crate::ops::Min`] and
    /// [`crate::ops::Max`] on `f32`, except that with `.NaN` any NaN gives the canonical NaN.
    #[inline(always)]
    pub fn combine(self, a: f32, b: f32) -> f32 {
        if self.nan && (a.is_nan() || b.is_nan()) {
            return f32::from_bits(CANONICAL_NAN);
        }
        crate::ops::float_minmax(a, b, self.max)
    }
}

/// Reduces `value` over the lanes of `mask` with shuffles, every lane getting the result.
///
/// `combine` must be associative; the lanes are combined in lane order, so it need not be
/// commutative. The full warp takes a five-step butterfly; another mask a tree over the lanes'
/// ranks in the mask, then a broadcast from the lowest lane. This is the fallback of every
/// `redux.sync` function and works for any [`bytemuck::Pod`] type.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn shuffle_reduce<T: bytemuck::Pod>(
    mask: LaneMask,
    value: T,
    combine: impl Fn(T, T) -> T,
) -> T {
    use crate::shfl::{ShflControl, ShflMode, shfl_sync_mode};
    let c = ShflControl::for_width(ShflMode::Idx, 32);
    if mask == LaneMask::FULL {
        let lane = crate::lane::lane_id();
        let mut acc = value;
        let mut offset = 1;
        while offset < 32 {
            let other = shfl_sync_mode(
                ShflMode::Bfly,
                mask,
                acc,
                offset,
                ShflControl::for_width(ShflMode::Bfly, 32),
            );
            // Keep lane order: the lower half of each pair is the left operand.
            acc = if lane & offset == 0 {
                combine(acc, other)
            } else {
                combine(other, acc)
            };
            offset <<= 1;
        }
        return acc;
    }
    let bits = mask.bits();
    let count = bits.count_ones();
    let rank = (bits & crate::lane::lanemask_lt()).count_ones();
    let mut acc = value;
    let mut step = 1;
    while step < count {
        let source_rank = rank + step;
        let source_lane = nth_lane(bits, source_rank.min(count - 1));
        let other = shfl_sync_mode(ShflMode::Idx, mask, acc, source_lane, c);
        if rank % (2 * step) == 0 && source_rank < count {
            acc = combine(acc, other);
        }
        step <<= 1;
    }
    shfl_sync_mode(ShflMode::Idx, mask, acc, mask.first(), c)
}

/// The lane of the `rank`-th (from 0) set bit of `bits`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn nth_lane(mut bits: u32, rank: u32) -> u32 {
    let mut i = 0;
    while i < rank {
        bits &= bits - 1;
        i += 1;
    }
    bits.trailing_zeros()
}

#[cfg(target_arch = "nvptx64")]
macro_rules! redux_int {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $instr:literal, $fallback:expr) => {
        $(#[$doc])*
        #[doc = concat!("\n\nEmits `redux.sync.", $instr, "` on sm_80+, a shuffle reduction below.")]
        #[inline(always)]
        pub fn $name(membermask: LaneMask, value: $ty) -> $ty {
            #[cfg(target_feature = "sm_80")]
            {
                let d: u32;
                // SAFETY: the calling lane is in `membermask` (LaneMask's invariant).
                unsafe {
                    core::arch::asm!(concat!("redux.sync.", $instr, " {d}, {a}, {m};"),
                        d = out(reg32) d, a = in(reg32) value as u32, m = in(reg32) membermask.bits(),
                        options(nomem, nostack, preserves_flags));
                }
                d as $ty
            }
            #[cfg(not(target_feature = "sm_80"))]
            {
                shuffle_reduce(membermask, value, $fallback)
            }
        }
    };
}

#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The wrapping sum over `membermask` (`__reduce_add_sync`).
    redux_sync_add_u32, u32, "add.u32", u32::wrapping_add);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The minimum over `membermask` (`__reduce_min_sync`).
    redux_sync_min_u32, u32, "min.u32", u32::min);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The maximum over `membermask` (`__reduce_max_sync`).
    redux_sync_max_u32, u32, "max.u32", u32::max);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The wrapping signed sum over `membermask`.
    redux_sync_add_i32, i32, "add.s32", i32::wrapping_add);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The signed minimum over `membermask`.
    redux_sync_min_i32, i32, "min.s32", i32::min);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The signed maximum over `membermask`.
    redux_sync_max_i32, i32, "max.s32", i32::max);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The bitwise and over `membermask` (`__reduce_and_sync`).
    redux_sync_and_b32, u32, "and.b32", |a: u32, b: u32| a & b);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The bitwise or over `membermask` (`__reduce_or_sync`).
    redux_sync_or_b32, u32, "or.b32", |a: u32, b: u32| a | b);
#[cfg(target_arch = "nvptx64")]
redux_int!(
    /// The bitwise xor over `membermask` (`__reduce_xor_sync`).
    redux_sync_xor_b32, u32, "xor.b32", |a: u32, b: u32| a ^ b);

#[cfg(target_arch = "nvptx64")]
macro_rules! redux_f32 {
    ($name:ident, $suffix:literal, $max:literal, $abs:literal, $nan:literal) => {
        #[doc = concat!("`redux.sync.", $suffix, ".f32` over `membermask` (sm_100a, PTX 8.6); a shuffle ",
            "reduction with the same rules elsewhere. See the [module docs](self) for NaN and zeros.")]
        #[inline(always)]
        pub fn $name(membermask: LaneMask, value: f32) -> f32 {
            #[cfg(all(target_feature = "sm_100a", target_feature = "ptx86"))]
            {
                let d: f32;
                // SAFETY: the calling lane is in `membermask` (LaneMask's invariant).
                unsafe {
                    core::arch::asm!(concat!("redux.sync.", $suffix, ".f32 {d}, {a}, {m};"),
                        d = out(reg32) d, a = in(reg32) value, m = in(reg32) membermask.bits(),
                        options(nomem, nostack, preserves_flags));
                }
                d
            }
            #[cfg(not(all(target_feature = "sm_100a", target_feature = "ptx86")))]
            {
                let op = FloatRedux { max: $max, abs: $abs, nan: $nan };
                shuffle_reduce(membermask, op.prepare(value), |a, b| op.combine(a, b))
            }
        }
    };
}

#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_min_f32, "min", false, false, false);
#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_max_f32, "max", true, false, false);
#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_min_abs_f32, "min.abs", false, true, false);
#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_max_abs_f32, "max.abs", true, true, false);
#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_min_nan_f32, "min.NaN", false, false, true);
#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_max_nan_f32, "max.NaN", true, false, true);
#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_min_abs_nan_f32, "min.abs.NaN", false, true, true);
#[cfg(target_arch = "nvptx64")]
redux_f32!(redux_sync_max_abs_nan_f32, "max.abs.NaN", true, true, true);

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: FloatRedux = FloatRedux {
        max: false,
        abs: false,
        nan: false,
    };
    const MAX: FloatRedux = FloatRedux {
        max: true,
        abs: false,
        nan: false,
    };

    #[test]
    fn zeros_order_plus_above_minus() {
        assert_eq!(MAX.combine(-0.0, 0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(MAX.combine(0.0, -0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(MIN.combine(0.0, -0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(MIN.combine(-0.0, 0.0).to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn nan_is_skipped_unless_propagating() {
        let nan = f32::from_bits(0x7fc0_0001);
        assert_eq!(MIN.combine(nan, 2.0), 2.0);
        assert_eq!(MAX.combine(3.0, nan), 3.0);
        assert_eq!(MIN.combine(nan, nan).to_bits(), CANONICAL_NAN);
        let min_nan = FloatRedux { nan: true, ..MIN };
        assert_eq!(min_nan.combine(nan, 2.0).to_bits(), CANONICAL_NAN);
        assert_eq!(min_nan.combine(1.0, 2.0), 1.0);
    }

    #[test]
    fn abs_reduces_magnitudes() {
        let op = FloatRedux { abs: true, ..MAX };
        assert_eq!(op.combine(op.prepare(-5.0), op.prepare(3.0)), 5.0);
        assert_eq!(FloatRedux::ALL.iter().filter(|f| f.abs && f.nan).count(), 2);
    }
}
