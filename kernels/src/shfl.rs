//! `shfl.sync`: register exchange between the lanes of a warp (PTX ISA 9.7.9.6; PTX 6.0, sm_30+).
//!
//! Each lane computes a source lane `j` from `b` and the packed operand `c` and reads operand
//! `a` of lane `j`; if `j` is out of range it keeps its own `a`. The predicate is true exactly
//! when `j` was in range (it says nothing about whether lane `j` was active). With
//! `lane = %laneid`, `bval = b[4:0]`, `cval = c[4:0]`, `segmask = c[12:8]`:
//!
//! ```text
//! maxLane = (lane & segmask) | (cval & ~segmask)
//! minLane = (lane & segmask)
//! up:   j = lane - bval;                          pval = (j >= maxLane)
//! down: j = lane + bval;                          pval = (j <= maxLane)
//! bfly: j = lane ^ bval;                          pval = (j <= maxLane)
//! idx:  j = minLane | (bval & ~segmask);          pval = (j <= maxLane)
//! if !pval { j = lane }
//! ```
//!
//! The raw forms ([`shfl_sync_up_b32`] and friends) take `b`, `c` and the mask exactly as the
//! instruction does. The CUDA-style forms ([`shfl_sync`], [`shfl_up_sync`],
//! [`shfl_down_sync`], [`shfl_xor_sync`]) take a `width` and move any [`Pod`] value, 32 bits
//! at a time. [`crate::tile::Tile`] fixes the width at compile time.

use bytemuck::Pod;

#[cfg(target_arch = "nvptx64")]
use crate::lane::LaneMask;

/// The four source-lane modes of `shfl.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`: from `lane - b` (`__shfl_up_sync`).
    Up,
    /// `.down`: from `lane + b` (`__shfl_down_sync`).
    Down,
    /// `.bfly`: from `lane ^ b` (`__shfl_xor_sync`).
    Bfly,
    /// `.idx`: from lane `b` of the segment (`__shfl_sync`).
    Idx,
}

impl ShflMode {
    /// All four modes.
    pub const ALL: [ShflMode; 4] = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];
}

/// The packed operand `c`: clamp value in `c[4:0]`, segment mask in `c[12:8]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct ShflControl(u32);

impl ShflControl {
    /// Packs a clamp value and a segment mask (each 5 bits; higher bits are dropped).
    #[inline(always)]
    pub const fn new(clamp: u32, segmask: u32) -> ShflControl {
        ShflControl((clamp & 0x1f) | ((segmask & 0x1f) << 8))
    }

    /// The `c` that makes segments of `width` lanes for `mode`, as the PTX ISA gives it:
    /// `segmask = ~(width - 1) & 0x1f`, clamp `width - 1` for down/bfly/idx and `0` for up.
    /// `width` must be a power of two in 1..=32 (others give a valid `c` for a width that
    /// means nothing; [`crate::tile::Tile`] rules them out at compile time).
    #[inline(always)]
    pub const fn for_width(mode: ShflMode, width: u32) -> ShflControl {
        let last = width.wrapping_sub(1) & 0x1f;
        let clamp = match mode {
            ShflMode::Up => 0,
            _ => last,
        };
        ShflControl::new(clamp, !last)
    }

    /// The packed 32-bit operand.
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// `c[4:0]`.
    #[inline(always)]
    pub const fn clamp(self) -> u32 {
        self.0 & 0x1f
    }

    /// `c[12:8]`.
    #[inline(always)]
    pub const fn segmask(self) -> u32 {
        (self.0 >> 8) & 0x1f
    }
}

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

#[cfg(target_arch = "nvptx64")]
macro_rules! shfl_b32 {
    ($mode:literal, $name:ident, $name_pred:ident, $cuda:literal) => {
        #[doc = concat!("`shfl.sync.", $mode, ".b32 d, a, b, c, membermask`: one lane-exchange, ",
            "with `b` and the packed `c` exactly as the instruction takes them (", $cuda, ").")]
        ///
        /// See the [module docs](self) for the semantics; lanes outside `membermask` or
        /// inactive give unspecified values. PTX 6.0, sm_30+ (sm_70+ in warpkit).
        #[inline(always)]
        pub fn $name(a: u32, b: u32, c: u32, membermask: LaneMask) -> u32 {
            let d: u32;
            // SAFETY: the calling lane is in `membermask` (LaneMask's invariant); every other
            // undefined case yields an unspecified u32, which is a valid u32.
            unsafe {
                core::arch::asm!(
                    concat!("shfl.sync.", $mode, ".b32 {d}, {a}, {b}, {c}, {m};"),
                    d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c,
                    m = in(reg32) membermask.bits(), options(nomem, nostack, preserves_flags));
            }
            d
        }

        #[doc = concat!("`shfl.sync.", $mode, ".b32 d|p, a, b, c, membermask`: as [`", stringify!($name),
            "`], also returning `p`, true when the computed source lane was in range.")]
        #[inline(always)]
        pub fn $name_pred(a: u32, b: u32, c: u32, membermask: LaneMask) -> (u32, bool) {
            let d: u32;
            let p: u32;
            // SAFETY: as for the form without predicate.
            unsafe {
                core::arch::asm!(
                    "{{",
                    ".reg .pred %p;",
                    concat!("shfl.sync.", $mode, ".b32 {d}|%p, {a}, {b}, {c}, {m};"),
                    "selp.u32 {p}, 1, 0, %p;",
                    "}}",
                    d = out(reg32) d, p = out(reg32) p, a = in(reg32) a, b = in(reg32) b,
                    c = in(reg32) c, m = in(reg32) membermask.bits(),
                    options(nomem, nostack, preserves_flags));
            }
            (d, p != 0)
        }
    };
}

#[cfg(target_arch = "nvptx64")]
shfl_b32!(
    "up",
    shfl_sync_up_b32,
    shfl_sync_up_b32_pred,
    "`__shfl_up_sync`"
);
#[cfg(target_arch = "nvptx64")]
shfl_b32!(
    "down",
    shfl_sync_down_b32,
    shfl_sync_down_b32_pred,
    "`__shfl_down_sync`"
);
#[cfg(target_arch = "nvptx64")]
shfl_b32!(
    "bfly",
    shfl_sync_bfly_b32,
    shfl_sync_bfly_b32_pred,
    "`__shfl_xor_sync`"
);
#[cfg(target_arch = "nvptx64")]
shfl_b32!(
    "idx",
    shfl_sync_idx_b32,
    shfl_sync_idx_b32_pred,
    "`__shfl_sync`"
);

/// One `shfl.sync` of mode `mode` on a [`Pod`] value, one instruction per 32-bit word.
#[cfg(target_arch = "nvptx64")]
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
/// ```ignore
/// let leader_value = shfl_sync(LaneMask::FULL, x, 0, 32); // broadcast lane 0
/// ```
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
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
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
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
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
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
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
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
    fn width_controls_match_cuda_encoding() {
        // CUDA packs ((32 - width) << 8) | 0x1f for idx/down/xor and (32 - width) << 8 for up.
        for width in [1u32, 2, 4, 8, 16, 32] {
            let cuda = (32 - width) << 8;
            assert_eq!(ShflControl::for_width(ShflMode::Up, width).bits(), cuda);
            for mode in [ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
                let c = ShflControl::for_width(mode, width);
                // Same maxLane for every lane: clamp only matters outside segmask.
                assert_eq!(c.segmask(), (cuda >> 8) & 0x1f);
                assert_eq!(c.clamp() & !c.segmask(), 0x1f & !c.segmask());
            }
        }
    }

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
