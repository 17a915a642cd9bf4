//! The instruction layer: one function per PTX instruction, each a single inline `asm!`
//! instruction (or, for `redux.sync` on targets without it, a shuffle fallback chosen at
//! compile time).
//!
//! # Naming
//!
//! A wrapper is named after the instruction it emits: the PTX mnemonic and its modifiers **in
//! the ISA's order, dots as underscores, in lower case** (`shfl.sync.up.b32` is
//! [`shfl_sync_up_b32`](shfl::shfl_sync_up_b32), `vote.sync.all.pred` is
//! [`vote_sync_all_pred`](vote::vote_sync_all_pred), `match.any.sync.b64` is
//! [`match_any_sync_b64`](matching::match_any_sync_b64), `redux.sync.min.abs.NaN.f32` is
//! [`redux_sync_min_abs_nan_f32`](redux::redux_sync_min_abs_nan_f32)). A suffix after the type
//! names an operand form: `_pred` also returns the optional predicate output (`d|p`), `_not`
//! negates the source predicate (`!a`), `_0` fixes an immediate operand (`bar.sync 0`). Special
//! registers are named after the register (`%lanemask_lt` is [`lanemask_lt`](sreg::lanemask_lt),
//! `%tid.x` is [`tid_x`](sreg::tid_x)). Two exceptions, for the memory layer: `atom_*` puts the
//! operation first (`atom.acq_rel.gpu.add.u32` is
//! [`atom_add_acq_rel_gpu_u32`](memory::atom_add_acq_rel_gpu_u32), so the family sorts by
//! operation), and [`nanosleep`](memory::nanosleep) drops the `.u32` of its only form.
//!
//! The CUDA C++ name of the same operation is a `#[doc(alias)]` on the wrapper (search the
//! docs for `__shfl_up_sync`), and the CUDA-style functions with CUDA's argument order and
//! `width` live in [`crate::warp`].
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

pub mod activemask;
pub mod barrier;
pub mod matching;
pub mod memory;
pub mod redux;
pub mod shfl;
pub mod shfl_legacy;
pub mod sreg;
pub mod vote;

pub use lane_mask::LaneMask;
