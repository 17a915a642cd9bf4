//! The deprecated `shfl` without `.sync` (PTX 3.0, sm_30+; deprecated in PTX 6.0; not
//! supported on sm_70+ from PTX 6.4). Callable only when compiling for a target below sm_70
//! (`warpkit-builder` sets `--cfg warpkit_target_below_sm70` there, as rustc itself stops at
//! sm_70), where it runs with the warp converged. On sm_70+ calling it is a compile-time error
//! pointing to [`crate::instr::shfl`].
//!
//! PTX ISA: [`shfl` (deprecated)](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-shfl-deprecated).

/// The targets where the non-`.sync` `shfl` exists: implemented only below sm_70.
#[diagnostic::on_unimplemented(
    message = "the non-.sync `shfl` was removed for sm_70 and later (PTX ISA 6.4)",
    label = "this target is sm_70 or later",
    note = "use the .sync form instead: warpkit::instr::shfl::shfl_sync_up_b32 / _down_ / _bfly_ / _idx_ (or warpkit::warp::shfl::shfl_up_sync and friends)"
)]
pub trait LegacyShflTarget: Copy + sealed::Sealed {
    /// The operand's bits.
    fn bits(self) -> u32;
}

/// Only this module implements [`LegacyShflTarget`], and only below sm_70.
mod sealed {
    pub trait Sealed {}
    #[cfg(warpkit_target_below_sm70)]
    impl Sealed for u32 {}
}

#[cfg(warpkit_target_below_sm70)]
impl LegacyShflTarget for u32 {
    #[inline(always)]
    fn bits(self) -> u32 {
        self
    }
}

macro_rules! legacy_shfl {
    ($($mode:literal, $name:ident;)*) => {$(
        #[doc = concat!("`shfl.", $mode, ".b32 d|p, a, b, c`: the deprecated form of `shfl.sync.", $mode,
            "`; the predicate says whether the source lane was in range. Undefined if the warp is not converged.")]
        ///
        /// PTX ISA: [`shfl` (deprecated)](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-shfl-deprecated).
        /// PTX 3.0, sm_30 to sm_6x.
        ///
        /// # Safety
        /// Every lane of the warp must execute this instruction together (converged).
        #[deprecated(note = "the non-.sync shfl is deprecated since PTX 6.0; use the shfl.sync wrappers")]
        #[doc(alias = "__shfl")]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name<T: LegacyShflTarget>(a: T, b: u32, c: u32) -> (u32, bool) {
            crate::device_only! {
            let d: u32;
            let p: u32;
            // SAFETY: the caller guarantees a converged warp.
            unsafe {
                core::arch::asm!("{{", ".reg .pred %p;", concat!("shfl.", $mode, ".b32 {d}|%p, {a}, {b}, {c};"),
                    "selp.u32 {p}, 1, 0, %p;", "}}", d = out(reg32) d, p = out(reg32) p, a = in(reg32) a.bits(),
                    b = in(reg32) b, c = in(reg32) c, options(nomem, nostack, preserves_flags));
            }
            (d, p != 0)
            }
        }
    )*};
}

legacy_shfl! { "up", shfl_up_b32; "down", shfl_down_b32; "bfly", shfl_bfly_b32; "idx", shfl_idx_b32; }
