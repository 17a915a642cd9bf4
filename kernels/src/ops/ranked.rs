//! The accumulator of the device arg-reduce: each candidate as an unsigned *rank* of its value
//! beside its index, so that combining two candidates is a lexicographic minimum of
//! `(rank, index)` (a 64-bit integer minimum for 32-bit values) instead of the NaN, signed-zero
//! and tie cases of [`ArgMin`]/[`ArgMax`] on [`Indexed`] values.
//!
//! The rank orders values as those operators do: the smaller rank wins, so arg-max ranks the
//! larger value lower; floats follow the IEEE total order on numbers (`-0.0` before `+0.0`),
//! and every NaN takes the largest rank, the identity's, so a number always beats it and an
//! all-NaN input gives the canonical NaN at its lowest index. Equal ranks keep the lower index.
//! [`Ranked::indexed`] turns the winner back into the value and index those operators give.

use super::half::Half16;
use super::{ArgMax, ArgMin, ArgValue, Float, Indexed, ReduceOp};
use half::{bf16, f16};

/// Which way an arg-reduce goes.
pub trait ArgDirection: Copy {
    /// `true` for arg-max.
    const MAX: bool;
}

impl ArgDirection for ArgMin {
    const MAX: bool = false;
}

impl ArgDirection for ArgMax {
    const MAX: bool = true;
}

/// A value type the device arg-reduce ranks: `rank` is a bijection from values to `Rank` on
/// numbers (order-preserving for arg-min, reversing for arg-max), every NaN to `Rank::MAX`.
pub trait Rankable: ArgValue {
    /// The unsigned integer of the value's width.
    type Rank: Copy + Ord;
    fn rank(self, max: bool) -> Self::Rank;
    /// [`rank`](Self::rank) with NaN masked in too, no select or branch at all, for loops
    /// that rank many values (the device min/max reduce): with branches, the compiler issued
    /// each of a thread's loads only after the previous value's branches (f64 min 500 against
    /// 480 µs at 2^28 on an H200); in the arg-reduce, whose candidates carry indices, this
    /// form took more registers and ran slower (f32 arg-min 271 against 248 µs).
    #[inline(always)]
    fn rank_masked(self, max: bool) -> Self::Rank {
        self.rank(max)
    }
    /// The value of a rank; `Rank::MAX` is the canonical NaN for floats.
    fn unrank(rank: Self::Rank, max: bool) -> Self;
}

macro_rules! unsigned_rankable {
    ($($t:ty),*) => {$(
        impl Rankable for $t {
            type Rank = $t;
            #[inline(always)]
            fn rank(self, max: bool) -> $t { if max { !self } else { self } }
            #[inline(always)]
            fn unrank(rank: $t, max: bool) -> $t { if max { !rank } else { rank } }
        }
    )*};
}

unsigned_rankable!(u32, u64);

macro_rules! signed_rankable {
    ($($t:ty, $u:ty);*) => {$(
        impl Rankable for $t {
            type Rank = $u;
            /// The sign bit flipped: two's complement order as unsigned order.
            #[inline(always)]
            fn rank(self, max: bool) -> $u { (self as $u ^ (1 << (<$u>::BITS - 1))).rank(max) }
            #[inline(always)]
            fn unrank(rank: $u, max: bool) -> $t {
                (<$u>::unrank(rank, max) ^ (1 << (<$u>::BITS - 1))) as $t
            }
        }
    )*};
}

signed_rankable!(i32, u32; i64, u64);

macro_rules! float_rankable {
    ($($t:ty, $u:ty);*) => {$(
        impl Rankable for $t {
            type Rank = $u;
            /// Negative numbers' bits inverted, positive ones' sign bit set: the total order
            /// on numbers as unsigned order. A number's rank is never `MAX` either way.
            ///
            /// The sign picks its mask arithmetically (NaN alone is a select): written as a
            /// branch on the sign, the `f32` arg-min loop took branches per item and 51
            /// registers (`ptxas` 12.9, sm_90), this takes 32; on an H200 the arg-min at
            /// 2^28 items went from 241.2 to 239.1-239.4 µs, at 2^24 from 20.3 to 20.6 µs.
            #[inline(always)]
            fn rank(self, max: bool) -> $u {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                if self.is_nan() {
                    return <$u>::MAX;
                }
                let bits = self.to_bits();
                let negative = (bits >> (<$u>::BITS - 1)).wrapping_neg();
                (bits ^ (negative | SIGN)).rank(max)
            }
            #[inline(always)]
            fn rank_masked(self, max: bool) -> $u {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let bits = self.to_bits();
                let negative = (bits >> (<$u>::BITS - 1)).wrapping_neg();
                let nan = (self.is_nan() as $u).wrapping_neg();
                (bits ^ (negative | SIGN)).rank(max) | nan
            }
            #[inline(always)]
            fn unrank(rank: $u, max: bool) -> $t {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                if rank == <$u>::MAX {
                    return <$t as Float>::CANONICAL_NAN;
                }
                let ordered = <$u>::unrank(rank, max);
                <$t>::from_bits(if ordered & SIGN != 0 { ordered & !SIGN } else { !ordered })
            }
        }
    )*};
}

float_rankable!(f32, u32; f64, u64);

macro_rules! half_rankable {
    ($($t:ty),*) => {$(
        /// The 16-bit form of the float ranks ([`half_pair_ranks`]) in a `u32`, every NaN
        /// `u32::MAX`: numbers in the order of their `f32` widening, `-0.0` before `+0.0`, so
        /// the candidates are [`Ranked<u32, u32>`] as for 32-bit values.
        impl Rankable for $t {
            type Rank = u32;
            #[inline(always)]
            fn rank(self, max: bool) -> u32 {
                half_rank_as_u32(half_pair_ranks::<$t>(self.to_bits() as u32, max) & 0xffff)
            }
            #[inline(always)]
            fn unrank(rank: u32, max: bool) -> $t {
                if rank == u32::MAX {
                    return <$t as Half16>::CANONICAL_NAN;
                }
                let ordered = (if max { !rank } else { rank }) as u16;
                <$t>::from_bits(if ordered & 0x8000 != 0 { ordered & 0x7fff } else { !ordered })
            }
        }
    )*};
}

half_rankable!(f16, bf16);

/// The ranks of the two halves of type `T` packed in `w` (bits 0-15 and 16-31), one per
/// 16-bit lane: a number's bits with the sign bit set if positive, all inverted if negative
/// (the total order on numbers as unsigned order, `-0.0` before `+0.0`), inverted again for
/// arg-max; every NaN `0xffff`, which no number takes (`+inf` ranks `0xfc00` for `f16` and
/// `0xff80` for `bf16`). Branch-free, six instructions: a lane's sign, and whether its
/// magnitude is above `+inf`'s bits, become a mask of the lane by one `prmt.b32` each.
#[inline(always)]
pub fn half_pair_ranks<T: Half16>(w: u32, max: bool) -> u32 {
    const SIGNS: u32 = 0x8000_8000;
    let negative = top_bit_lanes(w);
    // A magnitude plus this reaches 0x8000 exactly when it is above `+inf`'s bits, and stays
    // below 0x1_0000: no carry into the next lane.
    let bias = 0x7fff - T::INFINITY_BITS as u32;
    let nan = top_bit_lanes((w & !SIGNS) + (bias | bias << 16));
    let ordered = w ^ (negative | SIGNS);
    (if max { !ordered } else { ordered }) | nan
}

/// A 16-bit rank of [`half_pair_ranks`] as the candidates' `u32` rank: the NaNs' `0xffff`
/// becomes `u32::MAX`, the rank no 32-bit value reaches either; numbers keep theirs.
#[inline(always)]
fn half_rank_as_u32(lane: u32) -> u32 {
    if lane == 0xffff { u32::MAX } else { lane }
}

/// `0xffff` in each 16-bit lane of `x` whose top bit is set, `0` in the others: `prmt.b32`
/// with selector `0xbb99` on the GPU (one instruction where the shift, `and` and multiply
/// took three), its CPU model on the host.
#[inline(always)]
fn top_bit_lanes(x: u32) -> u32 {
    const SIGN_OF_BYTES_1_AND_3: u32 = 0xbb99;
    #[cfg(target_arch = "nvptx64")]
    {
        crate::instr::simd::prmt_b32(x, 0, SIGN_OF_BYTES_1_AND_3)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        crate::model::prmt_b32(x, 0, SIGN_OF_BYTES_1_AND_3)
    }
}

/// `min.u16x2` on the GPU, its CPU model on the host.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
fn lowest_u16x2(a: u32, b: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::instr::simd::min_u16x2(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        crate::model::min_u16x2(a, b)
    }
}

/// Combines eight consecutive halves into `acc` as a *vector candidate*: `words` holds them
/// two per word, the item at index `first` in the low lane of `words[0]`. The eight ranks
/// ([`half_pair_ranks`]) meet in three `min.u16x2` (two instructions on sm_90); when the
/// lowest beats `acc`, the result is that rank with index `first`, the vector's, which
/// [`exact_half_index`] turns into its item's once the thread has folded all its vectors.
/// Branch-free, so that a thread's loads of the next vectors need not wait for this one.
///
/// Gives that rank and vector where combining each item's [`Ranked::of`] with [`LowestRank`]
/// gives that rank and an item of the vector, provided every item in `acc` comes before
/// `first` or `acc` is the identity: a later vector never wins a tie.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub fn fold_half_words<T: Half16, D: ArgDirection>(
    acc: Ranked<u32, u32>,
    first: u32,
    words: [u32; 4],
) -> Ranked<u32, u32> {
    let ranks = words.map(|w| half_pair_ranks::<T>(w, D::MAX));
    let pair = lowest_u16x2(
        lowest_u16x2(ranks[0], ranks[1]),
        lowest_u16x2(ranks[2], ranks[3]),
    );
    let rank = half_rank_as_u32((pair & 0xffff).min(pair >> 16));
    let wins = rank < acc.rank || acc.index == u32::MAX;
    Ranked {
        rank: if wins { rank } else { acc.rank },
        index: if wins { first } else { acc.index },
    }
}

/// The index of the first of the eight halves in `words` (as [`fold_half_words`] takes them)
/// whose rank is `rank`, counted from `first`: a vector candidate's item. `rank` must be one
/// of theirs.
#[inline(always)]
pub fn exact_half_index<T: Half16, D: ArgDirection>(rank: u32, first: u32, words: [u32; 4]) -> u32 {
    // The 16-bit lane of the rank (`half_rank_as_u32` undone).
    let lane = rank.min(0xffff);
    let ranks = words.map(|w| half_pair_ranks::<T>(w, D::MAX));
    let mut at = 0;
    for k in (0..8).rev() {
        if (ranks[k / 2] >> (16 * (k % 2))) & 0xffff == lane {
            at = k as u32;
        }
    }
    first + at
}

/// A candidate of the device arg-reduce: its value's rank and its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Ranked<R, I> {
    pub rank: R,
    pub index: I,
}

// SAFETY: two fields of the same size and alignment: no padding, any bits valid.
unsafe impl bytemuck::Zeroable for Ranked<u32, u32> {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Ranked<u32, u32> {}
// SAFETY: as above.
unsafe impl bytemuck::Zeroable for Ranked<u64, u64> {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Ranked<u64, u64> {}

impl<R: Copy, I: Copy> Ranked<R, I> {
    /// The candidate `value` at `index` for the arg-reduce `D`.
    #[inline(always)]
    pub fn of<T: Rankable<Rank = R>, D: ArgDirection>(value: T, index: I) -> Self {
        Ranked {
            rank: value.rank(D::MAX),
            index,
        }
    }

    /// The value and index the arg-reduce `D` gives for this winner.
    #[inline(always)]
    pub fn indexed<T: Rankable<Rank = R>, D: ArgDirection>(self) -> Indexed<T, I> {
        Indexed {
            value: T::unrank(self.rank, D::MAX),
            index: self.index,
        }
    }
}

impl Ranked<u32, u32> {
    /// [`indexed`](Self::indexed) for a 16-bit value, laid out as the device arg-reduce
    /// writes it: the value's bits zero-extended to 32, then the index (no padding, as
    /// `warpkit-host`'s `ArgResult` of a half type reads it).
    #[inline(always)]
    pub fn indexed_bits<T, D>(self) -> Indexed<u32, u32>
    where
        T: Rankable<Rank = u32> + bytemuck::Pod,
        D: ArgDirection,
    {
        let found = self.indexed::<T, D>();
        Indexed {
            value: bytemuck::cast::<T, u16>(found.value) as u32,
            index: found.index,
        }
    }
}

/// The lowest `(rank, index)`: the winner of an arg-reduce over [`Ranked`] candidates.
/// The identity, `(MAX, MAX)`, loses to every candidate of an input shorter than `I::MAX`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowestRank;

impl ReduceOp<Ranked<u32, u32>> for LowestRank {
    #[inline(always)]
    fn identity(self) -> Ranked<u32, u32> {
        Ranked {
            rank: u32::MAX,
            index: u32::MAX,
        }
    }
    #[inline(always)]
    fn combine(self, a: Ranked<u32, u32>, b: Ranked<u32, u32>) -> Ranked<u32, u32> {
        let key = |r: Ranked<u32, u32>| (r.rank as u64) << 32 | r.index as u64;
        let lowest = key(a).min(key(b));
        Ranked {
            rank: (lowest >> 32) as u32,
            index: lowest as u32,
        }
    }
    const ORDER_INDEPENDENT: bool = true;
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
    #[inline(always)]
    fn redux(
        self,
        mask: crate::instr::LaneMask,
        value: Ranked<u32, u32>,
    ) -> Option<Ranked<u32, u32>> {
        let (rank, index) = super::redux_pair(mask, value.rank, value.index, false);
        Some(Ranked { rank, index })
    }
}

impl ReduceOp<Ranked<u64, u64>> for LowestRank {
    #[inline(always)]
    fn identity(self) -> Ranked<u64, u64> {
        Ranked {
            rank: u64::MAX,
            index: u64::MAX,
        }
    }
    #[inline(always)]
    fn combine(self, a: Ranked<u64, u64>, b: Ranked<u64, u64>) -> Ranked<u64, u64> {
        if (b.rank, b.index) < (a.rank, a.index) {
            b
        } else {
            a
        }
    }
    const ORDER_INDEPENDENT: bool = true;
    /// The lowest rank by two `redux.sync` ([`redux_pair`](super::redux_pair)), then the
    /// lowest index of the lanes that hold it by two more, instead of five rounds of four
    /// shuffles: the kernels' PTX halves. On an H200 (device arg-min of `f64`, A/B,
    /// `h200-2026-11-27-argmin-u64-ranked-redux-ab.csv`): cold L2, 2^16 items 6.4-6.5 → 5.5
    /// µs, 2^20 11.5 → 9.2-9.4 µs; 2^24 40.3 → 36.7 µs; 2^28 484 → 480-482 µs.
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
    #[inline(always)]
    fn redux(
        self,
        mask: crate::instr::LaneMask,
        value: Ranked<u64, u64>,
    ) -> Option<Ranked<u64, u64>> {
        let rank = super::redux_u64(mask, value.rank, false);
        let index = if value.rank == rank {
            value.index
        } else {
            u64::MAX
        };
        Some(Ranked {
            rank,
            index: super::redux_u64(mask, index, false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Max, Min};

    /// Every pair of candidates drawn from tricky values: ranking, combining and turning back
    /// gives what `ArgMin`/`ArgMax` give on the values themselves, bits included.
    fn agrees<T, R, I>(values: &[T], index: impl Fn(usize) -> I)
    where
        T: Rankable<Rank = R> + core::fmt::Debug,
        R: Copy + Ord,
        I: Copy + PartialOrd + core::fmt::Debug + PartialEq,
        LowestRank: ReduceOp<Ranked<R, I>>,
        ArgMin: ReduceOp<Indexed<T, I>>,
        ArgMax: ReduceOp<Indexed<T, I>>,
        Indexed<T, I>: bytemuck::Pod,
    {
        fn check<T, R, I, D>(a: Indexed<T, I>, b: Indexed<T, I>, op: D)
        where
            T: Rankable<Rank = R> + core::fmt::Debug,
            R: Copy + Ord,
            I: Copy + PartialOrd + core::fmt::Debug + PartialEq,
            D: ArgDirection + ReduceOp<Indexed<T, I>>,
            LowestRank: ReduceOp<Ranked<R, I>>,
            Indexed<T, I>: bytemuck::Pod,
        {
            let want = op.combine(a, b);
            let ranked = LowestRank.combine(
                Ranked::of::<T, D>(a.value, a.index),
                Ranked::of::<T, D>(b.value, b.index),
            );
            let got: Indexed<T, I> = ranked.indexed::<T, D>();
            assert_eq!(
                bytemuck::bytes_of(&got),
                bytemuck::bytes_of(&want),
                "max={} {a:?} {b:?}: got {got:?}, want {want:?}",
                D::MAX
            );
        }
        for (i, &x) in values.iter().enumerate() {
            for (j, &y) in values.iter().enumerate() {
                for (ix, iy) in [(index(i), index(j)), (index(1), index(1))] {
                    let a = Indexed {
                        value: x,
                        index: ix,
                    };
                    let b = Indexed {
                        value: y,
                        index: iy,
                    };
                    check(a, b, ArgMin);
                    check(a, b, ArgMax);
                }
            }
        }
    }

    /// NaNs (payloads and signs), infinities, signed zeros, subnormals and extremes.
    const TRICKY_F32S: [f32; 15] = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fc0_0001),
        f32::from_bits(0xffff_ffff),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.5,
        -1.5,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MAX,
        f32::MIN,
    ];

    #[test]
    fn ranked_candidates_combine_as_arg_min_and_arg_max() {
        let f32s = TRICKY_F32S;
        agrees::<f32, u32, u32>(&f32s, |i| i as u32 * 7 % 5);
        let f64s = f32s.map(|x| x as f64);
        agrees::<f64, u64, u64>(&f64s, |i| i as u64 * 7 % 5);
        agrees::<u32, u32, u32>(&[0, 1, 7, u32::MAX, 0x8000_0000], |i| i as u32 % 3);
        agrees::<i32, u32, u32>(&[0, 1, -1, i32::MIN, i32::MAX, -7], |i| i as u32 % 3);
        agrees::<u64, u64, u64>(&[0, 1, u64::MAX, 1 << 63], |i| i as u64 % 3);
        agrees::<i64, u64, u64>(&[0, -1, i64::MIN, i64::MAX, 9], |i| i as u64 % 3);
    }

    /// The device reduce of float `Min`/`Max` takes the unsigned minimum of ranks: for every
    /// pair of tricky values, and the identity, that gives the bits `Min`/`Max` give.
    fn ranks_reduce_as_min_and_max<T, R>(values: &[T])
    where
        T: Rankable<Rank = R> + bytemuck::Pod + core::fmt::Debug,
        R: Copy + Ord,
        Min: ReduceOp<T> + ReduceOp<R>,
        Max: ReduceOp<T>,
    {
        fn check<T, R>(a: T, b: T, max: bool, want: T)
        where
            T: Rankable<Rank = R> + bytemuck::Pod + core::fmt::Debug,
            R: Copy + Ord,
            Min: ReduceOp<R>,
        {
            let got = T::unrank(Min.combine(a.rank_masked(max), b.rank_masked(max)), max);
            assert_eq!(
                bytemuck::bytes_of(&got),
                bytemuck::bytes_of(&want),
                "max={max} {a:?} {b:?}: got {got:?}, want {want:?}"
            );
        }
        let min_identity: T = Min.identity();
        let max_identity: T = Max.identity();
        for &x in values.iter().chain([&min_identity, &max_identity]) {
            for &y in values.iter().chain([&min_identity, &max_identity]) {
                check(x, y, false, Min.combine(x, y));
                check(x, y, true, Max.combine(x, y));
            }
        }
        let empty_min = T::unrank(ReduceOp::<R>::identity(Min), false);
        let empty_max = T::unrank(ReduceOp::<R>::identity(Min), true);
        assert_eq!(
            bytemuck::bytes_of(&empty_min),
            bytemuck::bytes_of(&min_identity)
        );
        assert_eq!(
            bytemuck::bytes_of(&empty_max),
            bytemuck::bytes_of(&max_identity)
        );
    }

    #[test]
    fn float_min_and_max_reduce_as_ranks() {
        let f32s = TRICKY_F32S;
        for x in f32s {
            assert_eq!(x.rank_masked(false), x.rank(false), "{x:?}");
            assert_eq!(x.rank_masked(true), x.rank(true), "{x:?}");
            let y = x as f64;
            assert_eq!(y.rank_masked(false), y.rank(false), "{y:?}");
            assert_eq!(y.rank_masked(true), y.rank(true), "{y:?}");
        }
        ranks_reduce_as_min_and_max::<f32, u32>(&f32s);
        let mut f64s = f32s.map(|x| x as f64).to_vec();
        f64s.extend([
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::from_bits(u64::MAX),
        ]);
        ranks_reduce_as_min_and_max::<f64, u64>(&f64s);
    }

    /// Every bit pattern of a half type: numbers rank in the order `ArgMin`/`ArgMax` of
    /// their `f32` values give (`-0.0` before `+0.0`), each to a distinct rank below `MAX`
    /// that turns back into the same bits; every NaN ranks `MAX`, which turns back into the
    /// canonical NaN; and the written form keeps the bits.
    fn half_ranks<T>(from_bits: fn(u16) -> T)
    where
        T: Rankable<Rank = u32> + Half16 + bytemuck::Pod + core::fmt::Debug,
    {
        for max in [false, true] {
            // (rank, bits) of every number; core only (no allocation in this crate).
            let mut numbers = [(0u32, 0u16); 1 << 16];
            let mut count = 0;
            for bits in 0..=u16::MAX {
                let x = from_bits(bits);
                let rank = x.rank(max);
                assert_eq!(x.rank_masked(max), rank, "{bits:#06x}");
                if x.widen().is_nan() {
                    assert_eq!(rank, u32::MAX, "{bits:#06x}");
                } else {
                    assert_ne!(rank, u32::MAX, "{bits:#06x}");
                    assert_eq!(bytemuck::cast::<T, u16>(T::unrank(rank, max)), bits);
                    numbers[count] = (rank, bits);
                    count += 1;
                }
            }
            assert_eq!(bytemuck::cast::<T, u16>(T::unrank(u32::MAX, max)), 0x7fff);
            let numbers = &mut numbers[..count];
            numbers.sort_unstable_by_key(|&(rank, _)| rank);
            for pair in numbers.windows(2) {
                let ((r0, a), (r1, b)) = (pair[0], pair[1]);
                let (a, b) = (from_bits(a), from_bits(b));
                assert!(r0 < r1, "two numbers share a rank: {a:?} {b:?}");
                assert!(
                    <f32 as ArgValue>::beats(a.widen(), b.widen(), max)
                        && <T as ArgValue>::beats(a, b, max),
                    "max={max}: {a:?} ranks before {b:?}"
                );
            }
            let winner = Ranked {
                rank: numbers[0].0,
                index: 7u32,
            };
            let written: Indexed<u32, u32> = if max {
                winner.indexed_bits::<T, ArgMax>()
            } else {
                winner.indexed_bits::<T, ArgMin>()
            };
            assert_eq!((written.value, written.index), (numbers[0].1 as u32, 7));
        }
    }

    #[test]
    fn half_values_rank_as_their_f32_in_arg_order() {
        half_ranks::<f16>(f16::from_bits);
        half_ranks::<bf16>(bf16::from_bits);
    }

    #[test]
    fn the_identity_loses_and_all_nan_gives_the_canonical_nan_at_the_lowest_index() {
        let nan = Ranked::of::<f32, ArgMin>(f32::from_bits(0xffc0_0000), 9u32);
        let first = Ranked::of::<f32, ArgMin>(f32::NAN, 4u32);
        let got = LowestRank.combine(LowestRank.combine(LowestRank.identity(), nan), first);
        let got: Indexed<f32, u32> = got.indexed::<f32, ArgMin>();
        assert_eq!((got.value.to_bits(), got.index), (0x7fff_ffff, 4));
        let max_u32 = Ranked::of::<u32, ArgMin>(u32::MAX, 3u32);
        assert_eq!(LowestRank.combine(LowestRank.identity(), max_u32), max_u32);
    }
}
