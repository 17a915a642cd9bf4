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
//! **Flat look-back** for launches of at most [`SCAN_FLAT_TILES`](crate::abi::layout::SCAN_FLAT_TILES)
//! tiles (8 groups, one per warp; such a launch fits in one wave of blocks): warp `w` of each
//! tile reads the aggregates of group `w`'s tiles itself and scans them as the group's last
//! tile would, and the block folds the results left from the identity (`flat_group_scan`,
//! `flat_tile_prefix`): the same values in the same order, so the same bits as the look-back
//! over groups, but no tile waits for a group's last tile to see its group and publish it (a
//! second round trip through L2 after the group's slowest tile). On an H200
//! (`h200-2026-11-28-flat-lookback-ab.csv`, cold L2) this took the `u64`/`f64` sums at 2^20
//! items from 11.2-11.5 to 10.6-10.9 µs and `u32` from 9.2-9.5 to 8.8-9.1 µs. For 8-byte
//! items the flat look-back lives in the copies of the tile code for small launches (beside
//! the cluster's), not in the look-back's copy, which then runs as it did before the flat
//! look-back existed: 1% faster at 2^28 items ([`scan_flat_copy`](super::tuning::scan_flat_copy)).
//!
//! Tile `t` is block `t`: blocks start in index order, so every older tile is running or done
//! and the look-back always makes progress (CUB's decoupled look-back assumes the same).
//!
//! Warp 0 asks L2 for the status lines its look-back will read (`prefetch.global.L2`, with
//! `::evict_last` where the PTX has it) as the tile starts, before its loads: while the tile
//! streams in, those lines would otherwise have left L2, and the look-back's first polls would
//! wait for DRAM. On an H200 at 2^28 items this made the scans 1-2.5% faster (u32 638 → 630
//! µs, u64 1237 → 1206 µs).
//!
//! A carry-in ([`params::Scan::carry`]), when given, is combined in front of each thread's
//! prefix (`c ⊕ prefix`), so a scan can continue one that ended elsewhere (another GPU's
//! shard) without a second pass over the output.
//!
//! **Where the tile lives.** A block copies its tile into shared memory (`cp.async` on sm_80
//! and newer: the loads hold no registers), *striped*: each of the warp's load instructions
//! covers 512 contiguous bytes. It then reads it *blocked*: each lane folds its own
//! consecutive items, so a warp runs one warp scan per pass, however many items it holds
//! (CUB's `BlockLoad` / `BlockExchange` arrangement, through an XOR swizzle of the slots
//! instead of padding). After the look-back each lane reads its items again, scans them
//! after its prefix and writes them back, and the warp stores them striped. No item stays
//! in a register through the look-back, and each thread's prefix waits in shared memory (but
//! for 4-byte items, which fill tiles of 9 stripes, 36 KiB, and keep it in a register), so a
//! scan thread needs 40 registers: an SM keeps 6 tiles in flight
//! ([`scan_launch_bounds`](super::tuning::scan_launch_bounds)). Inputs of fewer than 128
//! full tiles get tiles of fewer stripes ([`layout::scan_stripes`](crate::abi::layout::scan_stripes),
//! a function of the length alone), so they still spread over the multiprocessors; one that
//! fits a single look-back group of tiles of at most 4 stripes takes one group, so that no
//! tile waits for a group before its own.
//!
//! **One cluster instead of the look-back** ([`scan_pass::CLUSTER`]): an input of at most
//! [`SCAN_CLUSTER_TILES`](crate::abi::layout::SCAN_CLUSTER_TILES) tiles of at most 8 stripes
//! for 4-byte items, 4 for others
//! ([`layout::scan_cluster_stripes`](crate::abi::layout::scan_cluster_stripes)) is launched as
//! one thread block cluster (compiled for sm_90 or newer with PTX 8.1). Each tile sends its
//! total into the shared memory of every later tile of the cluster with `st.async`, which
//! completes on an `mbarrier` of the receiving tile; each tile waits on its own mbarrier for
//! the totals before it alone and scans them with the look-back's own warp scan
//! (`cluster_tile_prefix`): the same bits, with no round trip through L2, no epoch, and one
//! cluster barrier phase (every block has started and initialised its mbarrier). The kernel
//! has separate copies of its tile code for the look-back and for clusters of narrow (up to
//! 4 stripes) and wide tiles, so none carries another's registers or branches.
//!
//! **Two passes instead of one** ([`params::Scan::pass`]): the same kernel can instead write
//! each tile's total (a read-only pass, [`scan_pass::TILE_TOTALS`]) and, once the caller has
//! scanned those totals, scan each tile after its given prefix with no look-back
//! ([`scan_pass::FROM_TILE_PREFIXES`]). The tiles, and the order in which each tile combines
//! its items, are those of the single pass.
//!
//! The kernel keeps its own epoch in the control block ([`ScanControl`]): the last tile
//! advances it once its prefix is known (by then every tile has read it), so a launch captured
//! in a CUDA graph is correct on every replay and needs no initialisation launch.

use super::sync::{Backoff, warp_poll};
use super::tile_status::{Slot, StatusArray, TileStatus};
use super::tuning::{SCAN_THREADS, vectorizes};
use super::{Vector, unrolled};
use crate::abi::layout::{MAX_EPOCH, SCAN_GROUP, ScanControl};
use crate::abi::params::{self, scan_pass};
use crate::block;
use crate::block::TempStorage;
use crate::instr::LaneMask;
use crate::instr::barrier::bar_warp_sync;
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx81")
))]
use crate::instr::cluster::{
    barrier_cluster_arrive_relaxed, barrier_cluster_wait, mapa_shared_cluster_u64,
};
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx81")
))]
use crate::instr::mbarrier::{
    fence_mbarrier_init_release_cluster, mbarrier_arrive_expect_tx_shared_b64,
    mbarrier_init_shared_b64, mbarrier_try_wait_parity_acquire_cluster_shared_b64,
    st_async_shared_cluster_mbarrier_complete_tx_bytes_b32,
};
use crate::instr::memory::{
    cvta_to_shared_u64, ld_relaxed_gpu_u32, ld_shared_v4_u32, st_shared_v4_u32,
};
use crate::kernel::{self as thread, lane_id};
use crate::ops::ReduceOp;
use crate::warp::Warp;
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx81")
))]
use crate::warp::shfl::map_words;
use bytemuck::Pod;
use core::mem::size_of;

/// Warps per scan block.
const WARPS: usize = SCAN_THREADS as usize / 32;

/// The block's shared memory.
#[repr(C, align(16))]
pub struct ScanShared<
    T,
    A,
    const STRIPES: usize,
    const VEC: usize,
    const SAVED: usize,
    const ROWS: usize,
> {
    /// The tile's items, each warp's part in its own `32 * STRIPES` vectors: loaded once, read
    /// when the lanes fold their items and again when they scan and store them, so no item
    /// stays in a register through the look-back: few registers per thread, and the tile in
    /// flight per block is bounded by shared memory instead.
    tile: [[[[T; VEC]; 32]; STRIPES]; WARPS],
    warp_totals: TempStorage<A>,
    /// Each thread's exclusive prefix within the tile, from the first pass to the second
    /// ([`scan_saved_prefixes`](super::tuning::scan_saved_prefixes): for items that
    /// vectorize; larger ones keep it in a register and their tile in shared memory).
    thread_prefixes: [A; SAVED],
    /// In a cluster launch ([`scan_pass::CLUSTER`]), the totals of the earlier tiles, sent
    /// by them: tile `t`'s in row `t`, one 32-bit word of the accumulator per column. Tiles
    /// send only to later tiles, so a tile's own row never receives: it holds the mbarrier
    /// on which the sends complete ([`cluster_tile_prefix`]).
    cluster_totals: [ClusterRow; ROWS],
    prefix: A,
    /// In a launch of at most [`FLAT_TILES`] tiles, warp `w`'s scan of group `w`'s tile
    /// aggregates ([`flat_group_scan`]).
    group_scans: [A; WARPS],
    epoch: u32,
}

/// Accumulator words a cluster launch's tile total may have
/// ([`scan_cluster_rows`](super::tuning::scan_cluster_rows)).
pub(crate) const CLUSTER_TOTAL_WORDS: usize = 4;

/// One row of [`ScanShared::cluster_totals`]: an earlier tile's total, or (in the tile's own
/// row) an mbarrier, hence 8-byte aligned.
#[repr(C, align(8))]
struct ClusterRow([u32; CLUSTER_TOTAL_WORDS]);

/// Whether this launch runs as one cluster ([`scan_pass::CLUSTER`]): asked for, and the kernel
/// has rows for the tiles' totals (`ROWS`: compiled for sm_90 or newer with PTX 8.1, an
/// accumulator of whole 32-bit words that fits a row). Otherwise a cluster launch takes the look-back.
#[inline(always)]
fn cluster_launch<const ROWS: usize>(pass: u32) -> bool {
    ROWS > 0 && pass == scan_pass::CLUSTER
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
        // Plain values and flags rather than `Option`s carried through closures: the
        // look-back of 8-byte values then fits the registers of 5 blocks per SM.
        let mut peer = identity;
        let mut have_peer = lane >= rank;
        let last_of_group = rank == SCAN_GROUP as u32 - 1;
        if last_of_group {
            // The group's aggregate goes out before this tile looks further back: later
            // groups may need it to get past this one.
            peer = warp_poll(!have_peer, identity, || status.read::<A>(peer_slot));
            have_peer = true;
            let scanned = warp.inclusive_scan(if lane == rank { tile_total } else { peer }, op);
            if lane == 31 {
                status.publish(Slot::Group(group), scanned);
            }
        }
        let in_window = lane < group;
        let (value, prefixes) = loop {
            // The lane's group: its inclusive prefix if published, else its aggregate; lane
            // `group` holds the empty prefix before group 0.
            let (mut value, mut found, mut is_prefix) = (identity, !in_window, lane == group);
            let mut waiting = Backoff::new();
            loop {
                // Every load is issued before any is looked at: one round trip to L2.
                let fresh_peer = (!have_peer).then(|| status.read::<A>(peer_slot));
                let prefix = (!found).then(|| status.read::<A>(Slot::GroupPrefix(watched)));
                let aggregate = (!found).then(|| status.read::<A>(Slot::Group(watched)));
                if let Some(Some(fresh)) = fresh_peer {
                    (peer, have_peer) = (fresh, true);
                }
                match (prefix.flatten(), aggregate.flatten()) {
                    (Some(g), _) => (value, found, is_prefix) = (g, true, true),
                    (None, Some(g)) => (value, found) = (g, true),
                    (None, None) => {}
                }
                // The whole warp backs off while any lane still waits (as `warp_poll`).
                if crate::warp::vote::all_sync(LaneMask::FULL, have_peer && found) {
                    break;
                }
                waiting.pause();
            }
            let prefixes = crate::warp::vote::ballot_sync(LaneMask::FULL, is_prefix);
            if prefixes != 0 {
                break (value, prefixes);
            }
            // No inclusive prefix in the 32 groups before: wait until one appears.
            backoff.pause();
        };
        let scanned = warp.inclusive_scan(if lane == rank { tile_total } else { peer }, op);
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
        match (group, rank) {
            (_, 0) => before_group,
            (0, _) => in_group,
            _ => op.combine(before_group, in_group),
        }
    }
}

/// The `.shared` address of row `row` of a block's `totals` (the same offset in every block of
/// the cluster).
///
/// # Safety
/// `totals` is in this block's shared memory and `row < ROWS`.
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx81")
))]
#[inline(always)]
unsafe fn cluster_row<const ROWS: usize>(totals: *mut [ClusterRow; ROWS], row: u32) -> u64 {
    // SAFETY: the caller's conditions.
    unsafe { cvta_to_shared_u64(totals.cast::<ClusterRow>().wrapping_add(row as usize) as u64) }
}

/// Warp 0 of tile `tile > 0` of a cluster launch, as the kernel starts: lane 0 makes the
/// tile's own row of `totals` an mbarrier that completes once the `tile` earlier tiles' totals
/// have arrived (`tile * size_of::<A>()` bytes of `st.async`, see [`cluster_tile_prefix`]),
/// and fences its init, so that the lane's relaxed arrival at the cluster barrier publishes it.
///
/// The warp synchronises between the init and lane 0's `arrive.expect_tx`. Lane 0 alone
/// touches the mbarrier, but `ptxas` may predicate the init and issue it once for the warp
/// on the uniform datapath (`@UP SYNCS.EXCH.64` under `VOTEU.ANY`), which compute-sanitizer's
/// racecheck attributes to the whole warp: without the warp barrier it reported the init
/// and the arrive as a hazard (H200, `bench-results/h200-2026-11-28-twenty-second-sanitize.txt`);
/// with it `ptxas` branches around the init and racecheck reports none
/// (`…-twenty-third-cluster-warp-sync-sanitize.txt`).
///
/// # Safety
/// As [`cluster_tile_prefix`]; called once by every lane of warp 0, converged, before they
/// arrive at the cluster barrier.
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx81")
))]
#[inline(always)]
unsafe fn expect_cluster_totals<A, const ROWS: usize>(tile: u32, totals: *mut [ClusterRow; ROWS]) {
    // The sends are whole words (`map_words`), each completing 4 bytes.
    const { assert!(size_of::<A>().is_multiple_of(4)) };
    // SAFETY: the caller's conditions: `totals` is this block's, `tile` one of its rows.
    let arrivals = unsafe { cluster_row(totals, tile) };
    let leader = lane_id() == 0;
    // SAFETY: the row is this block's, 8-byte aligned, and nothing else touches it before
    // the cluster barrier; `tile * size_of::<A>() <= 15 * 16` bytes.
    unsafe {
        if leader {
            mbarrier_init_shared_b64(arrivals, 1);
        }
        bar_warp_sync(LaneMask::FULL);
        if leader {
            mbarrier_arrive_expect_tx_shared_b64(arrivals, tile * size_of::<A>() as u32);
            fence_mbarrier_init_release_cluster();
        }
    }
}

/// Tile `tile`'s exclusive prefix in a launch of `tiles` tiles that is one cluster (see
/// [`scan_pass::CLUSTER`]); every thread of the block calls it and gets it. Each tile sends its
/// total into row `tile` of every later tile's `totals` with `st.async`, which completes on
/// that tile's mbarrier ([`expect_cluster_totals`]); tile `t` waits on its own mbarrier for
/// the totals of tiles `0..t` alone, and each of its warps scans them as a look-back group does
/// ([`tile_prefix`], group 0): the same warp scan over the same values, so the same bits. No
/// global memory, no epoch, and no second cluster barrier.
///
/// Every thread arrived at the cluster barrier as the kernel started, thread 0 after its tile's
/// mbarrier was initialised and fenced: once that phase completes every block has started and
/// its mbarrier may be signalled. A tile's shared memory is written only by earlier tiles and
/// only until its mbarrier completes, which every one of its threads waits for; tile 0
/// receives nothing, waits for nothing, and may exit.
///
/// # Safety
/// Launched as one cluster of `tiles` = `%nctaid.x` ≤ `ROWS` =
/// [`SCAN_CLUSTER_TILES`](crate::abi::layout::SCAN_CLUSTER_TILES) blocks,
/// tile `t` being the block of rank `t`, `tile < tiles`; every thread of every block of the
/// cluster arrived at the cluster barrier once at the start of the kernel, warp 0 of each
/// tile after [`expect_cluster_totals`], and calls this once; the accumulator is of whole
/// 32-bit words and fits a row of `totals` ([`CLUSTER_TOTAL_WORDS`] words).
#[cfg(any(
    not(target_arch = "nvptx64"),
    all(target_feature = "sm_90", target_feature = "ptx81")
))]
#[inline(always)]
unsafe fn cluster_tile_prefix<A: Pod, Op: ReduceOp<A>, const ROWS: usize>(
    tile: u32,
    tiles: u32,
    tile_total: A,
    totals: *mut [ClusterRow; ROWS],
    op: Op,
) -> A {
    let tid = thread::thread_idx_x();
    let identity = op.identity();
    let lane = lane_id();
    // SAFETY: the caller's conditions: the phases and rows are as the docs say.
    unsafe {
        barrier_cluster_wait();
        if tid < 32 && lane > tile && lane < tiles {
            let row = mapa_shared_cluster_u64(cluster_row(totals, tile), lane);
            let arrivals = mapa_shared_cluster_u64(cluster_row(totals, lane), lane);
            let mut k = 0;
            map_words(tile_total, |w| {
                st_async_shared_cluster_mbarrier_complete_tx_bytes_b32(row + 4 * k, w, arrivals);
                k += 1;
                w
            });
        }
        if tile == 0 {
            return identity;
        }
        let arrivals = cluster_row(totals, tile);
        while !mbarrier_try_wait_parity_acquire_cluster_shared_b64(arrivals, 0) {}
        let total = if lane < tile {
            // `lane < tile < SCAN_CLUSTER_TILES` (the caller's condition): the remainder
            // only tells the compiler so, whose bounds check would put a panic branch in the
            // kernel.
            let row = &(*totals)[lane as usize % crate::abi::layout::SCAN_CLUSTER_TILES].0;
            let mut k = 0;
            map_words(identity, |_| {
                k += 1;
                row[(k - 1) % CLUSTER_TOTAL_WORDS]
            })
        } else {
            identity
        };
        let scanned = Warp::full().inclusive_scan(total, op);
        Warp::full().shfl(scanned, tile - 1)
    }
}

/// Tiles, at most, of a look-back launch whose tiles read every older tile's aggregate
/// ([`flat_group_scan`]) instead of the groups' aggregates and prefixes: one group per warp.
const FLAT_TILES: u32 = crate::abi::layout::SCAN_FLAT_TILES;
const _: () = assert!(FLAT_TILES as usize == WARPS * SCAN_GROUP);

/// Warp `w` of tile `tile > 0` of a look-back launch of at most [`FLAT_TILES`] tiles: scans
/// the aggregates of group `w`'s tiles (of its tiles before this one, in the tile's own group)
/// into `group_scans[w]`, as the group's last tile does in [`tile_prefix`]. Once every warp
/// has, [`flat_tile_prefix`] folds them into the tile's prefix.
///
/// This is the look-back of a launch that fits in one wave of blocks: every tile waits for the
/// tiles before it alone, not for a group's last tile to see its group and publish the
/// group's aggregate, a second round trip through L2 after the group's slowest tile.
///
/// # Safety
/// Called by every thread of the block, after thread 0 published the tile's aggregate; every
/// tile below `tile` belongs to this run, and `tile < FLAT_TILES`.
#[inline(always)]
unsafe fn flat_group_scan<A: Pod, Op: ReduceOp<A>>(
    tile: u32,
    status: TileStatus,
    group_scans: *mut [A; WARPS],
    op: Op,
) {
    let lane = lane_id();
    let warp_id = thread::thread_idx_x() / 32;
    let group = tile / SCAN_GROUP as u32;
    // The tiles of group `warp_id` this tile waits for: all of an older group, those before
    // it in its own, none of a later one.
    let waits_for = match warp_id {
        w if w < group => SCAN_GROUP as u32,
        w if w == group => tile % SCAN_GROUP as u32,
        _ => 0,
    };
    if waits_for == 0 {
        return;
    }
    let slot = Slot::Tile(warp_id * SCAN_GROUP as u32 + lane);
    // SAFETY: every slot read belongs to an older tile of this run; `warp_id < WARPS`, so the
    // remainder only tells the compiler the index is in bounds.
    unsafe {
        let aggregate = warp_poll(lane < waits_for, op.identity(), || status.read::<A>(slot));
        let scanned = Warp::full().inclusive_scan(aggregate, op);
        if lane == waits_for - 1 {
            (*group_scans)[warp_id as usize % WARPS] = scanned;
        }
    }
}

/// Tile `tile > 0`'s exclusive prefix from its warps' [`flat_group_scan`]s: the group
/// aggregates folded left from the identity, as a look-back from the empty prefix does, then
/// the scan of the tile's own group. The same values in the same order as [`tile_prefix`]
/// combines, so the same bits.
///
/// # Safety
/// After a block barrier that follows every warp's [`flat_group_scan`].
#[inline(always)]
unsafe fn flat_tile_prefix<A: Pod, Op: ReduceOp<A>>(
    tile: u32,
    group_scans: *const [A; WARPS],
    op: Op,
) -> A {
    let group = tile as usize / SCAN_GROUP;
    // SAFETY: the caller's condition; `group < WARPS`, so the remainders only tell the
    // compiler the indices are in bounds.
    unsafe {
        let mut before_group = op.identity();
        for g in 0..group % WARPS {
            before_group = op.combine(before_group, (*group_scans)[g]);
        }
        match (group, tile as usize % SCAN_GROUP) {
            (_, 0) => before_group,
            (0, _) => (*group_scans)[0],
            _ => op.combine(before_group, (*group_scans)[group % WARPS]),
        }
    }
}

/// The launch's tiles, `%nctaid.x`, read where it is called: unlike
/// [`thread::grid_dim_x`] (`pure`), the compiler does not merge this read with the later ones
/// of `last()`, which would keep the value in a register through the group look-back (the
/// 8-byte scans then spilled under their 40 registers).
#[inline(always)]
fn launch_tiles() -> u32 {
    crate::device_only! {
        let r: u32;
        // SAFETY: reading a special register has no precondition.
        unsafe {
            core::arch::asm!("mov.u32 {r}, %nctaid.x;", r = out(reg32) r,
                options(nomem, nostack, preserves_flags));
        }
        r
    }
}

/// Warp 0 of tile `tile > 0`, before its tile arrives: asks L2 for the lines that its
/// look-back ([`tile_prefix`]) reads first: lane `i`'s tile of the group and group
/// `group - 1 - i`'s slots. Where the status has left L2 (evicted by the tiles streaming
/// through it, or a cold run), the first polls then need not wait for DRAM.
///
/// # Safety
/// The status array is sized for this run's tiles.
#[inline(always)]
unsafe fn prefetch_lookback<A>(array: StatusArray, tile: u32) {
    let lane = lane_id();
    let group = tile / SCAN_GROUP as u32;
    // SAFETY: the caller's condition; the slots are those `tile_prefix` reads.
    unsafe {
        array.prefetch::<A>(Slot::Tile(group * SCAN_GROUP as u32 + lane));
        if lane < group {
            array.prefetch::<A>(Slot::Group(group - 1 - lane));
            array.prefetch::<A>(Slot::GroupPrefix(group - 1 - lane));
        }
    }
}

/// One tile of the device scan (see the [module docs](self)): items `T` are combined as `A`
/// (`load`, then `store` for the output).
///
/// Each warp scans `32 * stripes * VEC` consecutive items (`p.stripes` stripes, at most
/// `STRIPES`: smaller inputs get smaller tiles, see
/// [`layout::scan_stripes`](crate::abi::layout::scan_stripes)). They move between global and
/// shared memory *striped*: lane `l` copies the warp's vectors `32 s + l`, so every load and
/// store instruction of the warp covers 512 contiguous bytes. They are scanned *blocked*:
/// lane `l` reads vectors `l * stripes ..` from shared memory and folds them in order, so the
/// warp runs one warp scan per pass, however many items it holds. 16-byte vectors are
/// swizzled in shared memory (`swizzle`), so both arrangements read and write without bank
/// conflicts.
///
/// # Safety
/// Launched with [`SCAN_THREADS`] threads per block and one block per tile of
/// [`scan_tile_items`](crate::abi::layout::scan_tile_items)`(len)` items; `p` as documented on
/// [`params::Scan`]; `shared` is this block's shared memory.
#[inline(always)]
pub unsafe fn scan<
    T: Pod,
    A: Pod,
    Op: ReduceOp<A>,
    const STRIPES: usize,
    const VEC: usize,
    const SAVED: usize,
    const ROWS: usize,
>(
    p: params::Scan,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
    shared: *mut ScanShared<T, A, STRIPES, VEC, SAVED, ROWS>,
) {
    // Copies of the tile's code, each without the others' branches: the look-back's (with one
    // flag for it and the cluster's, `ptxas` 12.9 spilled 8 bytes in the 8-byte scans under
    // their 40 registers), and the small launches' for tiles of at most 4 stripes and of 8
    // (with one copy for both, the 4-byte scans of 16 tiles of 4 stripes ran 0.15 µs slower):
    // cluster launches, and for 8-byte items flat ones (`tuning::scan_flat_copy`).
    // SAFETY: forwarded; the small copies run cluster launches and, where `flat_copy`, flat
    // ones; their tiles have 8 stripes where they have more than 4 (`layout::scan_stripes`:
    // a cluster's of 4-byte items, a flat launch's of 8-byte items).
    unsafe {
        let flat_copy = const { super::tuning::scan_flat_copy(size_of::<T>()) };
        let wide_copy = const {
            super::tuning::scan_flat_copy(size_of::<T>())
                || crate::abi::layout::scan_cluster_stripes(size_of::<T>()) as usize
                    == SMALL_WIDE_STRIPES
        };
        if cluster_launch::<ROWS>(p.pass) || (flat_copy && launch_tiles() <= FLAT_TILES) {
            if wide_copy && p.stripes as usize > SMALL_NARROW_STRIPES {
                scan_tile::<T, A, Op, STRIPES, VEC, SAVED, ROWS, SMALL_WIDE_STRIPES>(
                    p, op, &load, &store, shared,
                )
            } else {
                scan_tile::<T, A, Op, STRIPES, VEC, SAVED, ROWS, SMALL_NARROW_STRIPES>(
                    p, op, &load, &store, shared,
                )
            }
        } else {
            scan_tile::<T, A, Op, STRIPES, VEC, SAVED, ROWS, 0>(p, op, &load, &store, shared)
        }
    }
}

/// Stripes per thread, at most, of the tiles that the narrow copy for small launches runs.
const SMALL_NARROW_STRIPES: usize = crate::abi::layout::SCAN_CLUSTER_NARROW_STRIPES as usize;
/// Stripes per thread, at most, of the tiles that the wide copy for small launches runs: for
/// items whose clusters have tiles of up to that many
/// ([`layout::scan_cluster_stripes`](crate::abi::layout::scan_cluster_stripes)), and 8-byte
/// items' flat launches (whose tiles have at most 8 stripes, `tuning::scan_stripes`).
const SMALL_WIDE_STRIPES: usize = crate::abi::layout::SCAN_CLUSTER_WIDE_STRIPES as usize;
const _: () = assert!(SMALL_WIDE_STRIPES >= super::tuning::scan_stripes(8));

/// [`scan`] as a small launch of tiles of at most `SMALL` stripes (`SMALL > 0`: one cluster
/// where [`cluster_launch`] holds, else, for items whose `tuning::scan_flat_copy` holds, a
/// launch of at most [`FLAT_TILES`] tiles with the flat look-back) or otherwise (`SMALL == 0`:
/// the look-back, flat where the launch has at most [`FLAT_TILES`] tiles and the items'
/// `scan_flat_copy` does not hold).
///
/// # Safety
/// As [`scan`]; `SMALL > 0` only for the launches just named, of tiles of at most `SMALL`
/// stripes.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // index loops unroll into registers
unsafe fn scan_tile<
    T: Pod,
    A: Pod,
    Op: ReduceOp<A>,
    const STRIPES: usize,
    const VEC: usize,
    const SAVED: usize,
    const ROWS: usize,
    const SMALL: usize,
>(
    p: params::Scan,
    op: Op,
    load: impl Fn(T) -> A,
    store: impl Fn(A) -> T,
    shared: *mut ScanShared<T, A, STRIPES, VEC, SAVED, ROWS>,
) {
    const {
        assert!(VEC == super::tuning::vector_items(size_of::<T>()));
        assert!(STRIPES == super::tuning::scan_stripes(size_of::<T>()));
        assert!(SAVED == super::tuning::scan_saved_prefixes(size_of::<T>()));
        assert!(ROWS == super::tuning::scan_cluster_rows(size_of::<A>(), align_of::<A>()));
        assert!(
            size_of::<ScanShared<T, A, STRIPES, VEC, SAVED, ROWS>>()
                <= super::tuning::SCAN_MAX_SHARED_BYTES,
            "the device scan stages a tile of 256 items in shared memory: items of this size do not fit"
        );
    };
    let vectors = const { vectorizes(size_of::<T>()) };
    let (input, output, len) = (p.input as *const T, p.output as *mut T, p.len as usize);
    let control = p.control as *mut ScanControl;
    let tid = thread::thread_idx_x();
    let lane = lane_id() as usize;
    let warp = Warp::full();
    // SAFETY: the caller's conditions; global accesses are checked against `len`, and each
    // warp touches only its own part of the staged tile, between `bar.warp.sync`s.
    unsafe {
        let tile = thread::block_idx_x();
        let flat_copy = const { super::tuning::scan_flat_copy(size_of::<T>()) };
        // A small copy runs a cluster launch, or (where `flat_copy`) a flat one.
        let cluster = SMALL > 0 && (!flat_copy || cluster_launch::<ROWS>(p.pass));
        // The cluster barrier's one phase: this block has started and its mbarrier is
        // initialised (`cluster_tile_prefix`). Run once, while the thread's first loads are
        // in flight: the fence then delays no load.
        #[cfg(any(
            not(target_arch = "nvptx64"),
            all(target_feature = "sm_90", target_feature = "ptx81")
        ))]
        let cluster_totals = &raw mut (*shared).cluster_totals;
        let arrive_in_cluster = move || {
            #[cfg(any(
                not(target_arch = "nvptx64"),
                all(target_feature = "sm_90", target_feature = "ptx81")
            ))]
            if cluster {
                if tid < 32 && tile > 0 {
                    expect_cluster_totals::<A, ROWS>(tile, cluster_totals);
                }
                barrier_cluster_arrive_relaxed();
            }
        };
        // This run's stripes per thread (the host's `layout::scan_stripes`), at most `STRIPES`:
        // for items that vectorize, `STRIPES` or a power of two below it, as the host gives.
        // Saying so lets the compiler shift instead of multiply: without it, 4-byte scans
        // spilled under the bounds. (The first arm is folded away where `STRIPES` is a power
        // of two, and those kernels compile as before it existed.)
        let stripes = match (p.stripes as usize).clamp(1, STRIPES) {
            requested if const { !STRIPES.is_power_of_two() } && requested == STRIPES => STRIPES,
            requested if vectors => 1 << requested.ilog2(),
            requested => requested,
        };
        // A small copy's tiles have at most `SMALL` stripes (the host's `layout::scan_stripes`);
        // saying so keeps each small copy of the tile code small.
        let stripes = if SMALL > 0 {
            stripes.min(SMALL)
        } else {
            stripes
        };
        let warp_items = 32 * stripes * VEC;
        let tile_items = SCAN_THREADS as usize / 32 * warp_items;
        let tile_start = tile as usize * tile_items;
        let warp_id = (tid / 32) as usize;
        let warp_start = tile_start + warp_id * warp_items;
        // The warp's part of the tile. The lane's vector of stripe `s` is the warp's vector
        // `32 s + lane`, the `j`-th vector of its block the warp's vector `lane * stripes + j`.
        // (A pointer offset, not an index: the launch has `WARPS` warps, which the compiler
        // cannot know.)
        let slots = (&raw mut (*shared).tile)
            .cast::<[[[T; VEC]; 32]; STRIPES]>()
            .add(warp_id)
            .cast::<[T; VEC]>();
        let striped = |s: usize| 32 * s + lane;
        let blocked = |j: usize| lane * stripes + j;
        // The shared-space address of the warp's 16-byte vector `g`, in its `swizzle`d slot;
        // of the lane's `j`-th vector of its block, whose key is the same for all `j`. Tiles
        // of an odd number of stripes need no swizzle (`swizzle_key`).
        let swizzled = !(const { STRIPES % 2 == 1 } && stripes == STRIPES);
        let swizzle = |g: usize| g ^ swizzle_key(g, swizzled);
        let warp_shared = cvta_to_shared_u64(slots as u64);
        let shared_slot = |g: usize| warp_shared + (swizzle(g) * 16) as u64;
        let lane_key = swizzle_key(blocked(0), swizzled);
        let blocked_slot = |j: usize| warp_shared + ((blocked(j) ^ lane_key) * 16) as u64;
        let item_slot = |i: usize| {
            let g = i / VEC;
            slots
                .add(if vectors { swizzle(g) } else { g })
                .cast::<T>()
                .add(i % VEC)
        };
        // The warp's items that move in 16-byte vectors: all of them where its part of the tile
        // is whole and both pointers are aligned (`whole_part`); in a run's partial last tile,
        // those of the vectors that lie wholly below `len`. The rest go item by item (but for
        // 4-byte items, whose whole parts of 9-stripe tiles are stored spliced, below).
        let aligned = vectors && (input as usize | output as usize).is_multiple_of(16);
        let whole_part = aligned && warp_start + warp_items <= len;
        let vector_items = if aligned {
            len.saturating_sub(warp_start).min(warp_items) / VEC * VEC
        } else {
            0
        };
        let in_vectors = |s: usize| s < stripes && striped(s) * VEC < vector_items;
        let array = StatusArray {
            words: p.status as *mut u64,
            capacity: p.capacity,
        };
        // (Not in a cluster launch that takes the look-back: a hint, which only kernels whose
        // accumulators do not fit a cluster's rows would miss.)
        if warp_id == 0 && tile > 0 && p.pass == scan_pass::SINGLE {
            prefetch_lookback::<A>(array, tile);
        }
        if whole_part {
            let lane_input = input.add(warp_start + lane * VEC);
            stage_vectors::<T, STRIPES, VEC>(
                |s| s < stripes,
                |s| lane_input.add(s * 32 * VEC),
                |s| shared_slot(striped(s)),
                arrive_in_cluster,
            );
        } else {
            arrive_in_cluster();
            // The vectors wholly below `len`, then the rest item by item, the warp's lanes
            // side by side (a partial tile, unaligned pointers, or items that do not
            // vectorize). Slots past the end hold the identity (stored as an item and loaded
            // back, which every instantiation round-trips exactly), so the scan needs no
            // bounds checks.
            if aligned {
                let lane_input = input.wrapping_add(warp_start + lane * VEC);
                stage_vectors::<T, STRIPES, VEC>(
                    in_vectors,
                    |s| lane_input.wrapping_add(s * 32 * VEC),
                    |s| shared_slot(striped(s)),
                    || {},
                );
            }
            let past_end = store(op.identity());
            // `item_slot` by reference: by value, the PTX of every scan changes (measured and
            // tested this way).
            #[allow(clippy::needless_borrows_for_generic_args)]
            stage_items(
                vector_items + lane,
                warp_items,
                |i| warp_start + i < len,
                |i| input.add(warp_start + i),
                &item_slot,
                past_end,
            );
        }
        bar_warp_sync(LaneMask::FULL);
        // The lane's `j`-th vector of items.
        let items = |j: usize| -> [A; VEC] {
            let staged: [T; VEC] = if vectors {
                read_vector(blocked_slot(j))
            } else {
                *slots.add(blocked(j))
            };
            staged.map(&load)
        };
        // Pass 1: the lane's items folded in order, then the warp's exclusive scan of them.
        let first = items(0);
        let mut lane_total = first[0];
        for e in 1..VEC {
            lane_total = op.combine(lane_total, first[e]);
        }
        unrolled::<STRIPES>(|j| {
            if j > 0 && j < stripes {
                let x = items(j);
                for e in 0..VEC {
                    lane_total = op.combine(lane_total, x[e]);
                }
            }
        });
        let inclusive = warp.inclusive_scan(lane_total, op);
        let shifted = warp.shfl_up(inclusive, 1);
        let lane_prefix = if lane == 0 { op.identity() } else { shifted };
        let warp_total = warp.shfl(inclusive, 31);
        // The epoch, read once the tile has arrived: read before the loads, its register made
        // the 8-byte scans spill (`ptxas` 12.9, sm_90), and so did a prefetch of its line at
        // the top of the kernel. The block's barriers below make it visible to warp 0.
        if tid == 0 && !cluster {
            (*shared).epoch = ld_relaxed_gpu_u32(&raw const (*control).epoch);
        }
        let (warp_prefix, tile_total) =
            block::scan_warp_totals(warp_total, op, &(*shared).warp_totals);
        if p.pass == scan_pass::TILE_TOTALS {
            if tid == 0 {
                *(p.tiles as *mut A).add(tile as usize) = tile_total;
            }
            return;
        }
        // Everything of the tile before the thread's items: kept in shared memory through the
        // look-back rather than in a register, as the look-back needs the registers.
        // (`saved` is only formed when the array has a slot per thread.)
        let thread_prefix = op.combine(warp_prefix, lane_prefix);
        let prefixes = (&raw mut (*shared).thread_prefixes).cast::<A>();
        let saved = || prefixes.add(tid as usize);
        if SAVED > 0 {
            *saved() = thread_prefix;
        }
        let thread_prefix = || if SAVED > 0 { *saved() } else { thread_prefix };
        // (A cluster launch has no epoch: it touches no status.)
        let epoch = if cluster { 0 } else { (*shared).epoch };
        let status = TileStatus {
            array,
            flag: epoch + 1,
        };
        // The last tile's prefix depends on every other tile's aggregate, so once it has it,
        // every tile has read this run's epoch: the last tile advances it for the next run.
        let last = || tile == thread::grid_dim_x() - 1;
        let advance_epoch =
            || (*control).epoch = if epoch + 1 == MAX_EPOCH { 0 } else { epoch + 1 };
        let mut run = thread_prefix();
        if p.pass == scan_pass::FROM_TILE_PREFIXES {
            run = op.combine(*(p.tiles as *const A).add(tile as usize), run);
        } else if cluster {
            #[cfg(any(
                not(target_arch = "nvptx64"),
                all(target_feature = "sm_90", target_feature = "ptx81")
            ))]
            {
                let before_tile =
                    cluster_tile_prefix(tile, thread::grid_dim_x(), tile_total, cluster_totals, op);
                if tile > 0 {
                    run = op.combine(before_tile, run);
                }
            }
        } else if tile > 0
            // (Not as `if flat_copy { .. } else { .. }`: so written, the 2-byte scans compiled
            // otherwise than before `flat_copy` and spilled 16 bytes.)
            && (flat_copy || launch_tiles() <= FLAT_TILES)
            && (!flat_copy || SMALL > 0)
        {
            if tid == 0 {
                status.publish(Slot::Tile(tile), tile_total);
            }
            let group_scans = &raw mut (*shared).group_scans;
            flat_group_scan(tile, status, group_scans, op);
            thread::sync_threads();
            if tid == 0 && last() {
                advance_epoch();
            }
            run = op.combine(flat_tile_prefix(tile, group_scans, op), thread_prefix());
        } else if tile > 0 {
            if tid == 0 {
                status.publish(Slot::Tile(tile), tile_total);
            }
            if tid < 32 {
                let before_tile = tile_prefix(tile, tile_total, status, op);
                if tid == 0 {
                    (*shared).prefix = before_tile;
                    if last() {
                        advance_epoch();
                    }
                }
            }
            thread::sync_threads();
            run = op.combine((*shared).prefix, thread_prefix());
        } else if tid == 0 {
            status.publish(Slot::Tile(0), tile_total);
            if last() {
                advance_epoch();
            }
        }
        if p.carry != 0 {
            // The carry-in comes first: one combine per thread, the same for every tile.
            run = op.combine(*(p.carry as *const A), run);
        }
        // Pass 2: the lane's items scanned in order after everything before them, the outputs
        // written over the items.
        unrolled::<STRIPES>(|j| {
            if j >= stripes {
                return;
            }
            let x = items(j);
            let mut out = [T::zeroed(); VEC];
            for e in 0..VEC {
                let inclusive = op.combine(run, x[e]);
                out[e] = store(if p.exclusive != 0 { run } else { inclusive });
                run = inclusive;
            }
            if vectors {
                write_vector(blocked_slot(j), out);
            } else {
                *slots.add(blocked(j)) = out;
            }
        });
        bar_warp_sync(LaneMask::FULL);
        let lane_output = output.wrapping_add(warp_start + lane * VEC) as *mut Vector<T, VEC>;
        let store_vector = |s: usize| {
            *lane_output.wrapping_add(s * 32) = Vector(read_vector(shared_slot(striped(s))));
        };
        if whole_part {
            unrolled::<STRIPES>(|s| {
                if s < stripes {
                    store_vector(s);
                }
            });
        } else if const { size_of::<T>() == 4 && align_of::<T>() >= 4 }
            && stripes == STRIPES
            && warp_start + warp_items <= len
        {
            // A whole part of 4-byte items to an output `m` items off its 16-byte alignment
            // (or from an unaligned input, `m = 0`): vector `j` of the output's own alignment
            // holds the last `m` items of the warp's vector `j - 1` and the first `4 - m` of
            // vector `j`. Lane `l` takes vector `32 s + l` and the one before it from lane
            // `l - 1` (lane 0: lane 31's of the stripe before), and stores the two spliced;
            // where `m > 0`, the warp's first `4 - m` and last `m` items go one by one. (Items
            // move as the 32-bit words they are.) On an H200 at offset 1, u32 at 2^28: 730 ->
            // 712-715 µs against item-by-item stores, 2^22 (9 stripes) 17.9 -> 17.2 µs; in
            // tiles of 8 or fewer stripes (inputs under 256 tiles of 9) it measured slower,
            // 2^20 8.6 -> 9.5 µs (not understood), so those stay item by item.
            let m = (output as usize % 16) / 4;
            let aligned_output = output.wrapping_add(warp_start).wrapping_sub(m);
            let aligned_output = aligned_output as *mut Vector<u32, 4>;
            let mut before = [0u32; 4];
            unrolled::<STRIPES>(|s| {
                if s >= stripes {
                    return;
                }
                let items = ld_shared_v4_u32(shared_slot(striped(s)));
                let from_left = warp.shfl(items, (lane as u32 + 31) % 32);
                let left = if lane == 0 { before } else { from_left };
                before = from_left;
                let spliced = core::array::from_fn(|k| match m {
                    0 => items[k],
                    1 if k < 1 => left[3 + k],
                    1 => items[k - 1],
                    2 if k < 2 => left[2 + k],
                    2 => items[k - 2],
                    _ if k < 3 => left[1 + k],
                    _ => items[k - 3],
                });
                let j = striped(s);
                if j > 0 || m == 0 {
                    *aligned_output.wrapping_add(j) = Vector(spliced);
                }
            });
            if m > 0 && lane < 4 - m {
                *output.add(warp_start + lane) = *item_slot(lane);
            }
            if lane < m {
                let i = warp_items - m + lane;
                *output.add(warp_start + i) = *item_slot(i);
            }
        } else {
            unrolled::<STRIPES>(|s| {
                if in_vectors(s) {
                    store_vector(s);
                }
            });
            // Shared-memory loads in flight 4 at a time (`stage_in_batches`).
            stage_in_batches::<T, 4>(
                vector_items + lane,
                warp_items.min(len.saturating_sub(warp_start)),
                |i| *item_slot(i),
                |i, item| *output.add(warp_start + i) = item,
            );
        }
    }
}

/// The swizzle of a warp's 16-byte vector `g`: its shared slot is `g ^ key`, the column of
/// `g` within its row of 8 slots (the 128 bytes of the 32 banks) XORed with the row. A
/// quarter-warp (8 lanes, one wavefront of 16-byte accesses) then hits 8 distinct columns
/// both when it reads vectors `32 s + lane` (striped) and `lane * stripes + j` (blocked, for
/// 1, 2, 4 or 8 stripes), and a lane's blocked vectors share one key (the test below checks
/// all three). With an odd number of stripes, 8 consecutive lanes' blocked vectors already
/// fall in 8 distinct columns, so such tiles are not `swizzled` (key 0).
#[inline(always)]
fn swizzle_key(g: usize, swizzled: bool) -> usize {
    if swizzled { (g >> 3) & 7 } else { 0 }
}

/// Stages the lane's items `first, first + 32, ..` below `end` in their slots: each item `i`
/// from `src(i)` to `dst(i)` where `readable(i)` (true up to some item, false after it), else
/// `past_end`. Returns once the thread may read its slots.
///
/// Items aligned to at least 4 bytes move with `cp.async` where the target has it (no
/// registers; every load of the lane in flight at once: an unaligned tile staged through
/// registers, 4 items at a time, ran a 4-byte scan at 0.8x CUB on an H100). Otherwise through
/// registers: 4 items of up to 16 bytes in flight before their stores (one at a time, each
/// store waited for its load, and a run's ragged last tile finished long after the others:
/// on an H200, a trial whose last tile at 2^24 u32 items was 40% full took 58 instead of
/// 46 µs), larger items one at a time.
///
/// # Safety
/// For each staged `i` with `readable(i)`, `src(i)` is a valid global pointer; `dst(i)` is
/// the thread's own slot in shared memory, which nothing else touches meanwhile.
#[inline(always)]
unsafe fn stage_items<T: Pod>(
    first: usize,
    end: usize,
    readable: impl Fn(usize) -> bool,
    src: impl Fn(usize) -> *const T,
    dst: impl Fn(usize) -> *mut T,
    past_end: T,
) {
    // SAFETY: the caller's conditions.
    unsafe {
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
        if const { align_of::<T>() >= 4 } {
            use crate::instr::memory::cp_async_wait_all;
            let mut i = first;
            while i < end && readable(i) {
                copy_async(dst(i), src(i));
                i += 32;
            }
            while i < end {
                *dst(i) = past_end;
                i += 32;
            }
            cp_async_wait_all();
            return;
        }
        let load = |i: usize| if readable(i) { *src(i) } else { past_end };
        let store = |i: usize, item: T| *dst(i) = item;
        if const { size_of::<T>() <= 16 } {
            stage_in_batches::<T, 4>(first, end, load, store);
        } else {
            stage_in_batches::<T, 1>(first, end, load, store);
        }
    }
}

/// Starts copying the item at `src` to the shared slot `dst` with `cp.async`, in pieces of
/// its alignment (4, 8 or 16 bytes).
///
/// # Safety
/// `src` is a valid global pointer, `dst` a valid pointer into shared memory that nothing
/// touches until the thread's next `cp.async` wait; `T` is aligned to at least 4 bytes.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
unsafe fn copy_async<T>(dst: *mut T, src: *const T) {
    use crate::instr::memory::{
        cp_async_ca_shared_global_4, cp_async_ca_shared_global_8, cp_async_cg_shared_global_16,
        cvta_to_global_u64, cvta_to_shared_u64,
    };
    let piece = const {
        match align_of::<T>() {
            4 => 4,
            8 => 8,
            _ => 16,
        }
    };
    // SAFETY: the caller's conditions; each piece lies within the item, aligned to its size.
    unsafe {
        let (dst, src) = (
            cvta_to_shared_u64(dst as u64),
            cvta_to_global_u64(src as u64),
        );
        for k in 0..size_of::<T>() / piece {
            let (d, s) = (dst + (k * piece) as u64, src + (k * piece) as u64);
            match piece {
                16 => cp_async_cg_shared_global_16(d, s),
                8 => cp_async_ca_shared_global_8(d, s),
                _ => cp_async_ca_shared_global_4(d, s),
            }
        }
    }
}

/// Stages a lane's items `first, first + 32, ..` below `end`: `BATCH` of the lane's `load(i)`
/// issued before their `store(i, item)`s, so `BATCH` loads are in flight.
#[inline(always)]
fn stage_in_batches<T: Copy, const BATCH: usize>(
    first: usize,
    end: usize,
    load: impl Fn(usize) -> T,
    mut store: impl FnMut(usize, T),
) {
    let mut i = first;
    while i < end {
        let mut staged = [None; BATCH];
        unrolled::<BATCH>(|k| staged[k] = (i + 32 * k < end).then(|| load(i + 32 * k)));
        unrolled::<BATCH>(|k| {
            if let Some(item) = staged[k] {
                store(i + 32 * k, item);
            }
        });
        i += 32 * BATCH;
    }
}

/// Copies one 16-byte vector for each stripe `s` with `staged(s)`, from `src(s)` to the shared
/// address `dst(s)`: with `cp.async` where the target has it (no registers; the loads of every
/// stripe in flight at once), else through registers, every load issued before the first
/// store; `issued` runs once the loads are issued, before they are waited for. Returns once
/// the thread may read its slots.
///
/// # Safety
/// For each `s` with `staged(s)`: `src(s)` is a 16-byte-aligned global pointer to 16 readable
/// bytes, `dst(s)` a 16-byte-aligned `.shared` address of 16 bytes that nothing else touches
/// meanwhile.
#[inline(always)]
unsafe fn stage_vectors<T: Pod, const STRIPES: usize, const VEC: usize>(
    staged: impl Fn(usize) -> bool,
    src: impl Fn(usize) -> *const T,
    dst: impl Fn(usize) -> u64,
    issued: impl FnOnce(),
) {
    // SAFETY: the caller's conditions.
    unsafe {
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
        {
            use crate::instr::memory::{
                cp_async_cg_shared_global_16, cp_async_wait_all, cvta_to_global_u64,
            };
            unrolled::<STRIPES>(|s| {
                if staged(s) {
                    cp_async_cg_shared_global_16(dst(s), cvta_to_global_u64(src(s) as u64));
                }
            });
            issued();
            cp_async_wait_all();
        }
        #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
        {
            let mut vectors = [Vector([T::zeroed(); VEC]); STRIPES];
            unrolled::<STRIPES>(|s| {
                if staged(s) {
                    vectors[s] = *(src(s) as *const Vector<T, VEC>);
                }
            });
            issued();
            unrolled::<STRIPES>(|s| {
                if staged(s) {
                    write_vector(dst(s), vectors[s].0);
                }
            });
        }
    }
}

/// The 16 bytes at the `.shared` address `a`, in one `ld.shared.v4`.
///
/// # Safety
/// `a` is a 16-byte-aligned `.shared` address of 16 bytes; `[T; VEC]` is 16 bytes
/// ([`vectorizes`]).
#[inline(always)]
unsafe fn read_vector<T: Pod, const VEC: usize>(a: u64) -> [T; VEC] {
    // SAFETY: the caller's conditions; 16 bytes of words are a valid `[T; VEC]` of Pod items.
    unsafe { core::mem::transmute_copy(&ld_shared_v4_u32(a)) }
}

/// Writes `items` to the `.shared` address `a` in one `st.shared.v4`.
///
/// # Safety
/// As for [`read_vector`], and no other thread accesses the 16 bytes meanwhile.
#[inline(always)]
unsafe fn write_vector<T: Pod, const VEC: usize>(a: u64, items: [T; VEC]) {
    // SAFETY: the caller's conditions; 16 bytes of Pod items are 4 words.
    unsafe { st_shared_v4_u32(a, core::mem::transmute_copy(&items)) }
}

#[cfg(test)]
mod tests {
    use super::swizzle_key;

    /// For each stripe count a scan kernel runs (9, unswizzled, for 4-byte items): no two
    /// vectors share a slot, a lane's blocked vectors share one key, and each quarter-warp's
    /// striped and blocked accesses hit 8 distinct bank columns.
    #[test]
    fn scan_swizzle_is_conflict_free() {
        for (stripes, swizzled) in [(1, true), (2, true), (4, true), (8, true), (9, false)] {
            let key = |g: usize| swizzle_key(g, swizzled);
            let slot = |g: usize| g ^ key(g);
            let mut taken = [false; 512];
            for g in 0..32 * stripes {
                assert!(
                    slot(g) < 32 * stripes && !taken[slot(g)],
                    "{stripes} stripes"
                );
                taken[slot(g)] = true;
            }
            for lane in 0..32 {
                for j in 0..stripes {
                    assert_eq!(
                        key(lane * stripes + j),
                        key(lane * stripes),
                        "{stripes} stripes"
                    );
                }
            }
            let distinct_columns = |vector: &dyn Fn(usize) -> usize| {
                let mut columns = [false; 8];
                (0..8).all(|l| !core::mem::replace(&mut columns[slot(vector(l)) % 8], true))
            };
            for quarter in 0..4 {
                for s in 0..stripes {
                    let striped = |l: usize| 32 * s + 8 * quarter + l;
                    let blocked = |l: usize| (8 * quarter + l) * stripes + s;
                    assert!(distinct_columns(&striped), "{stripes} stripes: striped");
                    assert!(distinct_columns(&blocked), "{stripes} stripes: blocked");
                }
            }
        }
    }
}
