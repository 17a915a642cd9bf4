//! A kernel crate of your own: `no_std`, depends on `warpkit`, built into PTX by
//! `warpkit-builder` from the host crate's `build.rs` (see `../user-app`).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]

#[cfg(target_arch = "nvptx64")]
use warpkit::{
    LaneMask,
    block::{self, TempStorage},
    instr::sreg::lanemask_lt,
    kernel::{global_index, lane_id},
    ops::{Max, Sum},
    warp::{Tile, Warp, matching::match_any_sync},
};

warpkit::kernel! {
    /// `sums[w]` = the sum of warp `w`'s 32 values, `maxima[g]` = the maximum of each group
    /// of 8 lanes (a `Tile<8>`), and `ranks[i]` = how many earlier lanes of the warp hold the
    /// same key (`match.any` and a lane mask).
    pub unsafe fn warp_stats(values: *const f32, keys: *const u32, sums: *mut f32, maxima: *mut f32, ranks: *mut u32) {
        let i = global_index();
        // SAFETY: the host launches one thread per value and sizes every output.
        unsafe {
            let v = *values.add(i);
            let total = Warp::full().reduce(v, Sum);
            let group_max = Tile::<8>::full().reduce(v, Max);
            let same_key: LaneMask = match_any_sync(LaneMask::FULL, *keys.add(i));
            *ranks.add(i) = (same_key.bits() & lanemask_lt()).count_ones();
            if lane_id() == 0 {
                *sums.add(i / 32) = total;
            }
            if lane_id() % 8 == 0 {
                *maxima.add(i / 8) = group_max;
            }
        }
    }

    /// A block-wide inclusive prefix sum with its typed shared storage declared in the kernel.
    pub unsafe fn block_prefix_sums(values: *const u32, out: *mut u32) {
        // SAFETY: a `.shared` variable of this kernel alone, used only by the block scan.
        let storage = unsafe { &*warpkit::shared!(USER_SCAN_STORAGE: TempStorage<u32>) };
        let i = global_index();
        // SAFETY: every thread of the block calls the block scan with the same storage.
        unsafe {
            let (inclusive, _) = block::inclusive_scan(*values.add(i), Sum, storage);
            *out.add(i) = inclusive;
        }
    }
}
