//! Thread block clusters for kernel authors (sm_90+), as CUDA's `cluster_group`
//! (`cooperative_groups::this_cluster()`): the block's rank in its cluster, the cluster's size,
//! the cluster barrier, and pointers into the shared memory of the cluster's other blocks
//! (*distributed shared memory*).
//!
//! The host launches the kernel in clusters with `warpkit_host::launch::launch_cluster`; a
//! kernel launched without clusters runs each block as a cluster of one. The blocks of a
//! cluster run at the same time on one GPU processing cluster, so they can wait for each other
//! ([`sync`]) and read and write each other's shared memory through [`map_shared_rank`], with
//! two rules from the CUDA guide: a block touches another block's shared memory only after a
//! [`sync`] that both took part in (so the other block has started), and no block exits while
//! another may still touch its shared memory (a last [`sync`] before the end).
//!
//! ```ignore
//! // ignore: cluster instructions exist only when compiling for nvptx64, sm_90 and newer.
//! // Every block of the cluster adds its partial into rank 0's shared memory.
//! let partials = warpkit::shared_array!(PARTIALS: [u64; 16]).cast::<u64>();
//! let rank = cluster::block_rank();
//! unsafe { cluster::sync() };                 // every block has started
//! if kernel::thread_idx_x() == 0 {
//!     unsafe { *cluster::map_shared_rank(partials, 0).add(rank as usize) = my_partial };
//! }
//! unsafe { cluster::sync() };                 // the partials are in; rank 0 reads them
//! ```
//!
//! One wrapper per instruction lives in [`crate::instr::cluster`] (with the shared-space
//! forms `ld.shared::cluster` / `st.shared::cluster`).
//!
//! CUDA guide: [Thread Block Clusters](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#thread-block-clusters),
//! [Distributed Shared Memory](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#distributed-shared-memory).

use crate::instr::cluster::{barrier_cluster_arrive, barrier_cluster_wait, mapa_u64};
use crate::instr::sreg;

/// The calling block's rank in its cluster, `0..num_blocks()`
/// ([`cluster_ctarank`](sreg::cluster_ctarank), `%cluster_ctarank`).
#[inline(always)]
pub fn block_rank() -> u32 {
    sreg::cluster_ctarank()
}

/// The number of blocks in the calling block's cluster
/// ([`cluster_nctarank`](sreg::cluster_nctarank), `%cluster_nctarank`): 1 in a launch
/// without clusters.
#[inline(always)]
pub fn num_blocks() -> u32 {
    sreg::cluster_nctarank()
}

/// `cluster.sync()`: waits until every non-exited thread of the cluster has arrived here, with
/// the shared and global memory accesses of each before it visible to all after it
/// ([`barrier_cluster_arrive`] then [`barrier_cluster_wait`]: release and acquire at cluster
/// scope).
///
/// # Safety
/// The caller has no arrival of its own pending (an arrive of [`crate::instr::cluster`] without
/// its wait): a second arrival before the wait is undefined. Each phase completes once every
/// thread of the cluster that has not exited has arrived at it (here, or by an arrival of
/// [`crate::instr::cluster`]); a thread that never arrives hangs the waiting ones.
#[doc(alias = "cluster.sync")]
#[doc(alias = "barrier.cluster")]
#[inline(always)]
pub unsafe fn sync() {
    // SAFETY: the caller's conditions: one arrival, then its wait.
    unsafe {
        barrier_cluster_arrive();
        barrier_cluster_wait();
    }
}

/// `cluster.map_shared_rank(p, rank)`: the address of the shared variable `*p` of the calling
/// block in the block of rank `rank` of its cluster (`mapa.u64`,
/// [`mapa_u64`]). Plain loads and stores through it reach that block's shared memory. In a
/// cluster of several dimensions the rank is [`block_rank`]'s (`%cluster_ctarank`, x fastest).
///
/// Only the address: dereferencing it needs `p` to point into the calling block's shared memory,
/// `rank < num_blocks()`, the other block to have started (a [`sync`] since the kernel began)
/// and not to exit while the access may be in flight (a [`sync`] after it, before that block
/// exits), and accesses from different blocks ordered as any shared data (a [`sync`] between
/// a write and the reads of others).
#[doc(alias = "__cluster_map_shared_rank")]
#[inline(always)]
pub fn map_shared_rank<T>(p: *mut T, rank: u32) -> *mut T {
    mapa_u64(p as u64, rank) as *mut T
}
