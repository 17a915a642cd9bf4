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
/// Stripes of one vector per thread in a scan tile (see [`super::scan`]): about 32 items
/// per thread for items of up to 4 bytes (more bytes in flight per tile hide the look-back's
/// latency), 12 for 8-byte items, 8 for others; more leave the float min/max scans' item
/// arrays in local memory.
pub const fn scan_stripes(item_bytes: usize) -> usize {
    match item_bytes {
        ..=2 => 4,
        3..=4 => 8,
        5..=8 => 6,
        _ => 8,
    }
}
/// The scan's launch bounds by accumulator size: (`.maxntid`, `.minnctapersm`), `(0, 0)` for
/// none. A tile is loaded, scanned, looked back and stored by one block, so the bytes an SM
/// has in flight are (resident blocks) × (tile bytes). Measured with ptxas for sm_90: left
/// alone, the f64 sum scan takes 83 registers (2 blocks of 256 threads); bounded to 3 blocks
/// it takes 78 with no spills, as the 8-byte integer scans. Four blocks would spill (64
/// registers). For 4-byte items any bound costs: `.maxntid 256` alone moves the u32 sum scan
/// from 64 registers (4 blocks) to 66 (3 blocks).
/// On sm_70 and sm_80 ptxas fits 3 such blocks only by spilling (80 registers), so there the
/// scans stay unbounded: `sm90` is whether the kernel is compiled for sm_90 or newer
/// ([`SM90`] in the kernels).
pub const fn scan_launch_bounds(accumulator_bytes: usize, sm90: bool) -> (u32, u32) {
    match accumulator_bytes {
        8 if sm90 => (SCAN_THREADS, 3),
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
