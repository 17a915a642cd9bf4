//! The host–device contract, compiled for both sides: the library kernels' parameter structs,
//! the layout of the device storage they use, their names, and the one list of element types
//! and operators they are built for.
//!
//! The device entry points (`device/entry.rs`) and `warpkit-host`'s kernel table are both
//! generated from [`library_kernels!`](crate::library_kernels) and named by
//! [`kernel_name!`](crate::kernel_name), so a kernel cannot be
//! renamed or dropped on one side only: `warpkit-host`'s tests check, without a GPU, that every
//! kernel its table names is an `.entry` of every embedded PTX module.

/// The parameters of the library's kernels: one `#[repr(C)]` struct per kernel family, passed
/// by value as the kernel's only parameter. Addresses are device pointers.
pub mod params {
    /// `reduce` kernels: `output[0]` = the reduction of `input[..len]`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct Reduce {
        pub input: u64,
        pub len: u64,
        /// Room for [`super::layout::REDUCE_MAX_TILES`] partial results (the fenced end).
        pub partials: u64,
        /// [`super::layout::reduce_slot_words`]`(accumulator bytes)` 64-bit words, 16-byte
        /// aligned, zero before the first launch; each launch leaves them zero (the flagged
        /// partials, which nothing else may write).
        pub slots: u64,
        /// A `u32`, zero before the first launch; the last block resets it.
        pub counter: u64,
        pub output: u64,
        /// Items per tile of the tiled reduce (operators whose grouping changes the result):
        /// [`super::layout::reduce_tile_items`]`(len, item bytes)`, computed on the host so
        /// that no block spends 64-bit divisions on it before its first load.
        pub tile_items: u32,
        /// Tiles of the tiled reduce: [`super::layout::reduce_tiles`]`(len, item bytes)`.
        pub tiles: u32,
        /// The even share of the order-independent reduces (16-byte items' vectors in tiles
        /// of [`REDUCE_UNROLL`](crate::device::tuning::REDUCE_UNROLL) per thread): block `b`
        /// takes tiles from `b × share_tiles + min(b, share_extra)`, `share_tiles` of them and
        /// one more if `b < share_extra`; the vectors after those `share_tiles × grid +
        /// share_extra` tiles go grid-strided. [`super::layout::reduce_even_share`]`(input,
        /// len, item bytes, grid)`, computed on the host so that no block divides by the grid
        /// before its first load, or `(0, 0)` with [`super::layout::reduce_spread_grid`]'s
        /// grid (every vector grid-strided, one per thread).
        pub share_tiles: u32,
        /// See [`Self::share_tiles`].
        pub share_extra: u32,
    }

    /// `scan` kernels: `output[..len]` = the scan of `input[..len]`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct Scan {
        pub input: u64,
        pub output: u64,
        pub len: u64,
        /// The tile status: [`super::layout::scan_status_words`] words, zeroed before first use,
        /// 16-byte aligned (two-word slots move as one vector).
        pub status: u64,
        /// A [`super::layout::ScanControl`], zeroed before first use; the kernel keeps it.
        pub control: u64,
        /// A power of two, at least the number of tiles and at least 32.
        pub capacity: u32,
        /// 1 for an exclusive scan.
        pub exclusive: u32,
        /// 0, or the address of one accumulator value `c` combined in front of every output:
        /// `y[i] = c ⊕ (x[0] ⊕ … ⊕ x[i])` (exclusive: `c ⊕ (x[0] ⊕ … ⊕ x[i-1])`, `c` at 0).
        /// The carry-in of a scan that continues another (the multi-GPU scan's shards).
        pub carry: u64,
        /// Stripes per thread in this run's tiles: [`super::layout::scan_stripes`], from 1 to
        /// the kernel's [`scan_stripes`](crate::device::tuning::scan_stripes).
        pub stripes: u32,
        /// How each tile finds what comes before it: one of [`scan_pass`].
        pub pass: u32,
        /// Passes [`scan_pass::TILE_TOTALS`] and [`scan_pass::FROM_TILE_PREFIXES`]: one
        /// accumulator value per tile (written, or read); 0 otherwise.
        pub tiles: u64,
    }

    /// The passes a scan kernel can run ([`Scan::pass`]). A scan is either one
    /// [`SINGLE`](scan_pass::SINGLE) pass, or two passes over the same tiles with a scan of
    /// the tile totals between them: a reduce-then-scan, for a scan whose carry-in is not
    /// known when it starts (the multi-GPU scan: a shard's carry needs the totals of the
    /// shards before it).
    pub mod scan_pass {
        /// Read, scan and write in one pass, each tile's prefix from the look-back.
        pub const SINGLE: u32 = 0;
        /// Read only: tile `t`'s total (its items folded as in the scan) to `tiles[t]`.
        pub const TILE_TOTALS: u32 = 1;
        /// Tile `t`'s exclusive prefix is `tiles[t]` (no look-back): read, scan and write.
        pub const FROM_TILE_PREFIXES: u32 = 2;
        /// As [`SINGLE`], in a launch whose whole grid is one thread block cluster of at most
        /// [`SCAN_CLUSTER_TILES`](crate::abi::layout::SCAN_CLUSTER_TILES) blocks (sm_90+):
        /// each tile sends its total to the later tiles' shared memory and finds its prefix
        /// after a cluster barrier, with no look-back through global memory. Kernels compiled
        /// for older targets, and accumulators of other than 4, 8, 12 or 16 bytes, take the
        /// look-back instead (the same bits).
        pub const CLUSTER: u32 = 3;
    }

    /// `rows_*` kernels: one reduction or scan per row.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct Rows {
        pub input: u64,
        /// `rows + 1` row offsets (`u64`), or 0 for rows of `width`.
        pub offsets: u64,
        pub width: u64,
        pub rows: u64,
        pub output: u64,
        /// 1 for an exclusive scan.
        pub exclusive: u32,
        pub padding: u32,
    }

    crate::device_arg!(Reduce, Scan, Rows);
}

/// Sizes of the device storage the kernels use, in the units the host allocates.
pub mod layout {
    use crate::device::tuning;

    /// 64-bit status words per tile-status slot for a value of `value_bytes`: each word holds 32
    /// bits of the value beside the run's epoch.
    pub const fn status_words_per_slot(value_bytes: usize) -> usize {
        value_bytes.div_ceil(4)
    }

    /// Tiles per look-back group of the device scan.
    pub const SCAN_GROUP: usize = 32;

    /// Tiles of a single-pass device scan, at most, that look back *flat*: each tile reads the
    /// aggregates of all older tiles, one group per warp, instead of the groups' aggregates
    /// and prefixes. The same bits either way (the same values combined in the same order);
    /// only the latency differs.
    pub const SCAN_FLAT_TILES: u32 = tuning::SCAN_THREADS / 32 * SCAN_GROUP as u32;

    /// Tiles of the device scan's inputs small enough to run as one thread block cluster
    /// ([`scan_pass::CLUSTER`](super::params::scan_pass::CLUSTER)) at most: the largest cluster
    /// an H100 or H200 launches (16 with the non-portable cluster size allowed; 8 is the
    /// portable size).
    pub const SCAN_CLUSTER_TILES: usize = 16;

    /// Slots of a scan's tile status for `capacity` tiles: one aggregate per tile, then per
    /// group of [`SCAN_GROUP`] tiles its aggregate and its inclusive prefix.
    pub const fn scan_status_slots(capacity: usize) -> usize {
        capacity + 2 * (capacity / SCAN_GROUP + 1)
    }

    /// 64-bit words of a scan's tile status for `capacity` tiles with values of `value_bytes`.
    pub const fn scan_status_words(capacity: usize, value_bytes: usize) -> usize {
        scan_status_slots(capacity) * status_words_per_slot(value_bytes)
    }

    /// The scan's per-storage control block. The kernel advances the epoch itself, so a
    /// launch captured in a CUDA graph and replayed sees a fresh epoch every time, with no host
    /// involvement.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct ScanControl {
        /// Runs so far, modulo [`MAX_EPOCH`]; status words of this run carry `epoch + 1`.
        pub epoch: u32,
        pub padding: [u32; 3],
    }

    /// Epochs count modulo this, so a status flag (`epoch + 1`) is never 0, the value of
    /// zeroed storage.
    pub const MAX_EPOCH: u32 = u32::MAX;

    /// Tiles of the device reduce at most: its tile grows with the input so that the partials
    /// (one per tile) fit in `REDUCE_MAX_TILES` values. Each tile ends in a block reduce, so
    /// larger tiles spend less time in them: at 2^24 `f64`, 8192 tiles of 2 048 items (one
    /// 16-byte load per thread per tile) left the float sum at 0.92× CUB on an H200.
    pub const REDUCE_MAX_TILES: u64 = 2048;

    /// Items of a device reduce at most: up to this many, a tile has fewer than 2^32 items
    /// ([`super::params::Reduce::tile_items`]).
    pub const REDUCE_MAX_LEN: u64 = 1 << 41;

    /// Flagged partials that each thread of the device reduce's last block reads at once, at
    /// most.
    pub const REDUCE_FLAGGED_PARTIALS: usize = 2;

    /// 64-bit words of flagged partials that each thread of the device reduce's last block
    /// reads at once, at most (but one partial is always read).
    pub const REDUCE_FLAGGED_WORDS: usize = 4;

    /// Flagged partials of `accumulator_bytes` that each thread of the device reduce's last
    /// block reads at once: a launch whose threads would have more takes the fenced end. Two
    /// for accumulators of up to 8 bytes (512 partials, the grid of 8-byte reduces at 2^20
    /// items on an H200); more for 4-byte ones gave their kernels 36 registers instead of 32
    /// (`ptxas` 12.9, sm_90), which fit 6 blocks per SM instead of 8.
    pub const fn reduce_flagged_batch(accumulator_bytes: usize) -> usize {
        // A zero-sized accumulator still takes a slot of one word.
        let words = match status_words_per_slot(accumulator_bytes) {
            0 => 1,
            words => words,
        };
        let fit = if words >= REDUCE_FLAGGED_WORDS {
            1
        } else {
            REDUCE_FLAGGED_WORDS / words
        };
        if fit > REDUCE_FLAGGED_PARTIALS {
            REDUCE_FLAGGED_PARTIALS
        } else {
            fit
        }
    }

    /// 64-bit words of the device reduce's flagged partials
    /// ([`super::params::Reduce::slots`]): one slot for each partial a launch that takes the
    /// flagged end can have.
    pub const fn reduce_slot_words(accumulator_bytes: usize) -> usize {
        tuning::REDUCE_THREADS as usize
            * reduce_flagged_batch(accumulator_bytes)
            * status_words_per_slot(accumulator_bytes)
    }

    /// Items of `item_bytes` one step of the device reduce's block moves:
    /// [`REDUCE_UNROLL`](tuning::REDUCE_UNROLL) vectors per thread of
    /// [`REDUCE_THREADS`](tuning::REDUCE_THREADS). The even share's tile, and the tiled
    /// reduce's smallest tile.
    pub const fn reduce_step_items(item_bytes: usize) -> u64 {
        (tuning::REDUCE_THREADS as usize * tuning::REDUCE_UNROLL * tuning::vector_items(item_bytes))
            as u64
    }

    /// Items of `item_bytes` at `input` (a multiple of `item_bytes`) before its first
    /// [`reduce_body_align`]-byte boundary, at most `len`: the device reduce combines these one
    /// at a time, the rest in 16-byte vectors.
    pub const fn reduce_head_items(input: u64, len: u64, item_bytes: usize) -> u64 {
        let align = reduce_body_align(len, item_bytes);
        let head = (align - input % align) % align / item_bytes as u64;
        if head < len { head } else { len }
    }

    /// The alignment in bytes of the part of a device reduce's input over `len` items of
    /// `item_bytes` that moves in 16-byte vectors: a cache line (128 bytes), so that each
    /// warp's load of 32 vectors covers 4 whole lines (from a 16-byte boundary inside a line it
    /// covers 5); but 16 bytes for 8-byte items below [`REDUCE_LINE_BODY_MIN_LEN`], whose head
    /// items the kernel reads after its loop (`ptxas` gives them no register before it), so a
    /// head in a line of its own costs a round trip at the end. On an H100, inputs one item
    /// into their buffers (`h100-2026-11-28-reduce-line-body-ab.csv`): at 2^28, 4-byte sums,
    /// min and max 368-372 → 363-365 µs (1.01-1.03× → 1.03-1.05× CUB), 8-byte 740-744 →
    /// 723-727 µs (0.98-0.99× → 1.01×); 8-byte at 2^20 0.1-0.3 µs slower with a line body
    /// (cold 9.28 → 9.38-9.63 µs), at 2^24 0.3-0.4 µs faster. Aligned inputs: no head.
    pub const fn reduce_body_align(len: u64, item_bytes: usize) -> u64 {
        if item_bytes == 8 && len < REDUCE_LINE_BODY_MIN_LEN {
            16
        } else {
            128
        }
    }

    /// The length from which a device reduce of 8-byte items aligns its vectors to a line
    /// ([`reduce_body_align`]).
    pub const REDUCE_LINE_BODY_MIN_LEN: u64 = 1 << 24;

    /// The even share of the order-independent device reduces over `len` items of
    /// `item_bytes` at `input` on `grid` blocks ([`super::params::Reduce::share_tiles`],
    /// [`super::params::Reduce::share_extra`]): the whole tiles of
    /// [`REDUCE_THREADS`](tuning::REDUCE_THREADS) × [`REDUCE_UNROLL`](tuning::REDUCE_UNROLL)
    /// vectors after the head, divided as evenly as whole tiles allow. `(0, 0)` for items
    /// that do not move in 16-byte vectors (those kernels stride over the grid instead).
    pub const fn reduce_even_share(
        input: u64,
        len: u64,
        item_bytes: usize,
        grid: u32,
    ) -> (u32, u32) {
        if !tuning::vectorizes(item_bytes) {
            return (0, 0);
        }
        let body = len - reduce_head_items(input, len, item_bytes);
        let tiles = body / reduce_step_items(item_bytes);
        ((tiles / grid as u64) as u32, (tiles % grid as u64) as u32)
    }

    /// The grid of a device reduce that spreads a small input
    /// ([`reduce_spreads_small_inputs`](tuning::reduce_spreads_small_inputs)): one block per
    /// [`REDUCE_THREADS`](tuning::REDUCE_THREADS) 16-byte vectors after the head, so each thread
    /// takes one vector, grid-strided, with an even share of no tiles (`(0, 0)`). `None` where
    /// that would take more than `REDUCE_THREADS` blocks (more partials than block 0 combines
    /// at once) or the items do not move in vectors.
    pub const fn reduce_spread_grid(input: u64, len: u64, item_bytes: usize) -> Option<u32> {
        if !tuning::vectorizes(item_bytes) {
            return None;
        }
        let vectors = (len - reduce_head_items(input, len, item_bytes)) / (16 / item_bytes as u64);
        let threads = tuning::REDUCE_THREADS as u64;
        if vectors > threads * threads {
            return None;
        }
        let blocks = vectors.div_ceil(threads);
        Some(if blocks == 0 { 1 } else { blocks as u32 })
    }

    /// Block `block`'s run of the even share ([`reduce_even_share`]'s `(share_tiles,
    /// share_extra)`): its first tile and how many it takes.
    #[inline(always)]
    pub const fn reduce_share_tiles(
        block: usize,
        share_tiles: usize,
        share_extra: usize,
    ) -> (usize, usize) {
        let extra_before = if block < share_extra {
            block
        } else {
            share_extra
        };
        (
            block * share_tiles + extra_before,
            share_tiles + (block < share_extra) as usize,
        )
    }

    /// Items per tile of the device reduce over `len` items of `item_bytes` each:
    /// [`REDUCE_UNROLL`](tuning::REDUCE_UNROLL) vectors per thread of the block at least,
    /// doubled until there are at most [`REDUCE_MAX_TILES`] tiles. A function of the length
    /// alone, so a float sum combines the same items in the same tree on every device, grid,
    /// alignment and target. Tiles of other whole numbers of steps, chosen so that the last
    /// round of a 1056-block grid left fewer blocks idle (3121 tiles of 21 steps for 2^28
    /// `f32`, 2081 of 63 for `f64`), made those sums 1.7-3.4% slower on an H100
    /// (`bench-results/h100-2026-11-26-reduce-round-filling-tiles-ab.csv`).
    pub const fn reduce_tile_items(len: u64, item_bytes: usize) -> u64 {
        let mut tile = reduce_step_items(item_bytes);
        while len.div_ceil(tile) > REDUCE_MAX_TILES {
            tile *= 2;
        }
        tile
    }

    /// Tiles the device scan aims for at least: below `SCAN_MIN_TILES × (largest tile)` items,
    /// tiles shrink so that small inputs still spread over the multiprocessors. Measured on an
    /// H200: at 2^20 items, 512 tiles (of 2048 u32 or 1024 u64) were slower than 128 or 205
    /// tiles of the largest size (7.9 against 7.4 µs, 14.7 against 9.8 µs): every tile adds
    /// a look-back; at 2^16, 64 tiles of one stripe beat 8 large ones.
    pub const SCAN_MIN_TILES: u64 = 128;

    /// Stripes per thread of the device scan's tiles, at least, while they shrink towards
    /// [`SCAN_FLAT_TILES`] tiles: an input that would make fewer tiles takes smaller ones, of
    /// no fewer stripes than this, so that it still runs as one wave with a flat look-back,
    /// each tile folding less on the launch's critical path. Measured on an H200
    /// (`h200-2026-11-28-scan-flat-tiles-ab.csv`, A B B A, 15 pairs, tiles shrunk towards 256
    /// down to one stripe in B): 256 tiles of at least 4 stripes were faster (`u32` 2^20 in 256
    /// tiles of 4 instead of 128 of 8, warm 5.6-5.7 → 5.3-5.6 µs, cold 8.7-8.9 → 8.2-8.7 µs;
    /// 2^21 in 256 of 8 instead of 228 of 9, warm 7.5 → 7.2 µs, cold 10.4-10.7 → 10.2-10.3 µs;
    /// `u64`/`f64` 2^19 in 256 of 4 instead of 128 of 8, warm 5.7-5.8 → 5.4-5.6 µs, cold
    /// 8.6-8.9 → 8.3-8.7 µs), 256 of 1 or 2 slower (`u32` 2^18 and 2^19 warm 3.8-4.0 → 4.6-4.8
    /// µs, `u64` 2^18 4.0-4.1 → 4.2-4.3 µs).
    pub const SCAN_FLAT_MIN_STRIPES: u64 = 4;

    /// Stripes per thread, at most, of the tiles of an input small enough to fit in one
    /// look-back group ([`SCAN_GROUP`] tiles), which such an input takes (the fewest stripes
    /// that fit): its tiles then wait for no group before theirs. Measured on an H200 against
    /// [`SCAN_MIN_TILES`] alone (`h200-2026-11-26-scan-min-tiles-32-ab.csv`, A B B A, 15 pairs):
    /// 4-byte scans at 2^16 items in 32 tiles of 2 stripes instead of 64 of 1, warm 3.3-3.4 →
    /// 3.05-3.3 µs, cold 6.5-6.9 → 6.1-6.3 µs; at 2^17 in 32 of 4 instead of 128 of 1, warm
    /// 3.8-4.0 → 3.2-3.3 µs, cold 7.0-7.3 → 6.4-6.5 µs; 8-byte scans at 2^16 in 32 tiles of 4
    /// instead of 128 of 1, warm 3.7-3.9 → 3.35-3.45 µs, cold 6.7-6.8 → 6.4-6.6 µs. One group
    /// of larger tiles was no faster or slower (8-byte at 2^17 in 32 tiles of 8 stripes: warm
    /// 3.95 → 4.1 µs), and so were fewer tiles than 128 in more groups (8-byte at 2^18 in 64
    /// tiles of 8: 4.35 → 4.6 µs).
    pub const SCAN_ONE_GROUP_STRIPES: u64 = 4;

    /// Stripes per thread, at most, of the tiles of an input of `item_bytes` items small enough
    /// to run as one cluster of at most [`SCAN_CLUSTER_TILES`] tiles, which such an input takes
    /// (the fewest stripes that fit): 8 for 4-byte items, else 4.
    ///
    /// Measured on an H200, clusters against the look-back over one group (A B B A, 15 pairs,
    /// `u32`/`f32`/`u64`/`f64` inclusive and exclusive sums, `h200-2026-11-27-scan-cluster-ab.csv`):
    /// cold, 2^14 items 5.5-6.0 → 5.4-5.7 µs, 4-byte 2^15 (16 tiles of 2 stripes instead of 32
    /// of 1) 5.9-6.1 → 5.6-5.7 µs, 1.23-1.30× → 1.28-1.35× CUB, 4-byte 2^16 (16 of 4 instead of
    /// 32 of 2) 6.0-6.3 → 5.9-6.1 µs, 8-byte 2^15 0.1 µs faster. Tiles of 8 stripes, where only
    /// 16 multiprocessors move the input, first lost more than the cluster saved
    /// (`h200-2026-11-27-scan-cluster-8-stripes-ab.csv`: 4-byte 2^17 cold 6.4-6.6 → 6.7-7.0
    /// µs). Once the cluster's totals went by `st.async`, the 4-byte scans at 2^17 in 16 tiles
    /// of 8 gained, cold 6.46-6.75 → 6.05-6.24 µs (1.19-1.30× → 1.25-1.38× CUB), warm 3.4-3.8
    /// → 3.3-3.7 µs, in a cluster copy of the tile code of their own
    /// (`h200-2026-11-27-scan-cluster-wide-ab.csv`; with one copy for both widths the 4-byte
    /// scans of 16 tiles of 4 ran 0.15 µs slower, `…-cluster-8-stripes-st-async-ab.csv`);
    /// 8-byte scans at 2^16 in 16 tiles of 8 ran as fast as the look-back over 32 tiles of 4
    /// (6.34-6.46 µs cold), so they keep the look-back.
    pub const fn scan_cluster_stripes(item_bytes: usize) -> u64 {
        if item_bytes == 4 {
            SCAN_CLUSTER_WIDE_STRIPES
        } else {
            SCAN_CLUSTER_NARROW_STRIPES
        }
    }

    /// The stripes of a narrow cluster's tiles, at most ([`scan_cluster_stripes`]): the
    /// device scan runs these tiles in a cluster copy of its tile code of their own.
    pub const SCAN_CLUSTER_NARROW_STRIPES: u64 = 4;

    /// The stripes of a wide cluster's tiles, at most ([`scan_cluster_stripes`], 4-byte items):
    /// the device scan runs tiles of more than [`SCAN_CLUSTER_NARROW_STRIPES`] in a cluster
    /// copy of its tile code of their own.
    pub const SCAN_CLUSTER_WIDE_STRIPES: u64 = 8;

    /// Stripes per thread in the device scan's tiles over `len` items of `item_bytes`: the
    /// fewest of 1, 2, 4 and 8, at most [`scan_cluster_stripes`], that put the input in one
    /// cluster of tiles ([`SCAN_CLUSTER_TILES`]), if any; else the fewest of 1, 2 and 4
    /// ([`SCAN_ONE_GROUP_STRIPES`]) that put it in one look-back group, if any; else the
    /// kernel's [`scan_stripes`](tuning::scan_stripes), while the input
    /// would make fewer than [`SCAN_MIN_TILES`] tiles (down to one), or fewer than
    /// [`SCAN_FLAT_TILES`] (down to [`SCAN_FLAT_MIN_STRIPES`]), the next power of two
    /// below it for items that move in vectors (which the kernel shifts by), else half of it.
    /// A function of the length alone, so a float scan combines the same items in the same
    /// order on every device, grid and target.
    pub const fn scan_stripes(len: u64, item_bytes: usize) -> u32 {
        let stripe_items =
            (tuning::SCAN_THREADS as usize * tuning::vector_items(item_bytes)) as u64;
        let most = tuning::scan_stripes(item_bytes) as u64;
        let mut stripes = 1;
        while stripes <= scan_cluster_stripes(item_bytes) && stripes <= most {
            if len.div_ceil(stripe_items * stripes) <= SCAN_CLUSTER_TILES as u64 {
                return stripes as u32;
            }
            stripes *= 2;
        }
        let mut stripes = 1;
        while stripes <= SCAN_ONE_GROUP_STRIPES && stripes <= most {
            if len.div_ceil(stripe_items * stripes) <= SCAN_GROUP as u64 {
                return stripes as u32;
            }
            stripes *= 2;
        }
        let mut stripes = most;
        loop {
            let tiles = len.div_ceil(stripe_items * stripes);
            let too_few = (stripes > 1 && tiles < SCAN_MIN_TILES)
                || (stripes > SCAN_FLAT_MIN_STRIPES && tiles < SCAN_FLAT_TILES as u64);
            if !too_few {
                break;
            }
            stripes = if tuning::vectorizes(item_bytes) {
                1 << (stripes - 1).ilog2() // 9 → 8 → 4 ..
            } else {
                stripes / 2
            };
        }
        stripes as u32
    }

    /// Items per tile (and per block) of the device scan over `len` items:
    /// [`scan_stripes`] vectors per thread. The host launches
    /// `len.div_ceil(scan_tile_items(..))` blocks of [`SCAN_THREADS`](tuning::SCAN_THREADS).
    pub const fn scan_tile_items(len: u64, item_bytes: usize) -> u64 {
        (tuning::SCAN_THREADS as usize * tuning::vector_items(item_bytes)) as u64
            * scan_stripes(len, item_bytes) as u64
    }

    /// Tiles of the device reduce over `len` items.
    pub const fn reduce_tiles(len: u64, item_bytes: usize) -> u64 {
        len.div_ceil(reduce_tile_items(len, item_bytes))
    }
}

/// A fingerprint of the host–device contract: the parameter structs' sizes, the pass codes,
/// the block sizes, and the storage, alignment and tile geometry at lengths from 1 to 2^41 for items of 1
/// to 16 bytes. [`custom_kernels!`](crate::custom_kernels) writes it into the PTX beside the
/// value's layout, and `warpkit-host` refuses kernels whose fingerprint is not its own: kernels
/// built against another warpkit would be launched with parameters or tiles they do not
/// expect.
pub const ABI_FINGERPRINT: u32 = {
    use crate::device::tuning;
    use core::mem::size_of;
    // FNV-1a over the values, low byte first.
    const fn mix(hash: u32, value: u64) -> u32 {
        let mut hash = hash;
        let mut i = 0;
        while i < 8 {
            hash = (hash ^ ((value >> (8 * i)) & 0xff) as u32).wrapping_mul(0x0100_0193);
            i += 1;
        }
        hash
    }
    let mut h = 0x811c_9dc5;
    let fixed = [
        size_of::<params::Reduce>() as u64,
        size_of::<params::Scan>() as u64,
        size_of::<params::Rows>() as u64,
        size_of::<layout::ScanControl>() as u64,
        params::scan_pass::SINGLE as u64,
        params::scan_pass::TILE_TOTALS as u64,
        params::scan_pass::FROM_TILE_PREFIXES as u64,
        params::scan_pass::CLUSTER as u64,
        tuning::SCAN_THREADS as u64,
        tuning::REDUCE_THREADS as u64,
        tuning::ROWS_THREADS as u64,
        layout::SCAN_GROUP as u64,
        layout::SCAN_CLUSTER_TILES as u64,
        layout::REDUCE_MAX_TILES,
        layout::REDUCE_MAX_LEN,
        layout::MAX_EPOCH as u64,
        layout::REDUCE_LINE_BODY_MIN_LEN,
    ];
    let mut i = 0;
    while i < fixed.len() {
        h = mix(h, fixed[i]);
        i += 1;
    }
    let mut bytes = 1;
    while bytes <= 16 {
        h = mix(h, layout::scan_status_words(1024, bytes) as u64);
        h = mix(h, layout::reduce_slot_words(bytes) as u64);
        let mut shift = 0;
        while shift <= 41 {
            let len = 1u64 << shift;
            h = mix(h, layout::scan_tile_items(len, bytes));
            h = mix(h, layout::reduce_tile_items(len, bytes));
            h = mix(h, layout::reduce_body_align(len, bytes));
            shift += 1;
        }
        // Heads at a few addresses and lengths, either side of the line rule's threshold.
        let mut offset = 0;
        while offset < 128 {
            let input = 0x7f00_0000_0000 + offset;
            h = mix(h, layout::reduce_head_items(input, 5, bytes));
            h = mix(
                h,
                layout::reduce_head_items(input, layout::REDUCE_LINE_BODY_MIN_LEN - 1, bytes),
            );
            h = mix(
                h,
                layout::reduce_head_items(input, layout::REDUCE_LINE_BODY_MIN_LEN, bytes),
            );
            offset += 8 * bytes as u64;
        }
        bytes *= 2;
    }
    h
};

/// Calls `$callback!` with the library's element types and operators: the one list the device
/// entry points and `warpkit-host`'s kernel table are generated from.
///
/// - `types`: `(element, arg-reduce index)`, with every family and every operator;
/// - `half_types`: `half::f16` and `half::bf16`, accumulated in `f32`, with `reduce`, `scan`,
///   `rows_reduce` and `rows_scan` of `ops`, and the arg-reduces (a `u32` index);
/// - `ops`: `(operator type, name)`; `arg_ops`: the arg-reduce operators.
#[macro_export]
macro_rules! library_kernels {
    ($callback:ident) => {
        $callback! {
            types: [(u32, u32), (i32, u32), (f32, u32), (u64, u64), (i64, u64), (f64, u64)],
            half_types: [f16, bf16],
            ops: [(Sum, sum), (Min, min), (Max, max)],
            arg_ops: [(ArgMin, argmin), (ArgMax, argmax)],
        }
    };
}

/// The name of a library kernel: `kernel_name!(scan, sum, u32)` is `"warpkit_scan_sum_u32"`.
/// Families: `reduce` (with `argmin`/`argmax` too), `scan`, `rows_reduce`, `rows_scan`.
#[macro_export]
macro_rules! kernel_name {
    ($family:ident, $op:ident, $ty:ident) => {
        concat!(
            "warpkit_",
            stringify!($family),
            "_",
            stringify!($op),
            "_",
            stringify!($ty)
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flagged partials: a launch that takes the flagged end has at most
    /// `REDUCE_THREADS × reduce_flagged_batch` partials, whose slots must fit; the host sizes
    /// them for accumulators of at least 16 bytes, which must cover every smaller one.
    #[test]
    fn reduce_slots_hold_every_flagged_launch() {
        use layout::{reduce_flagged_batch, reduce_slot_words, status_words_per_slot};
        for bytes in 0..=256 {
            let batch = reduce_flagged_batch(bytes);
            assert!(
                (1..=layout::REDUCE_FLAGGED_PARTIALS).contains(&batch),
                "{bytes}"
            );
            let most = crate::device::tuning::REDUCE_THREADS as usize * batch;
            assert!(most * status_words_per_slot(bytes) <= reduce_slot_words(bytes));
            assert!(
                reduce_slot_words(bytes) <= reduce_slot_words(bytes.max(16)),
                "{bytes}"
            );
        }
    }

    #[test]
    fn layouts_are_what_both_sides_assume() {
        assert_eq!(core::mem::size_of::<params::Reduce>(), 64);
        assert_eq!(core::mem::size_of::<params::Scan>(), 72);
        assert_eq!(core::mem::size_of::<params::Rows>(), 48);
        assert_eq!(core::mem::size_of::<layout::ScanControl>(), 16);
        assert_eq!(layout::status_words_per_slot(4), 1);
        assert_eq!(layout::status_words_per_slot(8), 2);
        assert_eq!(layout::status_words_per_slot(12), 3);
        assert_eq!(layout::scan_status_words(1024, 8), 2 * (1024 + 66));
        let big = 1 << 30;
        assert_eq!(layout::scan_tile_items(big, 4), 9216);
        assert_eq!(layout::scan_tile_items(big, 8), 4096);
        assert_eq!(layout::scan_tile_items(big, 2), 16384);
        assert_eq!(layout::scan_tile_items(big, 12), 3328);
        assert_eq!(layout::scan_tile_items(big, 3), 4096); // 16 stripes at most
        // Smaller inputs: tiles shrink until there are `SCAN_FLAT_TILES`, down to
        // `SCAN_FLAT_MIN_STRIPES`, then until there are `SCAN_MIN_TILES`, down to one stripe.
        let flat = layout::SCAN_FLAT_TILES as u64;
        let min = layout::SCAN_MIN_TILES;
        assert_eq!(layout::scan_tile_items(flat * 9216, 4), 9216);
        assert_eq!(layout::scan_tile_items((flat - 1) * 9216, 4), 8192); // 9 → 8 stripes
        assert_eq!(layout::scan_tile_items(1 << 21, 4), 8192); // 256 tiles of 8
        assert_eq!(layout::scan_tile_items((flat - 1) * 8192, 4), 4096); // 8 → 4 stripes
        assert_eq!(layout::scan_tile_items(1 << 20, 4), 4096); // 256 tiles of 4
        assert_eq!(layout::scan_tile_items(1 << 19, 4), 4096); // 128 tiles of 4
        assert_eq!(layout::scan_tile_items((min - 1) * 4096, 4), 2048); // 4 → 2 stripes
        assert_eq!(layout::scan_tile_items(1 << 20, 8), 4096); // 256 tiles of 8
        assert_eq!(layout::scan_tile_items((flat - 1) * 4096, 8), 2048); // 8 → 4 stripes
        assert_eq!(layout::scan_tile_items(min * 2048, 8), 2048); // 128 tiles of 4
        assert_eq!(layout::scan_tile_items((min - 1) * 2048, 8), 1024); // 4 → 2 stripes
        assert_eq!(layout::scan_stripes((flat - 1) * 256 * 13, 12), 6); // 13 → 6
        assert_eq!(layout::scan_stripes((flat / 2 - 1) * 256 * 6, 12), 3); // 13 → 6 → 3
        // Inputs that fit one cluster of at most 16 tiles of at most 8 stripes (4-byte items)
        // or 4 (others) take one; those that fit one look-back group of 32 tiles of at most 4
        // stripes, one group.
        let group = layout::SCAN_GROUP as u64;
        let cluster = layout::SCAN_CLUSTER_TILES as u64;
        assert_eq!(layout::scan_tile_items(1, 4), 1024);
        assert_eq!(layout::scan_tile_items(cluster * 1024, 4), 1024);
        assert_eq!(layout::scan_tile_items(cluster * 1024 + 1, 4), 2048); // 9 tiles of 2
        assert_eq!(layout::scan_tile_items(1 << 16, 4), 4096); // 16 tiles of 4
        assert_eq!(layout::scan_tile_items((1 << 16) + 1, 4), 8192); // 9 tiles of 8
        assert_eq!(layout::scan_tile_items(1 << 17, 4), 8192); // 16 tiles of 8
        assert_eq!(layout::scan_tile_items(group * 4096 + 1, 4), 1024); // 129 tiles of 1
        assert_eq!(layout::scan_tile_items(1 << 15, 8), 2048); // 16 tiles of 4 stripes
        assert_eq!(layout::scan_tile_items(1 << 16, 8), 2048); // one group: 32 of 4
        assert_eq!(layout::scan_tile_items(1 << 17, 8), 1024); // 128 tiles of 2
        assert_eq!(layout::scan_stripes(cluster * 256 * 4, 12), 4); // 16 tiles
        assert_eq!(layout::scan_stripes(cluster * 256 * 4 + 1, 12), 4); // 17: one group
        assert_eq!(layout::scan_stripes(group * 256 * 4 + 1, 12), 1); // 129 tiles
        assert_eq!(layout::reduce_tile_items(1 << 20, 4), 4096);
        assert_eq!(layout::reduce_tiles(1 << 28, 4), layout::REDUCE_MAX_TILES);
    }

    #[test]
    fn reduce_tiles_fit_the_partials_and_the_tile_parameter() {
        for item_bytes in [1, 2, 4, 8, 12, 16, 32] {
            let mut len = 1u64;
            while len <= layout::REDUCE_MAX_LEN {
                for n in [len, len + 1, len * 3 / 2 + 7] {
                    let tiles = layout::reduce_tiles(n, item_bytes);
                    assert!(tiles <= layout::REDUCE_MAX_TILES, "{n} × {item_bytes} B");
                }
                len *= 2;
            }
            let longest = layout::reduce_tile_items(layout::REDUCE_MAX_LEN, item_bytes);
            assert!(longest <= u32::MAX as u64, "{item_bytes} B");
        }
    }

    /// The host's even share: the blocks' runs of tiles follow one another and cover every
    /// whole tile after the head, whatever the alignment, the length and the grid.
    #[test]
    fn reduce_even_share_covers_the_body_once() {
        for item_bytes in [1usize, 2, 4, 8, 16] {
            let tile_items = layout::reduce_step_items(item_bytes);
            for offset in (0..256).step_by(item_bytes) {
                let input = 0x7f00_0000_0000 + offset as u64;
                for len in [
                    1u64,
                    15,
                    tile_items - 1,
                    tile_items + 3,
                    33 * tile_items + 5,
                    (1 << 24) - 1,
                    1 << 24,
                    1 << 28,
                ] {
                    // The head, counted item by item: up to a line, but for 8-byte items
                    // below 2^24 up to 16 bytes.
                    let align = if item_bytes == 8 && len < 1 << 24 {
                        16
                    } else {
                        128
                    };
                    let head = (0..len)
                        .find(|&i| (input + i * item_bytes as u64).is_multiple_of(align))
                        .unwrap_or(len);
                    assert_eq!(layout::reduce_head_items(input, len, item_bytes), head);
                    let tiles = (len - head) / tile_items;
                    for grid in [1u32, 2, 7, 16, 255, 1056] {
                        let (per, extra) = layout::reduce_even_share(input, len, item_bytes, grid);
                        assert!(extra < grid, "{item_bytes} B, {len}, {grid}");
                        let mut next = 0;
                        for block in 0..grid as usize {
                            let (first, count) =
                                layout::reduce_share_tiles(block, per as usize, extra as usize);
                            assert_eq!(
                                first as u64, next,
                                "{item_bytes} B, {len}, {grid}, block {block}"
                            );
                            assert!(count as u64 <= tiles.div_ceil(grid as u64));
                            next += count as u64;
                        }
                        assert_eq!(
                            next, tiles,
                            "{item_bytes} B +{offset}, {len} items, {grid} blocks"
                        );
                    }
                }
            }
        }
        assert_eq!(layout::reduce_even_share(0, 1 << 20, 12, 16), (0, 0));
    }

    /// A spread reduce gives each thread at most one of the vectors after the head, on at most
    /// `REDUCE_THREADS` blocks, and spreads only inputs that fit so.
    #[test]
    fn reduce_spread_grid_gives_each_thread_one_vector() {
        let threads = crate::device::tuning::REDUCE_THREADS as u64;
        for item_bytes in [4usize, 8] {
            let per_vector = (16 / item_bytes) as u64;
            for offset in (0..256).step_by(item_bytes) {
                let input = 0x7f00_0000_0000 + offset as u64;
                let most = threads * threads * per_vector;
                for len in [
                    1u64,
                    3,
                    4096,
                    65535,
                    1 << 16,
                    most,
                    most + 1,
                    most + 64,
                    1 << 20,
                ] {
                    let head = layout::reduce_head_items(input, len, item_bytes);
                    let vectors = (len - head) / per_vector;
                    match layout::reduce_spread_grid(input, len, item_bytes) {
                        Some(grid) => {
                            assert!(
                                grid >= 1 && grid as u64 <= threads,
                                "{len} × {item_bytes} B"
                            );
                            assert!(vectors <= grid as u64 * threads, "{len}");
                            assert!(grid == 1 || vectors > (grid as u64 - 1) * threads, "{len}");
                        }
                        None => assert!(vectors > threads * threads, "{len} × {item_bytes} B"),
                    }
                }
            }
        }
        assert_eq!(layout::reduce_spread_grid(0, 1 << 16, 4), Some(64));
        assert_eq!(layout::reduce_spread_grid(0, 1 << 20, 4), None);
        assert_eq!(layout::reduce_spread_grid(0, 100, 12), None);
    }

    #[test]
    fn kernel_names_follow_one_rule() {
        assert_eq!(kernel_name!(scan, sum, u32), "warpkit_scan_sum_u32");
        assert_eq!(
            kernel_name!(reduce, argmax, f64),
            "warpkit_reduce_argmax_f64"
        );
        assert_eq!(
            kernel_name!(rows_scan, min, i64),
            "warpkit_rows_scan_min_i64"
        );
    }
}
