//! The numbers of the device algorithms, apart from the algorithms (CUB's `tuning_*.cuh`).
//! Every tile shape here is the same on every target, so results do not depend on the PTX the
//! driver runs.

/// Threads per block of the device reduce.
pub const REDUCE_THREADS: u32 = 256;
/// Resident blocks per multiprocessor the reduce grid is sized for.
pub const REDUCE_BLOCKS_PER_SM: u32 = 4;
/// 16-byte loads each thread of the reduce has in flight per loop step.
pub const REDUCE_UNROLL: usize = 4;
/// Threads per block of the device scan.
pub const SCAN_THREADS: u32 = 256;
/// Stripes of one vector per thread in a scan tile (see [`super::scan`]): 32 KiB tiles,
/// staged in shared memory (8 stripes of 16-byte vectors; for items that do not vectorize,
/// as many single items as fit in 32 KiB, at least one).
pub const fn scan_stripes(item_bytes: usize) -> usize {
    let stripe_bytes = SCAN_THREADS as usize * vector_items(item_bytes) * item_bytes;
    let stripes = SCAN_TILE_BYTES / stripe_bytes;
    if stripes == 0 { 1 } else { stripes }
}
/// Bytes of one scan tile (for items that vectorize, and at most for others).
pub const SCAN_TILE_BYTES: usize = 32 * 1024;
/// The static shared memory a kernel may declare (CUDA's 48 KiB): the scan's tile and
/// block storage must fit, which bounds scan items to about 190 bytes.
pub const SCAN_MAX_SHARED_BYTES: usize = 48 * 1024;
/// The scan's launch bounds by accumulator size: (`.maxntid`, `.minnctapersm`), `(0, 0)` for
/// none. A block loads its tile into shared memory, scans it, looks back and stores it, so
/// the bytes an SM has in flight are (resident blocks) × (tile bytes): 5 blocks of 32 KiB
/// (165 KiB of the 228 KiB of shared memory) for 4-byte accumulators, which needs at most 48
/// registers per thread, 4 for 8-byte ones (64 registers). Measured with ptxas for sm_90:
/// without bounds the scans take 47–48 and 64–66 registers; with them, none spills. Six
/// blocks of 4-byte scans (40 registers) spill 20–150 bytes.
/// On sm_70 and sm_80 the same bounds spill (no `cp.async` on sm_70: the tile passes through
/// registers), so there the scans stay unbounded: `sm90` is whether the kernel is compiled
/// for sm_90 or newer ([`SM90`] in the kernels).
pub const fn scan_launch_bounds(accumulator_bytes: usize, sm90: bool) -> (u32, u32) {
    match accumulator_bytes {
        8 if sm90 => (SCAN_THREADS, 4),
        4 if sm90 => (SCAN_THREADS, 5),
        _ => (0, 0),
    }
}

/// Whether this crate is compiled for sm_90 or newer (`-C target-cpu`; false on the host).
pub const SM90: bool = cfg!(target_feature = "sm_90");
/// Threads per block of the row kernels (one warp per row).
pub const ROWS_THREADS: u32 = 256;
/// Items each lane of a row scan handles per step.
pub const ROWS_SCAN_ITEMS: usize = 4;

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
