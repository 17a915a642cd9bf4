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
//! **Where the tile lives.** A block copies its tile into shared memory (`cp.async` on sm_80
//! and newer: the loads hold no registers) and reads it twice: once to scan the stripes for
//! the tile's aggregate, once to scan them again with the tile's prefix and store them. No
//! item and no per-stripe prefix stays in a register through the look-back, so a scan thread
//! needs 40 registers (4-byte items) to 59 (8-byte), and an SM keeps 6 tiles of 32 KiB (4-byte
//! items) or 4 of 40 KiB (8-byte) in flight
//! ([`scan_launch_bounds`](super::tuning::scan_launch_bounds)). The second pass repeats the
//! first one's arithmetic, so both see the same bits. Inputs of fewer than 128 full tiles get
//! tiles of fewer stripes ([`layout::scan_stripes`](crate::abi::layout::scan_stripes), a
//! function of the length alone), so they still spread over the multiprocessors.
//!
//! The kernel keeps its own epoch in the control block ([`ScanControl`]): the last tile
//! advances it once its prefix is known (by then every tile has read it), so a launch captured
//! in a CUDA graph is correct on every replay and needs no initialisation launch.

use super::sync::{Backoff, warp_poll};
use super::tile_status::{Slot, TileStatus};
use super::tuning::{SCAN_THREADS, vectorizes};
use super::{Vector, unrolled};
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

/// Warps per scan block.
const WARPS: usize = SCAN_THREADS as usize / 32;

/// The block's shared memory.
#[repr(C, align(16))]
pub struct ScanShared<T, A, const STRIPES: usize, const VEC: usize> {
    /// The tile's items in input order (warp, stripe, lane, item): loaded once, read when the
    /// stripes are scanned and again when they are stored, so no item stays in a register
    /// through the look-back: few registers per thread, and the tile in flight per block is
    /// bounded by shared memory instead.
    tile: [[[[T; VEC]; 32]; STRIPES]; WARPS],
    warp_totals: TempStorage<A>,
    prefix: A,
    epoch: u32,
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
/// Each warp scans `32 * stripes * VEC` consecutive items as `stripes` stripes (`p.stripes`,
/// at most `STRIPES`: smaller inputs get smaller tiles, see
/// [`layout::scan_stripes`](crate::abi::layout::scan_stripes)): in a stripe,
/// lane `l` holds items `l * VEC .. (l + 1) * VEC`, so every load and store instruction of
/// the warp covers 512 contiguous bytes. The tile is staged in shared memory in the same
/// order (with `cp.async` from sm_80, registers on sm_70), and each thread reads back only
/// what it copied. The stripes' warp scans are independent; a carry chains them.
///
/// # Safety
/// Launched with [`SCAN_THREADS`] threads per block and one block per tile of
/// [`scan_tile_items`](crate::abi::layout::scan_tile_items)`(len)` items; `p` as documented on
/// [`params::Scan`]; `shared` is this block's shared memory.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // index loops unroll into registers
pub unsafe fn scan<T: Pod, A: Pod, Op: ReduceOp<A>, const STRIPES: usize, const VEC: usize>(
    p: params::Scan,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
    shared: *mut ScanShared<T, A, STRIPES, VEC>,
) {
    const {
        assert!(VEC == super::tuning::vector_items(size_of::<T>()));
        assert!(STRIPES == super::tuning::scan_stripes(size_of::<T>()));
        assert!(
            size_of::<ScanShared<T, A, STRIPES, VEC>>() <= super::tuning::SCAN_MAX_SHARED_BYTES,
            "the device scan stages a tile of 256 items in shared memory: items of this size do not fit"
        );
    };
    let (input, output, len) = (p.input as *const T, p.output as *mut T, p.len as usize);
    let control = p.control as *mut ScanControl;
    let tid = thread::thread_idx_x();
    let lane = lane_id() as usize;
    let warp = Warp::full();
    // SAFETY: the caller's conditions; scalar accesses are checked against `len`, and each
    // thread reads back only the tile slots it staged itself.
    unsafe {
        let tile = thread::block_idx_x();
        // This run's stripes per thread (the host's `layout::scan_stripes`), at most `STRIPES`.
        let stripes = (p.stripes as usize).clamp(1, STRIPES);
        let tile_items = SCAN_THREADS as usize * stripes * VEC;
        let tile_start = tile as usize * tile_items;
        let tile_len = len.min(tile_start + tile_items) - tile_start;
        let warp_id = (tid / 32) as usize;
        let warp_start = tile_start + warp_id * 32 * stripes * VEC;
        let first = |s: usize| warp_start + s * 32 * VEC + lane * VEC;
        let slots = (&raw mut (*shared).tile).cast::<[T; VEC]>();
        let slot = |s: usize| slots.add((warp_id * stripes + s) * 32 + lane);
        let vectorized = vectorizes(size_of::<T>())
            && tile_len == tile_items
            && (input as usize | output as usize).is_multiple_of(16);
        let staged_items = (&raw mut (*shared).tile).cast::<T>();
        if vectorized {
            stage_vectors::<T, STRIPES, VEC>(stripes, |s| input.add(first(s)), slot);
        } else {
            // A partial or unaligned tile, or items that do not vectorize: item by item, the
            // block's threads side by side (a short loop: few registers for the rare path).
            // Slots past the end hold the identity (stored as an item and loaded back, which
            // every instantiation round-trips exactly), so the scan needs no bounds checks.
            let past_end = store(op.identity());
            let mut i = tid as usize;
            while i < tile_items {
                *staged_items.add(i) = if i < tile_len {
                    *input.add(tile_start + i)
                } else {
                    past_end
                };
                i += SCAN_THREADS as usize;
            }
            thread::sync_threads();
        }
        // The lane's items of stripe `s`, from the staged tile.
        let items = |s: usize| -> [A; VEC] {
            let staged: [T; VEC] = if const { vectorizes(size_of::<T>()) } {
                read_vector(slot(s))
            } else {
                *slot(s)
            };
            staged.map(&load)
        };
        // Stripe `s` of the lane, given what the warp's earlier stripes add up to (`running`,
        // unused for stripe 0): its items, everything of the warp before the lane's items of
        // the stripe (the lane's total's exclusive warp scan after `running`), and the new
        // `running`. The store pass calls it again rather than keep every stripe's prefix in
        // registers through the look-back: the same arithmetic, so the same bits.
        let scan_stripe = |s: usize, running: A| -> ([A; VEC], A, A) {
            let x = items(s);
            let mut total = x[0];
            for e in 1..VEC {
                total = op.combine(total, x[e]);
            }
            let inclusive = warp.inclusive_scan(total, op);
            let shifted = warp.shfl_up(inclusive, 1);
            let before = if lane == 0 { op.identity() } else { shifted };
            let stripe_total = warp.shfl(inclusive, 31);
            if s == 0 {
                (x, before, stripe_total)
            } else {
                (
                    x,
                    op.combine(running, before),
                    op.combine(running, stripe_total),
                )
            }
        };
        let mut running = op.identity();
        unrolled::<STRIPES>(|s| {
            if s < stripes {
                running = scan_stripe(s, running).2;
            }
        });
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
                let before_tile = tile_prefix(tile, tile_total, status, op);
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
        // The lane's outputs of stripe `s`, and the new `running`.
        let outputs = |s: usize, running: A| -> ([T; VEC], A) {
            let (x, lane_prefix, running) = scan_stripe(s, running);
            let mut run = op.combine(base, lane_prefix);
            let mut out = [T::zeroed(); VEC];
            for e in 0..VEC {
                let inclusive = op.combine(run, x[e]);
                out[e] = store(if p.exclusive != 0 { run } else { inclusive });
                run = inclusive;
            }
            (out, running)
        };
        let mut running = op.identity();
        if vectorized {
            unrolled::<STRIPES>(|s| {
                if s < stripes {
                    let (out, next) = outputs(s, running);
                    *(output.add(first(s)) as *mut Vector<T, VEC>) = Vector(out);
                    running = next;
                }
            });
        } else {
            unrolled::<STRIPES>(|s| {
                if s < stripes {
                    let (out, next) = outputs(s, running);
                    *slot(s) = out;
                    running = next;
                }
            });
            thread::sync_threads();
            let mut i = tid as usize;
            while i < tile_len {
                *output.add(tile_start + i) = *staged_items.add(i);
                i += SCAN_THREADS as usize;
            }
        }
    }
}

/// Copies one 16-byte vector per stripe `s < stripes` from `src(s)` to the shared slot `dst(s)`: with
/// `cp.async` where the target has it (no registers; the loads of every stripe in flight at
/// once), else through registers, every load issued before the first store. Returns once the
/// thread may read its slots.
///
/// # Safety
/// `src(s)` are 16-byte-aligned global pointers to 16 readable bytes, `dst(s)` 16-byte-aligned
/// shared slots of 16 bytes that nothing else touches meanwhile.
#[inline(always)]
unsafe fn stage_vectors<T: Pod, const STRIPES: usize, const VEC: usize>(
    stripes: usize,
    src: impl Fn(usize) -> *const T,
    dst: impl Fn(usize) -> *mut [T; VEC],
) {
    // SAFETY: the caller's conditions.
    unsafe {
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
        {
            use crate::instr::memory::{
                cp_async_cg_shared_global_16, cp_async_wait_all, cvta_to_global_u64,
                cvta_to_shared_u64,
            };
            for s in 0..stripes {
                cp_async_cg_shared_global_16(
                    cvta_to_shared_u64(dst(s) as u64),
                    cvta_to_global_u64(src(s) as u64),
                );
            }
            cp_async_wait_all();
        }
        #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
        {
            let mut staged = [Vector([T::zeroed(); VEC]); STRIPES];
            unrolled::<STRIPES>(|s| {
                if s < stripes {
                    staged[s] = *(src(s) as *const Vector<T, VEC>);
                }
            });
            unrolled::<STRIPES>(|s| {
                if s < stripes {
                    *(dst(s) as *mut Vector<T, VEC>) = staged[s];
                }
            });
        }
    }
}

/// The 16 bytes at the shared slot `slot` in one `ld.shared.v4`.
///
/// # Safety
/// `slot` is a 16-byte-aligned pointer into shared memory; `[T; VEC]` is 16 bytes
/// ([`vectorizes`]).
#[inline(always)]
unsafe fn read_vector<T: Pod, const VEC: usize>(slot: *mut [T; VEC]) -> [T; VEC] {
    use crate::instr::memory::{cvta_to_shared_u64, ld_shared_v4_u32};
    // SAFETY: the caller's conditions; 16 bytes of words are a valid `[T; VEC]` of Pod items.
    unsafe { core::mem::transmute_copy(&ld_shared_v4_u32(cvta_to_shared_u64(slot as u64))) }
}
