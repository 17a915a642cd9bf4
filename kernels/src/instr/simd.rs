//! Packed 16-bit integer arithmetic: two `u16` lanes in one 32-bit register, lane 0 in bits
//! 0-15 and lane 1 in bits 16-31, each computed on its own (no carry between lanes).
//!
//! PTX ISA: [Integer Arithmetic Instructions: `min`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#integer-arithmetic-instructions-min).

/// `min.u16x2 d, a, b`: in each 16-bit lane, the smaller unsigned value of `a` and `b`.
///
/// The CPU model is `model::min_u16x2` (host only).
///
/// PTX ISA: [`min`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#integer-arithmetic-instructions-min).
/// PTX 8.0, sm_90+.
#[doc(alias = "__vminu2")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn min_u16x2(a: u32, b: u32) -> u32 {
    crate::device_only! {
        let d: u32;
        // SAFETY: a register-only instruction with no precondition.
        unsafe {
            core::arch::asm!("min.u16x2 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b,
                options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}
