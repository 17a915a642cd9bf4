//! Batched reduce and scan: rows of one width or given by offsets, one warp per row; the
//! reduce of rows of one width of at least
//! [`ROWS_BLOCK_WIDTH`](super::tuning::ROWS_BLOCK_WIDTH) items gives each row a block.
//! Blocks stride over the rows, so any grid gives the same results.

use super::tuning::{
    ROWS_BLOCK_VECTORS, ROWS_SCAN_ITEMS, ROWS_THREADS, rows_reduce_takes_blocks,
    rows_scan_moves_vectors, vectorizes,
};
use super::{Vector, unrolled};
use crate::abi::params;
use crate::block::{self, TempStorage};
use crate::kernel::{self as thread, lane_id};
use crate::ops::ReduceOp;
use crate::warp::Warp;
use bytemuck::Pod;
use core::mem::size_of;

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

/// `output[row]` is `store` of the row's reduction (items combined as `A`): one warp per row,
/// or one block per row for wide rows and a commutative `op` ([`rows_reduce_takes_blocks`]).
///
/// # Safety
/// `p` as documented on [`params::Rows`]: `input` holds every row, `output` has `rows` items,
/// `offsets` is null or has `rows + 1` non-decreasing entries inside `input`; blocks of
/// [`ROWS_THREADS`] threads; `shared` is this block's shared memory.
#[inline(always)]
pub unsafe fn rows_reduce<T: Pod, A: Pod, Op: ReduceOp<A>, const VEC: usize>(
    p: params::Rows,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
    shared: *mut TempStorage<A>,
) {
    if Op::COMMUTATIVE && rows_reduce_takes_blocks(p.width, p.offsets) {
        // SAFETY: forwarded; the block's shared memory is its storage alone.
        return unsafe { block_rows_reduce::<T, A, Op, VEC>(p, op, load, store, &*shared) };
    }
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

/// Block `b` reduces rows `b, b + grid, …` ([`ROWS_BLOCK_WIDTH`](super::tuning::ROWS_BLOCK_WIDTH)
/// items or more each), in steps
/// of `ROWS_THREADS × VEC × ROWS_BLOCK_VECTORS` items: in each step thread `t` combines the
/// items of the step's vectors `t, t + ROWS_THREADS, …` in order, then the block reduces the
/// threads' values. A whole step of a 16-byte-aligned row is loaded as vectors (all of a
/// thread's in flight), any other item by item in the same order: a row's bits depend on its
/// values alone, not on its address.
///
/// # Safety
/// As [`rows_reduce`], with rows of one width (`p.offsets` null) and `op` commutative.
#[inline(always)]
unsafe fn block_rows_reduce<T: Pod, A: Pod, Op: ReduceOp<A>, const VEC: usize>(
    p: params::Rows,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
    storage: &TempStorage<A>,
) {
    const U: usize = ROWS_BLOCK_VECTORS;
    let (input, output) = (p.input as *const T, p.output as *mut T);
    let (width, threads) = (p.width as usize, ROWS_THREADS as usize);
    let step = threads * VEC * U;
    let tid = thread::thread_idx_x() as usize;
    let mut row = thread::block_idx_x() as usize;
    while row < p.rows as usize {
        let (start, end) = (row * width, row * width + width);
        let mut acc = op.identity();
        let mut base = start;
        // SAFETY: the caller's conditions; every item read is inside the row (a vector only
        // where the whole step is), and every thread of the block takes the same rows, so all
        // of them reach the block reduce.
        unsafe {
            while base < end {
                let vectors = input.add(base) as *const Vector<T, VEC>;
                if vectorizes(size_of::<T>()) && base + step <= end && vectors.is_aligned() {
                    let mut loaded = [Vector([T::zeroed(); VEC]); U];
                    #[allow(clippy::needless_range_loop)] // index loops unroll into registers
                    for u in 0..U {
                        loaded[u] = *vectors.add(u * threads + tid);
                    }
                    #[allow(clippy::needless_range_loop)]
                    for u in 0..U {
                        for e in 0..VEC {
                            acc = op.combine(acc, load(loaded[u].0[e]));
                        }
                    }
                } else {
                    for u in 0..U {
                        let first = base + (u * threads + tid) * VEC;
                        for e in 0..VEC {
                            if first + e < end {
                                acc = op.combine(acc, load(*input.add(first + e)));
                            }
                        }
                    }
                }
                base += step;
            }
            let total = block::reduce(acc, op, storage);
            if tid == 0 {
                *output.add(row) = store(total);
            }
        }
        row += thread::grid_dim_x() as usize;
    }
}

/// One warp per row: the row's inclusive (or exclusive) scan into the same positions of
/// `output`. Each lane takes a run of consecutive items per step: one 16-byte vector of `VEC`
/// items where [`rows_scan_moves_vectors`], else [`ROWS_SCAN_ITEMS`] items.
///
/// # Safety
/// As [`rows_reduce`], with `output` the same length as `input`.
#[inline(always)]
pub unsafe fn rows_scan<T: Pod, A: Pod, Op: ReduceOp<A>, const VEC: usize>(
    p: params::Rows,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
) {
    // SAFETY: forwarded.
    unsafe {
        if rows_scan_moves_vectors(size_of::<T>()) {
            warp_rows_scan::<T, A, Op, VEC>(p, op, load, store)
        } else {
            warp_rows_scan::<T, A, Op, ROWS_SCAN_ITEMS>(p, op, load, store)
        }
    }
}

/// [`rows_scan`] with `ITEMS` items per lane and step; where [`rows_scan_moves_vectors`] (and
/// so `ITEMS` of `T` make 16 bytes), those of a lane whose run is whole and 16-byte aligned
/// are loaded and stored as one vector. On an H200, rows of 1024 `u64` at 2^24 items, four items per lane loaded and stored
/// one by one: 167 µs, L2 83% busy and DRAM 32%
/// (`bench-results/ncu-h200-2026-11-29-rows-scan-w1024.txt`): each store instruction wrote 8
/// bytes into each of 32 sectors. In vectors of two, at 2^28: `u64` 2527 → 1083 µs (0.49 →
/// 1.15× CUB's `InclusiveSumByKey`), `f64` 1902 → 1084 µs.
///
/// # Safety
/// As [`rows_scan`].
#[inline(always)]
unsafe fn warp_rows_scan<T: Pod, A: Pod, Op: ReduceOp<A>, const ITEMS: usize>(
    p: params::Rows,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
) {
    // Also a check of the size, not a `const` assertion: `rows_scan` names this function with
    // `VEC` items for items of every size, and rustc evaluates a named function's `const`
    // blocks even where the branch that calls it is never taken (a `custom_kernels!` value
    // of 12 bytes failed to build).
    let vectors = rows_scan_moves_vectors(size_of::<T>()) && ITEMS * size_of::<T>() == 16;
    let (input, output) = (p.input as *const T, p.output as *mut T);
    let exclusive = p.exclusive != 0;
    let lane = lane_id() as usize;
    let warps = thread::grid_threads() / 32;
    let mut row = thread::global_index() / 32;
    let warp = Warp::full();
    while row < p.rows as usize {
        // SAFETY: the caller's conditions; every index is checked against the row's end, and
        // a vector is whole inside it and aligned.
        unsafe {
            let (start, end) = row_range(row, p.width as usize, p.offsets as *const u64);
            let mut carry = op.identity();
            let mut base = start;
            while base < end {
                let first = base + lane * ITEMS;
                let whole = first + ITEMS <= end;
                let mut items = [op.identity(); ITEMS];
                if vectors && whole && (input.add(first) as usize).is_multiple_of(16) {
                    let vector = *(input.add(first) as *const Vector<T, ITEMS>);
                    unrolled::<ITEMS>(|k| items[k] = load(vector.0[k]));
                } else {
                    unrolled::<ITEMS>(|k| {
                        if first + k < end {
                            items[k] = load(*input.add(first + k));
                        }
                    });
                }
                let mut total = items[0];
                unrolled::<ITEMS>(|k| {
                    if k > 0 {
                        total = op.combine(total, items[k]);
                    }
                });
                let before = warp.exclusive_scan(total, op);
                let mut run = if lane == 0 {
                    carry
                } else {
                    op.combine(carry, before)
                };
                let mut out = [T::zeroed(); ITEMS];
                unrolled::<ITEMS>(|k| {
                    let inclusive = op.combine(run, items[k]);
                    out[k] = store(if exclusive { run } else { inclusive });
                    run = inclusive;
                });
                if vectors && whole && (output.add(first) as usize).is_multiple_of(16) {
                    *(output.add(first) as *mut Vector<T, ITEMS>) = Vector(out);
                } else {
                    unrolled::<ITEMS>(|k| {
                        if first + k < end {
                            *output.add(first + k) = out[k];
                        }
                    });
                }
                carry = warp.shfl(run, 31);
                base += 32 * ITEMS;
            }
        }
        row += warps;
    }
}
