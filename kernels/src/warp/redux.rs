//! The shuffle reductions behind `redux.sync`: what [`crate::instr::redux`] compiles to on
//! targets without the instruction, and what [`Tile::reduce`](crate::warp::Tile::reduce) uses
//! for operators the instruction does not have.
//!
//! - [`butterfly`]: `log2(W)` steps of `shfl.sync.bfly` over segments of `W` lanes, combining in
//!   lane order (the one butterfly of the crate);
//! - [`shuffle_reduce`]: any `membermask`, over its lanes that have not exited (as
//!   `redux.sync`): the butterfly for the full warp, a tree over the lanes' ranks otherwise;
//! - [`FloatRedux`]: the `f32` rules of `redux.sync.{min,max}{.abs}{.NaN}.f32`.

use crate::instr::LaneMask;
use crate::instr::shfl::{ShflControl, ShflMode};
use crate::instr::sreg::{laneid, lanemask_lt};
use crate::instr::vote::vote_sync_ballot_b32;
use crate::warp::shfl::shfl_sync_mode;

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

    /// The instruction's result from the combined value: a NaN result is always the canonical
    /// NaN, also where a single lane's NaN was never combined.
    #[inline(always)]
    pub fn finish(self, x: f32) -> f32 {
        crate::ops::canonical_nan(x)
    }
}

/// Reduces `value` over each segment of `W` lanes in `log2(W)` butterfly steps, every lane
/// getting its segment's result: `xor(v, offset)` must return the value of rank
/// `rank ^ offset` (a `shfl.sync.bfly`). The lower half of each pair is the left operand, so
/// the segment is combined in rank order and `combine` need only be associative.
#[inline(always)]
pub fn butterfly<T: Copy, const W: u32>(
    value: T,
    rank: u32,
    mut xor: impl FnMut(T, u32) -> T,
    combine: impl Fn(T, T) -> T,
) -> T {
    let mut acc = value;
    let mut offset = 1;
    while offset < W {
        let other = xor(acc, offset);
        acc = if rank & offset == 0 {
            combine(acc, other)
        } else {
            combine(other, acc)
        };
        offset <<= 1;
    }
    acc
}

/// Reduces `value` over the lanes of `mask` that have not exited, with shuffles, every lane
/// getting the result: what `redux.sync` computes ("across all non-exited threads in the
/// membermask"), for any [`bytemuck::Pod`] type.
///
/// `combine` must be associative; the lanes are combined in lane order, so it need not be
/// commutative. A `vote.sync.ballot` first finds the lanes of `mask` still present (an exited
/// lane votes nothing, and a shuffle from it would read an undefined value). All 32 take a
/// five-step butterfly; other lanes a tree over their ranks, then a broadcast from the
/// lowest. This is the fallback of every `redux.sync` function.
#[inline(always)]
pub fn shuffle_reduce<T: bytemuck::Pod>(
    mask: LaneMask,
    value: T,
    combine: impl Fn(T, T) -> T,
) -> T {
    // SAFETY: the calling lane is in `mask` and present, so it voted its own bit.
    let mask = unsafe { LaneMask::from_bits_unchecked(vote_sync_ballot_b32(mask, true)) };
    let c = ShflControl::for_width(ShflMode::Idx, 32);
    if mask == LaneMask::FULL {
        let bfly = ShflControl::for_width(ShflMode::Bfly, 32);
        return butterfly::<T, 32>(
            value,
            laneid(),
            |v, offset| shfl_sync_mode(ShflMode::Bfly, mask, v, offset, bfly),
            combine,
        );
    }
    let bits = mask.bits();
    let count = bits.count_ones();
    let rank = (bits & lanemask_lt()).count_ones();
    let mut acc = value;
    let mut step = 1;
    while step < count {
        let source_rank = rank + step;
        let source_lane = nth_lane(bits, source_rank.min(count - 1));
        let other = shfl_sync_mode(ShflMode::Idx, mask, acc, source_lane, c);
        if rank.is_multiple_of(2 * step) && source_rank < count {
            acc = combine(acc, other);
        }
        step <<= 1;
    }
    shfl_sync_mode(ShflMode::Idx, mask, acc, mask.first(), c)
}

/// The lane of the `rank`-th (from 0) set bit of `bits`.
#[inline(always)]
fn nth_lane(mut bits: u32, rank: u32) -> u32 {
    let mut i = 0;
    while i < rank {
        bits &= bits - 1;
        i += 1;
    }
    bits.trailing_zeros()
}

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
