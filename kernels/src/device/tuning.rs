//! The numbers of the device algorithms, apart from the algorithms (CUB's `tuning_*.cuh`).
//! Every tile shape here is the same on every target, so results do not depend on the PTX the
//! driver runs.

/// Threads per block of the device reduce.
pub const REDUCE_THREADS: u32 = 256;
/// Resident blocks per multiprocessor the reduce grid is sized for (fewer where the kernel's
/// registers do not allow as many: the host asks the driver).
pub const REDUCE_BLOCKS_PER_SM: u32 = 4;
/// 16-byte loads each thread of the reduce has in flight per loop step.
pub const REDUCE_UNROLL: usize = 4;
/// Threads per block of the device scan.
pub const SCAN_THREADS: u32 = 256;
/// Stripes of one vector per thread in a scan tile (see [`super::scan`]) for inputs large
/// enough ([`crate::abi::layout::scan_stripes`] gives fewer for small ones): 8 for items that
/// move in 16-byte vectors (32 KiB tiles); for other items as many as fill 40 KiB, at least 1
/// and at most 16.
pub const fn scan_stripes(item_bytes: usize) -> usize {
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
/// [`SCAN_THREADS`] for items that vectorize (the look-back then fits the registers of
/// [`scan_launch_bounds`]), none for others (their tile takes the shared memory).
pub const fn scan_saved_prefixes(item_bytes: usize) -> usize {
    if vectorizes(item_bytes) {
        SCAN_THREADS as usize
    } else {
        0
    }
}
/// The shared memory one scan block may count on without asking the driver for more (CUDA's
/// 48 KiB): its static part and one tile buffer must fit (256 items, 32 accumulators and a
/// few words), which bounds scan items to 170 bytes. A second buffer, for prefetching, is
/// dynamic shared memory the host opts into where the device has room.
pub const SCAN_MAX_SHARED_BYTES: usize = 48 * 1024;
/// Blocks per multiprocessor a persistent scan grid has resident: two 32 KiB tile buffers
/// each (three fit an H100's or H200's 228 KiB of shared memory), so 96 KiB of tiles in flight
/// while 96 KiB are scanned.
pub const SCAN_BLOCKS_PER_SM: u32 = 3;
/// The scan's launch bounds by item and accumulator size: (`.maxntid`, `.minnctapersm`),
/// `(0, 0)` for none. [`SCAN_BLOCKS_PER_SM`] blocks of [`SCAN_THREADS`] threads for the
/// library's item types (at most 80 registers each; ptxas 12.9 for sm_90 gives 72-80 with no
/// spills). On sm_70 and sm_80, where a block's two buffers do not fit three times, and for
/// items that do not vectorize (one buffer), the scans stay unbounded: `sm90` is whether the
/// kernel is compiled for sm_90 or newer ([`SM90`] in the kernels).
pub const fn scan_launch_bounds(
    item_bytes: usize,
    accumulator_bytes: usize,
    sm90: bool,
) -> (u32, u32) {
    match (item_bytes, accumulator_bytes) {
        _ if !sm90 => (0, 0),
        (4, 4) | (2, 4) | (8, 8) => (SCAN_THREADS, SCAN_BLOCKS_PER_SM),
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
