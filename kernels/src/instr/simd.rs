//! Work on the lanes packed in one 32-bit register: `min.u16x2` on two `u16` lanes (lane 0 in
//! bits 0-15, lane 1 in bits 16-31, each on its own, no carry between them), `min`/`max` on
//! two `f16` or two `bf16` lanes (`.f16x2`, `.bf16x2`), and `prmt.b32`, which builds a word
//! from any bytes of two words.
//!
//! PTX ISA: [Integer Arithmetic Instructions: `min`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#integer-arithmetic-instructions-min),
//! [Half Precision Floating Point Instructions: `min`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#half-precision-floating-point-instructions-min)
//! and [`max`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#half-precision-floating-point-instructions-max),
//! [Data Movement and Conversion Instructions: `prmt`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-prmt).

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

macro_rules! packed_half_minmax {
    ($($(#[$doc:meta])* $name:ident => $mnemonic:literal, $intrinsic:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// Per lane (the ISA's rules, which are [`Min`](crate::ops::Min)'s and
        /// [`Max`](crate::ops::Max)'s on halves): a NaN loses to any number; two NaNs give the
        /// canonical NaN, `0x7fff`; `-0.0` is less than `+0.0`; subnormals are kept (no `.ftz`).
        ///
        #[doc = concat!("The CPU model is `model::", stringify!($name), "` (host only).")]
        ///
        /// PTX ISA: [`min`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#half-precision-floating-point-instructions-min),
        /// [`max`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#half-precision-floating-point-instructions-max).
        /// PTX 7.0, sm_80+.
        #[doc(alias = $intrinsic)]
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name(a: u32, b: u32) -> u32 {
            crate::device_only! {
                let d: u32;
                // SAFETY: a register-only instruction with no precondition.
                unsafe {
                    core::arch::asm!(concat!($mnemonic, " {d}, {a}, {b};"), d = out(reg32) d, a = in(reg32) a,
                        b = in(reg32) b, options(pure, nomem, nostack, preserves_flags));
                }
                d
            }
        }
    )*};
}

packed_half_minmax! {
    /// `min.f16x2 d, a, b`: in each 16-bit lane, the smaller `f16` of `a` and `b`.
    min_f16x2 => "min.f16x2", "__hmin2";
    /// `max.f16x2 d, a, b`: in each 16-bit lane, the greater `f16` of `a` and `b`.
    max_f16x2 => "max.f16x2", "__hmax2";
    /// `min.bf16x2 d, a, b`: in each 16-bit lane, the smaller `bf16` of `a` and `b`.
    min_bf16x2 => "min.bf16x2", "__hmin2";
    /// `max.bf16x2 d, a, b`: in each 16-bit lane, the greater `bf16` of `a` and `b`.
    max_bf16x2 => "max.bf16x2", "__hmax2";
}

/// `prmt.b32 d, a, b, c` (the default mode): byte `i` of `d` is byte `c[4i+2:4i]` of the
/// eight bytes `b:a` (`a`'s bytes 0-3, then `b`'s as 4-7); if `c[4i+3]` is set, that byte's
/// top bit instead, copied to all eight bits (`0xff` or `0x00`). E.g. `c = 0xbb99` gives
/// `0xffff` in each 16-bit lane of `a` whose top bit is set, `0x0000` in the others.
///
/// The CPU model is `model::prmt_b32` (host only).
///
/// PTX ISA: [`prmt`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-prmt).
/// PTX 2.0, every target.
#[doc(alias = "__byte_perm")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn prmt_b32(a: u32, b: u32, c: u32) -> u32 {
    crate::device_only! {
        let d: u32;
        // SAFETY: a register-only instruction with no precondition.
        unsafe {
            core::arch::asm!("prmt.b32 {d}, {a}, {b}, {c};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b,
                c = in(reg32) c, options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}
