//! The element types and operators the library kernels are built for: sealed traits, so a
//! safe implementation cannot point a type at a kernel built for another size.
//!
//! The impls are generated from `warpkit::library_kernels!` in [`crate::kernels`].
//!
//! ```compile_fail
//! // A 2-byte type claiming to be a `u64` would have the u64 kernels write 8 bytes per element.
//! #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
//! #[repr(transparent)]
//! struct Narrow(u16);
//! unsafe impl warpkit_host::cudarc::driver::DeviceRepr for Narrow {}
//! unsafe impl warpkit_host::cudarc::driver::ValidAsZeroBits for Narrow {}
//! // error: the trait bound `Narrow: warpkit_host::element::sealed::Element` is not satisfied
//! impl warpkit_host::Element for Narrow {
//!     const NAME: &'static str = "u64";
//!     type Accum = u64;
//!     fn from_accum(a: u64) -> Self { Narrow(a as u16) }
//!     fn to_accum(self) -> u64 { self.0 as u64 }
//! }
//! ```
//!
//! ```compile_fail
//! // A fake arg-min cannot be an ArgOp either.
//! #[derive(Clone, Copy, Debug, Default)]
//! struct FakeArgMin;
//! // error: the trait bound `FakeArgMin: warpkit_host::element::sealed::ArgOp` is not satisfied
//! impl warpkit_host::ArgOp for FakeArgMin {
//!     const NAME: &'static str = "argmin";
//! }
//! ```

use bytemuck::Pod;
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use std::fmt::Debug;

pub(crate) mod sealed {
    /// Where a type's kernels are in the table.
    pub trait Element {
        const SLOT: usize;
    }
    /// Where an operator's kernels are in a type's row, and its identity.
    pub trait Op {
        const INDEX: usize;
        fn identity<A: super::Limits>() -> A;
    }
    pub trait ArgOp {
        const INDEX: usize;
        /// Arg-max (else arg-min).
        const MAX: bool;
    }
    pub trait ArgElement {}
    pub trait Limits {}
}

/// A type the library's reduce and scan kernels are built for: `u32`, `i32`, `u64`, `i64`,
/// `f32`, `f64`, [`half::f16`], [`half::bf16`]. Sealed.
pub trait Element:
    sealed::Element + Pod + DeviceRepr + ValidAsZeroBits + Debug + PartialEq + Send + Sync + 'static
{
    /// The type's name in kernel names (`u32`).
    const NAME: &'static str;
    /// What the reduce kernel writes: `Self`, or `f32` for `f16`/`bf16`, which are
    /// accumulated in `f32`.
    type Accum: Limits + Pod + DeviceRepr + ValidAsZeroBits + Debug + PartialEq + Send + Sync;
    /// A reduction result as `Self` (rounded once, to nearest even, for the half types).
    fn from_accum(a: Self::Accum) -> Self;
    /// The value as its accumulator (exact).
    fn to_accum(self) -> Self::Accum;
}

/// An [`Element`] with arg-min/arg-max kernels (every element type), and the index type
/// beside it: `u32` beside 16- and 32-bit values, `u64` beside 64-bit ones. Sealed.
pub trait ArgElement: Element + sealed::ArgElement {
    type Index: Pod + Into<u64> + Debug + PartialEq + Send + Sync;
    /// What fills the value out to the index's size in an [`ArgResult`]: `[u8; 2]` after a
    /// half type, `[u8; 0]` otherwise.
    type Padding: Pod + Default + Debug + PartialEq + Send + Sync;
}

/// An arg-min or arg-max left on the device by [`Queue::arg_reduce_into`](crate::Queue::arg_reduce_into):
/// the extreme value and the lowest index holding it, laid out as the kernels write them: the
/// value, filled out to the index's size (two zero bytes after an `f16` or `bf16`), then the
/// index. Make one with [`ArgResult::new`].
///
/// ```no_run
/// # fn main() -> Result<(), warpkit_host::Error> {
/// use warpkit::ops::ArgMin;
/// use warpkit_host::{ArgResult, Queue, Warpkit};
///
/// let wk = Warpkit::new(0)?;
/// let stream = wk.new_stream()?;
/// let mut queue = Queue::new(&wk, &stream)?;
/// let data = stream.clone_htod(&[3.0f32, -1.0, 7.0, -1.0]).unwrap();
/// let mut lowest = stream.alloc_zeros::<ArgResult<f32>>(1).unwrap();
/// queue.arg_reduce_into(&data, &mut lowest, ArgMin)?; // enqueued only: can be captured
/// let found = stream.clone_dtoh(&lowest).unwrap()[0];
/// assert_eq!((found.value, found.index), (-1.0, 1));
/// # Ok(())
/// # }
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArgResult<T: ArgElement> {
    pub value: T,
    /// Zero where the kernels write one (they write the value's bits zero-extended).
    pub padding: T::Padding,
    pub index: T::Index,
}

impl<T: ArgElement> ArgResult<T> {
    /// `value` at `index`.
    pub fn new(value: T, index: T::Index) -> Self {
        ArgResult {
            value,
            padding: T::Padding::default(),
            index,
        }
    }

    /// Evaluated where an arg-reduce writes one: the layout is the kernels' (no padding).
    pub(crate) const KERNEL_LAYOUT: () = assert!(
        size_of::<Self>() == size_of::<T>() + size_of::<T::Padding>() + size_of::<T::Index>()
            && size_of::<T>() + size_of::<T::Padding>() == size_of::<T::Index>()
    );
}

// SAFETY (the four impls): `repr(C)` of plain-data fields whose sizes leave no padding for
// every `ArgElement` (sealed: `u32`, `i32`, `f32` beside a `u32` and `u64`, `i64`, `f64`
// beside a `u64`, with an empty filler; `f16`, `bf16`, then two filler bytes (alignment 1,
// at offset 2), beside a `u32`; `arg_result_has_no_padding` checks each); every bit pattern,
// zero included, is a valid value.
unsafe impl<T: ArgElement> bytemuck::Zeroable for ArgResult<T> {}
unsafe impl<T: ArgElement> Pod for ArgResult<T> {}
unsafe impl<T: ArgElement> DeviceRepr for ArgResult<T> {}
unsafe impl<T: ArgElement> ValidAsZeroBits for ArgResult<T> {}

/// An operator of the library's kernels: `Sum`, `Min`, `Max` from `warpkit::ops`. Sealed.
pub trait DeviceOp: sealed::Op + Copy + Default + Debug + Send + Sync + 'static {
    /// The operator's name in kernel names (`sum`).
    const NAME: &'static str;
}

/// Arg-min or arg-max (`warpkit::ops::{ArgMin, ArgMax}`). Sealed.
pub trait ArgOp: sealed::ArgOp + Copy + Default + Debug + Send + Sync + 'static {
    const NAME: &'static str;
}

/// The identities of `Sum`, `Min`, `Max` for an accumulator type. Sealed.
pub trait Limits: sealed::Limits + Copy {
    const ZERO: Self;
    /// The identity of `Min`: the largest value, the canonical NaN for floats (which `Min`
    /// skips: the minimum of no number is NaN, as in `warpkit::ops`).
    const HIGHEST: Self;
    /// The identity of `Max`: the smallest value, the canonical NaN for floats.
    const LOWEST: Self;
}

macro_rules! limits {
    ($($t:ty: $zero:expr, $hi:expr, $lo:expr;)*) => {$(
        impl sealed::Limits for $t {}
        impl Limits for $t {
            const ZERO: $t = $zero;
            const HIGHEST: $t = $hi;
            const LOWEST: $t = $lo;
        }
    )*};
}

limits! {
    u32: 0, u32::MAX, 0; i32: 0, i32::MAX, i32::MIN;
    u64: 0, u64::MAX, 0; i64: 0, i64::MAX, i64::MIN;
    f32: -0.0, f32::from_bits(0x7fff_ffff), f32::from_bits(0x7fff_ffff);
    f64: -0.0, f64::from_bits(0x7fff_ffff_ffff_ffff), f64::from_bits(0x7fff_ffff_ffff_ffff);
}

/// The identity of operator `O` for `T`'s accumulator: what an empty input reduces to.
pub fn identity<T: Element, O: DeviceOp>() -> T::Accum {
    O::identity::<T::Accum>()
}

/// `const` string equality (for slots computed from the kernel list).
pub(crate) const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The position of `name` in `list` (a compile error through the `panic` if absent).
pub(crate) const fn position(list: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < list.len() {
        if same(list[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("name not in the kernel list")
}

#[cfg(test)]
mod tests {
    use super::{ArgElement, ArgResult};

    fn whole<T: ArgElement>() {
        let () = ArgResult::<T>::KERNEL_LAYOUT;
        assert_eq!(
            size_of::<ArgResult<T>>(),
            2 * size_of::<T::Index>(),
            "{}",
            T::NAME
        );
        assert_eq!(
            std::mem::offset_of!(ArgResult<T>, index),
            size_of::<T::Index>()
        );
    }

    #[test]
    fn arg_result_has_no_padding() {
        whole::<u32>();
        whole::<i32>();
        whole::<f32>();
        whole::<u64>();
        whole::<i64>();
        whole::<f64>();
        whole::<half::f16>();
        whole::<half::bf16>();
    }
}
