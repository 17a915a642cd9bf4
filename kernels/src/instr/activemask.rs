//! `activemask`: which lanes of the warp are executing now.

use super::LaneMask;

/// `activemask.b32 d`: the lanes of the warp that are executing this instruction now, as a
/// [`LaneMask`] (it always contains the caller).
///
/// Not a synchronization point: lanes that are merely behind are not in it, so the result
/// can differ between calls at the same place in the program.
///
/// Emitted through LLVM's `llvm.nvvm.activemask` intrinsic rather than inline `asm!`: LLVM
/// knows the intrinsic is *convergent*, which it cannot assume of an `asm!` block. With
/// `asm!`, an `activemask` in both arms of a branch was merged into one before the branch
/// (LLVM's common-code hoisting), which returns the lanes that reached the branch instead of
/// those in the arm (`tests/kernels`' `warpkit_test_lanes` checks both arms).
///
/// PTX ISA: [`activemask`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-activemask).
/// PTX 6.2, sm_30+.
#[doc(alias = "__activemask")]
#[inline(always)]
pub fn activemask_b32() -> LaneMask {
    crate::device_only! {
        // SAFETY: activemask has no precondition.
        let r = unsafe { nvvm::activemask() };
        // SAFETY: the executing lane is active, so its bit is set.
        unsafe { LaneMask::from_bits_unchecked(r) }
    }
}

#[cfg(target_arch = "nvptx64")]
mod nvvm {
    unsafe extern "C" {
        /// `activemask.b32`; convergent, and without memory effects.
        #[link_name = "llvm.nvvm.activemask"]
        pub fn activemask() -> u32;
    }
}
