//! Special registers: the lane's identity in its warp (`%laneid`, `%lanemask_*`) and the
//! thread's, block's and grid's coordinates (`%tid`, `%ctaid`, `%ntid`, `%nctaid`), and the
//! block's place in its cluster (`%cluster_ctarank`, `%cluster_nctarank`).
//!
//! Every register is read the same way: one `mov.u32 d, %reg;` through inline `asm!`, marked
//! `pure` and `nomem` so repeated reads fold into one. The PTX ISA's
//! [Special Registers](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#special-registers)
//! chapter defines them. The CUDA-style names (`threadIdx.x` as
//! [`thread_idx_x`](crate::kernel::thread_idx_x), ...) are in [`crate::kernel`](mod@crate::kernel).

/// Defines one function per special register (`mov.u32 d, %reg;`).
macro_rules! special_register {
    ($($(#[$doc:meta])* $name:ident => $reg:literal, $anchor:literal;)*) => {$(
        $(#[$doc])*
        ///
        #[doc = concat!("PTX ISA: [`", $reg, "`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#special-registers-", $anchor, ").")]
        #[inline(always)]
        pub fn $name() -> u32 {
            crate::device_only! {
                let r: u32;
                // SAFETY: reading a special register has no precondition.
                unsafe {
                    core::arch::asm!(concat!("mov.u32 {r}, ", $reg, ";"), r = out(reg32) r,
                        options(pure, nomem, nostack, preserves_flags));
                }
                r
            }
        }
    )*};
}

special_register! {
    /// `%laneid`: the calling thread's lane in its warp, `0..32`.
    ///
    /// PTX 1.3, every target.
    laneid => "%laneid", "laneid";
    /// `%lanemask_eq`: the bit of the calling lane alone.
    ///
    /// PTX 2.0, sm_20+.
    lanemask_eq => "%lanemask_eq", "lanemask-eq";
    /// `%lanemask_lt`: the bits of the lanes below the calling lane; with a ballot,
    /// `(ballot & lanemask_lt()).count_ones()` is the lane's rank among the voters.
    ///
    /// PTX 2.0, sm_20+.
    lanemask_lt => "%lanemask_lt", "lanemask-lt";
    /// `%lanemask_le`: the bits of the lanes at or below the calling lane.
    ///
    /// PTX 2.0, sm_20+.
    lanemask_le => "%lanemask_le", "lanemask-le";
    /// `%lanemask_gt`: the bits of the lanes above the calling lane.
    ///
    /// PTX 2.0, sm_20+.
    lanemask_gt => "%lanemask_gt", "lanemask-gt";
    /// `%lanemask_ge`: the bits of the lanes at or above the calling lane.
    ///
    /// PTX 2.0, sm_20+.
    lanemask_ge => "%lanemask_ge", "lanemask-ge";
    /// `%tid.x`: the thread's index in its block along x (`threadIdx.x`).
    ///
    /// PTX 1.0, every target.
    #[doc(alias = "threadIdx")]
    tid_x => "%tid.x", "tid";
    /// `%tid.y` (`threadIdx.y`). PTX 1.0, every target.
    tid_y => "%tid.y", "tid";
    /// `%tid.z` (`threadIdx.z`). PTX 1.0, every target.
    tid_z => "%tid.z", "tid";
    /// `%ctaid.x`: the block's index in the grid along x (`blockIdx.x`).
    ///
    /// PTX 1.0, every target.
    #[doc(alias = "blockIdx")]
    ctaid_x => "%ctaid.x", "ctaid";
    /// `%ctaid.y` (`blockIdx.y`). PTX 1.0, every target.
    ctaid_y => "%ctaid.y", "ctaid";
    /// `%ctaid.z` (`blockIdx.z`). PTX 1.0, every target.
    ctaid_z => "%ctaid.z", "ctaid";
    /// `%ntid.x`: threads per block along x (`blockDim.x`).
    ///
    /// PTX 1.0, every target.
    #[doc(alias = "blockDim")]
    ntid_x => "%ntid.x", "ntid";
    /// `%ntid.y` (`blockDim.y`). PTX 1.0, every target.
    ntid_y => "%ntid.y", "ntid";
    /// `%ntid.z` (`blockDim.z`). PTX 1.0, every target.
    ntid_z => "%ntid.z", "ntid";
    /// `%nctaid.x`: blocks in the grid along x (`gridDim.x`).
    ///
    /// PTX 1.0, every target.
    #[doc(alias = "gridDim")]
    nctaid_x => "%nctaid.x", "nctaid";
    /// `%nctaid.y` (`gridDim.y`). PTX 1.0, every target.
    nctaid_y => "%nctaid.y", "nctaid";
    /// `%nctaid.z` (`gridDim.z`). PTX 1.0, every target.
    nctaid_z => "%nctaid.z", "nctaid";
    /// `%cluster_ctarank`: the block's rank in its cluster, `0..cluster_nctarank()` (0 in a
    /// launch without clusters, where each block is a cluster of one; see
    /// [`crate::instr::cluster`]).
    ///
    /// PTX 7.8, sm_90+.
    #[doc(alias = "cluster.block_rank")]
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    cluster_ctarank => "%cluster_ctarank", "cluster-ctarank";
    /// `%cluster_nctarank`: blocks in the calling thread's cluster (1 in a launch without
    /// clusters).
    ///
    /// PTX 7.8, sm_90+.
    #[doc(alias = "cluster.num_blocks")]
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    cluster_nctarank => "%cluster_nctarank", "cluster-nctarank";
}
