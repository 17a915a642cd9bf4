//! The element types and operators the device kernels are built for.

use bytemuck::Pod;
use cust::memory::DeviceCopy;
use warpkit::ops::{ArgMax, ArgMin, Indexed, Max, Min, ReduceOp, Sum};

/// A type the device reduce and scan kernels are instantiated for.
pub trait Element: Pod + DeviceCopy + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// The type's name in kernel names (`u32`).
    const NAME: &'static str;
    /// The index type beside it in arg-min/arg-max (`u32` for 32-bit values, `u64` for 64-bit).
    type Index: Pod
        + DeviceCopy
        + Into<u64>
        + TryFrom<u64>
        + std::fmt::Debug
        + PartialEq
        + Send
        + Sync;
}

macro_rules! elements {
    ($($t:ident, $i:ident;)*) => {$(
        impl Element for $t {
            const NAME: &'static str = stringify!($t);
            type Index = $i;
        }
    )*};
}

elements! { u32, u32; i32, u32; f32, u32; u64, u64; i64, u64; f64, u64; }

/// An operator with device kernels for element type `T`.
pub trait DeviceOp<T: Element>: ReduceOp<T> + Default {
    /// The operator's name in kernel names (`sum`).
    const NAME: &'static str;
}

impl<T: Element> DeviceOp<T> for Sum
where
    Sum: ReduceOp<T>,
{
    const NAME: &'static str = "sum";
}

impl<T: Element> DeviceOp<T> for Min
where
    Min: ReduceOp<T>,
{
    const NAME: &'static str = "min";
}

impl<T: Element> DeviceOp<T> for Max
where
    Max: ReduceOp<T>,
{
    const NAME: &'static str = "max";
}

/// Arg-min or arg-max: reduces values to (value, index) pairs.
pub trait ArgOp<T: Element>: ReduceOp<Indexed<T, T::Index>> + Default {
    const NAME: &'static str;
}

impl<T: Element> ArgOp<T> for ArgMin
where
    ArgMin: ReduceOp<Indexed<T, T::Index>>,
{
    const NAME: &'static str = "argmin";
}

impl<T: Element> ArgOp<T> for ArgMax
where
    ArgMax: ReduceOp<Indexed<T, T::Index>>,
{
    const NAME: &'static str = "argmax";
}
