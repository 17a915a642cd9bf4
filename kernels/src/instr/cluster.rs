//! Thread block clusters (sm_90+): the cluster barrier and the shared memory of the cluster's
//! other blocks (*distributed shared memory*).
//!
//! A kernel launched with a cluster dimension (`cuLaunchKernelEx` with
//! `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`) runs its blocks in clusters that are scheduled
//! together on one GPU processing cluster. A block of a cluster can read and write the shared
//! memory of every other block of its cluster: [`mapa_shared_cluster_u64`] turns the address
//! of a shared variable into the address of the same variable in the block of a given rank
//! (`%cluster_ctarank`, [`crate::instr::sreg::cluster_ctarank`]), which
//! [`ld_shared_cluster_u32`] and [`st_shared_cluster_u32`] access; [`mapa_u64`] does the same
//! for a generic address, which ordinary loads and stores then access. A kernel launched
//! without a cluster dimension runs each block as a cluster of one.
//!
//! The blocks of a cluster synchronise through the cluster barrier: each thread arrives
//! ([`barrier_cluster_arrive`], release semantics) and later waits ([`barrier_cluster_wait`],
//! acquire semantics) until every non-exited thread of the cluster has arrived. Between two
//! blocks, a store to the other's shared memory before an arrive is seen by the other after
//! its wait.
//!
//! The CUDA guide's rules for distributed shared memory, which the callers of the `unsafe`
//! functions here keep: a block accesses another block's shared memory only once that block
//! has started (a cluster barrier that the other block arrived at proves it), and a block does
//! not exit while others may still access its shared memory.
//!
//! PTX ISA: [`barrier.cluster`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-barrier-cluster),
//! [`mapa`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-mapa),
//! [state spaces: `.shared::cluster`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#shared-state-space).
//! CUDA guide: [Thread Block Clusters](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#thread-block-clusters),
//! [Distributed Shared Memory](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#distributed-shared-memory).

/// `barrier.cluster.arrive`: marks the calling thread's arrival at the cluster barrier's
/// current phase, with release semantics at cluster scope (the default of the instruction
/// without `.sem`): the thread's memory accesses before it are performed before any thread's
/// [`barrier_cluster_wait`] of this phase returns. Does not wait.
///
/// Not `.aligned`: the lanes of a warp need not arrive together.
///
/// PTX ISA: [`barrier.cluster`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-barrier-cluster).
/// PTX 7.8, sm_90+.
///
/// # Safety
/// Each thread arrives once per phase, and waits ([`barrier_cluster_wait`]) before it arrives
/// again: a second arrival before the wait is undefined. Every non-exited thread of the
/// cluster must arrive for a phase to complete, or the waiting threads hang.
#[doc(alias = "__cluster_barrier_arrive")]
#[doc(alias = "barrier_cluster_arrive_release")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub unsafe fn barrier_cluster_arrive() {
    crate::device_only! {
        // SAFETY: the caller's condition. No `nomem`: memory accesses stay on their side.
        unsafe { core::arch::asm!("barrier.cluster.arrive;", options(nostack, preserves_flags)) };
    }
}

/// `barrier.cluster.arrive.relaxed`: as [`barrier_cluster_arrive`], without release
/// semantics: the thread's earlier memory accesses need not be visible to the waiting threads
/// (but `mbarrier.init`s before a [`fence_mbarrier_init_release_cluster`] are).
///
/// PTX ISA: [`barrier.cluster`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-barrier-cluster).
/// PTX 8.0, sm_90+.
///
/// # Safety
/// As [`barrier_cluster_arrive`].
///
/// [`fence_mbarrier_init_release_cluster`]: super::mbarrier::fence_mbarrier_init_release_cluster
#[doc(alias = "__cluster_barrier_arrive_relaxed")]
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx80")
))]
#[inline(always)]
pub unsafe fn barrier_cluster_arrive_relaxed() {
    crate::device_only! {
        // SAFETY: the caller's condition. No `nomem`: the barrier still orders what follows it.
        unsafe {
            core::arch::asm!("barrier.cluster.arrive.relaxed;", options(nostack, preserves_flags))
        };
    }
}

/// `barrier.cluster.wait`: waits until every non-exited thread of the cluster has arrived at
/// the cluster barrier's current phase ([`barrier_cluster_arrive`]), with acquire semantics at
/// cluster scope (the default without `.sem`): what the arriving threads wrote before they
/// arrived is visible to the calling thread after it.
///
/// Not `.aligned`: the lanes of a warp need not wait together.
///
/// PTX ISA: [`barrier.cluster`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-barrier-cluster).
/// PTX 7.8, sm_90+.
///
/// # Safety
/// The calling thread has arrived at the current phase ([`barrier_cluster_arrive`]) and has not
/// waited on it yet.
#[doc(alias = "__cluster_barrier_wait")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub unsafe fn barrier_cluster_wait() {
    crate::device_only! {
        // SAFETY: the caller's condition. No `nomem`: memory accesses stay on their side.
        unsafe { core::arch::asm!("barrier.cluster.wait;", options(nostack, preserves_flags)) };
    }
}

/// `mapa.shared::cluster.u64 d, a, rank`: the `.shared::cluster` address of the variable at
/// `.shared` address `a` ([`cvta_to_shared_u64`](super::memory::cvta_to_shared_u64)) in the
/// block of rank `rank` of the calling thread's cluster. Only the address: accessing it is
/// what needs the block to exist ([`ld_shared_cluster_u32`], [`st_shared_cluster_u32`]). The
/// ISA asks for a valid shared address in `a` and names no undefined behaviour otherwise: from
/// any other `a` the address is meaningless, and the `unsafe` accesses are what may not use it.
///
/// PTX ISA: [`mapa`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-mapa).
/// PTX 7.8, sm_90+.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn mapa_shared_cluster_u64(a: u64, rank: u32) -> u64 {
    crate::device_only! {
        let d: u64;
        // SAFETY: an address computation reads and writes no memory.
        unsafe {
            core::arch::asm!("mapa.shared::cluster.u64 {d}, {a}, {r};", d = out(reg64) d,
                a = in(reg64) a, r = in(reg32) rank, options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}

/// `mapa.u64 d, a, rank`: the generic address of the shared variable at generic address `a`
/// in the block of rank `rank` of the calling thread's cluster. Ordinary (generic) loads and
/// stores then access that block's shared memory. `a` should be a generic address in the
/// calling block's shared memory and `rank < %cluster_nctarank`; otherwise the address is
/// meaningless. Only the address: accessing it is what needs the block to exist (see the
/// [module docs](self)).
///
/// PTX ISA: [`mapa`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-mapa).
/// PTX 7.8, sm_90+.
#[doc(alias = "__cluster_map_shared_rank")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn mapa_u64(a: u64, rank: u32) -> u64 {
    crate::device_only! {
        let d: u64;
        // SAFETY: an address computation reads and writes no memory.
        unsafe {
            core::arch::asm!("mapa.u64 {d}, {a}, {r};", d = out(reg64) d, a = in(reg64) a,
                r = in(reg32) rank, options(pure, nomem, nostack, preserves_flags));
        }
        d
    }
}

/// Defines a load from the shared memory of a block of the cluster.
macro_rules! ld_shared_cluster {
    ($name:ident, $ty:ty, $reg:ident, $instr:literal) => {
        #[doc = concat!("`", $instr, " d, [a]`: loads a `", stringify!($ty), "` from the shared memory of a")]
        /// block of the calling thread's cluster (a weak load).
        ///
        /// PTX ISA: [`ld`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-ld).
        /// PTX 7.8, sm_90+.
        ///
        /// # Safety
        #[doc = concat!("`a` is an aligned `.shared::cluster` address of a `", stringify!($ty), "`")]
        /// ([`mapa_shared_cluster_u64`]) in a block that has started and has not exited, and
        /// no thread writes it meanwhile (a cluster barrier orders the writes before it).
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name(a: u64) -> $ty {
            crate::device_only! {
                let v: $ty;
                // SAFETY: the caller's condition.
                unsafe {
                    core::arch::asm!(concat!($instr, " {v}, [{a}];"), v = out($reg) v, a = in(reg64) a,
                        options(nostack, readonly, preserves_flags));
                }
                v
            }
        }
    };
}

/// Defines a store to the shared memory of a block of the cluster.
macro_rules! st_shared_cluster {
    ($name:ident, $ty:ty, $reg:ident, $instr:literal) => {
        #[doc = concat!("`", $instr, " [a], v`: stores a `", stringify!($ty), "` to the shared memory of a")]
        /// block of the calling thread's cluster (a weak store).
        ///
        /// PTX ISA: [`st`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-st).
        /// PTX 7.8, sm_90+.
        ///
        /// # Safety
        #[doc = concat!("`a` is an aligned `.shared::cluster` address of a `", stringify!($ty), "`")]
        /// ([`mapa_shared_cluster_u64`]) in a block that has started and does not exit before
        /// the store is performed, and no other thread accesses it meanwhile.
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name(a: u64, v: $ty) {
            crate::device_only! {
                // SAFETY: the caller's condition.
                unsafe {
                    core::arch::asm!(concat!($instr, " [{a}], {v};"), v = in($reg) v, a = in(reg64) a,
                        options(nostack, preserves_flags));
                }
            }
        }
    };
}

ld_shared_cluster!(ld_shared_cluster_u32, u32, reg32, "ld.shared::cluster.u32");
ld_shared_cluster!(ld_shared_cluster_u64, u64, reg64, "ld.shared::cluster.u64");
st_shared_cluster!(st_shared_cluster_u32, u32, reg32, "st.shared::cluster.u32");
st_shared_cluster!(st_shared_cluster_u64, u64, reg64, "st.shared::cluster.u64");
