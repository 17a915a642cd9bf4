//! Scoped atomics: `atom{.sem}{.scope}.op.type` as one function each.
//!
//! PTX ISA, section 9.7.13.5 "Parallel Synchronization and Communication Instructions: atom"
//! (<https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-atom>);
//! the memory consistency model (semantics and scopes) is chapter 8
//! (<https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#memory-consistency-model>).
//!
//! Naming: the PTX instruction with dots as underscores, the operation first:
//! `atom.acq_rel.gpu.add.u32` is [`atom_add_acq_rel_gpu_u32`] (CUDA's `atomicAdd` at that
//! order and scope: each CUDA name is a `#[doc(alias)]`). Every function is one `atom`
//! instruction on a *generic* address (global or shared memory both work) and returns the
//! value the memory held before.
//!
//! - semantics: `relaxed`, `acquire`, `release`, `acq_rel` (ordering of the surrounding
//!   memory accesses; `relaxed` orders nothing but is still atomic);
//! - scope: `cta` (the threads of the block), `gpu` (the device), `sys` (the device, the host
//!   and peer devices, for mapped/managed memory);
//! - operations: `add` (`u32`, `u64`, `f32`, `f64`), `min`/`max` (`u32`, `u64`), `exch`,
//!   `cas`, `and`, `or`, `xor` (`b32`/`b64`, on `u32`/`u64`).
//!
//! Requires PTX ISA 6.0 and `sm_70` (`.sem` and `.scope` on `atom`): not offered on targets
//! below sm_70 (`--cfg warpkit_target_below_sm70`). `f32` add rounds to nearest even (sm_70+);
//! `f64` add needs sm_60, which every target here has. On the host each function exists for
//! the documentation and panics if called.
//!
//! # Safety (all functions)
//! `ptr` must be non-null, aligned to the operand size, and point to `global` or `shared`
//! memory (`.shared::cta` of the calling block) that is valid for reads and writes for the
//! duration of the instruction; every other access to that location that races with this
//! one must be atomic too (the PTX memory model makes a data race with a non-atomic access
//! undefined). An address in `.local`, `.const` or `.param` memory is undefined.

macro_rules! atom_fn {
    (@operand b) => { ", {b}" };
    (@operand c) => { ", {c}" };
    (@what b) => { "combines `*ptr` with `b`" };
    (@what b, c) => { "stores `c` if `*ptr == b`" };
    ($name:ident, $ptx:expr, $t:ty, $cls:ident, $alias:literal, ($($op:ident),*)) => {
        #[doc = concat!("`", $ptx, " d, [ptr], ...;`: atomically ", atom_fn!(@what $($op),*),
            " and returns the old value. PTX ISA 6.0, `sm_70`; PTX ISA section 9.7.13.5 ",
            "(<https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-atom>).")]
        ///
        /// # Safety
        /// `ptr` must be non-null, aligned, valid for reads and writes, in global or shared
        /// memory, and every racing access to `*ptr` must be atomic (see the [module](self)).
        #[doc(alias = $alias)]
        #[inline(always)]
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        pub unsafe fn $name(ptr: *mut $t, $($op: $t),*) -> $t {
            crate::device_only! {
                let d: $t;
                // SAFETY: the caller upholds the pointer's conditions.
                unsafe {
                    core::arch::asm!(
                        concat!($ptx, " {d}, [{a}]", $(atom_fn!(@operand $op),)* ";"),
                        d = out($cls) d,
                        a = in(reg64) ptr,
                        $($op = in($cls) $op,)*
                        options(nostack),
                    );
                }
                d
            }
        }
    };
}

/// Every semantics × scope of one operation and type; the names come from
/// `${concat(...)}` (`macro_metavar_expr_concat`).
macro_rules! atom_family {
    ($op:ident, $ptype:ident, $t:ty, $cls:ident, $alias:literal, $args:tt) => {
        atom_family!(@sems $op, $ptype, $t, $cls, $alias, $args, [relaxed acquire release acq_rel]);
    };
    (@sems $op:ident, $ptype:ident, $t:ty, $cls:ident, $alias:literal, $args:tt, [$($sem:ident)*]) => {
        $(atom_family!(@scopes $op, $ptype, $sem, $t, $cls, $alias, $args, [cta gpu sys]);)*
    };
    (@scopes $op:ident, $ptype:ident, $sem:ident, $t:ty, $cls:ident, $alias:literal, $args:tt, [$($scope:ident)*]) => {
        $(atom_fn!(
            ${concat(atom_, $op, _, $sem, _, $scope, _, $ptype)},
            concat!("atom.", stringify!($sem), ".", stringify!($scope), ".", stringify!($op), ".", stringify!($ptype)),
            $t, $cls, $alias, $args
        );)*
    };
}

atom_family!(add, u32, u32, reg32, "atomicAdd", (b));
atom_family!(add, u64, u64, reg64, "atomicAdd", (b));
atom_family!(add, f32, f32, reg32, "atomicAdd", (b));
atom_family!(add, f64, f64, reg64, "atomicAdd", (b));
atom_family!(min, u32, u32, reg32, "atomicMin", (b));
atom_family!(min, u64, u64, reg64, "atomicMin", (b));
atom_family!(max, u32, u32, reg32, "atomicMax", (b));
atom_family!(max, u64, u64, reg64, "atomicMax", (b));
atom_family!(exch, b32, u32, reg32, "atomicExch", (b));
atom_family!(exch, b64, u64, reg64, "atomicExch", (b));
atom_family!(cas, b32, u32, reg32, "atomicCAS", (b, c));
atom_family!(cas, b64, u64, reg64, "atomicCAS", (b, c));
atom_family!(and, b32, u32, reg32, "atomicAnd", (b));
atom_family!(and, b64, u64, reg64, "atomicAnd", (b));
atom_family!(or, b32, u32, reg32, "atomicOr", (b));
atom_family!(or, b64, u64, reg64, "atomicOr", (b));
atom_family!(xor, b32, u32, reg32, "atomicXor", (b));
atom_family!(xor, b64, u64, reg64, "atomicXor", (b));
