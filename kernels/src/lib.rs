//! # warpkit: warp-level primitives for Rust GPU kernels
//!
//! warpkit is a `no_std` crate compiled for `nvptx64-nvidia-cuda`. It has three layers, each
//! built on the one below, in the way of `core::arch` and CUB:
//!
//! 1. **Instructions** ([`lane`], [`shfl`], [`vote`], [`matching`], [`redux`]): one function per
//!    PTX instruction (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `activemask`,
//!    `bar.warp.sync`, the lane registers), each a single inline-`asm!` instruction.
//! 2. **Warp algorithms** ([`tile::Tile`]): reduce, inclusive/exclusive/reverse scans,
//!    segmented scans and broadcast over a warp or a power-of-two sub-warp tile, for any
//!    [`ops::ReduceOp`] and any [`bytemuck::Pod`] value.
//! 3. **Block and device algorithms** ([`block`], [`device`]): block-wide reduce and scan, and
//!    the single-pass device reduce and scan that `warpkit-host` launches (decoupled look-back
//!    for integers, min and max; a Fenwick-tree look-back that keeps float sums deterministic).
//!
//! The CPU reference [`model`] (host only) implements each instruction over the 32 lanes of a
//! warp, following the PTX ISA's semantics pseudo-code; the GPU conformance suite checks the
//! hardware against it bit for bit.
//!
//! ## Soundness
//!
//! Every `.sync` warp instruction is undefined when the executing lane is not in `membermask`.
//! warpkit makes that impossible through a type: instructions take a [`lane::LaneMask`], which
//! can only be obtained in ways that include the calling lane ([`lane::LaneMask::FULL`],
//! [`lane::activemask`], [`lane::LaneMask::new`] which checks,
//! [`matching::match_any_sync`]'s result), or through the `unsafe`
//! [`lane::LaneMask::from_bits_unchecked`]. The check thus happens once, where a mask is made,
//! and each instruction stays one instruction.
//!
//! The other undefined cases the PTX ISA names are *values*, not behaviour: a lane that reads
//! from a source lane that is inactive or outside `membermask` gets an unspecified value, as do
//! lanes when not all lanes named in the mask execute the same instruction with the same mask
//! (on sm_70+, the only targets where the `.sync` wrappers are offered). warpkit therefore
//! moves only [`bytemuck::Pod`] types through shuffles: every bit pattern is a valid value of
//! them, so an unspecified value is still a valid one. Diverged lanes waiting on each other can
//! hang the warp; a hang is not undefined behaviour.
//!
//! Block-level functions synchronize the whole block (`bar.sync`) and use shared memory the
//! caller provides; they are `unsafe`, with the conditions listed on each.
//!
//! ## Writing your own kernels
//!
//! A kernel crate is `#![no_std]`, depends on `warpkit`, and is built into PTX by
//! `warpkit-builder` (see `examples/user-kernels`):
//!
//! ```ignore
//! #![no_std]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]
//! use warpkit::{ops::Sum, thread, tile::Warp};
//!
//! /// One sum per warp.
//! #[warpkit::kernel]
//! pub unsafe fn warp_sums(input: *const f32, out: *mut f32) {
//!     let i = thread::global_index();
//!     let total = Warp::full().reduce(unsafe { *input.add(i) }, Sum);
//!     if warpkit::lane::lane_id() == 0 {
//!         unsafe { *out.add(i / 32) = total };
//!     }
//! }
//! ```
#![no_std]
#![feature(macro_metavar_expr_concat)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, asm_experimental_arch, stdarch_nvptx)
)]

pub mod abi;
pub mod block;
pub mod device;
pub mod lane;
pub mod matching;
pub mod ops;
pub mod redux;
pub mod shfl;
#[cfg(target_arch = "nvptx64")]
pub mod shfl_legacy;
pub mod thread;
pub mod tile;
pub mod vote;

pub mod instr;

#[cfg(not(target_arch = "nvptx64"))]
pub mod model;

#[cfg(all(target_arch = "nvptx64", feature = "kernels"))]
mod entry;

#[cfg(all(target_arch = "nvptx64", feature = "legacy-shfl"))]
mod legacy_entry;

pub use bytemuck::Pod;

// Issue 11 (kernel authoring). Where each belongs after the layout change: `atomic` is an
// instruction (`instr/atomic.rs`); the others are authoring (`authoring/`).
#[cfg(not(warpkit_target_below_sm70))]
pub mod atomic;
#[cfg(not(warpkit_target_below_sm70))]
#[doc(hidden)]
pub mod atomic_shims;
pub mod block_shape;
pub mod dynamic_shared;
pub mod launch;
pub mod math;
pub mod ops_half;
#[cfg(target_arch = "nvptx64")]
mod panic;
pub mod print;
pub use warpkit_macros::kernel;
