//! `redux.sync`: a reduction across the lanes of `membermask`, the result in every lane.
//!
//! The CUDA-style names (`__reduce_add_sync`, ...) are the wrappers' doc aliases.
//!
//! | operation | types | instruction needs |
//! |---|---|---|
//! | `add`, `min`, `max` | `u32`, `i32` (`.s32`); `add` wraps | PTX 7.0, sm_80 |
//! | `and`, `or`, `xor` | `.b32` (here `u32`) | PTX 7.0, sm_80 |
//! | `min`, `max`, with `.abs` and/or `.NaN` | `f32` | PTX 8.6, sm_100a |
//!
//! The instruction reduces over the lanes of `membermask` that have not exited, so a lane that
//! returned early (`if i >= n { return; }`) is left out even under [`LaneMask::FULL`]. On a
//! target without the instruction each function compiles, at compile time
//! (`cfg(target_feature = ...)`), to a shuffle reduction with identical results, exited lanes
//! left out the same way: [`crate::warp::redux::shuffle_reduce`] (a ballot of the lanes
//! present, then a butterfly where all 32 are, a tree over the lanes' ranks otherwise). For
//! `f32` the rules are those of the instruction ([`FloatRedux`]): without `.NaN` a NaN input
//! is skipped and the result is NaN only when every input is; with `.NaN` any NaN gives the
//! canonical NaN; `+0.0` is greater than `-0.0`; `.abs` reduces absolute values.
//!
//! PTX ISA: [`redux.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-redux-sync).

use super::LaneMask;
#[cfg(not(all(target_feature = "sm_100a", target_feature = "ptx86")))]
use crate::warp::redux::FloatRedux;
#[cfg(any(
    not(target_feature = "sm_80"),
    not(all(target_feature = "sm_100a", target_feature = "ptx86"))
))]
use crate::warp::redux::shuffle_reduce;

macro_rules! redux_int {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $instr:literal, $fallback:expr) => {
        #[doc = concat!("`redux.sync.", $instr, " d, a, membermask`:")]
        $(#[$doc])*
        ///
        #[doc = concat!("Emits `redux.sync.", $instr, "` on sm_80+; below, at compile time, ")]
        /// [`shuffle_reduce`](crate::warp::redux::shuffle_reduce) with the same result.
        ///
        #[doc = include_str!("convergence.md")]
        ///
        /// PTX ISA: [`redux.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-redux-sync).
        /// PTX 7.0, sm_80+.
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name(membermask: LaneMask, value: $ty) -> $ty {
            #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
            {
                let d: u32;
                // SAFETY: the calling lane is in `membermask` (LaneMask's invariant).
                unsafe {
                    core::arch::asm!(concat!("redux.sync.", $instr, " {d}, {a}, {m};"),
                        d = out(reg32) d, a = in(reg32) value as u32, m = in(reg32) membermask.bits(),
                        options(nomem, nostack, preserves_flags));
                }
                d as $ty
            }
            #[cfg(not(target_feature = "sm_80"))]
            {
                shuffle_reduce(membermask, value, $fallback)
            }
            #[cfg(all(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
            {
                crate::host_stub()
            }
        }
    };
}

redux_int!(
    /// the wrapping sum over `membermask`.
    #[doc(alias = "__reduce_add_sync")]
    redux_sync_add_u32, u32, "add.u32", u32::wrapping_add);
redux_int!(
    /// the minimum over `membermask`.
    #[doc(alias = "__reduce_min_sync")]
    redux_sync_min_u32, u32, "min.u32", u32::min);
redux_int!(
    /// the maximum over `membermask`.
    #[doc(alias = "__reduce_max_sync")]
    redux_sync_max_u32, u32, "max.u32", u32::max);
redux_int!(
    /// the wrapping signed sum over `membermask`.
    #[doc(alias = "__reduce_add_sync")]
    redux_sync_add_i32, i32, "add.s32", i32::wrapping_add);
redux_int!(
    /// the signed minimum over `membermask`.
    #[doc(alias = "__reduce_min_sync")]
    redux_sync_min_i32, i32, "min.s32", i32::min);
redux_int!(
    /// the signed maximum over `membermask`.
    #[doc(alias = "__reduce_max_sync")]
    redux_sync_max_i32, i32, "max.s32", i32::max);
redux_int!(
    /// the bitwise and over `membermask`.
    #[doc(alias = "__reduce_and_sync")]
    redux_sync_and_b32, u32, "and.b32", |a: u32, b: u32| a & b);
redux_int!(
    /// the bitwise or over `membermask`.
    #[doc(alias = "__reduce_or_sync")]
    redux_sync_or_b32, u32, "or.b32", |a: u32, b: u32| a | b);
redux_int!(
    /// the bitwise xor over `membermask`.
    #[doc(alias = "__reduce_xor_sync")]
    redux_sync_xor_b32, u32, "xor.b32", |a: u32, b: u32| a ^ b);

macro_rules! redux_f32 {
    ($name:ident, $suffix:literal, $alias:literal, $max:literal, $abs:literal, $nan:literal) => {
        #[doc = concat!("`redux.sync.", $suffix, ".f32 d, a, membermask`: the reduction over `membermask` by the ",
            "instruction's rules (see the [module docs](self) for NaN and zeros).")]
        ///
        #[doc = concat!("Emits `redux.sync.", $suffix, ".f32` on sm_100a with PTX 8.6; elsewhere, at compile time, ")]
        /// [`shuffle_reduce`](crate::warp::redux::shuffle_reduce) with
        /// [`FloatRedux`](crate::warp::redux::FloatRedux)'s rules, which give the same result.
        ///
        #[doc = include_str!("convergence.md")]
        ///
        /// PTX ISA: [`redux.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-redux-sync).
        /// PTX 8.6, sm_100a (arch-specific).
        #[doc(alias = $alias)]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name(membermask: LaneMask, value: f32) -> f32 {
            #[cfg(all(target_feature = "sm_100a", target_feature = "ptx86"))]
            {
                let d: f32;
                // SAFETY: the calling lane is in `membermask` (LaneMask's invariant).
                unsafe {
                    core::arch::asm!(concat!("redux.sync.", $suffix, ".f32 {d}, {a}, {m};"),
                        d = out(reg32) d, a = in(reg32) value, m = in(reg32) membermask.bits(),
                        options(nomem, nostack, preserves_flags));
                }
                d
            }
            #[cfg(not(all(target_feature = "sm_100a", target_feature = "ptx86")))]
            {
                let op = FloatRedux { max: $max, abs: $abs, nan: $nan };
                op.finish(shuffle_reduce(membermask, op.prepare(value), |a, b| op.combine(a, b)))
            }
        }
    };
}

redux_f32!(
    redux_sync_min_f32,
    "min",
    "__reduce_min_sync",
    false,
    false,
    false
);
redux_f32!(
    redux_sync_max_f32,
    "max",
    "__reduce_max_sync",
    true,
    false,
    false
);
redux_f32!(
    redux_sync_min_abs_f32,
    "min.abs",
    "__reduce_min_sync",
    false,
    true,
    false
);
redux_f32!(
    redux_sync_max_abs_f32,
    "max.abs",
    "__reduce_max_sync",
    true,
    true,
    false
);
redux_f32!(
    redux_sync_min_nan_f32,
    "min.NaN",
    "__reduce_min_sync",
    false,
    false,
    true
);
redux_f32!(
    redux_sync_max_nan_f32,
    "max.NaN",
    "__reduce_max_sync",
    true,
    false,
    true
);
redux_f32!(
    redux_sync_min_abs_nan_f32,
    "min.abs.NaN",
    "__reduce_min_sync",
    false,
    true,
    true
);
redux_f32!(
    redux_sync_max_abs_nan_f32,
    "max.abs.NaN",
    "__reduce_max_sync",
    true,
    true,
    true
);
