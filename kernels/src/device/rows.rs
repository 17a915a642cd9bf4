//! Batched reduce and scan: one warp per row, rows of one width or given by offsets.

use super::tuning::ROWS_SCAN_ITEMS;
use crate::abi::params;
use crate::kernel::{self as thread, lane_id};
use crate::ops::ReduceOp;
use crate::warp::Warp;
use bytemuck::Pod;

/// The `[start, end)` of `row`: from `offsets` if not null, else `row * width`.
#[inline(always)]
unsafe fn row_range(row: usize, width: usize, offsets: *const u64) -> (usize, usize) {
    if offsets.is_null() {
        (row * width, row * width + width)
    } else {
        // SAFETY: the caller gives `rows + 1` offsets.
        unsafe { (*offsets.add(row) as usize, *offsets.add(row + 1) as usize) }
    }
}

/// One warp per row: `output[row]` is `store` of the row's reduction (items combined as `A`).
///
/// # Safety
/// `p` as documented on [`params::Rows`]: `input` holds every row, `output` has `rows` items,
/// `offsets` is null or has `rows + 1` non-decreasing entries inside `input`; the block size
/// is a multiple of 32.
#[inline(always)]
pub unsafe fn rows_reduce<T: Pod, A: Pod, Op: ReduceOp<A>>(
    p: params::Rows,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
) {
    let (input, output) = (p.input as *const T, p.output as *mut T);
    let lane = lane_id() as usize;
    let warps = thread::grid_threads() / 32;
    let mut row = thread::global_index() / 32;
    let warp = Warp::full();
    while row < p.rows as usize {
        // SAFETY: the caller's conditions; every index is inside the row.
        unsafe {
            let (start, end) = row_range(row, p.width as usize, p.offsets as *const u64);
            let total = if Op::COMMUTATIVE {
                let mut acc = op.identity();
                let mut i = start + lane;
                while i + 96 < end {
                    let (a, b, c, d) = (
                        load(*input.add(i)),
                        load(*input.add(i + 32)),
                        load(*input.add(i + 64)),
                        load(*input.add(i + 96)),
                    );
                    acc = op.combine(op.combine(op.combine(op.combine(acc, a), b), c), d);
                    i += 128;
                }
                while i < end {
                    acc = op.combine(acc, load(*input.add(i)));
                    i += 32;
                }
                warp.reduce(acc, op)
            } else {
                // Index order: 32 consecutive items at a time, each group in lane order.
                let mut acc = op.identity();
                let mut base = start;
                while base < end {
                    let i = base + lane;
                    let x = if i < end {
                        load(*input.add(i))
                    } else {
                        op.identity()
                    };
                    acc = op.combine(acc, warp.reduce(x, op));
                    base += 32;
                }
                acc
            };
            if lane == 0 {
                *output.add(row) = store(total);
            }
        }
        row += warps;
    }
}

/// One warp per row: the row's inclusive (or exclusive) scan into the same positions of
/// `output`.
///
/// # Safety
/// As [`rows_reduce`], with `output` the same length as `input`.
#[inline(always)]
pub unsafe fn rows_scan<T: Pod, A: Pod, Op: ReduceOp<A>>(
    p: params::Rows,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
) {
    const ITEMS: usize = ROWS_SCAN_ITEMS;
    let (input, output) = (p.input as *const T, p.output as *mut T);
    let exclusive = p.exclusive != 0;
    let lane = lane_id() as usize;
    let warps = thread::grid_threads() / 32;
    let mut row = thread::global_index() / 32;
    let warp = Warp::full();
    while row < p.rows as usize {
        // SAFETY: the caller's conditions; every index is checked against the row's end.
        unsafe {
            let (start, end) = row_range(row, p.width as usize, p.offsets as *const u64);
            let mut carry = op.identity();
            let mut base = start;
            while base < end {
                let first = base + lane * ITEMS;
                let mut items = [op.identity(); ITEMS];
                for (k, item) in items.iter_mut().enumerate() {
                    if first + k < end {
                        *item = load(*input.add(first + k));
                    }
                }
                let mut total = items[0];
                for item in &items[1..] {
                    total = op.combine(total, *item);
                }
                let before = warp.exclusive_scan(total, op);
                let mut run = if lane == 0 {
                    carry
                } else {
                    op.combine(carry, before)
                };
                for (k, item) in items.iter().enumerate() {
                    let inclusive = op.combine(run, *item);
                    if first + k < end {
                        *output.add(first + k) = store(if exclusive { run } else { inclusive });
                    }
                    run = inclusive;
                }
                carry = warp.shfl(run, 31);
                base += 32 * ITEMS;
            }
        }
        row += warps;
    }
}
