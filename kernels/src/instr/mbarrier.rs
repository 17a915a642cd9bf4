//! `mbarrier`: barriers in shared memory that count arrivals and asynchronous transactions, and
//! `st.async`, a store into another block of the cluster that completes on such a barrier.
//!
//! An mbarrier is an opaque 8-byte object (8-byte aligned) in a block's shared memory. Each
//! phase completes when its pending arrivals reach zero (`mbarrier.init` sets how many each
//! phase expects) and its transaction count, raised by `expect_tx` and lowered by the bytes of
//! each asynchronous operation that completes on it (`complete_tx`), is zero too; the barrier
//! then moves to the next phase, whose parity (0, 1, 0, …) a waiting thread names. Only threads
//! of the owning block wait on it ([`mbarrier_try_wait_parity_acquire_cluster_shared_b64`]);
//! threads of other blocks of the cluster may signal it (the ISA allows arrivals, `expect_tx`
//! and `complete_tx` on a `.shared::cluster` mbarrier), and
//! [`st_async_shared_cluster_mbarrier_complete_tx_bytes_b32`] and its kin store into that block
//! and complete their bytes on it: one-way messages, each block waiting for just the senders it
//! needs.
//!
//! Before another block may signal a barrier, the barrier's `mbarrier.init` must be visible to
//! it: a cluster barrier between the init and the first remote operation
//! ([`barrier_cluster_arrive`](super::cluster::barrier_cluster_arrive) /
//! [`barrier_cluster_wait`](super::cluster::barrier_cluster_wait)), whose default arrival
//! releases it; [`fence_mbarrier_init_release_cluster`] after the init makes a relaxed arrival
//! ([`barrier_cluster_arrive_relaxed`](super::cluster::barrier_cluster_arrive_relaxed))
//! enough, which is how the device scan does it.
//!
//! PTX ISA: [`mbarrier`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier),
//! [`st.async`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-st-async),
//! [`fence.mbarrier_init`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-membar).
//! CUDA guide: [Asynchronous Barrier](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#asynchronous-barrier).

/// `mbarrier.init.shared.b64 [a], count`: initialises the mbarrier at `.shared` address `a`
/// ([`cvta_to_shared_u64`](super::memory::cvta_to_shared_u64)) to phase 0, expecting `count`
/// arrivals per phase and no transactions.
///
/// PTX ISA: [`mbarrier.init`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-init).
/// PTX 7.0, sm_80+.
///
/// # Safety
/// `a` is an 8-byte-aligned `.shared` address of 8 bytes of the calling block that hold no
/// valid mbarrier (initialising one again is undefined; this module has no `mbarrier.inval`,
/// so an mbarrier stays one for the rest of the block's life) and that no other operation
/// accesses until the init is visible to it (a block barrier for the block's threads, a cluster
/// barrier for other blocks); from then on only mbarrier operations access them;
/// `1 <= count < 2^20`.
#[doc(alias = "__mbarrier_init")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn mbarrier_init_shared_b64(a: u64, count: u32) {
    crate::device_only! {
        // SAFETY: the caller's condition.
        unsafe {
            core::arch::asm!("mbarrier.init.shared.b64 [{a}], {c};", a = in(reg64) a,
                c = in(reg32) count, options(nostack, preserves_flags));
        }
    }
}

/// `mbarrier.arrive.shared.b64 state, [a]`: one arrival on the mbarrier at `.shared` address
/// `a`, with release semantics at CTA scope; returns an opaque token of the phase it arrived
/// at.
///
/// PTX ISA: [`mbarrier.arrive`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).
/// PTX 7.0, sm_80+.
///
/// # Safety
/// `a` is an initialised mbarrier ([`mbarrier_init_shared_b64`]) of the calling block whose
/// current phase has a pending arrival left (an arrival past zero is undefined); in any phase
/// after the first, some thread's `try_wait` of the phase before it has returned `true`.
#[doc(alias = "__mbarrier_arrive")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn mbarrier_arrive_shared_b64(a: u64) -> u64 {
    crate::device_only! {
        let state: u64;
        // SAFETY: the caller's condition.
        unsafe {
            core::arch::asm!("mbarrier.arrive.shared.b64 {s}, [{a}];", s = out(reg64) state,
                a = in(reg64) a, options(nostack, preserves_flags));
        }
        state
    }
}

/// `mbarrier.arrive.expect_tx.shared.b64 state, [a], tx`: raises the transaction count of the
/// current phase of the mbarrier at `.shared` address `a` by `tx` bytes, then arrives on it
/// (release semantics at CTA scope); returns the phase's token. The phase then completes only
/// once operations completing `tx` bytes on it (such as
/// [`st_async_shared_cluster_mbarrier_complete_tx_bytes_b32`]) have completed; they may
/// complete before the `expect_tx` (the count goes negative in between).
///
/// PTX ISA: [`mbarrier.arrive`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).
/// PTX 8.0, sm_90+.
///
/// # Safety
/// As [`mbarrier_arrive_shared_b64`]; the phase's transaction count stays within
/// `-(2^20 - 1)..2^20`.
#[doc(alias = "__mbarrier_arrive_expect_tx")]
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx80")
))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx_shared_b64(a: u64, tx: u32) -> u64 {
    crate::device_only! {
        let state: u64;
        // SAFETY: the caller's condition.
        unsafe {
            core::arch::asm!("mbarrier.arrive.expect_tx.shared.b64 {s}, [{a}], {tx};",
                s = out(reg64) state, a = in(reg64) a, tx = in(reg32) tx,
                options(nostack, preserves_flags));
        }
        state
    }
}

/// Defines an `mbarrier.try_wait.parity` of one semantics and scope.
macro_rules! mbarrier_try_wait_parity {
    ($(#[$doc:meta])* $name:ident, $instr:literal, $version:literal, $cfg:meta) => {
        $(#[$doc])*
        ///
        /// Whether the phase of parity `parity` (0 or 1) of the mbarrier at `.shared` address
        /// `a` has completed; if it has not, the thread may first be suspended for a
        /// system-dependent time limit. Loop until it returns `true`. A phase completes once
        /// its pending arrivals and transaction count are zero (see the [module docs](self)).
        ///
        /// PTX ISA: [`mbarrier.try_wait`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).
        #[doc = concat!("PTX ", $version, ", sm_90+.")]
        ///
        /// # Safety
        /// `a` is an initialised mbarrier ([`mbarrier_init_shared_b64`]) of the calling block,
        /// `parity` is 0 or 1, and the phase of that parity is the current one or the one just
        /// before it.
        #[cfg($cfg)]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name(a: u64, parity: u32) -> bool {
            crate::device_only! {
                let done: u32;
                // SAFETY: the caller's condition. No `nomem`: the acquire orders the
                // thread's later accesses after it.
                unsafe {
                    core::arch::asm!(
                        "{{",
                        ".reg .pred %p;",
                        concat!($instr, " %p, [{a}], {parity};"),
                        "selp.u32 {d}, 1, 0, %p;",
                        "}}",
                        d = out(reg32) done, a = in(reg64) a, parity = in(reg32) parity,
                        options(nostack, preserves_flags));
                }
                done != 0
            }
        }
    };
}

mbarrier_try_wait_parity!(
    /// `mbarrier.try_wait.parity.shared.b64 p, [a], parity`, with acquire semantics at CTA
    /// scope: once it returns `true`, what the block's threads wrote before arriving is
    /// visible to the calling thread.
    #[doc(alias = "__mbarrier_try_wait_parity")]
    mbarrier_try_wait_parity_shared_b64, "mbarrier.try_wait.parity.shared.b64", "7.8",
    any(not(target_arch = "nvptx64"), target_feature = "sm_90")
);
mbarrier_try_wait_parity!(
    /// `mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [a], parity`, with acquire
    /// semantics at cluster scope: once it returns `true`, what other blocks of the cluster
    /// stored into the calling block through operations that completed on the phase (the
    /// release of their `complete_tx`) is visible to the calling thread.
    mbarrier_try_wait_parity_acquire_cluster_shared_b64,
    "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64", "8.0",
    any(not(target_arch = "nvptx64"), all(target_feature = "sm_90", target_feature = "ptx80"))
);

/// `fence.mbarrier_init.release.cluster`: a light-weight release fence for the calling
/// thread's earlier `mbarrier.init`s ([`mbarrier_init_shared_b64`]) alone, at cluster scope:
/// its later arrival at the cluster barrier, even a relaxed one
/// ([`barrier_cluster_arrive_relaxed`](super::cluster::barrier_cluster_arrive_relaxed)),
/// publishes them, and after that barrier's wait other blocks of the cluster may signal the
/// mbarriers.
///
/// PTX ISA: [`membar/fence`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-membar).
/// PTX 8.0, sm_90+.
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx80")
))]
#[inline(always)]
pub fn fence_mbarrier_init_release_cluster() {
    crate::device_only! {
        // SAFETY: a fence has no precondition. No `nomem`: it orders memory operations.
        unsafe {
            core::arch::asm!("fence.mbarrier_init.release.cluster;", options(nostack, preserves_flags));
        }
    }
}

/// Defines an `st.async` of one width.
macro_rules! st_async {
    ($name:ident, $ty:ty, $reg:ident, $instr:literal, $bytes:literal) => {
        #[doc = concat!("`", $instr, " [a], v, [mbar]`: stores `v` (", $bytes, " bytes) into the shared memory")]
        /// of a block of the cluster, asynchronously, and completes that many bytes of
        /// transactions on the mbarrier `mbar` of the same block once the store is performed.
        /// The store is weak; the `complete_tx` has release semantics at cluster scope, so a
        /// thread of that block that sees the phase complete
        /// ([`mbarrier_try_wait_parity_acquire_cluster_shared_b64`]) sees `v`.
        ///
        /// PTX ISA: [`st.async`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-st-async).
        /// PTX 8.1, sm_90+.
        ///
        /// # Safety
        #[doc = concat!("`a` is a ", $bytes, "-byte-aligned `.shared::cluster` address and `mbar` the `.shared::cluster`")]
        /// address of an initialised mbarrier, both in the same block of the cluster
        /// ([`mapa_shared_cluster_u64`](super::cluster::mapa_shared_cluster_u64)), whose init
        /// is visible to the calling thread (a cluster barrier after it); the cluster has more
        /// than one block (`%cluster_nctarank > 1`, else the instruction is undefined); that
        /// block does not exit before the phase completes, its current phase expects these
        /// bytes (`expect_tx`) or has an arrival pending that will, and nothing else accesses
        /// `a` until that phase has completed.
        #[cfg(any(
            not(target_arch = "nvptx64"),
            all(target_feature = "sm_90", target_feature = "ptx81")
        ))]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub unsafe fn $name(a: u64, v: $ty, mbar: u64) {
            crate::device_only! {
                // SAFETY: the caller's condition.
                unsafe {
                    core::arch::asm!(concat!($instr, " [{a}], {v}, [{m}];"), a = in(reg64) a,
                        v = in($reg) v, m = in(reg64) mbar, options(nostack, preserves_flags));
                }
            }
        }
    };
}

st_async!(
    st_async_shared_cluster_mbarrier_complete_tx_bytes_b32,
    u32,
    reg32,
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32",
    4
);
st_async!(
    st_async_shared_cluster_mbarrier_complete_tx_bytes_b64,
    u64,
    reg64,
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64",
    8
);
