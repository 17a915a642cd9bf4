//! warpkit's test and benchmark kernels, kept out of the library's PTX:
//!
//! - [`shims`]: one shim kernel per instruction wrapper, and on the host the table of the
//!   instruction each must contain, both from one list per instruction family;
//! - `conformance`: the GPU conformance kernels (`warpkit_test_*`), which run every wrapper
//!   and the `Tile` algorithms on data the host checks against `warpkit::model`;
//! - `bandwidth`: the streaming probes the benchmark measures its limits with
//!   (`warpkit_bandwidth_copy`, `warpkit_bandwidth_read`);
//! - `legacy` (feature `legacy-shfl`, built for sm_60 alone): the deprecated non-`.sync` `shfl`.
//!
//! `warpkit-tests` (`tests/`) builds this crate into PTX with `warpkit-builder` and embeds it.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
// The shared-memory shims (`shared_array!`) are inline assembly; the legacy build has none.
#![cfg_attr(
    all(target_arch = "nvptx64", not(feature = "legacy-shfl")),
    feature(asm_experimental_arch)
)]

pub mod shims;

// On the host too: `#[kernel]` type-checks the bodies there.
#[cfg(not(feature = "legacy-shfl"))]
mod bandwidth;
#[cfg(not(feature = "legacy-shfl"))]
mod conformance;
#[cfg(all(target_arch = "nvptx64", feature = "legacy-shfl"))]
mod legacy;

/// The wrapping sum of three `u32`s, for [`custom_kernels!`](warpkit::custom_kernels) over a
/// 12-byte value: one that moves in no 16-byte vector, so that its kernels are built (and
/// checked by `ptxas`) on every target, as a user's would be.
#[derive(Clone, Copy)]
pub struct AddU32x3;

impl warpkit::ops::ReduceOp<[u32; 3]> for AddU32x3 {
    #[inline(always)]
    fn identity(self) -> [u32; 3] {
        [0; 3]
    }
    #[inline(always)]
    fn combine(self, a: [u32; 3], b: [u32; 3]) -> [u32; 3] {
        [
            a[0].wrapping_add(b[0]),
            a[1].wrapping_add(b[1]),
            a[2].wrapping_add(b[2]),
        ]
    }
}

#[cfg(not(feature = "legacy-shfl"))]
warpkit::custom_kernels! { prefix: warpkit_test_u32x3, value: [u32; 3], op: AddU32x3 }

/// The bits of `value`, or for one `v` in 8 those of a special value picked by `v`'s high
/// bits: a quiet NaN (a quarter), an infinity (a quarter) or a zero (half), each of either
/// sign; `nan`, `infinity` and `sign` are the float's bit patterns. The conformance kernels'
/// float inputs ([`special_f32`], [`special_f64`]), and the host's reference for them.
/// Selects, not a table: a table of the eight values lived on the stack (sm_70).
const fn special_bits(v: u32, value: u64, nan: u64, infinity: u64, sign: u64) -> u64 {
    if v & 7 != 0 {
        return value;
    }
    let kind = v >> 30;
    let magnitude = if kind == 0 {
        nan
    } else if kind == 1 {
        infinity
    } else {
        0
    };
    magnitude | if v >> 29 & 1 != 0 { sign } else { 0 }
}

/// `value` or a special `f32` ([`special_bits`]).
pub const fn special_f32(v: u32, value: f32) -> f32 {
    let bits = special_bits(v, value.to_bits() as u64, 0x7fc0_0000, 0x7f80_0000, 1 << 31);
    f32::from_bits(bits as u32)
}

/// `value` or a special `f64` ([`special_bits`]).
pub const fn special_f64(v: u32, value: f64) -> f64 {
    f64::from_bits(special_bits(
        v,
        value.to_bits(),
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        1 << 63,
    ))
}
