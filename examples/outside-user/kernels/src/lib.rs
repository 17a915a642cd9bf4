//! A kernel crate as the README describes it: warpkit's device scan and reduce instantiated
//! for this crate's own type and operator (2×2 matrix products: associative, not commutative).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]

/// A 2×2 matrix `[a, b, c, d]` (row-major) over wrapping `u32` arithmetic.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Mat2(pub [u32; 4]);

/// The matrix product `x · y`.
#[derive(Clone, Copy, Debug, Default)]
pub struct MatMul;

impl warpkit::ops::ReduceOp<Mat2> for MatMul {
    #[inline(always)]
    fn identity(self) -> Mat2 {
        Mat2([1, 0, 0, 1])
    }
    #[inline(always)]
    fn combine(self, x: Mat2, y: Mat2) -> Mat2 {
        let ([a, b, c, d], [e, f, g, h]) = (x.0, y.0);
        let dot = |p: u32, q: u32, r: u32, s: u32| p.wrapping_mul(q).wrapping_add(r.wrapping_mul(s));
        Mat2([dot(a, e, b, g), dot(a, f, b, h), dot(c, e, d, g), dot(c, f, d, h)])
    }
}

// SAFETY: plain `#[repr(C)]` data, any bits valid.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::DeviceRepr for Mat2 {}
// SAFETY: as above.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::ValidAsZeroBits for Mat2 {}

// `mat2_reduce`, `mat2_scan`, `mat2_rows_reduce`, `mat2_rows_scan`, `mat2_layout`.
warpkit::custom_kernels! { prefix: mat2, value: Mat2, op: MatMul }
