//! Typed sub-warp tiles and the warp-level algorithms on them.
//!
//! A [`Tile<W>`] splits the warp into segments of `W` consecutive lanes (`W` a power of two in
//! 1..=32, checked at compile time) and computes the `c` operand of `shfl.sync` from `W` as the
//! PTX ISA gives it. Its algorithms work inside each segment: reduce, inclusive and exclusive
//! scans, their reverse (suffix) forms, segmented scans with head or tail flags, broadcast.
//! A reduction uses `redux.sync` where the operator and target have it
//! ([`ReduceOp::redux`]), a butterfly of `shfl.sync.bfly` otherwise; scans use
//! `shfl.sync.up`/`.down` as in the PTX ISA's example.
//!
//! Every lane of a segment must take part; lanes outside the tile's mask contribute
//! unspecified values.
//!
//! ```no_run
//! use warpkit::{ops::{Max, Sum}, warp::{Tile, Warp}};
//! /// The warp's sum and each group of 8 lanes' maximum, in every lane.
//! fn stats(x: f32) -> (f32, f32) {
//!     (Warp::full().reduce(x, Sum), Tile::<8>::full().reduce(x, Max))
//! }
//! ```
//!
//! ```compile_fail
//! // 24 is not a power of two: a compile-time error.
//! let c = warpkit::warp::Tile::<24>::control(warpkit::instr::shfl::ShflMode::Down);
//! ```

use crate::instr::shfl::{ShflControl, ShflMode};
use crate::instr::{LaneMask, sreg::laneid};
use crate::ops::ReduceOp;
use crate::warp::{redux::butterfly, shfl::shfl_sync_mode, vote::ballot_sync};
use bytemuck::Pod;

/// Segments of `W` lanes. `Tile<32>` is the whole warp ([`Warp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile<const W: u32> {
    mask: LaneMask,
}

/// The whole warp as one tile.
pub type Warp = Tile<32>;

/// Head flags mark the first element of a segment, tail flags the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flags {
    Head,
    Tail,
}

impl<const W: u32> Tile<W> {
    const VALID: () = assert!(
        W.is_power_of_two() && W <= 32,
        "a tile width must be a power of two in 1..=32"
    );

    /// The tile width.
    pub const WIDTH: u32 = {
        let () = Self::VALID;
        W
    };

    /// The `c` operand for `mode` in segments of `W` lanes.
    pub const fn control(mode: ShflMode) -> ShflControl {
        ShflControl::for_width(mode, Self::WIDTH)
    }

    /// The bits of one segment, for the segment starting at lane 0.
    pub const SEGMENT_BITS: u32 = if Self::WIDTH == 32 {
        u32::MAX
    } else {
        (1 << Self::WIDTH) - 1
    };
}

impl<const W: u32> Tile<W> {
    /// Tiles over all 32 lanes.
    #[inline(always)]
    pub fn full() -> Self {
        Self::new(LaneMask::FULL)
    }

    /// Tiles over the lanes of `mask`.
    #[inline(always)]
    pub fn new(mask: LaneMask) -> Self {
        let _ = Self::WIDTH;
        Tile { mask }
    }

    /// The calling lane's index in its segment, `0..W`.
    #[inline(always)]
    pub fn rank(self) -> u32 {
        laneid() & (W - 1)
    }

    /// The lanes of the caller's segment that are in the tile's mask.
    #[inline(always)]
    pub fn segment_mask(self) -> LaneMask {
        let base = laneid() & !(W - 1);
        // SAFETY: the caller's own bit is in both the segment and the mask.
        unsafe { LaneMask::from_bits_unchecked((Self::SEGMENT_BITS << base) & self.mask.bits()) }
    }

    /// The value of rank `src` of the segment (`shfl.sync.idx`).
    #[inline(always)]
    pub fn shfl<T: Pod>(self, value: T, src: u32) -> T {
        shfl_sync_mode(
            ShflMode::Idx,
            self.mask,
            value,
            src,
            Self::control(ShflMode::Idx),
        )
    }

    /// The value of rank `rank - delta`, or the caller's own below rank `delta` (`shfl.sync.up`).
    #[inline(always)]
    pub fn shfl_up<T: Pod>(self, value: T, delta: u32) -> T {
        shfl_sync_mode(
            ShflMode::Up,
            self.mask,
            value,
            delta,
            Self::control(ShflMode::Up),
        )
    }

    /// The value of rank `rank + delta`, or the caller's own past the end (`shfl.sync.down`).
    #[inline(always)]
    pub fn shfl_down<T: Pod>(self, value: T, delta: u32) -> T {
        shfl_sync_mode(
            ShflMode::Down,
            self.mask,
            value,
            delta,
            Self::control(ShflMode::Down),
        )
    }

    /// The value of rank `rank ^ lane_mask` (`shfl.sync.bfly`).
    #[inline(always)]
    pub fn shfl_xor<T: Pod>(self, value: T, lane_mask: u32) -> T {
        shfl_sync_mode(
            ShflMode::Bfly,
            self.mask,
            value,
            lane_mask,
            Self::control(ShflMode::Bfly),
        )
    }

    /// The value of rank `src` in every lane of the segment.
    #[inline(always)]
    pub fn broadcast<T: Pod>(self, value: T, src: u32) -> T {
        self.shfl(value, src)
    }

    /// The segment's reduction, in every lane: `redux.sync` where [`ReduceOp::redux`] has it,
    /// otherwise a butterfly that combines in rank order (so `op` need not be commutative). A
    /// segment of one lane (`Tile<1>`) reduces to its value, uncombined, on every target (a
    /// float `Min` of one NaN keeps its bits).
    #[inline(always)]
    pub fn reduce<T: Pod, Op: ReduceOp<T>>(self, value: T, op: Op) -> T {
        if W == 1 {
            return value;
        }
        if let Some(r) = op.redux(self.segment_mask(), value) {
            return r;
        }
        butterfly::<T, W>(
            value,
            self.rank(),
            |v, offset| self.shfl_xor(v, offset),
            |a, b| op.combine(a, b),
        )
    }

    /// The one Hillis–Steele loop of the warp layer: `log2(W)` steps; at step `offset` the
    /// lane reads `shift(acc, offset)` and, where `takes(offset)`, folds it in with `fold(acc,
    /// other)`. Forward scans shift up and fold `other ⊕ acc`; reverse scans shift down and
    /// fold `acc ⊕ other`.
    #[inline(always)]
    fn hillis_steele<T: Pod>(
        value: T,
        shift: impl Fn(T, u32) -> T,
        takes: impl Fn(u32) -> bool,
        fold: impl Fn(T, T) -> T,
    ) -> T {
        let mut acc = value;
        let mut offset = 1;
        while offset < W {
            let other = shift(acc, offset);
            if takes(offset) {
                acc = fold(acc, other);
            }
            offset <<= 1;
        }
        acc
    }

    /// Inclusive scan: rank `r` gets `x[0] ⊕ … ⊕ x[r]`.
    #[inline(always)]
    pub fn inclusive_scan<T: Pod, Op: ReduceOp<T>>(self, value: T, op: Op) -> T {
        let rank = self.rank();
        Self::hillis_steele(
            value,
            |v, offset| self.shfl_up(v, offset),
            |offset| rank >= offset,
            |acc, other| op.combine(other, acc),
        )
    }

    /// Exclusive scan: rank `r` gets `x[0] ⊕ … ⊕ x[r-1]`, rank 0 the identity.
    #[inline(always)]
    pub fn exclusive_scan<T: Pod, Op: ReduceOp<T>>(self, value: T, op: Op) -> T {
        let inclusive = self.inclusive_scan(value, op);
        let shifted = self.shfl_up(inclusive, 1);
        if self.rank() == 0 {
            op.identity()
        } else {
            shifted
        }
    }

    /// Reverse (suffix) inclusive scan: rank `r` gets `x[r] ⊕ … ⊕ x[W-1]`.
    #[inline(always)]
    pub fn reverse_inclusive_scan<T: Pod, Op: ReduceOp<T>>(self, value: T, op: Op) -> T {
        let rank = self.rank();
        Self::hillis_steele(
            value,
            |v, offset| self.shfl_down(v, offset),
            |offset| rank + offset < W,
            |acc, other| op.combine(acc, other),
        )
    }

    /// Reverse exclusive scan: rank `r` gets `x[r+1] ⊕ … ⊕ x[W-1]`, the last rank the identity.
    #[inline(always)]
    pub fn reverse_exclusive_scan<T: Pod, Op: ReduceOp<T>>(self, value: T, op: Op) -> T {
        let inclusive = self.reverse_inclusive_scan(value, op);
        let shifted = self.shfl_down(inclusive, 1);
        if self.rank() == W - 1 {
            op.identity()
        } else {
            shifted
        }
    }

    /// The ranks that start a segment, from per-lane flags (rank 0 always starts one).
    #[inline(always)]
    fn heads(self, flag: bool, flags: Flags) -> u32 {
        let base = laneid() & !(W - 1);
        let bits = (ballot_sync(self.mask, flag) >> base) & Self::SEGMENT_BITS;
        let heads = match flags {
            Flags::Head => bits,
            Flags::Tail => bits << 1,
        };
        (heads & Self::SEGMENT_BITS) | 1
    }

    /// Segmented inclusive scan: the scan restarts at every head flag (or after every tail flag).
    #[inline(always)]
    pub fn segmented_inclusive_scan<T: Pod, Op: ReduceOp<T>>(
        self,
        value: T,
        flag: bool,
        flags: Flags,
        op: Op,
    ) -> T {
        self.scan_from_heads(value, self.heads(flag, flags), op)
    }

    /// The inclusive scan restarting at each rank set in `heads`.
    #[inline(always)]
    fn scan_from_heads<T: Pod, Op: ReduceOp<T>>(self, value: T, heads: u32, op: Op) -> T {
        let rank = self.rank();
        let at_or_below = ranks_at_or_below(rank) & heads;
        let start = 31 - at_or_below.leading_zeros();
        Self::hillis_steele(
            value,
            |v, offset| self.shfl_up(v, offset),
            |offset| rank >= start + offset,
            |acc, other| op.combine(other, acc),
        )
    }

    /// Segmented reduction: every lane gets the reduction of its own segment.
    #[inline(always)]
    pub fn segmented_reduce<T: Pod, Op: ReduceOp<T>>(
        self,
        value: T,
        flag: bool,
        flags: Flags,
        op: Op,
    ) -> T {
        let rank = self.rank();
        let heads = self.heads(flag, flags);
        let above = heads & !ranks_at_or_below(rank);
        let end = if above == 0 {
            W - 1
        } else {
            above.trailing_zeros() - 1
        };
        let scanned = self.scan_from_heads(value, heads, op);
        self.shfl(scanned, end)
    }
}

/// The bits of ranks `0..=rank` (`rank` < 32).
#[inline(always)]
fn ranks_at_or_below(rank: u32) -> u32 {
    ((1u64 << (rank + 1)) - 1) as u32
}
