//! Memory-order instructions: relaxed loads and stores at GPU scope, a timed
//! pause, the address conversions between generic and state-space addresses, the
//! asynchronous global-to-shared copy and its groups, vector accesses to shared memory, a
//! read-only vector load, a streaming vector store, and prefetches into L2 (of a line, or of a
//! whole range as one bulk operation on sm_90+).
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
        #[doc = concat!("`p` is a valid, aligned pointer to a `", stringify!($ty), "` in global memory, and every")]
        /// access that may race with this one is strong too (relaxed or stronger, or atomic): a
        /// plain access racing with it is a data race.
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
        #[doc = concat!("`p` is a valid, aligned pointer to a `", stringify!($ty), "` in global memory, and every")]
        /// access that may race with this one is strong too (relaxed or stronger, or atomic): a
        /// plain access racing with it is a data race.
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

/// `ld.relaxed.gpu.v2.u64 {d0, d1}, [p]`: loads two `u64` from global memory in one
/// instruction, each a relaxed (strong, unordered) access at GPU scope. The memory model treats
/// a vector access as one access per element in an unspecified order, so each `u64` is read
/// whole but the pair is not one atomic read: readers must check each word on its own.
///
/// PTX ISA: [`ld`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-ld),
/// [vector data types in the memory model](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#vector-data-types).
/// PTX 6.0, sm_70+.
///
/// # Safety
/// `p` is a valid, 16-byte-aligned pointer to two `u64` in global memory, and every access that
/// may race with this one is strong too (relaxed or stronger, or atomic).
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn ld_relaxed_gpu_v2_u64(p: *const [u64; 2]) -> [u64; 2] {
    crate::device_only! {
        let (d0, d1): (u64, u64);
        // SAFETY: the caller passes a valid, aligned global pointer.
        unsafe {
            core::arch::asm!("ld.relaxed.gpu.v2.u64 {{{d0}, {d1}}}, [{p}];",
                d0 = out(reg64) d0, d1 = out(reg64) d1, p = in(reg64) p, options(nostack));
        }
        [d0, d1]
    }
}

/// `st.relaxed.gpu.v2.u64 [p], {v0, v1}`: stores two `u64` to global memory in one
/// instruction, each a relaxed (strong, unordered) access at GPU scope; as for
/// [`ld_relaxed_gpu_v2_u64`], each `u64` is written whole, the pair in no particular order.
///
/// PTX ISA: [`st`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-st).
/// PTX 6.0, sm_70+.
///
/// # Safety
/// `p` is a valid, 16-byte-aligned pointer to two `u64` in global memory, and every access that
/// may race with this one is strong too (relaxed or stronger, or atomic).
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn st_relaxed_gpu_v2_u64(p: *mut [u64; 2], v: [u64; 2]) {
    crate::device_only! {
        // SAFETY: the caller passes a valid, aligned global pointer.
        unsafe {
            core::arch::asm!("st.relaxed.gpu.v2.u64 [{p}], {{{v0}, {v1}}};",
                v0 = in(reg64) v[0], v1 = in(reg64) v[1], p = in(reg64) p, options(nostack));
        }
    }
}

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
///
/// # Safety
/// `a` is an address of this block's shared memory (the `.shared::cta` window). The ISA
/// leaves the *behaviour* of `cvta` with the `.shared` state space undefined otherwise, not
/// only its result.
#[doc(alias = "__cvta_shared_to_generic")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn cvta_shared_u64(a: u64) -> u64 {
    crate::device_only! {
        let d: u64;
        // SAFETY: the caller's condition; the conversion reads and writes no memory.
        unsafe {
            core::arch::asm!("cvta.shared.u64 {d}, {a};", d = out(reg64) d, a = in(reg64) a,
                options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}

/// `cvta.to.shared.u64 d, a`: the `.shared` state-space address of the generic address `a`,
/// for the instructions that take one (`ld.shared`, `cp.async`, `mbarrier`, ...).
///
/// PTX ISA: [`cvta`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cvta).
/// PTX 2.0 (`.u64`: 64-bit addressing), every target.
///
/// # Safety
/// `a` points into this block's shared memory. The ISA leaves the *behaviour* of `cvta` with
/// the `.shared` state space undefined otherwise, not only its result.
#[doc(alias = "__cvta_generic_to_shared")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn cvta_to_shared_u64(a: u64) -> u64 {
    crate::device_only! {
        let d: u64;
        // SAFETY: the caller's condition; the conversion reads and writes no memory.
        unsafe {
            core::arch::asm!("cvta.to.shared.u64 {d}, {a};", d = out(reg64) d, a = in(reg64) a,
                options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}

/// `cvta.to.global.u64 d, a`: the `.global` state-space address of the generic address `a`,
/// which must point into global memory (else the *result* is undefined, which is why the
/// instructions taking it are `unsafe`).
///
/// PTX ISA: [`cvta`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cvta).
/// PTX 2.0 (`.u64`: 64-bit addressing), every target.
#[doc(alias = "__cvta_generic_to_global")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn cvta_to_global_u64(a: u64) -> u64 {
    crate::device_only! {
        let d: u64;
        // SAFETY: an address conversion reads and writes no memory; a generic address outside
        // global memory gives an undefined result, no undefined behaviour.
        unsafe {
            core::arch::asm!("cvta.to.global.u64 {d}, {a};", d = out(reg64) d, a = in(reg64) a,
                options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}

/// `ld.shared.v4.u32 {d0, d1, d2, d3}, [a]`: loads 16 bytes from shared memory in one
/// instruction (a warp's 32 consecutive 16-byte loads take four conflict-free wavefronts).
///
/// PTX ISA: [`ld`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-ld).
/// PTX 2.0, every target.
///
/// # Safety
/// `a` is a 16-byte-aligned `.shared` address ([`cvta_to_shared_u64`]) of 16 readable bytes
/// that no other thread writes concurrently.
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn ld_shared_v4_u32(a: u64) -> [u32; 4] {
    crate::device_only! {
        let (d0, d1, d2, d3): (u32, u32, u32, u32);
        // SAFETY: the caller passes an aligned shared address.
        unsafe {
            core::arch::asm!("ld.shared.v4.u32 {{{d0}, {d1}, {d2}, {d3}}}, [{a}];",
                d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                a = in(reg64) a, options(nostack, readonly, preserves_flags));
        }
        [d0, d1, d2, d3]
    }
}

/// `st.shared.v4.u32 [a], {b0, b1, b2, b3}`: stores 16 bytes to shared memory in one
/// instruction.
///
/// PTX ISA: [`st`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-st).
/// PTX 2.0, every target.
///
/// # Safety
/// `a` is a 16-byte-aligned `.shared` address ([`cvta_to_shared_u64`]) of 16 writable bytes
/// that no other thread accesses meanwhile.
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn st_shared_v4_u32(a: u64, b: [u32; 4]) {
    crate::device_only! {
        // SAFETY: the caller passes an aligned shared address.
        unsafe {
            core::arch::asm!("st.shared.v4.u32 [{a}], {{{b0}, {b1}, {b2}, {b3}}};", a = in(reg64) a,
                b0 = in(reg32) b[0], b1 = in(reg32) b[1], b2 = in(reg32) b[2], b3 = in(reg32) b[3],
                options(nostack, preserves_flags));
        }
    }
}

/// `ld.global.nc.v4.u32 {d0, d1, d2, d3}, [a]`: loads 16 bytes from global memory in one
/// instruction through the non-coherent (read-only) data path (CUDA's `__ldg`; CUB's
/// `LOAD_LDG`), which does not keep the SM's cache coherent with writes made while the kernel
/// runs.
///
/// PTX ISA: [`ld.global.nc`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-ld-global-nc).
/// PTX 3.1, every target.
///
/// # Safety
/// `a` is a 16-byte-aligned `.global` address ([`cvta_to_global_u64`]) of 16 readable bytes
/// that no thread writes during the kernel before this load or concurrently with it (the
/// non-coherent path may return older bytes).
#[doc(alias = "__ldg")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn ld_global_nc_v4_u32(a: u64) -> [u32; 4] {
    crate::device_only! {
        let (d0, d1, d2, d3): (u32, u32, u32, u32);
        // SAFETY: the caller passes an aligned global address of read-only bytes.
        unsafe {
            core::arch::asm!("ld.global.nc.v4.u32 {{{d0}, {d1}, {d2}, {d3}}}, [{a}];",
                d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                a = in(reg64) a, options(nostack, readonly, preserves_flags));
        }
        [d0, d1, d2, d3]
    }
}

/// `st.global.cs.v4.u32 [a], {b0, b1, b2, b3}`: stores 16 bytes to global memory in one
/// instruction, marked *streaming* (`.cs`: likely written once and not read soon, so its
/// lines are the first evicted from L1 and L2).
///
/// PTX ISA: [`st`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-st),
/// [cache operators](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#cache-operators).
/// PTX 2.0, every target.
///
/// # Safety
/// `a` is a 16-byte-aligned `.global` address ([`cvta_to_global_u64`]) of 16 writable bytes
/// that no other thread accesses concurrently.
#[doc(alias = "__stcs")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn st_global_cs_v4_u32(a: u64, b: [u32; 4]) {
    crate::device_only! {
        // SAFETY: the caller passes an aligned global address of writable bytes.
        unsafe {
            core::arch::asm!("st.global.cs.v4.u32 [{a}], {{{b0}, {b1}, {b2}, {b3}}};", a = in(reg64) a,
                b0 = in(reg32) b[0], b1 = in(reg32) b[1], b2 = in(reg32) b[2], b3 = in(reg32) b[3],
                options(nostack, preserves_flags));
        }
    }
}

/// `prefetch.global.L2 [a]`: asks for the cache line holding `a` to be brought into L2; a
/// hint with no other effect (nothing is read into a register, and later loads may still miss).
///
/// PTX ISA: [`prefetch`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-prefetch-prefetchu).
/// PTX 2.0, every target.
///
/// # Safety
/// `a` is a `.global` address ([`cvta_to_global_u64`]) inside an allocation.
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn prefetch_global_l2(a: u64) {
    crate::device_only! {
        // SAFETY: the caller passes a global address inside an allocation.
        unsafe {
            core::arch::asm!("prefetch.global.L2 [{a}];", a = in(reg64) a,
                options(nostack, readonly, preserves_flags));
        }
    }
}

/// `prefetch.global.L2::evict_last [a]`: as [`prefetch_global_l2`], and the line is kept in
/// L2 in preference to lines of normal priority (for small data polled while large data
/// streams through L2).
///
/// PTX ISA: [`prefetch`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-prefetch-prefetchu).
/// PTX 7.4, sm_80+: here where the PTX is 7.4 or newer, which LLVM emits for sm_87 and newer
/// targets (sm_80 and sm_86 get PTX 7.0 and 7.1 unless built with `+ptx74`).
///
/// # Safety
/// `a` is a `.global` address ([`cvta_to_global_u64`]) inside an allocation.
#[cfg(any(
    not(target_arch = "nvptx64"),
    target_feature = "sm_87",
    all(target_feature = "sm_80", target_feature = "ptx74")
))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn prefetch_global_l2_evict_last(a: u64) {
    crate::device_only! {
        // SAFETY: the caller passes a global address inside an allocation.
        unsafe {
            core::arch::asm!("prefetch.global.L2::evict_last [{a}];", a = in(reg64) a,
                options(nostack, readonly, preserves_flags));
        }
    }
}

/// `cp.async.bulk.prefetch.L2.global [a], size`: asks for the `size` bytes from `a` to be
/// brought into L2, as one asynchronous bulk operation issued by the calling thread; a hint
/// with no other effect (nothing arrives in registers or shared memory, nothing completes,
/// later loads may still miss). Measure before relying on it: in the device reduce's float-sum
/// tiles on an H200, each warp prefetching its next 2 KiB step this way made the `f32` sum of
/// 2^28 items 18% slower, not faster (`docs/performance-log.md`, twenty-eighth round).
///
/// PTX ISA: [`cp.async.bulk.prefetch`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-bulk-prefetch).
/// PTX 8.0, sm_90+.
///
/// # Safety
/// `a` is a 16-byte-aligned `.global` address ([`cvta_to_global_u64`]), `size` a multiple of
/// 16, and the `size` bytes from `a` lie inside one allocation.
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx80")
))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn cp_async_bulk_prefetch_l2_global(a: u64, size: u32) {
    crate::device_only! {
        // SAFETY: the caller passes an aligned global range inside an allocation.
        unsafe {
            core::arch::asm!("cp.async.bulk.prefetch.L2.global [{a}], {size};",
                a = in(reg64) a, size = in(reg32) size,
                options(nostack, readonly, preserves_flags));
        }
    }
}

/// `cp.async.cg.shared.global [dst], [src], 16`: starts copying 16 bytes from global memory
/// to shared memory without going through registers, cached in L2 only; the copy completes
/// at the thread's next [`cp_async_wait_all`] (or a `cp.async.wait_group` covering it), and
/// only then may the thread read `dst`. Other threads see it after a barrier that follows the
/// wait.
///
/// PTX ISA: [`cp.async`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async).
/// PTX 7.0, sm_80+.
///
/// # Safety
/// `dst` is a 16-byte-aligned `.shared` address ([`cvta_to_shared_u64`]) and `src` a
/// 16-byte-aligned `.global` address ([`cvta_to_global_u64`]) of 16 readable bytes that no
/// thread writes until the copy has completed; nothing reads or writes `dst` until then.
#[doc(alias = "__pipeline_memcpy_async")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn cp_async_cg_shared_global_16(dst: u64, src: u64) {
    crate::device_only! {
        // SAFETY: the caller passes aligned shared and global addresses.
        unsafe {
            core::arch::asm!("cp.async.cg.shared.global [{dst}], [{src}], 16;", dst = in(reg64) dst,
                src = in(reg64) src, options(nostack, preserves_flags));
        }
    }
}

/// Defines a `cp.async.ca` copy of 4 or 8 bytes (cached in L1 and L2; `.cg` takes only 16).
macro_rules! cp_async_ca {
    ($name:ident, $bytes:literal) => {
        #[doc = concat!("`cp.async.ca.shared.global [dst], [src], ", $bytes, "`: starts copying ", $bytes, " bytes from global")]
        /// memory to shared memory without going through registers, cached in L1 and L2; the
        /// copy completes at the thread's next [`cp_async_wait_all`] (or a `cp.async.wait_group`
        /// covering it), and only then may the thread read `dst`. Other threads see it after a
        /// barrier that follows the wait.
        ///
        /// PTX ISA: [`cp.async`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async).
        /// PTX 7.0, sm_80+.
        ///
        /// # Safety
        #[doc = concat!("`dst` is a ", $bytes, "-byte-aligned `.shared` address ([`cvta_to_shared_u64`]) and `src` a")]
        #[doc = concat!($bytes, "-byte-aligned `.global` address ([`cvta_to_global_u64`]) of ", $bytes, " readable bytes")]
        /// that no thread writes until the copy has completed; nothing reads or writes `dst` until
        /// then.
        #[doc(alias = "__pipeline_memcpy_async")]
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name(dst: u64, src: u64) {
            crate::device_only! {
                // SAFETY: the caller passes aligned shared and global addresses.
                unsafe {
                    core::arch::asm!(concat!("cp.async.ca.shared.global [{dst}], [{src}], ", $bytes, ";"),
                        dst = in(reg64) dst, src = in(reg64) src, options(nostack, preserves_flags));
                }
            }
        }
    };
}

cp_async_ca!(cp_async_ca_shared_global_4, 4);
cp_async_ca!(cp_async_ca_shared_global_8, 8);

/// `cp.async.wait_all`: waits until every `cp.async` this thread started has completed (and
/// commits them first); the thread may then read what they wrote.
///
/// PTX ISA: [`cp.async.wait_all`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-wait-group).
/// PTX 7.0, sm_80+.
#[doc(alias = "__pipeline_wait_prior")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
pub fn cp_async_wait_all() {
    crate::device_only! {
        // SAFETY: waiting for the thread's own copies has no precondition.
        unsafe { core::arch::asm!("cp.async.wait_all;", options(nostack, preserves_flags)) };
    }
}

/// `cp.async.commit_group`: closes the thread's `cp.async` operations started since the last
/// commit into one group (an empty group if there were none), which
/// [`cp_async_wait_group`] then counts.
///
/// PTX ISA: [`cp.async.commit_group`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-commit-group).
/// PTX 7.0, sm_80+.
#[doc(alias = "__pipeline_commit")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
pub fn cp_async_commit_group() {
    crate::device_only! {
        // SAFETY: grouping the thread's own copies has no precondition.
        unsafe { core::arch::asm!("cp.async.commit_group;", options(nostack, preserves_flags)) };
    }
}

/// `cp.async.wait_group N`: waits until at most `N` of the thread's most recent committed
/// `cp.async` groups are pending: every older group has completed, and the thread may read
/// what it wrote. With `N = 0` every committed group has completed.
///
/// PTX ISA: [`cp.async.wait_group`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-wait-group).
/// PTX 7.0, sm_80+.
#[doc(alias = "__pipeline_wait_prior")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
pub fn cp_async_wait_group<const N: u32>() {
    crate::device_only! {
        // SAFETY: waiting for the thread's own copies has no precondition.
        unsafe {
            core::arch::asm!("cp.async.wait_group {n};", n = const N, options(nostack, preserves_flags))
        };
    }
}
