//! The half types' loads for the device reduce's even share ([`ItemLoad`]s that fold a whole
//! 16-byte vector of eight halves at once): [`HalfArgLoad`] for the arg-reduces (sm_90) and
//! [`HalfMinMaxLoad`] for min and max (sm_80).
// Used by the library's kernels (and the host's unit tests) only.
#![cfg_attr(
    not(all(target_arch = "nvptx64", feature = "kernels")),
    allow(dead_code)
)]

use super::ItemLoad;
use crate::ops::half::Half16;
use crate::ops::ranked::{ArgDirection, Rankable, Ranked};
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
use crate::ops::ranked::{exact_half_index, fold_half_words};
use crate::ops::{Max, Min, ReduceOp};
use bytemuck::Pod;
use core::mem::size_of;

/// The candidates of the `f16`/`bf16` arg-reduce ([`Ranked::of`]), with a `u32` index; on
/// sm_90 a vector of eight halves goes through
/// [`fold_half_words`](crate::ops::ranked::fold_half_words) (`min.u16x2` on packed 16-bit
/// ranks, no branch) instead of eight candidates, and the thread's winner is put back on its
/// item once ([`exact_half_index`](crate::ops::ranked::exact_half_index), one more load of
/// its vector). For [`LowestRank`](crate::ops::ranked::LowestRank) only, the operator that
/// fold stands for.
pub(crate) struct HalfArgLoad<T, D>(core::marker::PhantomData<(T, D)>);

impl<T, D> HalfArgLoad<T, D> {
    pub(crate) const NEW: Self = HalfArgLoad(core::marker::PhantomData);
}

/// Eight halves as four words, the first item in the low half of the first word.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
fn half_words<T: Pod, const VEC: usize>(items: [T; VEC]) -> [u32; 4] {
    const { assert!(VEC == 8 && size_of::<T>() == 2) };
    let bits = |e: usize| bytemuck::cast::<T, u16>(items[e]);
    core::array::from_fn(|k| pack_u16x2(bits(2 * k), bits(2 * k + 1)))
}

/// `lo | hi << 16`. On the GPU one `mov.b32 d, {lo, hi}`, which `ptxas` drops where the two
/// halves came from one register: written with shifts, LLVM read the vector's first word a
/// second time (`ld.b32` beside the `ld.v4.b32`) to build it.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
fn pack_u16x2(lo: u16, hi: u16) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: u32;
        // SAFETY: a register-only instruction with no precondition.
        unsafe {
            core::arch::asm!("mov.b32 {d}, {{{lo}, {hi}}};", d = out(reg32) d, lo = in(reg16) lo, hi = in(reg16) hi,
                options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        lo as u32 | (hi as u32) << 16
    }
}

impl<T, D> ItemLoad<T, Ranked<u32, u32>> for HalfArgLoad<T, D>
where
    T: Rankable<Rank = u32> + Half16 + Pod,
    D: ArgDirection,
{
    const FOLDS_VECTORS: bool = cfg!(any(not(target_arch = "nvptx64"), target_feature = "sm_90"));

    #[inline(always)]
    fn item(&self, index: usize, x: T) -> Ranked<u32, u32> {
        Ranked::of::<T, D>(x, index as u32)
    }

    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    fn vector<Op: ReduceOp<Ranked<u32, u32>>, const VEC: usize>(
        &self,
        acc: Ranked<u32, u32>,
        first: usize,
        items: [T; VEC],
        _op: Op,
    ) -> Ranked<u32, u32> {
        fold_half_words::<T, D>(acc, first as u32, half_words(items))
    }

    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    fn exact<const VEC: usize>(
        &self,
        acc: Ranked<u32, u32>,
        vector_at: impl Fn(usize) -> Option<[T; VEC]>,
    ) -> Ranked<u32, u32> {
        match vector_at(acc.index as usize) {
            Some(items) if acc.index != u32::MAX => Ranked {
                rank: acc.rank,
                index: exact_half_index::<T, D>(acc.rank, acc.index, half_words(items)),
            },
            _ => acc,
        }
    }
}

/// The items of the `f16`/`bf16` min and max, accumulated as `f32` (exact): on sm_80 and
/// newer a vector of eight halves is folded in its own format, three `min`/`max` on packed
/// pairs (`.f16x2`/`.bf16x2`, [`PackedMinMax`]) and one more across the last pair's lanes, and
/// joins the thread's `f32` as one item, instead of eight widened items. The packed
/// instructions follow [`Min`]/[`Max`]'s rules (a NaN loses to a number, `-0.0 < +0.0`), and
/// neither rounds, so the bits are those of the item-by-item fold.
pub(crate) struct HalfMinMaxLoad<T, Op>(core::marker::PhantomData<(T, Op)>);

impl<T, Op> HalfMinMaxLoad<T, Op> {
    pub(crate) const NEW: Self = HalfMinMaxLoad(core::marker::PhantomData);
}

/// [`Min`] or [`Max`] on two packed halves of type `T` per word, lane by lane.
pub(crate) trait PackedMinMax<T> {
    /// `min`/`max.{f16,bf16}x2 d, a, b` on the GPU, the CPU model on the host.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    fn packed(a: u32, b: u32) -> u32;
}

macro_rules! packed_min_max {
    ($(($op:ident, $ty:ident, $instr:ident)),*) => {$(
        impl PackedMinMax<half::$ty> for $op {
            #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
            #[inline(always)]
            fn packed(a: u32, b: u32) -> u32 {
                crate::instr::simd::$instr(a, b)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            #[inline(always)]
            fn packed(a: u32, b: u32) -> u32 {
                crate::model::$instr(a, b)
            }
        }
    )*};
}

packed_min_max!(
    (Min, f16, min_f16x2),
    (Max, f16, max_f16x2),
    (Min, bf16, min_bf16x2),
    (Max, bf16, max_bf16x2)
);

impl<T: Half16 + Pod, P: PackedMinMax<T>> ItemLoad<T, f32> for HalfMinMaxLoad<T, P> {
    const FOLDS_VECTORS: bool = cfg!(any(not(target_arch = "nvptx64"), target_feature = "sm_80"));

    #[inline(always)]
    fn item(&self, _index: usize, x: T) -> f32 {
        x.widen()
    }

    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    fn vector<Op: ReduceOp<f32>, const VEC: usize>(
        &self,
        acc: f32,
        _first: usize,
        items: [T; VEC],
        op: Op,
    ) -> f32 {
        let [w0, w1, w2, w3] = half_words(items);
        let pair = P::packed(P::packed(w0, w1), P::packed(w2, w3));
        // Lane 0 of `pair` against its lane 1; the result's lane 1 is not used.
        let one = P::packed(pair, pair >> 16) as u16;
        op.combine(acc, bytemuck::cast::<u16, T>(one).widen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::ranked::LowestRank;
    use crate::ops::{ArgMax, ArgMin};
    use half::{bf16, f16};
    use rand::Rng;

    /// `N` halves' bits, each one of the edge cases of a half whose `+inf` has bits
    /// `infinity` (zeros, infinities and NaNs of both signs, subnormals, ±1, the largest
    /// numbers) three times in four, else random: a pool to draw vectors from.
    fn half_pool<const N: usize>(rng: &mut impl Rng, infinity: u16) -> [u16; N] {
        let specials = [
            0x0000,
            0x8000,
            infinity,
            infinity | 0x8000,
            infinity + 1,
            0xffff,
            0x7fff,
            infinity | 0x8001,
            0x0001,
            0x8001,
            0x3c00,
            0xbc00,
            infinity - 1,
            (infinity - 1) | 0x8000,
        ];
        core::array::from_fn(|_| {
            if rng.random_ratio(3, 4) {
                specials[rng.random_range(0..specials.len())]
            } else {
                rng.random()
            }
        })
    }

    /// Runs of vectors of eight halves, as a thread's chain folds them from the identity:
    /// [`HalfArgLoad`]'s vector fold, made exact, gives the candidate that combining item by
    /// item gives. Values come from a few per run, NaNs of both signs, both zeros, infinities
    /// and subnormals among them, so that ties and NaN-only vectors are common.
    fn half_vectors_fold_as_items<T, D>(from_bits: fn(u16) -> T, infinity: u16)
    where
        T: Rankable<Rank = u32> + Half16 + Pod + core::fmt::Debug,
        D: ArgDirection,
    {
        let mut rng = rand::rng();
        let by_item = |i: usize, x: T| Ranked::of::<T, D>(x, i as u32);
        let fast_load = HalfArgLoad::<T, D>::NEW;
        for _ in 0..20_000 {
            let pool: [u16; 4] = half_pool(&mut rng, infinity);
            let mut first = rng.random_range(0..1000) * 8;
            let (mut fast, mut slow) = (LowestRank.identity(), LowestRank.identity());
            let mut vectors = [(usize::MAX, [from_bits(0); 8]); 6];
            for k in 0..rng.random_range(1..6) {
                let items: [T; 8] =
                    core::array::from_fn(|_| from_bits(pool[rng.random_range(0..4)]));
                vectors[k] = (first, items);
                fast = fast_load.vector(fast, first, items, LowestRank);
                slow = by_item.vector(slow, first, items, LowestRank);
                let vector_at = |i: usize| vectors.iter().find(|v| v.0 == i).map(|v| v.1);
                let exact = fast_load.exact(fast, vector_at);
                assert_eq!(exact, slow, "max={} {items:?} at {first}", D::MAX);
                first += 8 * rng.random_range(1..100);
            }
        }
    }

    #[test]
    fn half_arg_vectors_fold_as_their_items() {
        half_vectors_fold_as_items::<f16, ArgMin>(f16::from_bits, 0x7c00);
        half_vectors_fold_as_items::<f16, ArgMax>(f16::from_bits, 0x7c00);
        half_vectors_fold_as_items::<bf16, ArgMin>(bf16::from_bits, 0x7f80);
        half_vectors_fold_as_items::<bf16, ArgMax>(bf16::from_bits, 0x7f80);
    }

    /// [`HalfMinMaxLoad`]'s vector fold gives the bits of the item-by-item fold (each half
    /// widened, [`Min`]/[`Max`] on `f32`), from the identity and from a running value, on
    /// vectors drawn from a few values each: zeros and NaNs of both signs, infinities and
    /// subnormals among them, so that ties of `±0.0` and NaN-only vectors are common.
    fn half_min_max_vectors_fold_as_items<T, P>(from_bits: fn(u16) -> T, infinity: u16, op: P)
    where
        T: Half16 + Pod + core::fmt::Debug,
        P: PackedMinMax<T> + ReduceOp<f32>,
    {
        let mut rng = rand::rng();
        let by_item = |_: usize, x: T| x.widen();
        let fast_load = HalfMinMaxLoad::<T, P>::NEW;
        for _ in 0..20_000 {
            let pool: [u16; 3] = half_pool(&mut rng, infinity);
            let (mut fast, mut slow) = (op.identity(), op.identity());
            for _ in 0..rng.random_range(1..4) {
                let items: [T; 8] =
                    core::array::from_fn(|_| from_bits(pool[rng.random_range(0..3)]));
                fast = fast_load.vector(fast, 0, items, op);
                slow = by_item.vector(slow, 0, items, op);
                assert_eq!(fast.to_bits(), slow.to_bits(), "{items:?}");
            }
        }
    }

    #[test]
    fn half_min_max_vectors_fold_as_their_items() {
        half_min_max_vectors_fold_as_items::<f16, _>(f16::from_bits, 0x7c00, Min);
        half_min_max_vectors_fold_as_items::<f16, _>(f16::from_bits, 0x7c00, Max);
        half_min_max_vectors_fold_as_items::<bf16, _>(bf16::from_bits, 0x7f80, Min);
        half_min_max_vectors_fold_as_items::<bf16, _>(bf16::from_bits, 0x7f80, Max);
    }
}
