//! The numbers of the device algorithms, apart from the algorithms (CUB's `tuning_*.cuh`).
//! Every tile shape here is the same on every target, so results do not depend on the PTX the
//! driver runs.

/// Threads per block of the device reduce.
pub const REDUCE_THREADS: u32 = 256;
/// Resident blocks per multiprocessor the reduce grid is sized for (fewer where the kernel's
/// registers do not allow as many: the host asks the driver). On an H200 at 2^28 items, up to
/// 8 against 4: integer sums and min/max and float min/max 1.5-2.5% faster, level with CUB
/// (0.99-1.00x, from 0.96-0.98x); float sums unchanged.
pub const REDUCE_BLOCKS_PER_SM: u32 = 8;
/// Blocks per multiprocessor the library's device reduce is compiled for (`.minnctapersm`,
/// with [`REDUCE_THREADS`]), by item and accumulator size; 0 for no bound. 8-byte items
/// combined as 8-byte values (`u64`/`i64` sums, min and max, the `f64` sum) or as 16-byte
/// arg-reduce candidates take [`REDUCE_BLOCKS_PER_SM`] on sm_90 and newer (the `f64` min and
/// max, which fold there, take [`REDUCE_F64_FOLD_MIN_BLOCKS_PER_SM`]): with one chain of
/// combines ([`super::reduce`]) `ptxas` 12.9 gave their min and max 33 registers, which
/// rounds up to 40 per thread, so 6 blocks per SM, and the `f64` arg-max 36 (7 blocks); under
/// the bound none spills and 8 fit. On an H200 at 2^20 items (warm L2) that took the
/// `u64`/`i64` min and max from 6.6 to 5.8-6.1 µs and the `f64` min from 6.9 to 6.0 µs.
pub const fn reduce_min_blocks_per_sm(
    item_bytes: usize,
    accumulator_bytes: usize,
    sm90: bool,
) -> u32 {
    if sm90 && item_bytes == 8 && (accumulator_bytes == 8 || accumulator_bytes == 16) {
        REDUCE_BLOCKS_PER_SM
    } else {
        0
    }
}
/// Whether the device reduce of `item_bytes` items combined as `accumulator_bytes` values
/// spreads an input of at most [`REDUCE_THREADS`]² 16-byte vectors over one vector per thread
/// ([`reduce_spread_grid`](crate::abi::layout::reduce_spread_grid)) instead of the even share's
/// tiles of [`REDUCE_UNROLL`] vectors per thread: the arg-reduces of 4-byte items, whose
/// candidates (a rank and an index, compared as one 64-bit integer) cost several instructions
/// per item, and at 2^16 items 16 blocks, one per SM, did all of that work. On an H200, cold
/// L2 (`h200-2026-11-27-argmin-spread-ab.csv`, 15 pairs, two samples each), the `f32` arg-min
/// at 2^16 items went from 5.38-5.50 to 4.90-4.99 µs (1.34-1.38× → 1.42-1.52× CUB) and at
/// 2^18 from 5.79-5.92 to 5.38-5.54 µs. Spreading every reduce so
/// (`h200-2026-11-27-reduce-spread-small-ab.csv`): the sums, min and max of 4- and 8-byte
/// items and the `f64` arg-min, which do less per item, gained nothing (the `u64` min lost
/// 0.1-0.3 µs at 2^16), and two vectors per thread gained nothing either.
pub const fn reduce_spreads_small_inputs(item_bytes: usize, accumulator_bytes: usize) -> bool {
    item_bytes == 4 && accumulator_bytes == 8
}
/// Blocks per multiprocessor the `f32` sum reduce is compiled for: [`REDUCE_BLOCKS_PER_SM`]
/// on sm_90 and newer, where block 0 combines its partials at small sizes and `ptxas` 12.9
/// otherwise gives it 34 registers (6 blocks per SM); under the bound 32, with no spill.
pub const fn reduce_f32_sum_min_blocks_per_sm(sm90: bool) -> u32 {
    if sm90 { REDUCE_BLOCKS_PER_SM } else { 0 }
}
/// Blocks per multiprocessor the `f16`/`bf16` arg-reduces are compiled for:
/// [`REDUCE_BLOCKS_PER_SM`] on sm_90 and newer, where each thread folds its vectors of eight
/// halves into one chain (`HalfArgLoad`): unbounded, `ptxas` 12.9 gave them 34 registers
/// (7 blocks per SM) with four chains; with one chain and the bound, 32 and no spill.
pub const fn reduce_half_arg_min_blocks_per_sm(sm90: bool) -> u32 {
    if sm90 { REDUCE_BLOCKS_PER_SM } else { 0 }
}
/// Blocks per multiprocessor the `f64` min and max reduce is compiled for where it folds with
/// `min.f64`/`max.f64` (sm_80 and newer): no bound. Under `.minnctapersm 8` `ptxas` 12.9
/// pipelined that loop deeper and spilled 36 bytes; without it, it takes 31-32 registers, so
/// [`REDUCE_BLOCKS_PER_SM`] blocks fit anyway.
pub const REDUCE_F64_FOLD_MIN_BLOCKS_PER_SM: u32 = 0;
/// 16-byte loads each thread of the reduce has in flight per loop step.
pub const REDUCE_UNROLL: usize = 4;
/// Threads per block of the device scan.
pub const SCAN_THREADS: u32 = 256;
/// Stripes of one vector per thread in a scan tile (see [`super::scan`]) for inputs large
/// enough ([`crate::abi::layout::scan_stripes`] gives fewer for small ones): 9 for 4-byte
/// items (36 KiB tiles), 8 for other items that move in 16-byte vectors (32 KiB); for other
/// items as many as fill 40 KiB, at least 1 and at most 16. On an H200 at 2^28, 9 stripes
/// made 4-byte scans 1.3-2.6% faster than 8 (u32 625 → 617 µs, f32 630 → 613 µs), and at
/// 2^20 (8 stripes either way; the prefix in a register) 2-4% slower (7.2 → 7.4 µs).
pub const fn scan_stripes(item_bytes: usize) -> usize {
    if item_bytes == 4 {
        return 9;
    }
    if vectorizes(item_bytes) {
        return 8;
    }
    let stripes = 40 * 1024 / (SCAN_THREADS as usize * item_bytes);
    if stripes == 0 {
        1
    } else if stripes > 16 {
        16
    } else {
        stripes
    }
}
/// Threads whose tile prefix a scan block keeps in shared memory through the look-back: all
/// [`SCAN_THREADS`] for items that vectorize in tiles of at most 8 stripes, 32 KiB (the
/// look-back then fits the registers of [`scan_launch_bounds`]), none for others (their tile
/// takes the shared memory: 6 tiles of 9 stripes, 36 KiB, fill an SM's 228 KiB).
pub const fn scan_saved_prefixes(item_bytes: usize) -> usize {
    if vectorizes(item_bytes) && scan_stripes(item_bytes) <= 8 {
        SCAN_THREADS as usize
    } else {
        0
    }
}

/// Whether the device scan of items of `item_bytes` runs launches of at most
/// [`SCAN_FLAT_TILES`](crate::abi::layout::SCAN_FLAT_TILES) tiles (the flat look-back) in the
/// copies of its tile code for small launches, beside the cluster's, rather than in the
/// look-back's copy: for 8-byte items. Where the look-back's copy also held the flat
/// look-back, it ran 1% slower at 2^28 items, though it executed the same instructions (on an
/// H200, `h200-2026-11-28-scan-flat-copy-final-ab.csv`, H N N H: `u64` 1178-1182 → 1161-1166
/// µs, `i64` 1174-1187 → 1164-1170 µs, `f64` 1175-1178 → 1167-1179 µs); for 4-byte and
/// 2-byte items the copies of their own made the scans of 2^20-2^22 items 0.25-0.45 µs slower
/// warm (`…-scan-flat-copy-ab.csv`), and the 2-byte min and max spilled.
pub const fn scan_flat_copy(item_bytes: usize) -> bool {
    item_bytes == 8
}

/// Rows of the scan's shared memory for the totals the tiles of a cluster launch send each
/// other ([`scan_pass::CLUSTER`](crate::abi::params::scan_pass::CLUSTER)), by accumulator size
/// and alignment: [`SCAN_CLUSTER_TILES`](crate::abi::layout::SCAN_CLUSTER_TILES) on sm_90 and
/// newer with PTX 8.1 ([`CLUSTER_SCAN`]) for accumulators of whole 32-bit words, at most 16
/// bytes; else none, and such scans take the look-back (so the rows cost no shared memory
/// where they cannot be used).
pub const fn scan_cluster_rows(accumulator_bytes: usize, accumulator_align: usize) -> usize {
    if CLUSTER_SCAN
        && accumulator_bytes.is_multiple_of(4)
        && accumulator_align >= 4
        && accumulator_bytes <= 16
    {
        crate::abi::layout::SCAN_CLUSTER_TILES
    } else {
        0
    }
}
/// The static shared memory a kernel may declare (CUDA's 48 KiB): the scan's tile and
/// block storage must fit (256 items, 32 accumulators and a few words), which bounds scan
/// items to 170 bytes.
pub const SCAN_MAX_SHARED_BYTES: usize = 48 * 1024;
/// The scan's launch bounds by item and accumulator size: (`.maxntid`, `.minnctapersm`),
/// `(0, 0)` for none. A block loads its tile into shared memory, scans it, looks back and
/// stores it, so the bytes an SM has in flight are (resident blocks) × (tile bytes): 6 tiles
/// (40 registers per thread) of 36 KiB for 4-byte items and of 32 KiB for 8-byte items and
/// for 2-byte items accumulated as `f32`. Measured with ptxas 12.9 for sm_90: with these
/// bounds none spills.
/// On an H200 at 2^28, 6 blocks of 8-byte scans ran 4% faster than 5 (u64 1206 → 1160 µs),
/// once a lane's blocked slots took one swizzle key (8-byte scans had needed 45 registers,
/// and spilled under 6 blocks' 40).
/// On sm_70 and sm_80 the scans stay unbounded (no `cp.async` on sm_70: the tile passes
/// through registers): `sm90` is whether the kernel is compiled for sm_90 or newer ([`SM90`]
/// in the kernels).
pub const fn scan_launch_bounds(
    item_bytes: usize,
    accumulator_bytes: usize,
    sm90: bool,
) -> (u32, u32) {
    match (item_bytes, accumulator_bytes) {
        _ if !sm90 => (0, 0),
        (4, 4) | (2, 4) | (8, 8) => (SCAN_THREADS, 6),
        _ => (0, 0),
    }
}

/// Whether this crate is compiled for sm_90 or newer (`-C target-cpu`; false on the host).
pub const SM90: bool = cfg!(target_feature = "sm_90");
/// Whether this crate's device scan has its one-cluster path: compiled for sm_90 or newer with
/// PTX 8.1 or newer (`st.async`; `warpkit-builder` asks for it), else false.
pub const CLUSTER_SCAN: bool = cfg!(all(target_feature = "sm_90", target_feature = "ptx81"));
/// Threads per block of the row kernels (one warp per row, or one block per wide row).
pub const ROWS_THREADS: u32 = 256;
/// Items each lane of a row scan handles per step, where they do not move as one vector
/// ([`rows_scan_moves_vectors`]).
pub const ROWS_SCAN_ITEMS: usize = 4;
/// Whether each lane of a row scan loads and stores its items as one 16-byte vector (where
/// they are whole and aligned): 8-byte items, two per lane. The same vectors for 4-byte items
/// (and 8 halves per lane) raised those kernels from 32 registers to 40 (`ptxas` 12.9,
/// sm_90), 6 blocks per SM instead of 8: on an H200 rows of 32 `u32` at 2^28 took 1403 µs
/// instead of 1050, and width 1024 gained 1% (536 → 530 µs); under `.minnctapersm 8` they
/// spilled.
pub const fn rows_scan_moves_vectors(item_bytes: usize) -> bool {
    item_bytes == 8
}
/// Rows of one width at least this wide are reduced by a block each instead of a warp (with
/// a commutative operator): a function of the width alone, so a float row's bits do not
/// depend on the device. On an H200 16 rows of 65536 `u32` took 197.9 µs to sum with one warp
/// per row and take 9.5 µs with a block per row (CUB's `DeviceSegmentedReduce::Sum` 10.5-10.7
/// µs); 256 rows of 4096, 14.1 µs and 2.9-3.6 µs (CUB 5.1-6.6 µs).
pub const ROWS_BLOCK_WIDTH: u64 = 4096;
/// 16-byte vectors each thread of a block-per-row reduce loads per step (all in flight).
pub const ROWS_BLOCK_VECTORS: usize = 4;

/// Whether the row reduce gives each row a block ([`ROWS_BLOCK_WIDTH`]): rows of one
/// `width` (`offsets` null); rows given by offsets keep one warp each.
pub const fn rows_reduce_takes_blocks(width: u64, offsets: u64) -> bool {
    offsets == 0 && width >= ROWS_BLOCK_WIDTH
}

/// Items of `item_bytes` one 16-byte vector access moves: `16 / item_bytes` where that divides
/// evenly, else 1 (such items are loaded one at a time).
pub const fn vector_items(item_bytes: usize) -> usize {
    if item_bytes <= 16 && 16 % item_bytes == 0 {
        16 / item_bytes
    } else {
        1
    }
}

/// Whether items of `item_bytes` move in 16-byte vectors.
pub const fn vectorizes(item_bytes: usize) -> bool {
    vector_items(item_bytes) * item_bytes == 16
}
