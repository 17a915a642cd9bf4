//! What a kernel's parameter list is, for a typed launch from the host.
//!
//! [`#[kernel]`](macro@crate::kernel) turns `pub unsafe fn scale(data: *mut f32, n: u32, k: f32)`
//! into a PTX entry point on nvptx64 and, on the host, into a unit struct `scale` that
//! implements [`KernelSignature`] with `NAME = "scale"` and
//! `Args = (DevicePtrMut<f32>, u32, f32)`. A host launcher generic over `K: KernelSignature`
//! takes `K::Args`, so a wrong argument list does not compile:
//!
//! ```
//! # #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! use warpkit::kernel::launch::{DevicePtrMut, KernelSignature};
//!
//! #[warpkit::kernel]
//! pub unsafe fn scale(data: *mut f32, n: u32, factor: f32) {}
//!
//! fn launch<K: KernelSignature>(_args: K::Args) {}
//! launch::<scale>((DevicePtrMut::null(), 1000, 2.0));
//! assert_eq!(<scale as KernelSignature>::NAME, "scale");
//! ```
//!
//! ```compile_fail,E0308
//! # #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! use warpkit::kernel::launch::{DevicePtrMut, KernelSignature};
//!
//! #[warpkit::kernel]
//! pub unsafe fn scale(data: *mut f32, n: u32, factor: f32) {}
//!
//! fn launch<K: KernelSignature>(_args: K::Args) {}
//! launch::<scale>((DevicePtrMut::<f32>::null(), 2.0f32, 1000u32)); // swapped: refused
//! ```
//!
//! A `*const T` parameter wants a [`DevicePtr<T>`], so a read-only pointer cannot be passed
//! where the kernel writes, and `f64` data cannot go to an `f32` kernel:
//!
//! ```compile_fail,E0308
//! # #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! use warpkit::kernel::launch::{DevicePtr, KernelSignature};
//!
//! #[warpkit::kernel]
//! pub unsafe fn fill(out: *mut f32, n: u32) {}
//!
//! fn launch<K: KernelSignature>(_args: K::Args) {}
//! launch::<fill>((DevicePtr::<f32>::null(), 10));
//! ```
//!
//! A parameter type that cannot cross to the device is refused where it is written:
//!
//! ```compile_fail,E0277
//! # #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! #[warpkit::kernel]
//! pub unsafe fn bad(v: &[f32]) {}
//! ```

use core::marker::PhantomData;

/// A type that may be a kernel parameter: `Copy`, every bit pattern the host can write is a
/// value the kernel may read, and the host passes it as [`DeviceArg::Host`] (same size and
/// alignment). Implemented for the integers, floats, `bool`, `half::{f16, bf16}` and raw
/// pointers; for your own `#[repr(C)]` [`bytemuck::Pod`] structs use [`device_arg!`](crate::device_arg).
///
/// # Safety
/// `Host` must have the size and alignment of `Self`, and every value of `Host` must be a
/// valid `Self` on the device.
pub unsafe trait DeviceArg: Copy {
    /// The type the host passes in its place.
    type Host: Copy;
}

/// Compile-time check that `T` is a kernel parameter type (used by `#[kernel]`).
#[doc(hidden)]
pub const fn __assert_device_arg<T: DeviceArg>() {}

macro_rules! scalar_args {
    ($($t:ty)*) => {$(
        // SAFETY: the host passes the same type.
        unsafe impl DeviceArg for $t { type Host = $t; }
    )*};
}

scalar_args!(u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 half::f16 half::bf16);

// `usize` and `isize` are 8 bytes on nvptx64, so only a 64-bit host passes its own in their
// place (on a 32-bit host a kernel taking them does not compile).
#[cfg(any(target_arch = "nvptx64", target_pointer_width = "64"))]
scalar_args!(usize isize);

// SAFETY: the host passes 0 or 1 (`bool` itself).
unsafe impl DeviceArg for bool {
    type Host = bool;
}

// SAFETY: a `DevicePtr` is a 64-bit generic address, as a `*const T` on nvptx64.
unsafe impl<T> DeviceArg for *const T {
    type Host = DevicePtr<T>;
}

// SAFETY: as above.
unsafe impl<T> DeviceArg for *mut T {
    type Host = DevicePtrMut<T>;
}

/// Makes `#[repr(C)]` [`bytemuck::Pod`] structs kernel parameters, passed as themselves:
/// `warpkit::device_arg!(Params, Tile);`. Refuses (at compile time) a type that is not `Pod`.
#[macro_export]
macro_rules! device_arg {
    ($($t:ty),* $(,)?) => {$(
        const _: () = {
            const fn pod<T: $crate::Pod>() {}
            pod::<$t>();
        };
        // SAFETY: a Pod type: any bits are valid, the host passes the same type.
        unsafe impl $crate::kernel::launch::DeviceArg for $t { type Host = $t; }
    )*};
}

/// A device address of `T`s that the kernel reads (`*const T` in the kernel): the host form
/// of a `*const T` parameter. Only an address: making one is safe, the launch is `unsafe`.
#[repr(transparent)]
pub struct DevicePtr<T>(u64, PhantomData<*const T>);

/// A device address of `T`s that the kernel may write (`*mut T` in the kernel).
#[repr(transparent)]
pub struct DevicePtrMut<T>(u64, PhantomData<*mut T>);

macro_rules! device_ptr {
    ($($p:ident)*) => {$(
        impl<T> $p<T> {
            /// The address `addr` (a `CUdeviceptr`).
            pub const fn from_raw(addr: u64) -> Self {
                $p(addr, PhantomData)
            }
            /// The null address.
            pub const fn null() -> Self {
                $p(0, PhantomData)
            }
            /// The address as a `CUdeviceptr`.
            pub const fn addr(self) -> u64 {
                self.0
            }
            /// The address `count` elements further on (wrapping, as it is only a number here).
            pub const fn wrapping_add(self, count: usize) -> Self {
                $p(self.0.wrapping_add((count * core::mem::size_of::<T>()) as u64), PhantomData)
            }
        }
        impl<T> Clone for $p<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $p<T> {}
        impl<T> core::fmt::Debug for $p<T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({:#x})", stringify!($p), self.0)
            }
        }
        impl<T> PartialEq for $p<T> {
            fn eq(&self, other: &Self) -> bool {
                self.0 == other.0
            }
        }
        impl<T> Eq for $p<T> {}
        // SAFETY: an address is plain data; the GPU memory it names is not touched here.
        unsafe impl<T> Send for $p<T> {}
        // SAFETY: as above.
        unsafe impl<T> Sync for $p<T> {}
    )*};
}

device_ptr!(DevicePtr DevicePtrMut);

impl<T> DevicePtrMut<T> {
    /// The same address, read-only (a kernel that only reads may take what one that writes does).
    pub const fn as_const(self) -> DevicePtr<T> {
        DevicePtr(self.0, PhantomData)
    }
}

impl<T> From<DevicePtrMut<T>> for DevicePtr<T> {
    fn from(p: DevicePtrMut<T>) -> Self {
        p.as_const()
    }
}

/// A kernel's name in the PTX and its parameter list as the host passes it; implemented by
/// the descriptors [`#[kernel]`](macro@crate::kernel) makes on the host.
pub trait KernelSignature {
    /// The entry point's name in the PTX (the function's name: `#[kernel]` does not mangle).
    const NAME: &'static str;
    /// The host form of each parameter, in order ([`DeviceArg::Host`]).
    type Args: KernelArgs;
    /// `#[kernel(max_threads = N)]`: the most threads per block the kernel was built for
    /// (PTX `.maxntid`, CUDA's `__launch_bounds__`); a launch with more fails, and host
    /// launchers refuse it before it reaches the driver.
    const MAX_THREADS: Option<u32> = None;
    /// `#[kernel(min_blocks_per_sm = M)]`: blocks of `MAX_THREADS` threads that ptxas keeps
    /// room for on one multiprocessor (`.minnctapersm`, registers capped to fit); 0 for none.
    const MIN_BLOCKS_PER_SM: u32 = 0;
}

/// A tuple of host-side kernel arguments; gives the `void**` array `cuLaunchKernel` takes.
pub trait KernelArgs: Copy {
    /// The number of parameters.
    const LEN: usize;
    /// Writes a pointer to each parameter into `out[..LEN]` and returns `LEN`. The pointers
    /// point into `self`, so they are valid while `self` is borrowed.
    fn param_ptrs(&self, out: &mut [*mut core::ffi::c_void; 32]) -> usize;
}

macro_rules! tuple_args {
    ($(($($n:tt $t:ident),*);)*) => {$(
        impl<$($t: Copy),*> KernelArgs for ($($t,)*) {
            const LEN: usize = 0 $(+ { let _ = $n; 1 })*;
            #[allow(unused_variables)]
            fn param_ptrs(&self, out: &mut [*mut core::ffi::c_void; 32]) -> usize {
                $(out[$n] = &self.$n as *const $t as *mut core::ffi::c_void;)*
                Self::LEN
            }
        }
    )*};
}

tuple_args! {
    ();
    (0 A);
    (0 A, 1 B);
    (0 A, 1 B, 2 C);
    (0 A, 1 B, 2 C, 3 D);
    (0 A, 1 B, 2 C, 3 D, 4 E);
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I);
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J);
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K);
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_point_at_each_field() {
        let args = (DevicePtrMut::<f32>::from_raw(0x1000), 7u32, 2.5f64);
        let mut out = [core::ptr::null_mut(); 32];
        assert_eq!(args.param_ptrs(&mut out), 3);
        // SAFETY: the pointers point into `args`, alive here.
        unsafe {
            assert_eq!(*(out[0] as *const u64), 0x1000);
            assert_eq!(*(out[1] as *const u32), 7);
            assert_eq!(*(out[2] as *const f64), 2.5);
        }
        assert!(out[3].is_null());
        assert_eq!(<() as KernelArgs>::LEN, 0);
    }

    #[test]
    fn device_pointers_step_by_elements() {
        let p = DevicePtr::<u64>::from_raw(0x100).wrapping_add(3);
        assert_eq!(p.addr(), 0x118);
        assert_eq!(DevicePtrMut::<u8>::null().as_const(), DevicePtr::null());
    }
}
