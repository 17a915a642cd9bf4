//! The single-pass device reduce: one launch, one of its blocks combines the partials.
//!
//! - Order-independent operators (integers, min, max, arg-min/max): each block reduces a
//!   contiguous share with 16-byte loads ([`REDUCE_UNROLL`] in flight per thread) and writes
//!   one partial. Any grouping gives these operators the same bits.
//! - Others (float sums, users' operators): the input is cut into tiles whose size is a
//!   function of the length alone ([`reduce_tile_items`](crate::abi::layout::reduce_tile_items),
//!   which the host passes in [`params::Reduce::tile_items`]); each tile is reduced in a fixed
//!   tree and writes one partial, and the partials are combined in a fixed tree too. A
//!   commutative operator (float sums) lets each thread take a strided share of its tile;
//!   any other keeps index order in every combine (warps take consecutive runs). The same
//!   input thus gives the same bits whatever the grid, the device, the input's alignment and
//!   the target.
//!
//! **The end of the launch.** Each block writes its partials; one block then combines them in
//! block (tile) order and writes the result, so the kernel needs no second launch and no
//! clearing launch. Two ways, chosen per launch by the number of partials (the same in every
//! block):
//!
//! - *Fenced*: plain partials and an `acq_rel` ticket from a counter, whose release fence
//!   makes the block's partial visible before the ticket is taken: a round trip to L2 on the
//!   launch's critical path. The block with the last ticket combines (its threads read up to
//!   8 partials each at once) and resets the counter.
//! - *Flagged* (sm_90 and newer, when each thread of a block has at most
//!   [`reduce_flagged_batch`] partials to read, so all of them at once): partials published as
//!   flagged words (`SlotArray`, the scan's tile-status format); the combining block polls
//!   each partial until it carries the flag, then zeroes it for the next launch. No fence. On
//!   an H200 this took 0.25-0.5 µs off the reduces that take it (cold L2, 2^16 items: 5.4-5.5
//!   → 5.0-5.2 µs for 4-byte items, 5.9-6.2 → 5.6-6.0 µs for 8-byte ones). Where a block's
//!   threads would read more partials than fit one batch, the fenced way is faster (every
//!   launch flagged, at 2^24 items the float sums' 2048 tiles took 1.1-2.4 µs longer).
//!   Which block combines:
//!   - launches with at most one partial per thread (at most [`REDUCE_THREADS`] partials:
//!     blocks for order-independent operators, tiles for the others): block 0, as soon as it
//!     has published its own, with no ticket (nor a prefetch of its line), so the result
//!     waits one round trip to L2 after the last partial lands instead of two (the ticket,
//!     then the reads). On an H100, cold L2: 2^16 items 0.1-0.3 µs faster (`u32` sum 5.3 →
//!     5.1 µs, `u64` sum 5.8-5.9 → 5.6-5.7 µs), 2^20 4-byte items 0.1-0.25 µs; for the tiled
//!     float sums on an H200, cold, 2^16 `f32` 5.1-5.3 → 4.7-4.9 µs, `f64` 5.4-5.5 → 5.2 µs,
//!     `f16` 4.9 → 4.5-4.6 µs, and 2^20 `f32` and `f16` 1-4% faster
//!     (`h200-2026-11-27-reduce-block0-tiles-redux-pair-ab.csv`). Block 0 may wait for
//!     blocks that have not started; those wait for nothing, so they run as soon as any
//!     block slot is free;
//!   - otherwise the block that draws the last ticket (relaxed: every block publishes its
//!     partials before it takes its ticket, so when the last ticket is drawn every store the
//!     polling waits for has been issued). With two partials per thread, block 0 polling
//!     ahead of the last blocks waited for a thread's two one after the other, and the 8-byte
//!     reduces at 2^20 items (512 partials) ran 0.4 µs slower; re-reading both each round
//!     until both had landed was slower still, on an H200: 0.3-0.4 µs at 2^20, and, for the
//!     one partial per thread of 8-byte accumulators at 2^16, 0.7-1.0 µs slower cold than
//!     waiting for each in turn (not understood).

use super::sync::Backoff;
use super::tile_status::SlotArray;
use super::tuning::{REDUCE_THREADS, REDUCE_UNROLL, SM90, vectorizes};
use super::{Vector, unrolled};
use crate::abi::layout::{
    REDUCE_FLAGGED_PARTIALS, reduce_flagged_batch, reduce_head_items, reduce_share_tiles,
};
use crate::abi::params;
use crate::block::{self, TempStorage};
use crate::instr::atomic::{atom_add_acq_rel_gpu_u32, atom_add_relaxed_gpu_u32};
use crate::instr::memory::{cvta_to_global_u64, prefetch_global_l2, st_relaxed_gpu_u32};
use crate::kernel as thread;
use crate::ops::ReduceOp;
use bytemuck::Pod;
use core::mem::size_of;

pub(crate) mod half_loads;

/// The block's shared memory.
#[repr(C)]
pub struct ReduceShared<A> {
    warp_values: TempStorage<A>,
    last: u32,
}

/// Plain partials the last block's threads load at once (the fenced end).
const FINAL_BATCH: usize = 8;

/// One block of the device reduce (see the [module docs](self)): items `T` are combined as
/// `A` (`load` gets each item with its index, [`ItemLoad`]), the result is written as `finish(total)`.
///
/// # Safety
/// Launched with [`REDUCE_THREADS`] threads per block and at most
/// [`reduce_tiles`](crate::abi::layout::reduce_tiles) blocks; `p` as documented on
/// [`params::Reduce`]; `shared` is this block's shared memory.
#[inline(always)]
pub unsafe fn reduce<T: Pod, A: Pod, O: Pod, Op: ReduceOp<A>, const VEC: usize>(
    p: params::Reduce,
    op: Op,
    load: impl ItemLoad<T, A>,
    finish: impl Fn(A) -> O,
    shared: *mut ReduceShared<A>,
) {
    const { assert!(VEC == super::tuning::vector_items(size_of::<T>())) };
    let (input, len) = (p.input as *const T, p.len as usize);
    let tid = thread::thread_idx_x();
    let block_id = thread::block_idx_x() as usize;
    let grid = thread::grid_dim_x();
    // SAFETY: the caller's conditions; every index is checked against `len`.
    unsafe {
        if tid == 0 && !collects_in_block_0::<A, Op>(grid as usize, p.tiles as usize) {
            // The ticket's line, asked of L2 behind the loads: after a run that left it out of
            // L2, the first block's ticket need not wait for DRAM.
            prefetch_global_l2(cvta_to_global_u64(p.counter));
        }
        let counter = p.counter as *mut u32;
        let partials = Partials::<A>::new(p.partials, p.slots);
        // One partial per block (order-independent operators) or per tile.
        let (partial_count, flagged) = if Op::ORDER_INDEPENDENT {
            let share = (p.share_tiles as usize, p.share_extra as usize);
            let acc = even_share::<T, A, Op, _, VEC>(input, len, share, op, &load);
            let total = block::reduce(acc, op, &(*shared).warp_values);
            let flagged = Partials::<A>::flagged(grid as usize);
            if tid == 0 {
                partials.publish(flagged, block_id, total);
            }
            (grid as usize, flagged)
        } else {
            let tile_items = p.tile_items as usize;
            let tiles = p.tiles as usize;
            let flagged = Partials::<A>::flagged(tiles);
            let mut tile = block_id;
            while tile < tiles {
                let start = tile * tile_items;
                let total = if Op::COMMUTATIVE {
                    let acc = one_tile::<T, A, Op, VEC>(input, len, start, tile_items, op, &load);
                    block::reduce(acc, op, &(*shared).warp_values)
                } else {
                    let acc =
                        one_tile_in_order::<T, A, Op>(input, len, start, tile_items, op, &load);
                    block::scan_warp_totals(acc, op, &(*shared).warp_values).1
                };
                if tid == 0 {
                    partials.publish(flagged, tile, total);
                }
                tile += grid as usize;
            }
            (tiles, flagged)
        };
        let collect_in_block_0 = collects_in_block_0::<A, Op>(grid as usize, p.tiles as usize);
        if collect_in_block_0 {
            if block_id != 0 {
                return;
            }
        } else {
            if tid == 0 {
                let ticket = if flagged {
                    atom_add_relaxed_gpu_u32(counter, 1)
                } else {
                    // Release this block's partials, acquire the others' if this is the last block.
                    atom_add_acq_rel_gpu_u32(counter, 1)
                };
                (*shared).last = (ticket == grid - 1) as u32;
            }
            thread::sync_threads();
            if (*shared).last == 0 {
                return;
            }
        }
        // Thread `t` combines the `t`-th run of consecutive partials: index order throughout.
        let run = partial_count.div_ceil(REDUCE_THREADS as usize);
        let first = (tid as usize * run).min(partial_count);
        let end = (first + run).min(partial_count);
        let acc = if flagged {
            combine_flagged(partials.slots(), first, end, op)
        } else {
            combine_plain(partials.plain(), first, end, op)
        };
        let total = block::reduce(acc, op, &(*shared).warp_values);
        if tid == 0 {
            *(p.output as *mut O) = finish(total);
            if !collect_in_block_0 {
                st_relaxed_gpu_u32(counter, 0);
            }
        }
    }
}

/// How the device reduce turns items into accumulators: each item with its index, and (for
/// order-independent operators, in the even share) one 16-byte vector of them at a time.
/// Every `Fn(usize, T) -> A` is one, with the vector combined item by item.
pub trait ItemLoad<T, A> {
    /// Whether [`vector`](Self::vector) and [`exact`](Self::exact) are more than their
    /// defaults; the even share calls them only then, and otherwise combines item by item in
    /// the loop it was measured with.
    const FOLDS_VECTORS: bool = false;
    /// The accumulator of item `x` at `index`.
    fn item(&self, index: usize, x: T) -> A;
    /// `acc` combined with the items of `items`, at indices `first..first + VEC`, as
    /// combining each [`item`](Self::item) in turn gives, except that an index in the result
    /// may name the first item of the vector it came from rather than the item itself, until
    /// [`exact`](Self::exact). Called only where every item in `acc` comes before `first`, or
    /// `acc` is `op`'s identity.
    #[inline(always)]
    fn vector<Op: ReduceOp<A>, const VEC: usize>(
        &self,
        acc: A,
        first: usize,
        items: [T; VEC],
        op: Op,
    ) -> A
    where
        T: Copy,
    {
        let mut acc = acc;
        #[allow(clippy::needless_range_loop)] // index loops unroll; array iterators do not
        for e in 0..VEC {
            acc = op.combine(acc, self.item(first + e, items[e]));
        }
        acc
    }
    /// `acc` with an index that names a vector (see [`vector`](Self::vector)) turned into its
    /// item's: `vector_at(i)` is the vector whose first item is `i`, if item `i` was combined
    /// as one.
    #[inline(always)]
    fn exact<const VEC: usize>(&self, acc: A, _vector_at: impl Fn(usize) -> Option<[T; VEC]>) -> A {
        acc
    }
}

impl<T, A, F: Fn(usize, T) -> A> ItemLoad<T, A> for F {
    #[inline(always)]
    fn item(&self, index: usize, x: T) -> A {
        self(index, x)
    }
}

/// Whether block 0 combines the partials of a launch of `grid` blocks, with no ticket (see the
/// [module docs](self)): launches that take the flagged end with at most one partial per
/// thread (order-independent operators have one per block, the others one per tile).
#[inline(always)]
fn collects_in_block_0<A: Pod, Op: ReduceOp<A>>(grid: usize, tiles: usize) -> bool {
    let partials = if Op::ORDER_INDEPENDENT { grid } else { tiles };
    Partials::<A>::flagged(partials) && partials <= REDUCE_THREADS as usize
}

/// The reduce's partials: plain values ([`params::Reduce::partials`]) or flagged slots
/// ([`params::Reduce::slots`]).
#[derive(Clone, Copy)]
struct Partials<A> {
    plain: u64,
    slots: u64,
    _value: core::marker::PhantomData<A>,
}

impl<A: Pod> Partials<A> {
    #[inline(always)]
    fn new(plain: u64, slots: u64) -> Self {
        Partials {
            plain,
            slots,
            _value: core::marker::PhantomData,
        }
    }

    /// Whether a launch with `count` partials takes the flagged end (see the [module
    /// docs](self)): every thread of the last block reads its partials at once.
    #[inline(always)]
    fn flagged(count: usize) -> bool {
        SM90 && count <= REDUCE_THREADS as usize * reduce_flagged_batch(size_of::<A>())
    }

    #[inline(always)]
    fn plain(self) -> *mut A {
        self.plain as *mut A
    }

    #[inline(always)]
    fn slots(self) -> SlotArray {
        SlotArray {
            words: self.slots as *mut u64,
            flag: PUBLISHED,
        }
    }

    /// Writes partial `i`.
    ///
    /// # Safety
    /// `i` is below the launch's partial count, and nothing else writes partial `i`.
    #[inline(always)]
    unsafe fn publish(self, flagged: bool, i: usize, value: A) {
        // SAFETY: the caller's condition; the host sized the plain partials for every count
        // and the slots for every count that takes the flagged end.
        unsafe {
            if flagged {
                self.slots().publish(i, value);
            } else {
                *self.plain().add(i) = value;
            }
        }
    }
}

/// Partials `first..end` combined in order (the fenced end). The loads go out 8 at a time: a
/// run is up to 8 partials, each a round trip to L2.
///
/// # Safety
/// The partials are in global memory and were released by the blocks that wrote them.
#[inline(always)]
unsafe fn combine_plain<A: Pod, Op: ReduceOp<A>>(
    plain: *const A,
    first: usize,
    end: usize,
    op: Op,
) -> A {
    let mut acc = op.identity();
    let mut i = first;
    // SAFETY: the caller's condition.
    unsafe {
        while i + FINAL_BATCH <= end {
            let batch: [A; FINAL_BATCH] = core::array::from_fn(|k| *plain.add(i + k));
            #[allow(clippy::needless_range_loop)] // index loops unroll into registers
            for k in 0..FINAL_BATCH {
                acc = op.combine(acc, batch[k]);
            }
            i += FINAL_BATCH;
        }
        while i < end {
            acc = op.combine(acc, *plain.add(i));
            i += 1;
        }
    }
    acc
}

/// Slots `first..end` (at most [`reduce_flagged_batch`] of them) combined in order once each is
/// published, and each zeroed (the flagged end). Every load goes out before any is looked at.
///
/// # Safety
/// The slots are inside the flagged partials, and blocks of this launch publish them.
#[inline(always)]
unsafe fn combine_flagged<A: Pod, Op: ReduceOp<A>>(
    slots: SlotArray,
    first: usize,
    end: usize,
    op: Op,
) -> A {
    let batch = const {
        let batch = reduce_flagged_batch(size_of::<A>());
        assert!(batch <= REDUCE_FLAGGED_PARTIALS);
        batch
    };
    // Slot `first + k` of the run, if there is one (`k < batch` is known at compile time).
    let in_run = |k: usize| k < batch && first + k < end;
    let mut published = 0u32;
    let loaded: [A; REDUCE_FLAGGED_PARTIALS] = core::array::from_fn(|k| {
        // SAFETY: the caller's condition.
        let read = if in_run(k) {
            unsafe { slots.read(first + k) }
        } else {
            None
        };
        published |= (read.is_some() as u32) << k;
        read.unwrap_or(op.identity())
    });
    let mut acc = op.identity();
    // Unrolled whatever the waits inside: `loaded` stays in registers.
    unrolled::<REDUCE_FLAGGED_PARTIALS>(|k| {
        if in_run(k) {
            let i = first + k;
            // SAFETY (both): the caller's condition; this thread alone reads and clears slot
            // `i`, once it holds this launch's value.
            let partial = if published & (1 << k) != 0 {
                loaded[k]
            } else {
                unsafe { wait_for(slots, i) }
            };
            unsafe { slots.clear::<A>(i) };
            acc = op.combine(acc, partial);
        }
    });
    acc
}

/// The flag of every published partial. One flag serves every launch because the last block
/// clears each slot once it has read it.
const PUBLISHED: u32 = 1;

/// The value in slot `i` of `slots`, once published.
///
/// # Safety
/// The slot is inside the flagged partials, and a block of this launch publishes it.
#[inline(always)]
unsafe fn wait_for<A: Pod>(slots: SlotArray, i: usize) -> A {
    let mut backoff = Backoff::new();
    loop {
        // SAFETY: the caller's condition.
        if let Some(value) = unsafe { slots.read(i) } {
            return value;
        }
        backoff.pause();
    }
}

/// The thread's share, in any order (order-independent operators), CUB's "even share": the
/// input's 16-byte vectors form tiles of [`REDUCE_UNROLL`] vectors per thread, and block `b`
/// takes the `b`-th of `grid` nearly equal runs of consecutive tiles, as `share` (`(tiles per
/// block, blocks with one more)`, [`params::Reduce::share_tiles`]) says. A step's loads are then
/// one address plus constant offsets, which leaves the registers to hold every load of the
/// step in flight. Grid-strided loads each needed a 64-bit address, and `ptxas` issued the
/// `u64` sum's four loads one after another (SASS); on an H200 at 2^28 items the even share
/// took the `u64` sums from 480 to 466 µs and the 4-byte reduces from 238 to 235 µs. The
/// vectors after the share's tiles (every vector where the host spreads a small input over one
/// per thread, [`reduce_spreads_small_inputs`](super::tuning::reduce_spreads_small_inputs)),
/// and the items before the first vector (one per thread) and after the last, go grid-strided.
#[inline(always)]
unsafe fn even_share<T: Pod, A: Pod, Op: ReduceOp<A>, L: ItemLoad<T, A>, const VEC: usize>(
    input: *const T,
    len: usize,
    (share_tiles, share_extra): (usize, usize),
    op: Op,
    load: &L,
) -> A {
    let global = thread::global_index();
    let stride = thread::grid_threads();
    let mut acc = op.identity();
    // SAFETY: every index is checked against `len`.
    unsafe {
        if !vectorizes(size_of::<T>()) {
            let mut i = global;
            while i < len {
                acc = op.combine(acc, load.item(i, *input.add(i)));
                i += stride;
            }
            return acc;
        }
        let threads = REDUCE_THREADS as usize;
        let tid = thread::thread_idx_x() as usize;
        let block = thread::block_idx_x() as usize;
        let head = reduce_head_items(input as u64, len as u64, size_of::<T>()) as usize;
        let body = (len - head) / VEC;
        let tail = head + body * VEC;
        // The items before the vectors' first boundary (`reduce_body_align`): combined before
        // the loop, but after it for 8-byte items, where `ptxas` 12.9 gave the `u64` sum 34
        // registers with the load held through the loop and 32 without (so 8 blocks per SM);
        // 4-byte items go the other way (32 against 34).
        let head_late = size_of::<T>() == 8;
        // Combines item `at + global` if it is one of the `count` items from `at`.
        let one_item = |acc: A, at: usize, count: usize| {
            if global < count {
                op.combine(acc, load.item(at + global, *input.add(at + global)))
            } else {
                acc
            }
        };
        if !head_late {
            acc = one_item(acc, 0, head);
        }
        let vectors = input.add(head) as *const Vector<T, VEC>;
        let tile_vectors = threads * REDUCE_UNROLL;
        // The whole tiles the share gives out; the vectors after them go grid-strided.
        let tiles = share_tiles * thread::grid_dim_x() as usize + share_extra;
        // Independent chains of combines (one per vector in flight), so operators of several
        // instructions (4-byte arg-min/max, float min/max) do not serialise on one. One chain
        // for 8-byte items and 16-byte accumulators, which need the registers: with two,
        // `ptxas` gave the `u64` arg-min 32 registers and a spill, and with four the `u64`
        // min 40, so 6 blocks per SM (one gives 33, which the launch bound caps at 32:
        // [`reduce_min_blocks_per_sm`](super::tuning::reduce_min_blocks_per_sm)). For the
        // `f32` arg-min one chain cost 6% at 2^24 items (H200), so 4-byte items keep four.
        let chains_used = const {
            if size_of::<A>() > 8 || size_of::<T>() == 8 || L::FOLDS_VECTORS {
                1
            } else {
                REDUCE_UNROLL
            }
        };
        let mut chains = [op.identity(); REDUCE_UNROLL];
        let (first_tile, block_tiles) = reduce_share_tiles(block, share_tiles, share_extra);
        let first = first_tile * tile_vectors + tid;
        // One tile from `at`, the thread's vector `first` of the input.
        let mut tile = |at: *const Vector<T, VEC>, first: usize| {
            let mut loaded = [Vector([T::zeroed(); VEC]); REDUCE_UNROLL];
            #[allow(clippy::needless_range_loop)] // index loops unroll; array iterators do not
            for u in 0..REDUCE_UNROLL {
                loaded[u] = *at.add(u * threads);
            }
            unrolled::<REDUCE_UNROLL>(|u| {
                let item = head + (first + u * threads) * VEC;
                if L::FOLDS_VECTORS {
                    let c = u % chains_used;
                    chains[c] = load.vector(chains[c], item, loaded[u].0, op);
                } else {
                    for e in 0..VEC {
                        let c = u % chains_used;
                        chains[c] = op.combine(chains[c], load.item(item + e, loaded[u].0[e]));
                    }
                }
            });
        };
        // The loop on the address and a count of the block's tiles: with the host's share,
        // `ptxas` 12.9 gives (sm_90 and sm_100a) the 4-byte integer sums, min and max 30
        // registers, against 33 with an index loop (7 blocks per SM instead of 8), and the
        // `u32` arg-min 32 instead of 40; the 8-byte reduces keep 32, as with a loop to an
        // end address (which gave the 8-byte arg-reduces 32 instead of an index loop's 40).
        // Wrapping: the step after a block's last points past the input.
        let mut at = vectors.wrapping_add(first);
        let mut left = block_tiles as u32;
        while left > 0 {
            tile(at, at.offset_from_unsigned(vectors));
            at = at.wrapping_add(tile_vectors);
            left -= 1;
        }
        unrolled::<REDUCE_UNROLL>(|c| {
            if c < chains_used {
                acc = op.combine(acc, chains[c]);
            }
        });
        if head_late {
            acc = one_item(acc, 0, head);
        }
        let mut i = tiles * tile_vectors + global;
        while i < body {
            let v = *vectors.add(i);
            if L::FOLDS_VECTORS {
                acc = load.vector(acc, head + i * VEC, v.0, op);
            } else {
                for e in 0..VEC {
                    acc = op.combine(acc, load.item(head + i * VEC + e, v.0[e]));
                }
            }
            i += stride;
        }
        if L::FOLDS_VECTORS {
            let vector_at = |i: usize| {
                (head..tail)
                    .contains(&i)
                    .then(|| (*vectors.add((i - head) / VEC)).0)
            };
            acc = load.exact(acc, vector_at);
        }
        one_item(acc, tail, len - tail)
    }
}

/// The warp's share of tile `[start, start + tile_items)` in index order, in every lane of the
/// warp (operators that are not commutative): warp `w` takes the `w`-th eighth of the tile,
/// 32 consecutive items at a time (one per lane, coalesced), each group reduced in lane order
/// and appended to the running total.
#[inline(always)]
unsafe fn one_tile_in_order<T: Pod, A: Pod, Op: ReduceOp<A>>(
    input: *const T,
    len: usize,
    start: usize,
    tile_items: usize,
    op: Op,
    load: &impl ItemLoad<T, A>,
) -> A {
    let warps = REDUCE_THREADS as usize / 32;
    let warp_items = tile_items / warps;
    let first = start + thread::thread_idx_x() as usize / 32 * warp_items;
    let end = (first + warp_items).min(len);
    let lane = thread::lane_id() as usize;
    let warp = crate::warp::Warp::full();
    let mut acc = op.identity();
    let mut base = first;
    while base < end {
        let i = base + lane;
        // SAFETY: `i < len`.
        let x = if i < end {
            load.item(i, unsafe { *input.add(i) })
        } else {
            op.identity()
        };
        acc = op.combine(acc, warp.reduce(x, op));
        base += 32;
    }
    acc
}

/// The thread's share of tile `[start, start + tile_items)`, in a fixed order: thread `t`
/// combines vectors `t, t + THREADS, t + 2 * THREADS, …` of the tile, items in order. The
/// vector and scalar paths combine the same items in the same order.
#[inline(always)]
unsafe fn one_tile<T: Pod, A: Pod, Op: ReduceOp<A>, const VEC: usize>(
    input: *const T,
    len: usize,
    start: usize,
    tile_items: usize,
    op: Op,
    load: &impl ItemLoad<T, A>,
) -> A {
    let threads = REDUCE_THREADS as usize;
    let tid = thread::thread_idx_x() as usize;
    let per_thread = tile_items / (VEC * threads);
    let mut acc = op.identity();
    // SAFETY: every index is checked against `len`, or the whole tile is inside it.
    unsafe {
        let whole = start + tile_items <= len;
        if vectorizes(size_of::<T>()) && whole && (input.add(start) as usize).is_multiple_of(16) {
            let vectors = input.add(start) as *const Vector<T, VEC>;
            let mut j = 0;
            while j < per_thread {
                let mut loaded = [Vector([T::zeroed(); VEC]); REDUCE_UNROLL];
                #[allow(clippy::needless_range_loop)]
                for u in 0..REDUCE_UNROLL {
                    loaded[u] = *vectors.add((j + u) * threads + tid);
                }
                #[allow(clippy::needless_range_loop)]
                for u in 0..REDUCE_UNROLL {
                    let first = start + ((j + u) * threads + tid) * VEC;
                    for e in 0..VEC {
                        acc = op.combine(acc, load.item(first + e, loaded[u].0[e]));
                    }
                }
                j += REDUCE_UNROLL;
            }
        } else {
            for j in 0..per_thread {
                let first = start + (j * threads + tid) * VEC;
                for e in 0..VEC {
                    if first + e < len {
                        acc = op.combine(acc, load.item(first + e, *input.add(first + e)));
                    }
                }
            }
        }
    }
    acc
}
