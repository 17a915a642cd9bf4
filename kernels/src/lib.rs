//! # warpkit: warp-level primitives for Rust GPU kernels
//!
//! warpkit is a `no_std` crate compiled for `nvptx64-nvidia-cuda`. Its folders are its layers,
//! each built on the one above it in this map, in the way of `core::arch` and CUB:
//!
//! | module | what it holds |
//! |---|---|
//! | [`instr`] | one function per PTX instruction, named after it: [`instr::shfl`] (`shfl.sync`, [`ShflMode`](instr::shfl::ShflMode), [`ShflControl`](instr::shfl::ShflControl)), [`instr::shfl_legacy`] (`shfl` below sm_70), [`instr::vote`], [`instr::matching`], [`instr::redux`], [`instr::activemask`], [`instr::barrier`] (`bar.warp.sync`, `bar.sync`), [`instr::sreg`] (special registers), [`instr::memory`] (relaxed loads and stores, atomics, `nanosleep`, `cvta`), [`instr::simd`] (packed 16-bit `min.u16x2`, `min`/`max` on `f16x2` and `bf16x2`, `prmt.b32`), and [`LaneMask`] |
//! | [`warp`] | warp algorithms: [`warp::Tile`] (reduce, scans, segmented scans, broadcast over segments of `W` lanes), [`warp::shfl`] (CUDA-style shuffles with a width, [`map_words`](warp::shfl::map_words)), [`warp::redux`] (the shuffle reductions behind `redux.sync`), [`warp::vote`], [`warp::matching`] |
//! | [`block`] | block-wide reduce and scan over typed shared memory, [`block::TempStorage`] |
//! | [`device`] | the single-pass device reduce and scan and the row-wise ones that `warpkit-host` launches |
//! | [`abi`] | the host–device contract: the library kernels' parameters, storage layout and names |
//! | [`ops`] | the operators: [`ops::Sum`], [`ops::Min`], [`ops::Max`], arg-min/max, bitwise, your own ([`ops::ReduceOp`]) |
//! | [`kernel`](mod@kernel) | writing kernels: [`#[kernel]`](macro@kernel) and its typed launch ([`kernel::launch`]), CUDA-named indices, [`shared!`], [`shared_array!`], [`kernel::dynamic_shared`], [`kernel::sync_threads`], [`println!`] ([`kernel::print`]), the panic handler that prints where a kernel panicked (feature `panic-handler`) |
//! | [`math`] | `f32`/`f64` math functions from libdevice (linked by `warpkit-builder`) |
//! | `model` | (host only) the CPU reference model of every instruction, from the PTX ISA's pseudo-code |
//!
//! The test and benchmark kernels (conformance kernels, one shim kernel per instruction
//! wrapper, bandwidth probes) are not in this crate's PTX: they are the crate
//! `warpkit-test-kernels` in `tests/kernels/`, driven by `warpkit-tests` in `tests/`.
//!
//! ## Naming the instruction layer
//!
//! A wrapper is named after the instruction it emits: the PTX mnemonic and its modifiers **in
//! the ISA's order, dots as underscores, in lower case** (`shfl.sync.up.b32` is
//! [`shfl_sync_up_b32`](instr::shfl::shfl_sync_up_b32), `vote.sync.all.pred` is
//! [`vote_sync_all_pred`](instr::vote::vote_sync_all_pred), `match.any.sync.b64` is
//! [`match_any_sync_b64`](instr::matching::match_any_sync_b64), `redux.sync.min.abs.NaN.f32` is
//! [`redux_sync_min_abs_nan_f32`](instr::redux::redux_sync_min_abs_nan_f32)). A suffix after the type
//! names an operand form: `_pred` also returns the optional predicate output (`d|p`), `_not`
//! negates the source predicate (`!a`), `_0` fixes an immediate operand (`bar.sync 0`). Special
//! registers are named after the register (`%lanemask_lt` is [`lanemask_lt`](instr::sreg::lanemask_lt),
//! `%tid.x` is [`tid_x`](instr::sreg::tid_x)). Two exceptions, for the memory layer: `atom_*` puts the
//! operation first (`atom.acq_rel.gpu.add.u32` is
//! [`atom_add_acq_rel_gpu_u32`](instr::atomic::atom_add_acq_rel_gpu_u32), so the family sorts by
//! operation), and [`nanosleep`](instr::memory::nanosleep) drops the `.u32` of its only form.
//!
//! The CUDA C++ name of the same operation is a `#[doc(alias)]` on the wrapper (search the
//! docs for `__shfl_up_sync`), and the CUDA-style functions with CUDA's argument order and
//! `width` live in [`warp`].
//!
//! ## On the host
//!
//! The crate also compiles for the host, so that `warpkit-host` can share [`abi`] and [`ops`],
//! `cargo doc` shows the whole device API, and examples type-check. There a function that
//! would emit a GPU instruction panics if called; `warp`, `block` and `device` code built on
//! such functions exists on the host for the same reasons.
//!
//! ## Soundness
//!
//! Every `.sync` warp instruction is undefined when the executing lane is not in `membermask`.
//! warpkit makes that impossible through a type: instructions take a [`LaneMask`], which
//! can only be obtained in ways that include the calling lane ([`LaneMask::FULL`],
//! [`instr::activemask::activemask_b32`], [`LaneMask::new`] which checks,
//! [`instr::matching::match_any_sync_b32`]'s result), or through the `unsafe`
//! [`LaneMask::from_bits_unchecked`]. The check thus happens once, where a mask is made,
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
//! Where the ISA leaves the *behaviour* of an instruction undefined for some operand, its
//! wrapper is `unsafe`, even for one that touches no memory: `cvta` to or from the `.shared`
//! state space ("the address must belong to the space …, otherwise the behavior is
//! undefined", PTX ISA 9.0). Where only the *result* is undefined (`cvta.to.global` from an
//! address outside global memory, `mapa` of an invalid address), the wrapper is safe and
//! the instructions that would use the result are `unsafe`.
//!
//! ## Writing your own kernels
//!
//! A kernel crate is `#![no_std]`, depends on `warpkit`, and is built into PTX by
//! `warpkit-builder` (see `examples/user-kernels`):
//!
//! ```
//! // A kernel crate's root also has
//! // #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]
//! use warpkit::kernel; // the attribute and the module
//! use warpkit::{kernel::{global_index, lane_id}, ops::Sum, warp::Warp};
//!
//! /// One sum per warp.
//! ///
//! /// # Safety
//! /// One thread per input value; `out` holds one value per warp.
//! #[kernel]
//! pub unsafe fn warp_sums(input: *const f32, out: *mut f32) {
//!     let i = global_index();
//!     let total = Warp::full().reduce(unsafe { *input.add(i) }, Sum);
//!     if lane_id() == 0 {
//!         unsafe { *out.add(i / 32) = total };
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! [`#[kernel]`](macro@kernel) makes the function a PTX entry point on nvptx64; on the host it
//! type-checks the same body and gives a launch descriptor (`warp_sums`, implementing
//! [`kernel::launch::KernelSignature`]) that `warpkit-host`'s typed launcher takes, so a
//! launch with the wrong arguments does not compile. The authoring guide is `docs/authoring.md`.
#![no_std]
// `${concat(..)}` names the scoped atomics (`instr::atomic`).
#![cfg_attr(not(warpkit_target_below_sm70), feature(macro_metavar_expr_concat))]
// `link_llvm_intrinsics`: convergent instructions through LLVM's intrinsics (`activemask`),
// as `core::arch::nvptx` itself does; rustc calls that feature internal.
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch, stdarch_nvptx, link_llvm_intrinsics),
    allow(internal_features)
)]
// `extern "ptx-kernel"`: only the library's own entry points (feature `kernels`) use it.
#![cfg_attr(all(target_arch = "nvptx64", feature = "kernels"), feature(abi_ptx))]

// `#[kernel]` names `::warpkit::kernel::launch`, also in this crate's own kernels.
extern crate self as warpkit;

/// The body of a function that emits a GPU instruction: the body itself on nvptx64, a panic
/// on the host (where the function exists for `warpkit-host`, the docs and type checks).
macro_rules! device_only {
    ($($body:tt)*) => {{
        #[cfg(target_arch = "nvptx64")]
        {
            $($body)*
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            $crate::host_stub()
        }
    }};
}
pub(crate) use device_only;

pub mod abi;
#[cfg(not(warpkit_target_below_sm70))]
pub mod block;
pub mod device;
pub mod instr;
pub mod kernel;
pub mod math;
pub mod ops;
#[cfg(not(warpkit_target_below_sm70))]
pub mod warp;

#[cfg(not(target_arch = "nvptx64"))]
pub mod model;

pub use bytemuck::Pod;
pub use instr::LaneMask;
/// Declares a kernel entry point: see [`kernel::launch`] and the crate docs.
pub use warpkit_macros::kernel;

/// What a GPU-only function does when called on the host.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
#[doc(hidden)]
pub fn host_stub() -> ! {
    panic!("warpkit: this function runs on an NVIDIA GPU only (it was called on the host)")
}
