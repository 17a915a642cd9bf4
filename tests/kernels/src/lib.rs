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

/// `value`, or for one `v` in 8 a special value picked by `v`'s high bits: `nan` (negated
/// or not), an infinity or a zero of either sign. The conformance kernels' float inputs, and
/// the host's reference for them.
pub fn special_float<F>(v: u32, value: F, nan: F) -> F
where
    F: Copy + core::ops::Neg<Output = F> + core::ops::Div<Output = F> + From<u8>,
{
    let zero = F::from(0u8);
    let one = F::from(1u8);
    let infinity = one / zero;
    let special = [nan, -nan, infinity, -infinity, zero, -zero, nan, -zero];
    if v & 7 == 0 {
        special[(v >> 29) as usize]
    } else {
        value
    }
}
