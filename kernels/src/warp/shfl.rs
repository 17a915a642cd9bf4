//! The CUDA-style shuffles: `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync` and
//! `__shfl_xor_sync` with their `width`, for any [`Pod`] value, 32 bits at a time.
//!
//! Each is one [`shfl.sync`](crate::instr::shfl) instruction per 32-bit word of the value
//! ([`map_words`]), with the `c` operand computed from `width` as the PTX ISA gives it
//! ([`ShflControl::for_width`]). CUDA C++ Programming Guide:
//! [Warp Shuffle Functions](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#warp-shuffle-functions).

use crate::instr::LaneMask;
use crate::instr::shfl::{
    ShflControl, ShflMode, shfl_sync_bfly_b32, shfl_sync_down_b32, shfl_sync_idx_b32,
    shfl_sync_up_b32,
};
use bytemuck::Pod;

/// Calls `f` on each 32-bit word of `value` (the last one zero-padded) and reassembles the
/// results: how values of any size travel through 32-bit shuffles.
#[inline(always)]
pub fn map_words<T: Pod>(value: T, mut f: impl FnMut(u32) -> u32) -> T {
    use core::mem::{align_of, size_of};
    if size_of::<T>().is_multiple_of(4) && align_of::<T>() >= 4 {
        // Whole aligned words: stays in registers.
        let mut out = value;
        let words = &mut out as *mut T as *mut u32;
        for k in 0..size_of::<T>() / 4 {
            // SAFETY: k * 4 < size_of::<T>(), T is 4-aligned, and any bits are a valid T.
            unsafe { *words.add(k) = f(*words.add(k)) };
        }
        return out;
    }
    let mut out = T::zeroed();
    let src = bytemuck::bytes_of(&value);
    let dst = bytemuck::bytes_of_mut(&mut out);
    for (s, d) in src.chunks(4).zip(dst.chunks_mut(4)) {
        let mut word = [0u8; 4];
        word[..s.len()].copy_from_slice(s);
        let moved = f(u32::from_ne_bytes(word)).to_ne_bytes();
        d.copy_from_slice(&moved[..d.len()]);
    }
    out
}

/// One `shfl.sync` of mode `mode` on a [`Pod`] value, one instruction per 32-bit word.
#[inline(always)]
pub fn shfl_sync_mode<T: Pod>(
    mode: ShflMode,
    mask: LaneMask,
    value: T,
    b: u32,
    c: ShflControl,
) -> T {
    let c = c.bits();
    map_words(value, |w| match mode {
        ShflMode::Up => shfl_sync_up_b32(w, b, c, mask),
        ShflMode::Down => shfl_sync_down_b32(w, b, c, mask),
        ShflMode::Bfly => shfl_sync_bfly_b32(w, b, c, mask),
        ShflMode::Idx => shfl_sync_idx_b32(w, b, c, mask),
    })
}

/// `__shfl_sync`: the value of lane `src_lane % width` of the caller's segment of `width` lanes.
///
/// Emits `shfl.sync.idx.b32` once per 32-bit word of `T`. `width` must be a power of two in
/// 1..=32 (checked in debug builds). Reading a lane outside `mask` gives an unspecified value.
///
/// ```no_run
/// use warpkit::{instr::LaneMask, warp::shfl::shfl_sync};
/// fn broadcast_lane_0(x: [f32; 3]) -> [f32; 3] {
///     shfl_sync(LaneMask::FULL, x, 0, 32)
/// }
/// ```
#[inline(always)]
#[doc(alias = "__shfl_sync")]
pub fn shfl_sync<T: Pod>(mask: LaneMask, value: T, src_lane: u32, width: u32) -> T {
    debug_assert!(width.is_power_of_two() && width <= 32);
    shfl_sync_mode(
        ShflMode::Idx,
        mask,
        value,
        src_lane,
        ShflControl::for_width(ShflMode::Idx, width),
    )
}

/// `__shfl_up_sync`: the value of the lane `delta` below in the caller's segment; the lowest
/// `delta` lanes of each segment keep their own value. Emits `shfl.sync.up.b32` per word.
#[inline(always)]
#[doc(alias = "__shfl_up_sync")]
pub fn shfl_up_sync<T: Pod>(mask: LaneMask, value: T, delta: u32, width: u32) -> T {
    debug_assert!(width.is_power_of_two() && width <= 32);
    shfl_sync_mode(
        ShflMode::Up,
        mask,
        value,
        delta,
        ShflControl::for_width(ShflMode::Up, width),
    )
}

/// `__shfl_down_sync`: the value of the lane `delta` above in the caller's segment; the
/// highest `delta` lanes of each segment keep their own. Emits `shfl.sync.down.b32` per word.
#[inline(always)]
#[doc(alias = "__shfl_down_sync")]
pub fn shfl_down_sync<T: Pod>(mask: LaneMask, value: T, delta: u32, width: u32) -> T {
    debug_assert!(width.is_power_of_two() && width <= 32);
    shfl_sync_mode(
        ShflMode::Down,
        mask,
        value,
        delta,
        ShflControl::for_width(ShflMode::Down, width),
    )
}

/// `__shfl_xor_sync`: the value of lane `lane ^ lane_mask`; a source in a later segment gives
/// the caller its own value, one in an earlier segment is read. Emits `shfl.sync.bfly.b32`.
#[inline(always)]
#[doc(alias = "__shfl_xor_sync")]
pub fn shfl_xor_sync<T: Pod>(mask: LaneMask, value: T, lane_mask: u32, width: u32) -> T {
    debug_assert!(width.is_power_of_two() && width <= 32);
    shfl_sync_mode(
        ShflMode::Bfly,
        mask,
        value,
        lane_mask,
        ShflControl::for_width(ShflMode::Bfly, width),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_words_visits_every_word_in_order() {
        let v: [u8; 7] = [1, 2, 3, 4, 5, 6, 7];
        let mut seen = [0u32; 2];
        let mut n = 0;
        let out = map_words(v, |w| {
            seen[n] = w;
            n += 1;
            w.wrapping_add(0x0101_0101)
        });
        assert_eq!(n, 2);
        assert_eq!(
            seen,
            [
                u32::from_ne_bytes([1, 2, 3, 4]),
                u32::from_ne_bytes([5, 6, 7, 0])
            ]
        );
        assert_eq!(out, [2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            map_words(0x1234_5678_9abc_def0u64, |w| w),
            0x1234_5678_9abc_def0u64
        );
    }
}
