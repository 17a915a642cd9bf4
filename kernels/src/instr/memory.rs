//! Memory-order instructions: relaxed loads and stores at GPU scope, a timed
//! pause, and the shared-to-generic address conversion.
//!
//! Blocks of a grid communicate through global memory (the device scan's tile status, the
//! device reduce's ticket counter). A plain `ld` may be served by the SM's L1, which is not
//! coherent between SMs; `ld.relaxed.gpu` and `st.relaxed.gpu` are *strong* operations at GPU
//! scope, seen by every SM, and `atom.acq_rel.gpu` ([`crate::instr::atomic`]) also orders the accesses around it (PTX ISA,
//! [Memory Consistency Model](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#memory-consistency-model)).
//! Each wrapper is one instruction; none of them has a `membermask` (they are per thread).
//! Loads, stores and atomics are not `nomem`/`readonly` to the compiler: it keeps them in
//! program order with the accesses around them.

/// Defines a relaxed GPU-scope load.
macro_rules! ld_relaxed {
    ($name:ident, $ty:ty, $reg:ident, $instr:literal) => {
        #[doc = concat!("`", $instr, " d, [p]`: loads a `", stringify!($ty), "` from global memory as a")]
        /// relaxed (strong, unordered) access at GPU scope, bypassing the incoherent L1.
        ///
        /// PTX ISA: [`ld`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-ld).
        /// PTX 6.0, sm_70+.
        ///
        /// # Safety
        #[doc = concat!("`p` is a valid, aligned pointer to a `", stringify!($ty), "` in global memory.")]
        #[doc(alias = "cuda::atomic_ref::load")]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name(p: *const $ty) -> $ty {
            crate::device_only! {
                let v: $ty;
                // SAFETY: the caller passes a valid global pointer.
                unsafe {
                    core::arch::asm!(concat!($instr, " {v}, [{p}];"), v = out($reg) v, p = in(reg64) p,
                        options(nostack));
                }
                v
            }
        }
    };
}

/// Defines a relaxed GPU-scope store.
macro_rules! st_relaxed {
    ($name:ident, $ty:ty, $reg:ident, $instr:literal) => {
        #[doc = concat!("`", $instr, " [p], v`: stores a `", stringify!($ty), "` to global memory as a")]
        /// relaxed (strong, unordered) access at GPU scope.
        ///
        /// PTX ISA: [`st`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-st).
        /// PTX 6.0, sm_70+.
        ///
        /// # Safety
        #[doc = concat!("`p` is a valid, aligned pointer to a `", stringify!($ty), "` in global memory.")]
        #[doc(alias = "cuda::atomic_ref::store")]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name(p: *mut $ty, v: $ty) {
            crate::device_only! {
                // SAFETY: the caller passes a valid global pointer.
                unsafe {
                    core::arch::asm!(concat!($instr, " [{p}], {v};"), v = in($reg) v, p = in(reg64) p,
                        options(nostack));
                }
            }
        }
    };
}

ld_relaxed!(ld_relaxed_gpu_u32, u32, reg32, "ld.relaxed.gpu.u32");
ld_relaxed!(ld_relaxed_gpu_u64, u64, reg64, "ld.relaxed.gpu.u64");
st_relaxed!(st_relaxed_gpu_u32, u32, reg32, "st.relaxed.gpu.u32");
st_relaxed!(st_relaxed_gpu_u64, u64, reg64, "st.relaxed.gpu.u64");

/// `nanosleep.u32 t`: suspends the thread for about `ns` nanoseconds (the hardware picks a
/// delay in `[0, 2 * ns]`, at most 1 ms): how a spinning thread backs off so it does not
/// flood the memory system.
///
/// PTX ISA: [`nanosleep`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#miscellaneous-instructions-nanosleep).
/// PTX 6.3, sm_70+.
#[doc(alias = "__nanosleep")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn nanosleep(ns: u32) {
    crate::device_only! {
        // SAFETY: a timed pause has no precondition.
        unsafe { core::arch::asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack)) };
    }
}

/// `cvta.shared.u64 d, a`: the generic address of the `.shared` state-space address `a`, so
/// shared memory can be used through ordinary pointers.
///
/// [`shared_array!`](crate::shared_array) applies the same instruction to a named `.shared`
/// variable (a symbol operand, which a function cannot take).
///
/// PTX ISA: [`cvta`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cvta).
/// PTX 2.0 (`.u64`: 64-bit addressing), every target.
#[doc(alias = "__cvta_shared_to_generic")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn cvta_shared_u64(a: u64) -> u64 {
    crate::device_only! {
        let d: u64;
        // SAFETY: an address conversion reads and writes no memory.
        unsafe {
            core::arch::asm!("cvta.shared.u64 {d}, {a};", d = out(reg64) d, a = in(reg64) a,
                options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}
