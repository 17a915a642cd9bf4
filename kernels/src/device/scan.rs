//! The single-pass device scan: one tile per block, a look-back over fixed groups of tiles,
//! deterministic for every operator.
//!
//! Each block scans its tile's items, publishes the tile's
//! aggregate, and warp 0 finds the tile's exclusive prefix from what older tiles published
//! (`tile_prefix`). The prefix is defined by fixed shapes, so it has the same bits whichever
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
//! Tile `t` is block `t`: blocks start in index order, so every older tile is running or done
//! and the look-back always makes progress (CUB's decoupled look-back assumes the same).
//!
//! A carry-in ([`params::Scan::carry`]), when given, is combined in front of each thread's
//! prefix (`c ⊕ prefix`), so a scan can continue one that ended elsewhere (another GPU's
//! shard) without a second pass over the output.
//!
//! The kernel keeps its own epoch in the control block ([`ScanControl`]): the last tile
//! advances it once its prefix is known (by then every tile has read it), so a launch captured
//! in a CUDA graph is correct on every replay and needs no initialisation launch.

use super::Vector;
use super::sync::{Backoff, warp_poll};
use super::tile_status::{Slot, TileStatus};
use super::tuning::{SCAN_THREADS, vectorizes};
use crate::abi::layout::{MAX_EPOCH, SCAN_GROUP, ScanControl};
use crate::abi::params;
use crate::block;
use crate::block::TempStorage;
use crate::instr::LaneMask;
use crate::instr::memory::ld_relaxed_gpu_u32;
use crate::kernel::{self as thread, lane_id};
use crate::ops::ReduceOp;
use crate::warp::Warp;
use bytemuck::Pod;
use core::mem::size_of;

/// The block's shared memory.
#[repr(C)]
pub struct ScanShared<A, const STRIPES: usize, const VEC: usize> {
    warp_totals: TempStorage<A>,
    prefix: A,
    epoch: u32,
    /// Warp 0's items while it looks back, so the look-back's registers come on top of
    /// nothing: fewer registers per thread, more tiles per multiprocessor.
    parked: [[[A; VEC]; STRIPES]; 32],
}

/// Warp 0 of tile `tile > 0`: the tile's exclusive prefix (see the [module docs](self)).
/// The last tile of a group also publishes the group's aggregate and inclusive prefix.
///
/// Lane `i` watches both the group's tile `i` (for `i` below the tile's rank) and the group
/// `group - 1 - i` before it (lane `group` stands for the empty prefix before group 0), so one
/// round of loads serves both halves of the look-back.
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
    let peer_slot = Slot::Tile(group * SCAN_GROUP as u32 + lane);
    let watched = group.wrapping_sub(1 + lane);
    let identity = op.identity();
    let mut backoff = Backoff::new();
    // SAFETY: every slot read belongs to an older tile or group of this run.
    unsafe {
        let mut peer = None;
        let last_of_group = rank == SCAN_GROUP as u32 - 1;
        if last_of_group {
            // The group's aggregate goes out before this tile looks further back: later
            // groups may need it to get past this one.
            let p = warp_poll(lane < rank, identity, || status.read::<A>(peer_slot));
            peer = Some(p);
            let scanned = warp.inclusive_scan(if lane == rank { tile_total } else { p }, op);
            if lane == 31 {
                status.publish(Slot::Group(group), scanned);
            }
        }
        loop {
            let ((peer_value, value), is_prefix) = warp_poll(
                lane < rank || lane < group,
                ((identity, identity), lane == group),
                || {
                    // Every load is issued before any is looked at: one round trip to L2.
                    let fresh_peer =
                        (lane < rank && peer.is_none()).then(|| status.read::<A>(peer_slot));
                    let in_window = lane < group;
                    let prefix = in_window.then(|| status.read::<A>(Slot::GroupPrefix(watched)));
                    let aggregate = in_window.then(|| status.read::<A>(Slot::Group(watched)));
                    if let Some(fresh) = fresh_peer {
                        peer = fresh;
                    }
                    let p = if lane < rank { peer? } else { identity };
                    if !in_window {
                        return Some(((p, identity), lane == group));
                    }
                    match (prefix.flatten(), aggregate.flatten()) {
                        (Some(g), _) => Some(((p, g), true)),
                        (None, Some(g)) => Some(((p, g), false)),
                        (None, None) => None,
                    }
                },
            );
            let prefixes = crate::warp::vote::ballot_sync(LaneMask::FULL, is_prefix);
            if prefixes == 0 {
                // No inclusive prefix in the 32 groups before: wait until one appears.
                backoff.pause();
                continue;
            }
            let scanned =
                warp.inclusive_scan(if lane == rank { tile_total } else { peer_value }, op);
            let in_group = warp.shfl(scanned, rank.saturating_sub(1));
            let newest = prefixes.trailing_zeros();
            let mut before_group = warp.shfl(value, newest);
            for i in (0..newest).rev() {
                before_group = op.combine(before_group, warp.shfl(value, i));
            }
            if last_of_group {
                let group_total = warp.shfl(scanned, 31);
                if lane == 0 {
                    status.publish(
                        Slot::GroupPrefix(group),
                        op.combine(before_group, group_total),
                    );
                }
            }
            return match (group, rank) {
                (_, 0) => before_group,
                (0, _) => in_group,
                _ => op.combine(before_group, in_group),
            };
        }
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
pub unsafe fn scan<T: Pod, A: Pod, Op: ReduceOp<A>, const STRIPES: usize, const VEC: usize>(
    p: params::Scan,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
    shared: *mut ScanShared<A, STRIPES, VEC>,
) {
    const {
        assert!(VEC == super::tuning::vector_items(size_of::<T>()));
        assert!(STRIPES == super::tuning::scan_stripes(size_of::<T>()));
    };
    let (input, output, len) = (p.input as *const T, p.output as *mut T, p.len as usize);
    let control = p.control as *mut ScanControl;
    let tid = thread::thread_idx_x();
    let lane = lane_id() as usize;
    let warp = Warp::full();
    // SAFETY: the caller's conditions; scalar accesses are checked against `len`.
    unsafe {
        let tile = thread::block_idx_x();
        let tile_items = SCAN_THREADS as usize * STRIPES * VEC;
        let warp_start = tile as usize * tile_items + (tid / 32) as usize * 32 * STRIPES * VEC;
        let first = |s: usize| warp_start + s * 32 * VEC + lane * VEC;
        let vectorized = vectorizes(size_of::<T>())
            && (tile as usize + 1) * tile_items <= len
            && (input as usize | output as usize).is_multiple_of(16);
        let mut items = [[op.identity(); VEC]; STRIPES];
        for s in 0..STRIPES {
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
        // Each stripe: the lane's total, the warp's exclusive scan of those totals, and what
        // the warp's earlier stripes add up to (`running`): `lane_prefix[s]` is everything of
        // the warp before the lane's items of stripe `s`.
        let mut lane_prefix = [op.identity(); STRIPES];
        let mut running = op.identity();
        for s in 0..STRIPES {
            let mut total = items[s][0];
            for e in 1..VEC {
                total = op.combine(total, items[s][e]);
            }
            let inclusive = warp.inclusive_scan(total, op);
            let shifted = warp.shfl_up(inclusive, 1);
            let before = if lane == 0 { op.identity() } else { shifted };
            let stripe_total = warp.shfl(inclusive, 31);
            if s == 0 {
                lane_prefix[s] = before;
                running = stripe_total;
            } else {
                lane_prefix[s] = op.combine(running, before);
                running = op.combine(running, stripe_total);
            }
        }
        let warp_total = running;
        // The epoch is read here, its latency hidden behind the loads; the block's barriers
        // below make it visible to warp 0.
        if tid == 0 {
            (*shared).epoch = ld_relaxed_gpu_u32(&raw const (*control).epoch);
        }
        let (warp_prefix, tile_total) =
            block::scan_warp_totals(warp_total, op, &(*shared).warp_totals);
        let epoch = (*shared).epoch;
        let status = TileStatus {
            words: p.status as *mut u64,
            capacity: p.capacity,
            flag: epoch + 1,
        };
        // The last tile's prefix depends on every other tile's aggregate, so once it has it,
        // every tile has read this run's epoch: the last tile advances it for the next run.
        let last = tile == thread::grid_dim_x() - 1;
        let advance_epoch =
            || (*control).epoch = if epoch + 1 == MAX_EPOCH { 0 } else { epoch + 1 };
        let mut base = warp_prefix;
        if tile > 0 {
            if tid == 0 {
                status.publish(Slot::Tile(tile), tile_total);
            }
            if tid < 32 {
                let parked = &raw mut (*shared).parked[lane % 32];
                *parked = items;
                let before_tile = tile_prefix(tile, tile_total, status, op);
                items = *parked;
                if tid == 0 {
                    (*shared).prefix = before_tile;
                    if last {
                        advance_epoch();
                    }
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
            if last {
                advance_epoch();
            }
        }
        if p.carry != 0 {
            // The carry-in comes first: one combine per thread, the same for every tile.
            base = op.combine(*(p.carry as *const A), base);
        }
        for s in 0..STRIPES {
            let mut run = op.combine(base, lane_prefix[s]);
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
    }
}
