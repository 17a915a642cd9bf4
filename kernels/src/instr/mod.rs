//! The instruction layer: one function per PTX instruction, each a single inline `asm!`
//! instruction (or, for `redux.sync` on targets without it, a shuffle fallback chosen at
//! compile time).
//!
//! # Naming
//!
//! One rule, given in the [crate docs](crate#naming-the-instruction-layer): a wrapper is named
//! after the instruction it emits, dots as underscores, in the ISA's order. The CUDA C++ name
//! of the same operation is a `#[doc(alias)]` on the wrapper, and the CUDA-style functions
//! live in [`crate::warp`].
//!
//! # Documentation
//!
//! Every wrapper says what the instruction computes, links its section of the
//! [PTX ISA](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html), and gives the
//! PTX version and the target it needs. Every `.sync` wrapper carries the same note:
//!
#![doc = include_str!("convergence.md")]
//!
//! # Checked
//!
//! The test-kernel crate (`tests/kernels`) has one shim kernel per wrapper and the host tests
//! (`tests/`, `warpkit-tests`) check that its PTX holds exactly the promised instruction, with
//! no call and no branch, on every target (stdarch's `assert_instr`, on PTX).

mod lane_mask;

// Below sm_70 a `.sync` instruction is undefined unless the warp is converged, which a safe
// function cannot promise: those modules (and the warp, block and device layers) do not exist
// on such targets (`warpkit-builder` sets `--cfg warpkit_target_below_sm70`).
pub mod activemask;
#[cfg(not(warpkit_target_below_sm70))]
pub mod atomic;
pub mod barrier;
pub mod cluster;
pub mod griddepcontrol;
#[cfg(not(warpkit_target_below_sm70))]
pub mod matching;
pub mod mbarrier;
#[cfg(not(warpkit_target_below_sm70))]
pub mod memory;
#[cfg(not(warpkit_target_below_sm70))]
pub mod redux;
#[cfg(not(warpkit_target_below_sm70))]
pub mod shfl;
pub mod shfl_legacy;
pub mod simd;
pub mod sreg;
#[cfg(not(warpkit_target_below_sm70))]
pub mod vote;

pub use lane_mask::LaneMask;
