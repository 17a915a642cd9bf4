//! The single-pass device scan: one tile per block, a look-back over fixed groups of tiles,
//! deterministic for every operator.
//!
//! Each block takes the next tile from a ticket counter, scans its items, publishes the tile's
//! aggregate, and warp 0 finds the tile's exclusive prefix from what older tiles published
//! ([`tile_prefix`]). The prefix is defined by fixed shapes, so it has the same bits whichever
//! tile finished first, on every grid, device and target, for float sums too:
//!
//! - tiles form groups of 32 ([`SCAN_GROUP`]); the aggregate of group `g` is the warp's
//!   Hillis–Steele inclusive scan of its 32 tile aggregates, read at lane 31;
//! - the prefix before group `g` is the left fold `((G(0) ⊕ G(1)) ⊕ …) ⊕ G(g-1)`;
//! - tile `32g + r`'s exclusive prefix is (prefix before group `g`) ⊕ (the Hillis–Steele scan
//!   of the group's first `r` aggregates, read at lane `r - 1`).
//!
//! The last tile of each group publishes the group's aggregate and its inclusive prefix. A
//! look-back reads, per lane, one of the 32 groups before its own: the group's inclusive prefix
//! if published, else its aggregate; it then folds left from the newest published prefix.
//! Extending a left fold from any published prefix gives the same bits as the whole fold, so
//! which prefix it found does not matter. This is CUB's decoupled look-back over groups of
//! tiles (as CUB 3.5's "stable" look-ahead), with the fold order made part of the definition.
//!
//! The kernel keeps its own epoch in the control block ([`ScanControl`]): tickets, finished
//! tiles and the epoch reset themselves when the last tile finishes, so a launch captured in a
//! CUDA graph is correct on every replay and needs no initialisation launch.

use super::sync::{Backoff, atom_add_relaxed_gpu_u32, ld_relaxed_gpu_u32, warp_poll};
use super::tile_status::{Slot, TileStatus};
use super::tuning::{SCAN_STRIPES, SCAN_THREADS, vectorizes};
use super::Vector;
use crate::abi::layout::{MAX_EPOCH, SCAN_GROUP, ScanControl};
use crate::abi::params;
use crate::lane::{LaneMask, lane_id};
use crate::ops::ReduceOp;
use crate::tile::Warp;
use crate::{block, thread};
use bytemuck::Pod;
use core::mem::size_of;

/// The block's shared memory.
#[repr(C)]
pub struct ScanShared<A> {
    warp_totals: [A; 32],
    prefix: A,
    tile: u32,
    epoch: u32,
}

/// Warp 0 of tile `tile > 0`: the tile's exclusive prefix (see the [module docs](self)).
/// The last tile of a group also publishes the group's aggregate and inclusive prefix.
///
/// # Safety
/// Called by the 32 lanes of warp 0; every tile below `tile` belongs to this run.
#[inline(always)]
unsafe fn tile_prefix<A: Pod, Op: ReduceOp<A>>(
    tile: u32,
    tile_total: A,
    status: TileStatus,
    op: Op,
) -> A {
    let lane = lane_id();
    let warp = Warp::full();
    let group = tile / SCAN_GROUP as u32;
    let rank = tile % SCAN_GROUP as u32;
    let first = group * SCAN_GROUP as u32;
    // SAFETY: every slot read belongs to an older tile or group of this run.
    unsafe {
        let peer = warp_poll(lane < rank, op.identity(), || {
            status.read::<A>(Slot::Tile(first + lane))
        });
        let scanned = warp.inclusive_scan(if lane == rank { tile_total } else { peer }, op);
        let in_group = warp.shfl(scanned, rank.saturating_sub(1));
        let last_of_group = rank == SCAN_GROUP as u32 - 1;
        if last_of_group && lane == 31 {
            status.publish(Slot::Group(group), scanned);
        }
        let before_group = if group == 0 {
            op.identity()
        } else {
            group_prefix(group, status, op)
        };
        let group_total = warp.shfl(scanned, 31);
        if last_of_group && lane == 0 {
            status.publish(Slot::GroupPrefix(group), op.combine(before_group, group_total));
        }
        match (group, rank) {
            (_, 0) => before_group,
            (0, _) => in_group,
            _ => op.combine(before_group, in_group),
        }
    }
}

/// Warp 0: the left fold of every group's aggregate before `group > 0`. Lane `i` watches group
/// `group - 1 - i` (lane `group` stands for the empty prefix before group 0).
///
/// # Safety
/// As [`tile_prefix`].
#[inline(always)]
unsafe fn group_prefix<A: Pod, Op: ReduceOp<A>>(group: u32, status: TileStatus, op: Op) -> A {
    let lane = lane_id();
    let warp = Warp::full();
    let watched = group.wrapping_sub(1 + lane);
    let mut backoff = Backoff::new();
    loop {
        // SAFETY: every group watched is older than this tile's.
        let (value, is_prefix) = warp_poll(lane < group, (op.identity(), lane == group), || unsafe {
            status
                .read::<A>(Slot::GroupPrefix(watched))
                .map(|p| (p, true))
                .or_else(|| status.read::<A>(Slot::Group(watched)).map(|a| (a, false)))
        });
        let prefixes = crate::vote::ballot(LaneMask::FULL, is_prefix);
        if prefixes != 0 {
            let newest = prefixes.trailing_zeros();
            let mut acc = warp.shfl(value, newest);
            for i in (0..newest).rev() {
                acc = op.combine(acc, warp.shfl(value, i));
            }
            return acc;
        }
        // No inclusive prefix in the 32 groups before: wait until one appears.
        backoff.pause();
    }
}

/// One tile of the device scan (see the [module docs](self)): items `T` are combined as `A`
/// (`load`, then `store` for the output).
///
/// Each warp scans `32 * STRIPES * VEC` consecutive items as `STRIPES` stripes: in a stripe,
/// lane `l` holds items `l * VEC .. (l + 1) * VEC`, so every load and store instruction of
/// the warp covers 512 contiguous bytes. The stripes' warp scans are independent; a carry
/// chains them.
///
/// # Safety
/// Launched with [`SCAN_THREADS`] threads per block and one block per tile of
/// [`scan_tile_items`](crate::abi::layout::scan_tile_items) items; `p` as documented on
/// [`params::Scan`]; `shared` is this block's shared memory.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // index loops unroll into registers
pub unsafe fn scan<T: Pod, A: Pod, Op: ReduceOp<A>, const VEC: usize>(
    p: params::Scan,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
    shared: *mut ScanShared<A>,
) {
    const { assert!(VEC == super::tuning::vector_items(size_of::<T>())) };
    let (input, output, len) = (p.input as *const T, p.output as *mut T, p.len as usize);
    let control = p.control as *mut ScanControl;
    let tid = thread::thread_idx_x();
    let lane = lane_id() as usize;
    let warp = Warp::full();
    // SAFETY: the caller's conditions; scalar accesses are checked against `len`.
    unsafe {
        // Tiles are handed out in the order blocks start, so every older tile is running or
        // done: the look-back always makes progress.
        if tid == 0 {
            (*shared).tile = atom_add_relaxed_gpu_u32(&raw mut (*control).ticket, 1);
            (*shared).epoch = ld_relaxed_gpu_u32(&raw const (*control).epoch);
        }
        thread::sync_threads();
        let (tile, epoch) = ((*shared).tile, (*shared).epoch);
        let status = TileStatus {
            words: p.status as *mut u64,
            capacity: p.capacity,
            flag: epoch + 1,
        };
        let tile_items = SCAN_THREADS as usize * SCAN_STRIPES * VEC;
        let warp_start = tile as usize * tile_items + (tid / 32) as usize * 32 * SCAN_STRIPES * VEC;
        let first = |s: usize| warp_start + s * 32 * VEC + lane * VEC;
        let vectorized = vectorizes(size_of::<T>())
            && (tile as usize + 1) * tile_items <= len
            && (input as usize | output as usize) % 16 == 0;
        let mut items = [[op.identity(); VEC]; SCAN_STRIPES];
        for s in 0..SCAN_STRIPES {
            if vectorized {
                let Vector(x) = *(input.add(first(s)) as *const Vector<T, VEC>);
                for e in 0..VEC {
                    items[s][e] = load(x[e]);
                }
            } else {
                for e in 0..VEC {
                    if first(s) + e < len {
                        items[s][e] = load(*input.add(first(s) + e));
                    }
                }
            }
        }
        // Each stripe: the lane's total, then the warp's exclusive scan of those totals.
        let mut before = [op.identity(); SCAN_STRIPES];
        let mut stripe_total = [op.identity(); SCAN_STRIPES];
        for s in 0..SCAN_STRIPES {
            let mut total = items[s][0];
            for e in 1..VEC {
                total = op.combine(total, items[s][e]);
            }
            let inclusive = warp.inclusive_scan(total, op);
            stripe_total[s] = warp.shfl(inclusive, 31);
            let shifted = warp.shfl_up(inclusive, 1);
            before[s] = if lane == 0 { op.identity() } else { shifted };
        }
        // carry[s] = total[0] ⊕ … ⊕ total[s-1]: what the warp's earlier stripes add up to.
        let mut carry = [op.identity(); SCAN_STRIPES];
        for s in 1..SCAN_STRIPES {
            carry[s] = if s == 1 {
                stripe_total[0]
            } else {
                op.combine(carry[s - 1], stripe_total[s - 1])
            };
        }
        let warp_total = if SCAN_STRIPES == 1 {
            stripe_total[0]
        } else {
            op.combine(carry[SCAN_STRIPES - 1], stripe_total[SCAN_STRIPES - 1])
        };
        let totals = (&raw mut (*shared).warp_totals).cast::<A>();
        let (warp_prefix, tile_total) = block::scan_warp_totals(warp_total, op, totals);
        let mut base = warp_prefix;
        if tile > 0 {
            if tid == 0 {
                status.publish(Slot::Tile(tile), tile_total);
            }
            if tid < 32 {
                let before_tile = tile_prefix(tile, tile_total, status, op);
                if tid == 0 {
                    (*shared).prefix = before_tile;
                }
            }
            thread::sync_threads();
            let before_tile = (*shared).prefix;
            base = if tid < 32 {
                before_tile
            } else {
                op.combine(before_tile, warp_prefix)
            };
        } else if tid == 0 {
            status.publish(Slot::Tile(0), tile_total);
        }
        for s in 0..SCAN_STRIPES {
            let mut run = op.combine(op.combine(base, carry[s]), before[s]);
            let mut out = [T::zeroed(); VEC];
            for e in 0..VEC {
                let inclusive = op.combine(run, items[s][e]);
                out[e] = store(if p.exclusive != 0 { run } else { inclusive });
                run = inclusive;
            }
            if vectorized {
                *(output.add(first(s)) as *mut Vector<T, VEC>) = Vector(out);
            } else {
                for e in 0..VEC {
                    if first(s) + e < len {
                        *output.add(first(s) + e) = out[e];
                    }
                }
            }
        }
        // The last tile to finish resets the tickets and advances the epoch for the next run.
        if tid == 0 {
            let grid = thread::grid_dim_x();
            if atom_add_relaxed_gpu_u32(&raw mut (*control).done, 1) == grid - 1 {
                (*control).ticket = 0;
                (*control).done = 0;
                (*control).epoch = if epoch + 1 == MAX_EPOCH { 0 } else { epoch + 1 };
            }
        }
    }
}
