//! `activemask`: which lanes of the warp are executing now.

use super::LaneMask;

/// `activemask.b32 d`: the lanes of the warp that are executing this instruction now, as a
/// [`LaneMask`] (it always contains the caller).
///
/// Not a synchronization point: lanes that are merely behind are not in it, so the result
/// can differ between calls at the same place in the program.
///
/// PTX ISA: [`activemask`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-activemask).
/// PTX 6.2, sm_30+.
#[doc(alias = "__activemask")]
#[inline(always)]
pub fn activemask_b32() -> LaneMask {
    crate::device_only! {
        let r: u32;
        // SAFETY: activemask has no precondition.
        unsafe {
            core::arch::asm!("activemask.b32 {r};", r = out(reg32) r,
                options(nomem, nostack, preserves_flags));
        }
        // SAFETY: the executing lane is active, so its bit is set.
        unsafe { LaneMask::from_bits_unchecked(r) }
    }
}
