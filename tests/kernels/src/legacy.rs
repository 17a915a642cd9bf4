//! A kernel that uses every deprecated non-`.sync` `shfl` (built for sm_60 only).
#![allow(deprecated)]

use warpkit::instr::shfl_legacy::*;

/// Each lane shuffles `io[lane]` in the four modes.
#[warpkit::kernel]
pub unsafe fn warpkit_legacy_shfl(io: *mut u32) {
    let lane = warpkit::kernel::thread_idx_x() as usize;
    // SAFETY: launched converged with 32 threads; io has 4 words per lane.
    unsafe {
        let a = *io.add(lane);
        let r = [
            shfl_up_b32(a, 1, 0).0,
            shfl_down_b32(a, 1, 0x1f).0,
            shfl_bfly_b32(a, 1, 0x1f).0,
            shfl_idx_b32(a, 0, 0x1f).0,
        ];
        for (k, x) in r.iter().enumerate() {
            *io.add(lane * 4 + k) = *x;
        }
    }
}
