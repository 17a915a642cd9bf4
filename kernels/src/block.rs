//! Block-wide reduce and scan, built on the warp layer and shared memory.
//!
//! Each takes `scratch`, shared memory for one `T` per warp (at most 32), and synchronizes
//! the block twice.
//!
//! # Safety (every function here)
//! - Every thread of the block calls the function, with the same `op` and `scratch`.
//! - The block has a multiple of 32 threads, at most 1024.
//! - `scratch` points to shared memory for 32 `T`s that nothing else uses until the block
//!   has synchronized again after the call.

#[cfg(target_arch = "nvptx64")]
use crate::{lane::lane_id, ops::ReduceOp, thread, tile::Warp};
#[cfg(target_arch = "nvptx64")]
use bytemuck::Pod;

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

/// Lane `w` of every warp gets warp `w`'s `value` (the same in all of its lanes); lanes past
/// the last warp get `filler`. Synchronizes the block twice.
///
/// # Safety
/// See the [module docs](self).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn gather_warp_values<T: Pod>(value: T, filler: T, scratch: *mut T) -> T {
    let lane = lane_id();
    let warps = thread::block_dim_x() / 32;
    // SAFETY: the caller gives 32 Ts of shared memory and calls from every thread.
    unsafe {
        if lane == 0 {
            *scratch.add((thread::thread_idx_x() / 32) as usize) = value;
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

/// The block's exclusive scan: (`x[0] ⊕ … ⊕ x[t-1]`, the block's total) in thread `t`;
/// thread 0 gets the identity.
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
    let prefix = match (thread::thread_idx_x() < 32, lane == 0) {
        (true, true) => op.identity(),
        (true, false) => exclusive,
        (false, true) => before_warp,
        (false, false) => op.combine(before_warp, exclusive),
    };
    (prefix, block_total)
}

/// Scans one value per warp (the same in each of its lanes): returns, in every thread, the
/// combination of the earlier warps' values (the identity in warp 0) and the block's total.
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
    let warp_id = thread::thread_idx_x() / 32;
    let warps = thread::block_dim_x() / 32;
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

/// The block's inclusive scan: (`x[0] ⊕ … ⊕ x[t]`, the block's total) in thread `t`.
///
/// # Safety
/// See the [module docs](self).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn inclusive_scan<T: Pod, Op: ReduceOp<T>>(value: T, op: Op, scratch: *mut T) -> (T, T) {
    // SAFETY: forwarded.
    let (prefix, total) = unsafe { exclusive_scan(value, op, scratch) };
    let inclusive = if thread::thread_idx_x() == 0 {
        value
    } else {
        op.combine(prefix, value)
    };
    (inclusive, total)
}
