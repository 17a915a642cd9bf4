//! `shfl.sync`: register exchange between the lanes of a warp.
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
//! The wrappers here ([`shfl_sync_up_b32`] and friends) take `b`, `c` and the mask exactly as
//! the instruction does. The CUDA-style forms with a `width`, for any [`Pod`](bytemuck::Pod)
//! value, are in [`crate::warp::shfl`]; [`crate::warp::Tile`] fixes the width at compile time.
//!
//! PTX ISA: [`shfl.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-shfl-sync).
//! PTX 6.0, sm_30+ (sm_70+ in warpkit).

use super::LaneMask;

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
    /// means nothing; [`crate::warp::Tile`] rules them out at compile time).
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

macro_rules! shfl_b32 {
    ($mode:literal, $name:ident, $name_pred:ident, $cuda:literal) => {
        #[doc = concat!("`shfl.sync.", $mode, ".b32 d, a, b, c, membermask`: one lane-exchange, ",
            "with `b` and the packed `c` exactly as the instruction takes them (`", $cuda, "` without its `width`).")]
        ///
        /// See the [module docs](self) for how the source lane is computed; reading a lane
        /// outside `membermask` or an inactive one gives an unspecified value.
        ///
        #[doc = include_str!("convergence.md")]
        ///
        /// PTX ISA: [`shfl.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-shfl-sync).
        /// PTX 6.0, sm_30+ (sm_70+ in warpkit).
        #[doc(alias = $cuda)]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name(a: u32, b: u32, c: u32, membermask: LaneMask) -> u32 {
            crate::device_only! {
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
        }

        #[doc = concat!("`shfl.sync.", $mode, ".b32 d|p, a, b, c, membermask`: as [`", stringify!($name),
            "`], also returning `p`, true when the computed source lane was in range.")]
        ///
        /// The predicate says nothing about whether the source lane was active or in
        /// `membermask`. Same instruction, same PTX version and targets.
        #[doc(alias = $cuda)]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name_pred(a: u32, b: u32, c: u32, membermask: LaneMask) -> (u32, bool) {
            crate::device_only! {
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
        }
    };
}

shfl_b32!(
    "up",
    shfl_sync_up_b32,
    shfl_sync_up_b32_pred,
    "__shfl_up_sync"
);
shfl_b32!(
    "down",
    shfl_sync_down_b32,
    shfl_sync_down_b32_pred,
    "__shfl_down_sync"
);
shfl_b32!(
    "bfly",
    shfl_sync_bfly_b32,
    shfl_sync_bfly_b32_pred,
    "__shfl_xor_sync"
);
shfl_b32!(
    "idx",
    shfl_sync_idx_b32,
    shfl_sync_idx_b32_pred,
    "__shfl_sync"
);

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
}
