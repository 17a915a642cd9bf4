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
/// and its index), the result written as `$finish(total)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __reduce_kernel {
    ($name:expr, $item:ty, $acc:ty, $op:expr, $load:expr, $finish:expr) => {
        const _: () = {
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn kernel(p: $crate::abi::params::Reduce) {
                let shared = $crate::__kernel_shared!($name, $crate::device::reduce::ReduceShared<$acc>);
                // SAFETY: the host launches with the tuning's block size and the abi's buffers.
                unsafe {
                    $crate::device::reduce::reduce::<$item, $acc, _, _, { $crate::device::tuning::vector_items(core::mem::size_of::<$item>()) }>(
                        p, $op, $load, $finish, shared)
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
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn kernel(p: $crate::abi::params::Scan) {
                let shared = $crate::__kernel_shared!($name, $crate::device::scan::ScanShared<$acc>);
                // SAFETY: the host launches one block per tile and sizes the tile status.
                unsafe {
                    $crate::device::scan::scan::<$item, $acc, _, { $crate::device::tuning::vector_items(core::mem::size_of::<$item>()) }>(
                        p, $op, $load, $store, shared)
                }
            }
        };
    };
}

/// The two row kernels (reduce and scan), one warp per row.
#[doc(hidden)]
#[macro_export]
macro_rules! __rows_kernels {
    ($reduce:expr, $scan:expr, $item:ty, $acc:ty, $op:expr, $load:expr, $store:expr) => {
        const _: () = {
            #[unsafe(export_name = $reduce)]
            unsafe extern "ptx-kernel" fn reduce(p: $crate::abi::params::Rows) {
                // SAFETY: the host checks offsets and sizes.
                unsafe { $crate::device::rows::rows_reduce::<$item, $acc, _>(p, $op, $load, $store) }
            }
            #[unsafe(export_name = $scan)]
            unsafe extern "ptx-kernel" fn scan(p: $crate::abi::params::Rows) {
                // SAFETY: the host checks offsets and sizes.
                unsafe { $crate::device::rows::rows_scan::<$item, $acc, _>(p, $op, $load, $store) }
            }
        };
    };
}

/// Instantiates warpkit's device reduce, scan and row kernels for your own [`Pod`](bytemuck::Pod)
/// type and [`ReduceOp`](crate::ops::ReduceOp), in your kernel crate; `warpkit-host`'s
/// `CustomKernels` launches them with the same validation as the built-in ones.
///
/// Emits the kernels `{prefix}_reduce`, `{prefix}_scan`, `{prefix}_rows_reduce` and
/// `{prefix}_rows_scan`, and the global `{prefix}_layout: [u32; 2]` holding the value's size
/// and alignment, which the host compares with its own type's before it launches anything.
/// The operator must be associative; it need not be commutative (scans and reductions combine
/// in index order). Results are deterministic as for the built-in kernels.
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
/// warpkit::custom_kernels!(affine, Affine, Compose);
/// ```
#[macro_export]
macro_rules! custom_kernels {
    ($prefix:ident, $ty:ty, $op:expr) => {
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            core::arch::global_asm!(
                concat!(".visible .global .align 4 .u32 ", stringify!($prefix), "_layout[2] = {{ {size}, {align} }};"),
                size = const core::mem::size_of::<$ty>(),
                align = const core::mem::align_of::<$ty>(),
            );
            $crate::__reduce_kernel!(concat!(stringify!($prefix), "_reduce"), $ty, $ty, $op, |_, x| x, |x| x);
            $crate::__scan_kernel!(concat!(stringify!($prefix), "_scan"), $ty, $ty, $op, |x| x, |x| x);
            $crate::__rows_kernels!(concat!(stringify!($prefix), "_rows_reduce"), concat!(stringify!($prefix), "_rows_scan"),
                $ty, $ty, $op, |x| x, |x| x);
        };
    };
}

/// The library's kernels, from the one list.
#[cfg(feature = "kernels")]
mod library {
    use crate::ops::{ArgMax, ArgMin, Indexed, Max, Min, Sum};
    use half::{bf16, f16};

    macro_rules! library {
        (types: [$(($ty:ident, $idx:ident)),*], half_types: [$($half:ident),*], ops: $ops:tt, arg_ops: $arg_ops:tt,) => {
            $(per_type!($ty, $idx, $ops, $arg_ops);)*
            $(per_half!($half, $ops);)*
        };
    }

    macro_rules! per_type {
        ($ty:ident, $idx:ident, [$(($op:ident, $name:ident)),*], [$(($arg:ident, $arg_name:ident)),*]) => {
            $(
                crate::__reduce_kernel!(crate::kernel_name!(reduce, $name, $ty), $ty, $ty, $op, |_, x| x, |x| x);
                crate::__scan_kernel!(crate::kernel_name!(scan, $name, $ty), $ty, $ty, $op, |x| x, |x| x);
                crate::__rows_kernels!(crate::kernel_name!(rows_reduce, $name, $ty), crate::kernel_name!(rows_scan, $name, $ty),
                    $ty, $ty, $op, |x| x, |x| x);
            )*
            $(
                crate::__reduce_kernel!(crate::kernel_name!(reduce, $arg_name, $ty), $ty, Indexed<$ty, $idx>, $arg,
                    |i, x| Indexed { value: x, index: i as $idx }, |x| x);
            )*
        };
    }

    macro_rules! per_half {
        ($ty:ident, [$(($op:ident, $name:ident)),*]) => {
            $(
                crate::__reduce_kernel!(crate::kernel_name!(reduce, $name, $ty), $ty, f32, $op, |_, x: $ty| <$ty as Half>::widen(x), <$ty as Half>::narrow);
                crate::__scan_kernel!(crate::kernel_name!(scan, $name, $ty), $ty, f32, $op, <$ty as Half>::widen, <$ty as Half>::narrow);
                crate::__rows_kernels!(crate::kernel_name!(rows_reduce, $name, $ty), crate::kernel_name!(rows_scan, $name, $ty),
                    $ty, f32, $op, <$ty as Half>::widen, <$ty as Half>::narrow);
            )*
        };
    }

    /// 16-bit floats accumulated in `f32`: widened exactly, narrowed once, rounding to nearest
    /// even (`cvt`; in software for `bf16` below sm_80).
    trait Half: Sized {
        fn widen(self) -> f32;
        fn narrow(x: f32) -> Self;
    }

    impl Half for f16 {
        #[inline(always)]
        fn widen(self) -> f32 {
            let r: f32;
            // SAFETY: a conversion has no precondition.
            unsafe {
                core::arch::asm!("cvt.f32.f16 {r}, {x};", r = out(reg32) r, x = in(reg16) self.to_bits(),
                    options(pure, nomem, nostack, preserves_flags))
            };
            r
        }
        #[inline(always)]
        fn narrow(x: f32) -> f16 {
            let r: u16;
            // SAFETY: a conversion has no precondition.
            unsafe {
                core::arch::asm!("cvt.rn.f16.f32 {r}, {x};", r = out(reg16) r, x = in(reg32) x,
                    options(pure, nomem, nostack, preserves_flags))
            };
            f16::from_bits(r)
        }
    }

    impl Half for bf16 {
        #[inline(always)]
        fn widen(self) -> f32 {
            f32::from_bits((self.to_bits() as u32) << 16)
        }
        #[cfg(target_feature = "sm_80")]
        #[inline(always)]
        fn narrow(x: f32) -> bf16 {
            let r: u16;
            // SAFETY: a conversion has no precondition.
            unsafe {
                core::arch::asm!("cvt.rn.bf16.f32 {r}, {x};", r = out(reg16) r, x = in(reg32) x,
                    options(pure, nomem, nostack, preserves_flags))
            };
            bf16::from_bits(r)
        }
        #[cfg(not(target_feature = "sm_80"))]
        #[inline(always)]
        fn narrow(x: f32) -> bf16 {
            let bits = x.to_bits();
            let rounded = (bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) >> 16) as u16;
            let quiet_nan = (bits >> 16) as u16 | 0x40;
            bf16::from_bits(if x.is_nan() { quiet_nan } else { rounded })
        }
    }

    crate::library_kernels!(library);
}
