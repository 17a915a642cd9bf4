//! Device-wide algorithms: the per-block work ("agents" in CUB's terms) of the kernels that
//! `warpkit-host` launches, their tuning kept apart as plain data, and the entry points.
//!
//! | file | what |
//! |---|---|
//! | [`tuning`] | threads, items per thread, vector widths: the numbers, apart from the code |
//! | `sync` | memory-order instructions and the warp's polling with back-off |
//! | `tile_status` | what blocks publish for each other (the scan's tile and group values, the reduce's partials), each word flagged with its run |
//! | [`scan`] | the single-pass scan and its look-back over fixed groups of tiles |
//! | [`reduce`] | the single-pass reduce, with a fixed tree for order-dependent operators |
//! | [`rows`] | one warp per row: batched reduce and scan |
//! | `entry` | the kernels: the library's list ([`crate::library_kernels!`]) and [`crate::custom_kernels!`] |
//!
//! **Determinism.** Every device algorithm gives the same bits for the same input on every
//! run, grid, device, input alignment and PTX target: tile shapes are fixed per item size,
//! scans fold in a fixed order, and reductions of operators that are not order-independent
//! (float sums) use tiles whose size depends on the length alone.

pub mod tuning;

/// Items that a thread loads with one 16-byte access.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Vector<T, const N: usize>(pub [T; N]);

/// Calls `f(0)`, `f(1)`, …, `f(N - 1)` as straight-line code, whatever LLVM's unrolling
/// thresholds: arrays indexed by `i` stay in registers (`N` is at most 16).
#[inline(always)]
#[cfg_attr(warpkit_target_below_sm70, allow(dead_code))]
fn unrolled<const N: usize>(mut f: impl FnMut(usize)) {
    const { assert!(N <= 16) };
    macro_rules! steps {
        ($($i:literal)*) => { $(if $i < N { f($i) })* };
    }
    steps!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// How every device kernel of this crate starts. On sm_90+ it waits until the kernels before it
/// on the stream have completed and their writes are visible
/// ([`griddepcontrol_wait`](crate::instr::griddepcontrol::griddepcontrol_wait)), then lets the
/// kernel after it be scheduled
/// ([`griddepcontrol_launch_dependents`](crate::instr::griddepcontrol::griddepcontrol_launch_dependents)):
/// `warpkit-host` launches the library's kernels as programmatic dependents there, so a
/// launch's set-up overlaps the end of the kernel before it. Launched otherwise, and below
/// sm_90, it does nothing. Nothing may touch global memory before it.
#[inline(always)]
pub fn kernel_prologue() {
    #[cfg(target_feature = "sm_90")]
    {
        crate::instr::griddepcontrol::griddepcontrol_wait();
        crate::instr::griddepcontrol::griddepcontrol_launch_dependents();
    }
}

#[cfg(not(warpkit_target_below_sm70))]
mod entry;
#[cfg(not(warpkit_target_below_sm70))]
pub mod reduce;
#[cfg(not(warpkit_target_below_sm70))]
pub mod rows;
#[cfg(not(warpkit_target_below_sm70))]
pub mod scan;
#[cfg(not(warpkit_target_below_sm70))]
mod sync;
#[cfg(not(warpkit_target_below_sm70))]
mod tile_status;
