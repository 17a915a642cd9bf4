//! Barriers: `bar.warp.sync` for the lanes of a warp, `bar.sync` for the threads of a block.

#[cfg(not(warpkit_target_below_sm70))]
use super::LaneMask;

/// `bar.warp.sync membermask`: waits until every lane of `membermask` has reached a
/// `bar.warp.sync` with the same mask, and orders their memory accesses. The ordering holds
/// among the lanes that reach it with the same mask; a lane of the mask that has exited or
/// never arrives leaves the others waiting (the ISA, unlike for the other `.sync`
/// instructions, does not exclude exited threads).
///
#[doc = include_str!("convergence.md")]
///
/// PTX ISA: [`bar.warp.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-bar-warp-sync).
/// PTX 6.0, sm_30+; offered on sm_70+ only (below, the lanes of `membermask` must reach it
/// converged, which a safe function cannot promise).
#[doc(alias = "__syncwarp")]
#[cfg(not(warpkit_target_below_sm70))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn bar_warp_sync(membermask: LaneMask) {
    crate::device_only! {
        // SAFETY: the calling lane is in `membermask` (LaneMask's invariant).
        unsafe {
            core::arch::asm!("bar.warp.sync {m};", m = in(reg32) membermask.bits(),
                options(nostack, preserves_flags));
        }
    }
}

/// `bar.sync 0`: waits until every non-exited thread of the block has reached barrier 0, and
/// orders their memory accesses (`__syncthreads`; [`crate::kernel::sync_threads`]).
///
/// Emitted through LLVM's `llvm.nvvm.barrier0` intrinsic rather than inline `asm!`: LLVM
/// knows the intrinsic is *convergent* (it may not be moved into or out of a branch), which
/// it cannot assume of an `asm!` block. PTX ISA:
/// [`bar`, `barrier`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-bar).
/// PTX 1.0, every target.
///
/// # Safety
/// Every non-exited thread of the block must reach this same barrier (otherwise the block
/// hangs or, on sm_70+, the barrier's effect is undefined).
#[doc(alias = "__syncthreads")]
#[inline(always)]
pub unsafe fn bar_sync_0() {
    crate::device_only! {
        // SAFETY: the caller upholds the barrier's condition.
        unsafe { core::arch::nvptx::_syncthreads() }
    }
}
