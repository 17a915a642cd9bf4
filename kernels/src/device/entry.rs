//! Kernel entry points: generators for one kernel of each family, the library's kernels from
//! [`crate::library_kernels!`], and [`crate::custom_kernels!`] for users' types and operators.

/// A pointer to this kernel's own `.shared` storage of type `$ty`, named after the kernel.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_shared {
    ($name:expr, $ty:ty) => {{
        core::arch::global_asm!(
            concat!(".shared .align 16 .b8 ", $name, "_shared[{size}];"),
            size = const core::mem::size_of::<$ty>(),
        );
        let p: *mut $ty;
        // SAFETY: takes the generic address of the shared variable declared above.
        unsafe {
            core::arch::asm!(concat!("cvta.shared.u64 {p}, ", $name, "_shared;"),
                p = out(reg64) p, options(pure, nomem, nostack, preserves_flags));
        }
        p
    }};
}

/// One device-reduce kernel: items `$item` combined as `$acc` by `$op` (`$load` gets each item
/// and its index), the result written as `$finish(total)`; `$min_blocks` is its
/// `.minnctapersm` (the library's tuning when left out).
#[doc(hidden)]
#[macro_export]
macro_rules! __reduce_kernel {
    ($name:expr, $item:ty, $acc:ty, $op:expr, $load:expr, $finish:expr) => {
        $crate::__reduce_kernel!(
            $name,
            $item,
            $acc,
            $op,
            $load,
            $finish,
            $crate::device::tuning::reduce_min_blocks_per_sm(
                core::mem::size_of::<$item>(),
                core::mem::size_of::<$acc>(),
                $crate::device::tuning::SM90,
            )
        );
    };
    ($name:expr, $item:ty, $acc:ty, $op:expr, $load:expr, $finish:expr, $min_blocks:expr) => {
        const _: () = {
            #[$crate::kernel(
                                        name = $name,
                                        max_threads = $crate::device::tuning::REDUCE_THREADS,
                                        min_blocks_per_sm = $min_blocks,
                                    )]
            unsafe fn kernel(p: $crate::abi::params::Reduce) {
                $crate::device::kernel_prologue();
                let shared =
                    $crate::__kernel_shared!($name, $crate::device::reduce::ReduceShared<$acc>);
                // SAFETY: the host launches with the tuning's block size and the abi's buffers.
                unsafe {
                    $crate::device::reduce::reduce::<
                        $item,
                        $acc,
                        _,
                        _,
                        { $crate::device::tuning::vector_items(core::mem::size_of::<$item>()) },
                    >(p, $op, $load, $finish, shared)
                }
            }
        };
    };
}

/// One device-scan kernel: items `$item` combined as `$acc` (`$load`, then `$store`).
#[doc(hidden)]
#[macro_export]
macro_rules! __scan_kernel {
    ($name:expr, $item:ty, $acc:ty, $op:expr, $load:expr, $store:expr) => {
        const _: () = {
            #[$crate::kernel(
                name = $name,
                max_threads =
                    $crate::device::tuning::scan_launch_bounds(
                        core::mem::size_of::<$item>(),
                        core::mem::size_of::<$acc>(),
                        $crate::device::tuning::SM90,
                    )
                    .0,
                min_blocks_per_sm =
                    $crate::device::tuning::scan_launch_bounds(
                        core::mem::size_of::<$item>(),
                        core::mem::size_of::<$acc>(),
                        $crate::device::tuning::SM90,
                    )
                    .1,
            )]
            unsafe fn kernel(p: $crate::abi::params::Scan) {
                $crate::device::kernel_prologue();
                let shared = $crate::__kernel_shared!($name, $crate::device::scan::ScanShared<$item, $acc,
                    { $crate::device::tuning::scan_stripes(core::mem::size_of::<$item>()) },
                    { $crate::device::tuning::vector_items(core::mem::size_of::<$item>()) },
                    { $crate::device::tuning::scan_saved_prefixes(core::mem::size_of::<$item>()) },
                    { $crate::device::tuning::scan_cluster_rows(core::mem::size_of::<$acc>(), core::mem::align_of::<$acc>()) }>);
                // SAFETY: the host launches one block per tile and sizes the tile status.
                unsafe {
                    $crate::device::scan::scan::<$item, $acc, _,
                        { $crate::device::tuning::scan_stripes(core::mem::size_of::<$item>()) },
                        { $crate::device::tuning::vector_items(core::mem::size_of::<$item>()) },
                        { $crate::device::tuning::scan_saved_prefixes(core::mem::size_of::<$item>()) },
                        { $crate::device::tuning::scan_cluster_rows(core::mem::size_of::<$acc>(), core::mem::align_of::<$acc>()) }>(
                        p, $op, $load, $store, shared)
                }
            }
        };
    };
}

/// The two row kernels (reduce and scan): one warp per row, or a block per wide row.
#[doc(hidden)]
#[macro_export]
macro_rules! __rows_kernels {
    ($reduce:expr, $scan:expr, $item:ty, $acc:ty, $op:expr, $load:expr, $store:expr) => {
        const _: () = {
            #[$crate::kernel(name = $reduce, max_threads = $crate::device::tuning::ROWS_THREADS)]
            unsafe fn reduce(p: $crate::abi::params::Rows) {
                $crate::device::kernel_prologue();
                let shared = $crate::__kernel_shared!($reduce, $crate::block::TempStorage<$acc>);
                // SAFETY: the host checks offsets and sizes and launches blocks of
                // `ROWS_THREADS`.
                unsafe {
                    $crate::device::rows::rows_reduce::<
                        $item,
                        $acc,
                        _,
                        { $crate::device::tuning::vector_items(core::mem::size_of::<$item>()) },
                    >(p, $op, $load, $store, shared)
                }
            }
            #[$crate::kernel(name = $scan, max_threads = $crate::device::tuning::ROWS_THREADS)]
            unsafe fn scan(p: $crate::abi::params::Rows) {
                $crate::device::kernel_prologue();
                // SAFETY: the host checks offsets and sizes.
                unsafe {
                    $crate::device::rows::rows_scan::<
                        $item,
                        $acc,
                        _,
                        { $crate::device::tuning::vector_items(core::mem::size_of::<$item>()) },
                    >(p, $op, $load, $store)
                }
            }
        };
    };
}

/// Instantiates warpkit's device reduce, scan and row kernels for your own [`Pod`](bytemuck::Pod)
/// type and [`ReduceOp`](crate::ops::ReduceOp), in your kernel crate; `warpkit-host`'s
/// `CustomKernels` launches them with the same validation as the built-in ones.
///
/// Emits the kernels `{prefix}_reduce`, `{prefix}_scan`, `{prefix}_rows_reduce` and
/// `{prefix}_rows_scan`, and the global `{prefix}_layout: [u32; 3]` holding the value's size
/// and alignment and the [`ABI_FINGERPRINT`](crate::abi::ABI_FINGERPRINT) of the warpkit it
/// was built with, which the host compares with its own type's and its own before it launches
/// anything.
/// The operator must be associative; it need not be commutative (scans and reductions combine
/// in index order). Results are deterministic as for the built-in kernels. The device scan
/// stages a tile of at least 256 values in the kernel's 48 KiB of static shared memory, so
/// values of up to 170 bytes are supported; a larger type fails to compile, saying so.
///
/// ```ignore
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// pub struct Affine { pub a: f32, pub b: f32 } // x -> a * x + b
///
/// #[derive(Clone, Copy, Default)]
/// pub struct Compose;
/// impl warpkit::ops::ReduceOp<Affine> for Compose {
///     fn identity(self) -> Affine { Affine { a: 1.0, b: 0.0 } }
///     fn combine(self, f: Affine, g: Affine) -> Affine { Affine { a: g.a * f.a, b: g.a * f.b + g.b } }
/// }
///
/// warpkit::custom_kernels! { prefix: affine, value: Affine, op: Compose }
/// ```
#[macro_export]
macro_rules! custom_kernels {
    (prefix: $prefix:ident, value: $ty:ty, op: $op:expr $(,)?) => {
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            core::arch::global_asm!(
                concat!(".visible .global .align 4 .u32 ", stringify!($prefix), "_layout[3] = {{ {size}, {align}, {abi} }};"),
                size = const core::mem::size_of::<$ty>(),
                align = const core::mem::align_of::<$ty>(),
                abi = const $crate::abi::ABI_FINGERPRINT,
            );
            // No `.minnctapersm`: the library's bound is measured on its own operators, and a
            // user's may need more registers than it leaves.
            $crate::__reduce_kernel!(concat!(stringify!($prefix), "_reduce"), $ty, $ty, $op, |_, x| x, |x| x, 0);
            $crate::__scan_kernel!(concat!(stringify!($prefix), "_scan"), $ty, $ty, $op, |x| x, |x| x);
            $crate::__rows_kernels!(concat!(stringify!($prefix), "_rows_reduce"), concat!(stringify!($prefix), "_rows_scan"),
                $ty, $ty, $op, |x| x, |x| x);
        };
    };
}

/// The library's kernels, from the one list.
#[cfg(all(target_arch = "nvptx64", feature = "kernels"))]
mod library {
    use crate::ops::half::Half16;
    use crate::ops::ranked::{LowestRank, Rankable, Ranked};
    use crate::ops::{ArgMax, ArgMin, Max, Min, Sum};
    use half::{bf16, f16};

    macro_rules! library {
        (types: [$(($ty:ident, $idx:ident)),*], half_types: [$($half:ident),*], ops: $ops:tt, arg_ops: $arg_ops:tt,) => {
            $(per_type!($ty, $idx, $ops, $arg_ops);)*
            $(per_half!($half, $ops, $arg_ops);)*
        };
    }

    macro_rules! per_type {
        ($ty:ident, $idx:ident, [$(($op:ident, $name:ident)),*], [$(($arg:ident, $arg_name:ident)),*]) => {
            $(
                reduce_entry!($ty, $op, $name);
                crate::__scan_kernel!(crate::kernel_name!(scan, $name, $ty), $ty, $ty, $op, |x| x, |x| x);
                crate::__rows_kernels!(crate::kernel_name!(rows_reduce, $name, $ty), crate::kernel_name!(rows_scan, $name, $ty),
                    $ty, $ty, $op, |x| x, |x| x);
            )*
            $(
                crate::__reduce_kernel!(crate::kernel_name!(reduce, $arg_name, $ty), $ty,
                    Ranked<<$ty as Rankable>::Rank, $idx>, LowestRank,
                    |i, x| Ranked::of::<$ty, $arg>(x, i as $idx),
                    |r: Ranked<<$ty as Rankable>::Rank, $idx>| r.indexed::<$ty, $arg>());
            )*
        };
    }

    /// The device reduce of `$op` over `$ty`. `f32` min and max reduce their values' ranks
    /// ([`Rankable`]) with an unsigned minimum (one `redux.sync` per warp) instead of the NaN
    /// and signed-zero selects of each float combine: the same bits, as the ranks order
    /// numbers as [`Min`]/[`Max`] do and every NaN last. `f64` min and max fold with
    /// `min.f64`/`max.f64` (`num_reduce_entry`).
    macro_rules! reduce_entry {
        (f32, Sum, $name:ident) => {
            crate::__reduce_kernel!(
                crate::kernel_name!(reduce, $name, f32),
                f32,
                f32,
                Sum,
                |_, x| x,
                |x| x,
                crate::device::tuning::reduce_f32_sum_min_blocks_per_sm(
                    crate::device::tuning::SM90
                )
            );
        };
        (f32, Min, $name:ident) => {
            ranked_reduce_entry!(f32, false, $name);
        };
        (f32, Max, $name:ident) => {
            ranked_reduce_entry!(f32, true, $name);
        };
        (f64, Min, $name:ident) => {
            #[cfg(target_feature = "sm_80")]
            num_reduce_entry!(MinNumF64, $name);
            #[cfg(not(target_feature = "sm_80"))]
            ranked_reduce_entry!(f64, false, $name);
        };
        (f64, Max, $name:ident) => {
            #[cfg(target_feature = "sm_80")]
            num_reduce_entry!(MaxNumF64, $name);
            #[cfg(not(target_feature = "sm_80"))]
            ranked_reduce_entry!(f64, true, $name);
        };
        ($ty:ident, $op:ident, $name:ident) => {
            plain_reduce_entry!($ty, $op, $name);
        };
    }

    macro_rules! plain_reduce_entry {
        ($ty:ident, $op:ident, $name:ident) => {
            crate::__reduce_kernel!(
                crate::kernel_name!(reduce, $name, $ty),
                $ty,
                $ty,
                $op,
                |_, x| x,
                |x| x
            );
        };
    }

    macro_rules! ranked_reduce_entry {
        ($ty:ident, $max:expr, $name:ident) => {
            crate::__reduce_kernel!(
                crate::kernel_name!(reduce, $name, $ty),
                $ty,
                <$ty as Rankable>::Rank,
                Min,
                |_, x: $ty| x.rank_masked($max),
                |r| <$ty as Rankable>::unrank(r, $max)
            );
        };
    }

    /// The device reduce of `f64` min or max on sm_80 and newer: each combine one
    /// `min.f64`/`max.f64`, whose rules (NaN ignored, `-0.0 < +0.0`) give [`Min`]/[`Max`]'s
    /// bits in any grouping once a NaN result is made canonical, so every target gives the
    /// same bits as the ranks do on sm_70 (where this kernel spilled under `ptxas` 12.9).
    /// Ranking each item took 5-6 instructions more than this one (on an H100 at 2^20 items,
    /// warm: 6.71 and 6.93 µs for min and max against 6.30 for the `u64` min). Compiled
    /// without a blocks-per-SM bound
    /// ([`REDUCE_F64_FOLD_MIN_BLOCKS_PER_SM`](crate::device::tuning::REDUCE_F64_FOLD_MIN_BLOCKS_PER_SM)).
    #[cfg(target_feature = "sm_80")]
    macro_rules! num_reduce_entry {
        ($op:ident, $name:ident) => {
            crate::__reduce_kernel!(
                crate::kernel_name!(reduce, $name, f64),
                f64,
                f64,
                crate::ops::$op,
                |_, x: f64| x,
                crate::ops::canonical_nan,
                crate::device::tuning::REDUCE_F64_FOLD_MIN_BLOCKS_PER_SM
            );
        };
    }

    /// The items of a half reduce: widened to `f32` one by one for the sum, folded a vector at
    /// a time for min and max (`HalfMinMaxLoad`).
    macro_rules! half_load {
        ($ty:ident, Sum) => {
            |_, x: $ty| <$ty as Half16>::widen(x)
        };
        ($ty:ident, $op:ident) => {
            crate::device::reduce::half_loads::HalfMinMaxLoad::<$ty, $op>::NEW
        };
    }

    /// The half types accumulate in `f32` (min and max fold vectors of eight in their own
    /// format first, `HalfMinMaxLoad`); their arg-reduce ranks each value with a 16-bit
    /// rank in a `u32` ([`Rankable`]), beside a `u32` index, folds whole vectors of eight on
    /// sm_90 (`HalfArgLoad`), and writes the value's bits zero-extended to 32.
    macro_rules! per_half {
        ($ty:ident, [$(($op:ident, $name:ident)),*], [$(($arg:ident, $arg_name:ident)),*]) => {
            $(
                crate::__reduce_kernel!(crate::kernel_name!(reduce, $name, $ty), $ty, f32, $op, half_load!($ty, $op), |x: f32| x);
                crate::__scan_kernel!(crate::kernel_name!(scan, $name, $ty), $ty, f32, $op, <$ty as Half16>::widen, <$ty as Half16>::narrow);
                crate::__rows_kernels!(crate::kernel_name!(rows_reduce, $name, $ty), crate::kernel_name!(rows_scan, $name, $ty),
                    $ty, f32, $op, <$ty as Half16>::widen, <$ty as Half16>::narrow);
            )*
            $(
                crate::__reduce_kernel!(crate::kernel_name!(reduce, $arg_name, $ty), $ty,
                    Ranked<u32, u32>, LowestRank,
                    crate::device::reduce::half_loads::HalfArgLoad::<$ty, $arg>::NEW,
                    |r: Ranked<u32, u32>| r.indexed_bits::<$ty, $arg>(),
                    crate::device::tuning::reduce_half_arg_min_blocks_per_sm(crate::device::tuning::SM90));
            )*
        };
    }

    crate::library_kernels!(library);
}
