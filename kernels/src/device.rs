//! Device-wide algorithms: the per-block work ("agents" in CUB's terms) of the kernels that
//! `warpkit-host` launches, and their tuning, kept apart as plain data.
//!
//! - [`reduce`]: one pass. Each block reduces a grid-strided share with 16-byte loads, writes
//!   its partial and takes a ticket; the block that takes the last ticket reduces the partials
//!   in block order and resets the ticket counter. One launch, and deterministic: the grid
//!   size depends only on the length and the device, so the combining order is fixed.
//! - [`scan`]: one pass. Each tile scans its items, publishes its aggregate, and finds its
//!   prefix from what older tiles published, with no second launch. Order-independent operators
//!   (integers, min, max) use CUB's decoupled look-back. Float sums use a Fenwick tree instead:
//!   tile `t` also publishes the aggregates of the aligned power-of-two blocks of tiles that end
//!   at it, and tile `k`'s prefix combines the at most 31 blocks of `k`'s binary decomposition,
//!   in order. Every such aggregate has a fixed tree shape, so the result's bits do not depend
//!   on which tile finished first: float scans are deterministic. Status words carry the run's
//!   epoch, so they need no clearing launch between runs, and no fences.
//! - [`rows_reduce`], [`rows_scan`]: one warp per row, rows of one width or given by offsets.

/// Block sizes, items per thread and grid shape, by algorithm.
pub mod tuning {
    /// Threads per block of the device reduce.
    pub const REDUCE_THREADS: u32 = 256;
    /// Resident blocks per multiprocessor the reduce grid is sized for.
    pub const REDUCE_BLOCKS_PER_SM: u32 = 4;
    /// 16-byte loads each thread has in flight per loop step.
    pub const REDUCE_UNROLL: usize = 4;
    /// Threads per block of the device scan.
    pub const SCAN_THREADS: u32 = 256;
    /// 16-byte stripes each thread of the device scan handles (64 bytes of items).
    pub const SCAN_STRIPES: usize = 4;
    /// Items per thread of the device scan.
    pub const fn scan_items(size_of_item: usize) -> usize {
        SCAN_STRIPES * 16 / size_of_item
    }
    /// Threads per block of the row kernels (one warp per row).
    pub const ROWS_THREADS: u32 = 256;
    /// Items each lane of a row scan handles per step.
    pub const ROWS_SCAN_ITEMS: usize = 4;
    /// Bytes of `.shared` scratch every library kernel gets.
    pub const SCRATCH_BYTES: usize = 1024;
    /// Epochs run from 1 to this, then the status words are cleared and it starts again.
    pub const MAX_EPOCH: u32 = u32::MAX - 1;
}

/// The parameters of the library's kernels: one `#[repr(C)]` struct per kernel family, passed
/// by value as the kernel's only parameter. `warpkit-host` builds the same structs, so kernel
/// and host cannot disagree on a parameter list. Addresses are device pointers.
pub mod params {
    /// `warpkit_reduce_*`: `output[0]` = the reduction of `input[..len]`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Reduce {
        pub input: u64,
        pub len: u64,
        /// One partial per block.
        pub partials: u64,
        /// A `u32`, zero between launches (the last block resets it).
        pub counter: u64,
        pub output: u64,
    }

    /// `warpkit_scan_*`: `output[..len]` = the scan of `input[..len]`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Scan {
        pub input: u64,
        pub output: u64,
        pub len: u64,
        /// The tile-status tree ([`super::TileStatus`]).
        pub words: u64,
        pub capacity: u32,
        pub epoch: u32,
        /// 1 for an exclusive scan.
        pub exclusive: u32,
        pub padding: u32,
    }

    /// `warpkit_rows_*`: one reduction or scan per row.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Rows {
        pub input: u64,
        /// `rows + 1` row offsets, or 0 for rows of `width`.
        pub offsets: u64,
        pub width: u64,
        pub rows: u64,
        pub output: u64,
        /// 1 for an exclusive scan.
        pub exclusive: u32,
        pub padding: u32,
    }

    // SAFETY: plain integers, no host pointers.
    unsafe impl cust_core::DeviceCopy for Reduce {}
    // SAFETY: as above.
    unsafe impl cust_core::DeviceCopy for Scan {}
    // SAFETY: as above.
    unsafe impl cust_core::DeviceCopy for Rows {}
}

/// Items that a thread loads with one 16-byte access.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Vector<T, const N: usize>(pub [T; N]);

#[cfg(target_arch = "nvptx64")]
pub use gpu::*;

#[cfg(target_arch = "nvptx64")]
mod gpu {
    use super::{Vector, tuning::*};
    // Paths of the new layout (`layout` branch); the bodies are unchanged but for two
    // renamed vote paths.
    use crate::block::raw as block;
    use crate::instr::{LaneMask, shfl::ShflMode};
    use crate::kernel::{self as thread, lane_id};
    use crate::ops::ReduceOp;
    use crate::warp::shfl::shfl_sync_mode;
    use crate::warp::{Tile, Warp};
    use bytemuck::Pod;
    use core::arch::asm;
    use core::mem::size_of;

    /// `ld.relaxed.gpu.u64`: bypasses the incoherent L1 for data other blocks wrote.
    #[inline(always)]
    unsafe fn load_relaxed(p: *const u64) -> u64 {
        let v: u64;
        // SAFETY: the caller passes a valid global pointer.
        unsafe {
            asm!("ld.relaxed.gpu.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack))
        };
        v
    }

    /// `st.relaxed.gpu.u64`
    #[inline(always)]
    unsafe fn store_relaxed(p: *mut u64, v: u64) {
        // SAFETY: the caller passes a valid global pointer.
        unsafe {
            asm!("st.relaxed.gpu.u64 [{p}], {v};", v = in(reg64) v, p = in(reg64) p, options(nostack))
        };
    }

    /// `nanosleep.u32`: backs off a spinning warp so it does not flood the memory system.
    #[inline(always)]
    fn nanosleep(ns: u32) {
        // SAFETY: a timed pause has no precondition.
        unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack)) };
    }

    /// Exponential back-off for a spinning lane: 32 ns, doubling up to 512 ns.
    struct Backoff(u32);

    impl Backoff {
        fn new() -> Self {
            Backoff(32)
        }

        #[inline(always)]
        fn pause(&mut self) {
            nanosleep(self.0);
            self.0 = (self.0 * 2).min(512);
        }
    }

    /// Every lane of the warp polls `read` (lanes with `pending` false start with `default`)
    /// until each has a value, backing off between rounds; returns the lane's value.
    #[inline(always)]
    fn warp_poll<R: Copy>(pending: bool, default: R, mut read: impl FnMut() -> Option<R>) -> R {
        let (mut value, mut ready) = (default, !pending);
        let mut backoff = Backoff::new();
        loop {
            if !ready && let Some(v) = read() {
                (value, ready) = (v, true);
            }
            if crate::warp::vote::all_sync(LaneMask::FULL, ready) {
                return value;
            }
            backoff.pause();
        }
    }

    /// `atom.acq_rel.gpu.add.u32`: returns the old value.
    #[inline(always)]
    unsafe fn fetch_add_acq_rel(p: *mut u32, v: u32) -> u32 {
        let old: u32;
        // SAFETY: the caller passes a valid global pointer.
        unsafe {
            asm!("atom.acq_rel.gpu.add.u32 {o}, [{p}], {v};", o = out(reg32) old, v = in(reg32) v, p = in(reg64) p,
                options(nostack))
        };
        old
    }

    /// `ld.relaxed.gpu.u32` for each word of a value another block wrote.
    #[inline(always)]
    unsafe fn load_relaxed_pod<T: Pod>(p: *const T) -> T {
        const { assert!(size_of::<T>() % 4 == 0 && core::mem::align_of::<T>() >= 4) };
        let mut out = T::zeroed();
        let dst = &mut out as *mut T as *mut u32;
        for k in 0..size_of::<T>() / 4 {
            let v: u32;
            // SAFETY: the caller passes a valid global pointer to a whole T.
            unsafe {
                asm!("ld.relaxed.gpu.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) (p as *const u32).add(k),
                    options(nostack));
                *dst.add(k) = v;
            }
        }
        out
    }

    /// A value of at most 8 bytes as the low bytes of a `u64`, and back.
    #[inline(always)]
    fn to_word<T: Pod>(v: T) -> u64 {
        const { assert!(size_of::<T>() <= 8) };
        let mut w = 0u64;
        bytemuck::bytes_of_mut(&mut w)[..size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&v));
        w
    }

    #[inline(always)]
    fn from_word<T: Pod>(w: u64) -> T {
        bytemuck::pod_read_unaligned(&bytemuck::bytes_of(&w)[..size_of::<T>()])
    }

    /// Elements before the first 16-byte boundary of `p`, at most `len`.
    #[inline(always)]
    fn head_len<T>(p: *const T, len: usize) -> usize {
        let misaligned = (p as usize % 16) / size_of::<T>();
        (((16 / size_of::<T>()) - misaligned) % (16 / size_of::<T>())).min(len)
    }

    /// One block's part of the single-pass device reduce; see the [module docs](super).
    ///
    /// # Safety
    /// Launched with [`REDUCE_THREADS`] threads per block; `input` holds `len` items;
    /// `partials` has room for one `T` per block; `counter` is zero before the launch and no
    /// other launch uses it concurrently; `scratch` is shared memory for 32 `T`s and `flag` a
    /// shared `u32`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn reduce<T: Pod, U: Pod, Op: ReduceOp<U>, const VEC: usize>(
        input: *const T,
        len: usize,
        partials: *mut U,
        counter: *mut u32,
        output: *mut U,
        load: impl Fn(usize, T) -> U,
        op: Op,
        scratch: *mut U,
        flag: *mut u32,
    ) {
        const { assert!(VEC * size_of::<T>() == 16) };
        let tid = thread::thread_idx_x();
        let block_id = thread::block_idx_x();
        let grid = thread::grid_dim_x();
        let global = thread::global_index();
        let stride = thread::grid_threads();
        // SAFETY: the caller's conditions; every index below is checked against `len`.
        unsafe {
            let head = head_len(input, len);
            let body = (len - head) / VEC;
            let tail = head + body * VEC;
            let mut acc = op.identity();
            if global < head {
                acc = op.combine(acc, load(global, *input.add(global)));
            }
            let vectors = input.add(head) as *const Vector<T, VEC>;
            let mut i = global;
            while i + (REDUCE_UNROLL - 1) * stride < body {
                let mut loaded = [Vector([T::zeroed(); VEC]); REDUCE_UNROLL];
                #[allow(clippy::needless_range_loop)] // index loops unroll; array iterators do not
                for u in 0..REDUCE_UNROLL {
                    loaded[u] = *vectors.add(i + u * stride);
                }
                #[allow(clippy::needless_range_loop)]
                for u in 0..REDUCE_UNROLL {
                    let first = head + (i + u * stride) * VEC;
                    for e in 0..VEC {
                        acc = op.combine(acc, load(first + e, loaded[u].0[e]));
                    }
                }
                i += REDUCE_UNROLL * stride;
            }
            while i < body {
                let v = *vectors.add(i);
                for e in 0..VEC {
                    acc = op.combine(acc, load(head + i * VEC + e, v.0[e]));
                }
                i += stride;
            }
            if global < len - tail {
                acc = op.combine(acc, load(tail + global, *input.add(tail + global)));
            }
            let block_total = block::reduce(acc, op, scratch);
            if tid == 0 {
                *partials.add(block_id as usize) = block_total;
                *flag = (fetch_add_acq_rel(counter, 1) == grid - 1) as u32;
            }
            thread::sync_threads();
            if *flag == 0 {
                return;
            }
            let mut acc = op.identity();
            let mut b = tid;
            while b < grid {
                acc = op.combine(acc, load_relaxed_pod(partials.add(b as usize)));
                b += REDUCE_THREADS;
            }
            let total = block::reduce(acc, op, scratch);
            if tid == 0 {
                *output = total;
                *counter = 0;
            }
        }
    }

    /// The tile status of a scan: a Fenwick tree of tile aggregates.
    ///
    /// Tile `t` publishes, for every level `j` from 0 to `trailing_zeros(t + 1)`, the aggregate
    /// of the aligned block of `2^j` tiles that ends at `t` (level 0 is the tile's own aggregate;
    /// level `j` combines the two level `j-1` halves, so every aggregate has a fixed tree shape).
    /// Level `j` holds `capacity >> j` slots from slot `2 * capacity - (2 * capacity >> j)`;
    /// slots `2 * capacity ..` hold inclusive prefixes for order-independent operators, which
    /// use CUB's decoupled look-back instead (any grouping gives them the same bits).
    ///
    /// A slot is `status_words::<T>()` 64-bit words, each with 32 bits of the value in its low
    /// half and the run's epoch in its high half. A word is read and written whole, and each
    /// slot is written once per epoch, so a reader that finds this epoch in every word of a slot
    /// has the value: no fences, no acquire loads (which would invalidate L1 on every poll), and
    /// no clearing between runs.
    #[derive(Clone, Copy, Debug)]
    pub struct TileStatus {
        pub words: *mut u64,
        /// A power of two at least the number of tiles.
        pub capacity: u32,
        pub epoch: u32,
    }

    impl TileStatus {
        #[inline(always)]
        fn slot<T>(self, level: u32, index: u32) -> *mut u64 {
            let c = 2 * self.capacity as usize;
            let base = if level == INCLUSIVE {
                c
            } else {
                c - (c >> level)
            };
            // SAFETY: in bounds for the levels and indices of the tiles the host sized it for.
            unsafe {
                self.words
                    .add((base + index as usize) * status_words::<T>())
            }
        }

        #[inline(always)]
        fn flag(self) -> u64 {
            (self.epoch as u64) << 32
        }

        /// Publishes the level-`level` aggregate with block index `index`.
        #[inline(always)]
        unsafe fn publish<T: Pod>(self, level: u32, index: u32, value: T) {
            let bits = to_word(value);
            let slot = self.slot::<T>(level, index);
            for w in 0..status_words::<T>() {
                // SAFETY: the slot lies inside the status array.
                unsafe {
                    store_relaxed(slot.add(w), self.flag() | (bits >> (32 * w)) & 0xffff_ffff)
                };
            }
        }

        /// The level-`level` aggregate with block index `index`, if published in this epoch.
        #[inline(always)]
        unsafe fn read<T: Pod>(self, level: u32, index: u32) -> Option<T> {
            let slot = self.slot::<T>(level, index);
            let mut bits = 0u64;
            let mut valid = true;
            for w in 0..status_words::<T>() {
                // SAFETY: the slot lies inside the status array.
                let word = unsafe { load_relaxed(slot.add(w)) };
                valid &= word & !0xffff_ffff == self.flag();
                bits |= (word & 0xffff_ffff) << (32 * w);
            }
            valid.then(|| from_word(bits))
        }

        /// Waits (one lane) for a slot to be published.
        #[inline(always)]
        unsafe fn wait<T: Pod>(self, level: u32, index: u32) -> T {
            let mut backoff = Backoff::new();
            loop {
                // SAFETY: forwarded.
                if let Some(v) = unsafe { self.read(level, index) } {
                    return v;
                }
                backoff.pause();
            }
        }
    }

    /// The slots after the tree: each tile's inclusive prefix, for the decoupled look-back of
    /// order-independent operators (level 0 holds the aggregates both schemes use).
    const INCLUSIVE: u32 = u32::MAX;

    /// Warp 0, order-independent operators (integers, min, max): CUB's decoupled look-back.
    /// Windows of 32 predecessors, newest first, each combined with a warp reduction, until one
    /// has published its inclusive prefix. Any grouping gives the same bits for these operators.
    #[inline(always)]
    unsafe fn look_back<T: Pod, Op: ReduceOp<T>>(tile: u32, status: TileStatus, op: Op) -> T {
        let lane = lane_id();
        let warp = Warp::full();
        let mut end = tile;
        let mut newer = op.identity();
        // SAFETY: every tile read is below `tile`.
        unsafe {
            loop {
                let has = lane < end;
                let t = end.wrapping_sub(1 + lane);
                // A predecessor's inclusive prefix if published, else its aggregate.
                let (value, is_prefix) = warp_poll(has, (op.identity(), false), || {
                    status
                        .read::<T>(INCLUSIVE, t)
                        .map(|p| (p, true))
                        .or_else(|| status.read::<T>(0, t).map(|a| (a, false)))
                });
                let prefixes = crate::warp::vote::ballot_sync(LaneMask::FULL, has && is_prefix);
                let cut = if prefixes == 0 {
                    32
                } else {
                    prefixes.trailing_zeros()
                };
                let part = warp.reduce(
                    if has && lane <= cut {
                        value
                    } else {
                        op.identity()
                    },
                    op,
                );
                newer = op.combine(part, newer);
                if prefixes != 0 {
                    return newer;
                }
                end -= 32;
            }
        }
    }

    /// Words per status slot: one per 32 bits of the value.
    pub const fn status_words<T>() -> usize {
        size_of::<T>().div_ceil(4)
    }

    /// Lane 0 of warp 0: publishes tile `tile`'s aggregate and every larger aligned block that
    /// ends at it, each as (left half, published earlier by an older tile) ⊕ (right half).
    #[inline(always)]
    unsafe fn publish_blocks<T: Pod, Op: ReduceOp<T>>(
        tile: u32,
        total: T,
        status: TileStatus,
        op: Op,
    ) {
        // SAFETY: every slot read belongs to an older tile; every slot written is this tile's.
        unsafe {
            status.publish(0, tile, total);
            let mut own = total;
            for level in 1..=(tile + 1).trailing_zeros() {
                let left = status.wait::<T>(level - 1, (tile - (1 << (level - 1))) >> (level - 1));
                own = op.combine(left, own);
                status.publish(level, tile >> level, own);
            }
        }
    }

    /// Warp 0: the exclusive prefix of tile `tile > 0`, the left-to-right combination of the
    /// aligned blocks of `tile`'s binary decomposition (at most 31, one per set bit). The
    /// blocks have fixed tree shapes and are combined in a fixed order, so the bits of the
    /// result do not depend on which tile finished first: float scans are deterministic.
    #[inline(always)]
    unsafe fn tile_prefix<T: Pod, Op: ReduceOp<T>>(tile: u32, status: TileStatus, op: Op) -> T {
        let lane = lane_id();
        let warp = Warp::full();
        let count = tile.count_ones();
        // Lane i takes the i-th highest set bit: the block [start, start + 2^level).
        let mut rest = tile;
        for _ in 0..lane.min(count) {
            rest &= !(1u32 << (31 - rest.leading_zeros()));
        }
        let has = lane < count;
        let level = if has { 31 - rest.leading_zeros() } else { 0 };
        let start = if has {
            (tile as u64 & !((2u64 << level) - 1)) as u32
        } else {
            0
        };
        // SAFETY: every block read ends below `tile`.
        let value = warp_poll(has, op.identity(), || unsafe {
            status.read::<T>(level, start >> level)
        });
        // Eight shuffles at a time (independent), then the dependent left-to-right fold.
        let mut acc = warp.shfl(value, 0);
        for chunk in 0..4u32 {
            if chunk * 8 >= count {
                break;
            }
            let gathered: [T; 8] = core::array::from_fn(|k| warp.shfl(value, chunk * 8 + k as u32));
            #[allow(clippy::needless_range_loop)] // an index loop unrolls into registers
            for k in 0..8 {
                let i = chunk * 8 + k as u32;
                if i > 0 && i < count {
                    acc = op.combine(acc, gathered[k]);
                }
            }
        }
        acc
    }

    /// One tile of the single-pass device scan; see the [module docs](super).
    ///
    /// Each warp scans `32 * STRIPES * VEC` consecutive items as `STRIPES` stripes: in a stripe,
    /// lane `l` holds items `l * VEC .. (l + 1) * VEC`, so every load and store instruction of
    /// the warp covers 512 contiguous bytes. The stripes' warp scans are independent; a carry
    /// chains them.
    ///
    /// # Safety
    /// Launched with [`SCAN_THREADS`] threads per block and one block per tile of
    /// `SCAN_THREADS * STRIPES * VEC` items; `input` and `output` hold `len` items; the status
    /// array has `3 * status.capacity * status_words::<T>()` words, `status.capacity` is a power
    /// of two at least the number of tiles, and no word carries `status.epoch` from an earlier
    /// run; `scratch` is shared memory for 32 `T`s and `prefix` for one.
    #[inline(always)]
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)] // index loops unroll into registers
    pub unsafe fn scan<T: Pod, Op: ReduceOp<T>, const STRIPES: usize, const VEC: usize>(
        input: *const T,
        output: *mut T,
        len: usize,
        status: TileStatus,
        exclusive: bool,
        op: Op,
        scratch: *mut T,
        prefix: *mut T,
    ) {
        const { assert!(VEC * size_of::<T>() == 16 && STRIPES > 0) };
        let tid = thread::thread_idx_x();
        let tile = thread::block_idx_x();
        let lane = lane_id() as usize;
        let tile_items = SCAN_THREADS as usize * STRIPES * VEC;
        let warp_start = tile as usize * tile_items + (tid / 32) as usize * 32 * STRIPES * VEC;
        let first = |s: usize| warp_start + s * 32 * VEC + lane * VEC;
        let vectorized =
            (tile as usize + 1) * tile_items <= len && (input as usize | output as usize) % 16 == 0;
        let warp = Warp::full();
        let mut items = [[op.identity(); VEC]; STRIPES];
        // SAFETY: the caller's conditions; scalar accesses are checked against `len`.
        unsafe {
            for s in 0..STRIPES {
                if vectorized {
                    let Vector(x) = *(input.add(first(s)) as *const Vector<T, VEC>);
                    items[s] = x;
                } else {
                    for e in 0..VEC {
                        if first(s) + e < len {
                            items[s][e] = *input.add(first(s) + e);
                        }
                    }
                }
            }
            // Each stripe: the lane's total, then the warp's exclusive scan of those totals.
            let mut before = [op.identity(); STRIPES];
            let mut stripe_total = [op.identity(); STRIPES];
            for s in 0..STRIPES {
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
            let mut carry = [op.identity(); STRIPES];
            for s in 1..STRIPES {
                carry[s] = if s == 1 {
                    stripe_total[0]
                } else {
                    op.combine(carry[s - 1], stripe_total[s - 1])
                };
            }
            let warp_total = if STRIPES == 1 {
                stripe_total[0]
            } else {
                op.combine(carry[STRIPES - 1], stripe_total[STRIPES - 1])
            };
            let (warp_prefix, tile_total) = block::scan_warp_totals(warp_total, op, scratch);
            let mut base = warp_prefix;
            if tid == 0 {
                if Op::ORDER_INDEPENDENT {
                    status.publish(if tile == 0 { INCLUSIVE } else { 0 }, tile, tile_total);
                } else {
                    publish_blocks(tile, tile_total, status, op);
                }
            }
            if tile > 0 {
                if tid < 32 {
                    let before_tile = if Op::ORDER_INDEPENDENT {
                        look_back(tile, status, op)
                    } else {
                        tile_prefix(tile, status, op)
                    };
                    if tid == 0 {
                        if Op::ORDER_INDEPENDENT {
                            status.publish(INCLUSIVE, tile, op.combine(before_tile, tile_total));
                        }
                        *prefix = before_tile;
                    }
                }
                thread::sync_threads();
                let before_tile = *prefix;
                base = if tid < 32 {
                    before_tile
                } else {
                    op.combine(before_tile, warp_prefix)
                };
            }
            for s in 0..STRIPES {
                let mut run = op.combine(op.combine(base, carry[s]), before[s]);
                let mut out = [op.identity(); VEC];
                for e in 0..VEC {
                    let inclusive = op.combine(run, items[s][e]);
                    out[e] = if exclusive { run } else { inclusive };
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

    /// One warp per row: `output[row]` is the reduction of the row.
    ///
    /// # Safety
    /// `input` holds every row; `output` has `rows` items; `offsets` is null or has `rows + 1`
    /// non-decreasing entries; the block size is a multiple of 32.
    #[inline(always)]
    pub unsafe fn rows_reduce<T: Pod, Op: ReduceOp<T>>(
        input: *const T,
        offsets: *const u64,
        width: usize,
        rows: usize,
        output: *mut T,
        op: Op,
    ) {
        let lane = lane_id() as usize;
        let warps = thread::grid_threads() / 32;
        let mut row = thread::global_index() / 32;
        let warp = Warp::full();
        while row < rows {
            // SAFETY: the caller's conditions; every index is inside the row.
            unsafe {
                let (start, end) = row_range(row, width, offsets);
                let mut acc = op.identity();
                let mut i = start + lane;
                while i + 96 < end {
                    let (a, b, c, d) = (
                        *input.add(i),
                        *input.add(i + 32),
                        *input.add(i + 64),
                        *input.add(i + 96),
                    );
                    acc = op.combine(op.combine(op.combine(op.combine(acc, a), b), c), d);
                    i += 128;
                }
                while i < end {
                    acc = op.combine(acc, *input.add(i));
                    i += 32;
                }
                let total = warp.reduce(acc, op);
                if lane == 0 {
                    *output.add(row) = total;
                }
            }
            row += warps;
        }
    }

    /// One warp per row: the row's inclusive (or exclusive) scan into `output`.
    ///
    /// # Safety
    /// As [`rows_reduce`], with `output` the same length as `input`.
    #[inline(always)]
    pub unsafe fn rows_scan<T: Pod, Op: ReduceOp<T>>(
        input: *const T,
        offsets: *const u64,
        width: usize,
        rows: usize,
        output: *mut T,
        exclusive: bool,
        op: Op,
    ) {
        const ITEMS: usize = ROWS_SCAN_ITEMS;
        let lane = lane_id() as usize;
        let warps = thread::grid_threads() / 32;
        let mut row = thread::global_index() / 32;
        let warp: Tile<32> = Warp::full();
        while row < rows {
            // SAFETY: the caller's conditions; every index is checked against the row's end.
            unsafe {
                let (start, end) = row_range(row, width, offsets);
                let mut carry = op.identity();
                let mut base = start;
                while base < end {
                    let first = base + lane * ITEMS;
                    let mut items = [op.identity(); ITEMS];
                    for (k, item) in items.iter_mut().enumerate() {
                        if first + k < end {
                            *item = *input.add(first + k);
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
                            *output.add(first + k) = if exclusive { run } else { inclusive };
                        }
                        run = inclusive;
                    }
                    carry = shfl_sync_mode(
                        ShflMode::Idx,
                        LaneMask::FULL,
                        run,
                        31,
                        Warp::control(ShflMode::Idx),
                    );
                    base += 32 * ITEMS;
                }
            }
            row += warps;
        }
    }
}
