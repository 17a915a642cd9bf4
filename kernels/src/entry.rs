//! The kernels `warpkit-host` launches: device reduce and scan, row-wise (batched) reduce and
//! scan. (The test and benchmark kernels are the crate `warpkit-test-kernels`, `tests/kernels`.)

use crate::device::{self, TileStatus, params, tuning};
use crate::ops::{ArgMax, ArgMin, Indexed, Max, Min, Sum};

core::arch::global_asm!(".shared .align 16 .b8 warpkit_scratch[{n}];", n = const tuning::SCRATCH_BYTES);

/// The block's `.shared` scratch: warp partials at 0, one broadcast slot at 768.
#[inline(always)]
fn scratch<T>() -> (*mut T, *mut T) {
    let p: *mut u8;
    // SAFETY: takes the generic address of the shared scratch declared above.
    unsafe {
        core::arch::asm!("cvta.shared.u64 {p}, warpkit_scratch;", p = out(reg64) p,
            options(pure, nomem, nostack, preserves_flags));
        (p as *mut T, p.add(768) as *mut T)
    }
}

macro_rules! library_kernels {
    ($($ty:ident, $idx:ident, $vec:literal;)*) => { paste_free! { $(
        reduce: $ty, $vec, Sum, sum; reduce: $ty, $vec, Min, min; reduce: $ty, $vec, Max, max;
        arg: $ty, $idx, $vec, ArgMin, argmin; arg: $ty, $idx, $vec, ArgMax, argmax;
        scan: $ty, $vec, Sum, sum; scan: $ty, $vec, Min, min; scan: $ty, $vec, Max, max;
        rows: $ty, Sum, sum; rows: $ty, Min, min; rows: $ty, Max, max;
    )* } };
}

/// Expands the kernel list: names are built with `concat!` inside `#[export_name]`.
macro_rules! paste_free {
    ($($kind:ident: $($arg:tt),*;)*) => { $(one_kernel!($kind: $($arg),*);)* };
}

macro_rules! one_kernel {
    (reduce: $ty:ident, $vec:literal, $op:ident, $name:ident) => {
        const _: () = {
            #[unsafe(export_name = concat!("warpkit_reduce_", stringify!($name), "_", stringify!($ty)))]
            unsafe extern "ptx-kernel" fn k(p: params::Reduce) {
                let (s, f) = scratch::<$ty>();
                // SAFETY: the host launches with the tuning's block size and sized buffers.
                unsafe {
                    device::reduce::<$ty, $ty, $op, $vec>(p.input as *const $ty, p.len as usize, p.partials as *mut $ty,
                        p.counter as *mut u32, p.output as *mut $ty, |_, x| x, $op, s, f.cast())
                }
            }
        };
    };
    (arg: $ty:ident, $idx:ident, $vec:literal, $op:ident, $name:ident) => {
        const _: () = {
            #[unsafe(export_name = concat!("warpkit_reduce_", stringify!($name), "_", stringify!($ty)))]
            unsafe extern "ptx-kernel" fn k(p: params::Reduce) {
                type Pair = Indexed<$ty, $idx>;
                let (s, f) = scratch::<Pair>();
                // SAFETY: the host launches with the tuning's block size and sized buffers.
                unsafe {
                    device::reduce::<$ty, Pair, $op, $vec>(p.input as *const $ty, p.len as usize, p.partials as *mut Pair,
                        p.counter as *mut u32, p.output as *mut Pair, |i, x| Indexed { value: x, index: i as $idx }, $op, s, f.cast())
                }
            }
        };
    };
    (scan: $ty:ident, $vec:literal, $op:ident, $name:ident) => {
        const _: () = {
            #[unsafe(export_name = concat!("warpkit_scan_", stringify!($name), "_", stringify!($ty)))]
            unsafe extern "ptx-kernel" fn k(p: params::Scan) {
                let (s, prefix) = scratch();
                let status = TileStatus { words: p.words as *mut u64, capacity: p.capacity, epoch: p.epoch };
                // SAFETY: the host launches one block per tile and sizes the status tree.
                unsafe {
                    device::scan::<$ty, $op, { tuning::SCAN_STRIPES }, $vec>(p.input as *const $ty, p.output as *mut $ty,
                        p.len as usize, status, p.exclusive != 0, $op, s, prefix)
                }
            }
        };
    };
    (rows: $ty:ident, $op:ident, $name:ident) => {
        const _: () = {
            #[unsafe(export_name = concat!("warpkit_rows_reduce_", stringify!($name), "_", stringify!($ty)))]
            unsafe extern "ptx-kernel" fn r(p: params::Rows) {
                // SAFETY: the host checks offsets and sizes.
                unsafe {
                    device::rows_reduce(p.input as *const $ty, p.offsets as *const u64, p.width as usize, p.rows as usize,
                        p.output as *mut $ty, $op)
                }
            }
            #[unsafe(export_name = concat!("warpkit_rows_scan_", stringify!($name), "_", stringify!($ty)))]
            unsafe extern "ptx-kernel" fn s(p: params::Rows) {
                // SAFETY: the host checks offsets and sizes.
                unsafe {
                    device::rows_scan(p.input as *const $ty, p.offsets as *const u64, p.width as usize, p.rows as usize,
                        p.output as *mut $ty, p.exclusive != 0, $op)
                }
            }
        };
    };
}

library_kernels! {
    u32, u32, 4; i32, u32, 4; f32, u32, 4; u64, u64, 2; i64, u64, 2; f64, u64, 2;
}
