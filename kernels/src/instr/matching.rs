//! `match.sync`: which lanes hold the same value.
//!
//! Values are compared bit for bit: `-0.0` and `+0.0` differ, a NaN matches the same NaN bits.
//! The generic forms for any 4- or 8-byte [`Pod`](bytemuck::Pod) type are
//! [`crate::warp::matching`].
//!
//! PTX ISA: [`match.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-match-sync).
//! PTX 6.0, sm_70+.

use super::LaneMask;

macro_rules! match_any {
    ($name:ident, $ty:ty, $reg:ident, $instr:literal) => {
        #[doc = concat!("`", $instr, " d, a, membermask`: the lanes of `membermask` whose `a` equals the caller's.")]
        ///
        /// The result always contains the caller, so it is a [`LaneMask`] (the caller's bit is
        /// or-ed in: where lanes of the mask disagree on the mask, the instruction's own result
        /// is undefined).
        ///
        #[doc = include_str!("convergence.md")]
        ///
        /// PTX ISA: [`match.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-match-sync).
        /// PTX 6.0, sm_70+.
        #[doc(alias = "__match_any_sync")]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name(membermask: LaneMask, a: $ty) -> LaneMask {
            crate::device_only! {
                let d: u32;
                // SAFETY: the calling lane is in `membermask`; match.sync has no other precondition.
                unsafe {
                    core::arch::asm!(concat!($instr, " {d}, {a}, {m};"), d = out(reg32) d, a = in($reg) a,
                        m = in(reg32) membermask.bits(), options(nomem, nostack, preserves_flags));
                    // The caller's own value equals itself, so a defined `d` has its bit; the
                    // `or` keeps it there when lanes of the mask disagree on the mask, which
                    // leaves `d` undefined (a `LaneMask` without the caller would make the next
                    // `.sync` undefined behaviour).
                    LaneMask::from_bits_unchecked(d | super::sreg::lanemask_eq())
                }
            }
        }
    };
}

macro_rules! match_all {
    ($name:ident, $ty:ty, $reg:ident, $instr:literal) => {
        #[doc = concat!("`", $instr, " d|p, a, membermask`: if every non-exited lane of `membermask` holds the")]
        /// caller's `a`, returns (the mask of those lanes, `true`); otherwise (`0`, `false`).
        ///
        #[doc = include_str!("convergence.md")]
        ///
        /// PTX ISA: [`match.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-match-sync).
        /// PTX 6.0, sm_70+.
        #[doc(alias = "__match_all_sync")]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name(membermask: LaneMask, a: $ty) -> (u32, bool) {
            crate::device_only! {
                let d: u32;
                let p: u32;
                // SAFETY: the calling lane is in `membermask`; match.sync has no other precondition.
                unsafe {
                    core::arch::asm!("{{", ".reg .pred %p;", concat!($instr, " {d}|%p, {a}, {m};"),
                        "selp.u32 {p}, 1, 0, %p;", "}}",
                        d = out(reg32) d, p = out(reg32) p, a = in($reg) a, m = in(reg32) membermask.bits(),
                        options(nomem, nostack, preserves_flags));
                }
                (d, p != 0)
            }
        }
    };
}

match_any!(match_any_sync_b32, u32, reg32, "match.any.sync.b32");
match_any!(match_any_sync_b64, u64, reg64, "match.any.sync.b64");
match_all!(match_all_sync_b32, u32, reg32, "match.all.sync.b32");
match_all!(match_all_sync_b64, u64, reg64, "match.all.sync.b64");
