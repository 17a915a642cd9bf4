//! The block layer: block-wide reduce and scan, built on the warp layer and shared memory.
//!
//! Each function combines the warps' results through a [`TempStorage<T>`]: typed shared
//! memory for one `T` per warp, which the caller provides (declared with
//! [`shared!`](crate::shared), or carved out of a larger shared buffer with
//! [`TempStorage::from_ptr`]). Each synchronizes the block twice.
//!
//! # Safety (every function here)
//! - Every thread of the block calls the function, with the same `op` and `storage`.
//! - The block has a multiple of 32 threads (`Dx·Dy·Dz`), at most 1024, in any shape (256×1,
//!   32×8, 16×16, 8×8×4 ...): warps are the hardware's, by the linear thread index
//!   ([`crate::kernel::linear_thread_index`]). A partial last warp is
//!   refused by this condition rather than handled: the warp layer shuffles with the full
//!   mask, whose results are unspecified where lanes of the mask do not exist.
//! - Nothing else uses `storage` from the call until the block has synchronized again after
//!   it (the functions' own barriers end the call: the storage may be reused by the next
//!   block-wide call without another barrier).

mod storage;

pub use storage::TempStorage;

use crate::instr::sreg::laneid;
use crate::kernel::{block_threads, linear_thread_index, sync_threads};
use crate::ops::ReduceOp;
use crate::warp::Warp;
use bytemuck::Pod;

/// The block's reduction, in every thread.
///
/// ```no_run
/// use warpkit::{block::{self, TempStorage}, ops::Sum};
/// // In a kernel: `let storage = unsafe { &*warpkit::shared!(SUM_STORAGE: TempStorage<u32>) };`
/// unsafe fn block_sum(x: u32, storage: &TempStorage<u32>) -> u32 {
///     // SAFETY: every thread of the block calls this with the same storage.
///     unsafe { block::reduce(x, Sum, storage) }
/// }
/// ```
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
pub unsafe fn reduce<T: Pod, Op: ReduceOp<T>>(value: T, op: Op, storage: &TempStorage<T>) -> T {
    let warp = Warp::full();
    let warp_total = warp.reduce(value, op);
    // SAFETY: forwarded.
    let partial = unsafe { gather_warp_values(warp_total, op.identity(), storage) };
    warp.reduce(partial, op)
}

/// Lane `w` of every warp gets warp `w`'s `value` (the same in all of its lanes); lanes past
/// the last warp get `filler`. Synchronizes the block twice.
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
unsafe fn gather_warp_values<T: Pod>(value: T, filler: T, storage: &TempStorage<T>) -> T {
    let lane = laneid();
    let warps = block_threads() / 32;
    // SAFETY: called by every thread; each warp's lane 0 writes its own slot, and the slots
    // are read only after the barrier.
    unsafe {
        if lane == 0 {
            storage.write(linear_thread_index() / 32, value);
        }
        sync_threads();
        let gathered = if lane < warps {
            storage.read(lane)
        } else {
            filler
        };
        sync_threads();
        gathered
    }
}

/// The block's exclusive scan: (`x[0] ⊕ … ⊕ x[t-1]`, the block's total) in thread `t`;
/// thread 0 gets the identity.
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
pub unsafe fn exclusive_scan<T: Pod, Op: ReduceOp<T>>(
    value: T,
    op: Op,
    storage: &TempStorage<T>,
) -> (T, T) {
    let warp = Warp::full();
    let inclusive = warp.inclusive_scan(value, op);
    let exclusive = warp.shfl_up(inclusive, 1);
    let lane = laneid();
    // SAFETY: forwarded.
    let (before_warp, block_total) =
        unsafe { scan_warp_totals(warp.shfl(inclusive, 31), op, storage) };
    let prefix = match (linear_thread_index() < 32, lane == 0) {
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
#[inline(always)]
pub unsafe fn scan_warp_totals<T: Pod, Op: ReduceOp<T>>(
    warp_total: T,
    op: Op,
    storage: &TempStorage<T>,
) -> (T, T) {
    let warp = Warp::full();
    let warp_id = linear_thread_index() / 32;
    let warps = block_threads() / 32;
    // SAFETY: forwarded.
    let total = unsafe { gather_warp_values(warp_total, op.identity(), storage) };
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
#[inline(always)]
pub unsafe fn inclusive_scan<T: Pod, Op: ReduceOp<T>>(
    value: T,
    op: Op,
    storage: &TempStorage<T>,
) -> (T, T) {
    // SAFETY: forwarded.
    let (prefix, total) = unsafe { exclusive_scan(value, op, storage) };
    let inclusive = if linear_thread_index() == 0 {
        value
    } else {
        op.combine(prefix, value)
    };
    (inclusive, total)
}
