//! Block-wide reduce and scan for **any block shape**: the fix for `block.rs`, which indexes
//! warps by `threadIdx.x` alone (a 32×8 block has 8 warps whose lane 0 all write
//! `scratch[0]`: a race; a 16×16 block computes `blockDim.x / 32 = 0` warps and shuffles
//! from lane `0 - 1`).
//!
//! The hardware splits a block into warps by the *linear* thread index
//! `x + y·Dx + z·Dx·Dy`: warp `w` holds linear indices `32w .. 32w + 31`, and the lane id is
//! the linear index mod 32 (CUDA C++ Programming Guide, "SIMT Architecture",
//! <https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#simt-architecture>). So
//! the functions below use `linear_thread_index` and `block_threads` where `block.rs`
//! uses `thread_idx_x()` and `block_dim_x()`; nothing else changes.
//!
//! Merge note (for `kernels/src/block/`): replace, in `block.rs`, `thread::thread_idx_x()` by
//! `linear_thread_index()` (3 places) and `thread::block_dim_x() / 32` by
//! `block_threads() / 32` (2 places), and state the block-shape condition below; or take
//! these functions as they are.
//!
//! # Safety (every function here)
//! - Every thread of the block calls the function, with the same `op` and `scratch`.
//! - The block has `Dx·Dy·Dz` threads, a multiple of 32 and at most 1024, in any shape
//!   (32×8, 16×16, 8×8×4 ...). A partial last warp is refused by this condition rather than
//!   handled: the warp layer shuffles with the full mask, which is undefined when lanes of the
//!   mask do not exist.
//! - `scratch` points to shared memory for 32 `T`s that nothing else uses until the block
//!   has synchronized again after the call.

#[cfg(target_arch = "nvptx64")]
use crate::{lane::lane_id, ops::ReduceOp, thread, tile::Warp};
#[cfg(target_arch = "nvptx64")]
use bytemuck::Pod;

/// The thread's linear index in its block: `x + y·Dx + z·Dx·Dy`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn linear_thread_index() -> u32 {
    thread::thread_idx_x()
        + thread::block_dim_x()
            * (thread::thread_idx_y() + thread::block_dim_y() * thread::thread_idx_z())
}

/// The number of threads in the block: `Dx·Dy·Dz`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn block_threads() -> u32 {
    thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z()
}

/// The number of warps in the block, a partial last one included: `ceil(threads / 32)`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn block_warps() -> u32 {
    block_threads().div_ceil(32)
}

/// The thread's warp in its block: `linear_thread_index() / 32`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn warp_index() -> u32 {
    linear_thread_index() / 32
}

/// The block's reduction, in every thread.
///
/// # Safety
/// See the [module docs](self).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn reduce<T: Pod, Op: ReduceOp<T>>(value: T, op: Op, scratch: *mut T) -> T {
    let warp = Warp::full();
    let warp_total = warp.reduce(value, op);
    // SAFETY: forwarded.
    let partial = unsafe { gather_warp_values(warp_total, op.identity(), scratch) };
    warp.reduce(partial, op)
}

/// Lane `w` of every warp gets warp `w`'s `value`; lanes past the last warp get `filler`.
///
/// # Safety
/// See the [module docs](self).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn gather_warp_values<T: Pod>(value: T, filler: T, scratch: *mut T) -> T {
    let lane = lane_id();
    let warps = block_threads() / 32;
    // SAFETY: the caller gives 32 Ts of shared memory and calls from every thread.
    unsafe {
        if lane == 0 {
            *scratch.add(warp_index() as usize) = value;
        }
        thread::sync_threads();
        let gathered = if lane < warps {
            *scratch.add(lane as usize)
        } else {
            filler
        };
        thread::sync_threads();
        gathered
    }
}

/// The block's exclusive scan in linear thread order: (`x[0] ⊕ … ⊕ x[t-1]`, the total) in
/// the thread of linear index `t`; thread 0 gets the identity.
///
/// # Safety
/// See the [module docs](self).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn exclusive_scan<T: Pod, Op: ReduceOp<T>>(value: T, op: Op, scratch: *mut T) -> (T, T) {
    let warp = Warp::full();
    let inclusive = warp.inclusive_scan(value, op);
    let exclusive = warp.shfl_up(inclusive, 1);
    let lane = lane_id();
    // SAFETY: forwarded.
    let (before_warp, block_total) =
        unsafe { scan_warp_totals(warp.shfl(inclusive, 31), op, scratch) };
    let prefix = match (warp_index() == 0, lane == 0) {
        (true, true) => op.identity(),
        (true, false) => exclusive,
        (false, true) => before_warp,
        (false, false) => op.combine(before_warp, exclusive),
    };
    (prefix, block_total)
}

/// Scans one value per warp: the combination of the earlier warps' values (the identity in
/// warp 0) and the block's total, in every thread.
///
/// # Safety
/// See the [module docs](self).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn scan_warp_totals<T: Pod, Op: ReduceOp<T>>(
    warp_total: T,
    op: Op,
    scratch: *mut T,
) -> (T, T) {
    let warp = Warp::full();
    let warp_id = warp_index();
    let warps = block_threads() / 32;
    // SAFETY: forwarded.
    let total = unsafe { gather_warp_values(warp_total, op.identity(), scratch) };
    let inclusive = warp.inclusive_scan(total, op);
    let before = warp.shfl_up(inclusive, 1);
    let before_warp = if warp_id == 0 {
        op.identity()
    } else {
        warp.shfl(before, warp_id)
    };
    (before_warp, warp.shfl(inclusive, warps - 1))
}

/// The block's inclusive scan in linear thread order.
///
/// # Safety
/// See the [module docs](self).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn inclusive_scan<T: Pod, Op: ReduceOp<T>>(value: T, op: Op, scratch: *mut T) -> (T, T) {
    // SAFETY: forwarded.
    let (prefix, total) = unsafe { exclusive_scan(value, op, scratch) };
    let inclusive = if linear_thread_index() == 0 {
        value
    } else {
        op.combine(prefix, value)
    };
    (inclusive, total)
}
