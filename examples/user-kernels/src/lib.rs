//! A kernel crate of your own: `no_std`, depends on `warpkit`, built into PTX by
//! `warpkit-builder` from the host crate's `build.rs` (see `../user-app`). It also defines
//! two value types with their operators, shared with the host: the device reduce and scan of
//! warpkit run on them through `warpkit::custom_kernels!` (feature `custom`) and
//! `warpkit_host::CustomKernels`.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]

#[cfg(target_arch = "nvptx64")]
use warpkit::{
    LaneMask,
    block::{self, TempStorage},
    instr::sreg::lanemask_lt,
    kernel::{global_index, lane_id},
    ops::{Max, Sum},
    warp::{Tile, Warp, matching::match_any_sync},
};

warpkit::kernel! {
    /// `sums[w]` = the sum of warp `w`'s 32 values, `maxima[g]` = the maximum of each group
    /// of 8 lanes (a `Tile<8>`), and `ranks[i]` = how many earlier lanes of the warp hold the
    /// same key (`match.any` and a lane mask).
    pub unsafe fn warp_stats(values: *const f32, keys: *const u32, sums: *mut f32, maxima: *mut f32, ranks: *mut u32) {
        let i = global_index();
        // SAFETY: the host launches one thread per value and sizes every output.
        unsafe {
            let v = *values.add(i);
            let total = Warp::full().reduce(v, Sum);
            let group_max = Tile::<8>::full().reduce(v, Max);
            let same_key: LaneMask = match_any_sync(LaneMask::FULL, *keys.add(i));
            *ranks.add(i) = (same_key.bits() & lanemask_lt()).count_ones();
            if lane_id() == 0 {
                *sums.add(i / 32) = total;
            }
            if lane_id() % 8 == 0 {
                *maxima.add(i / 8) = group_max;
            }
        }
    }

    /// A block-wide inclusive prefix sum with its typed shared storage declared in the kernel.
    pub unsafe fn block_prefix_sums(values: *const u32, out: *mut u32) {
        // SAFETY: a `.shared` variable of this kernel alone, used only by the block scan.
        let storage = unsafe { &*warpkit::shared!(USER_SCAN_STORAGE: TempStorage<u32>) };
        let i = global_index();
        // SAFETY: every thread of the block calls the block scan with the same storage.
        unsafe {
            let (inclusive, _) = block::inclusive_scan(*values.add(i), Sum, storage);
            *out.add(i) = inclusive;
        }
    }
}

/// The affine map `x -> a*x + b` on wrapping `u32` arithmetic.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Affine {
    pub a: u32,
    pub b: u32,
}

/// Composition, `f` then `g`: associative, not commutative, exact.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compose;

impl warpkit::ops::ReduceOp<Affine> for Compose {
    #[inline(always)]
    fn identity(self) -> Affine {
        Affine { a: 1, b: 0 }
    }
    #[inline(always)]
    fn combine(self, f: Affine, g: Affine) -> Affine {
        Affine {
            a: g.a.wrapping_mul(f.a),
            b: g.a.wrapping_mul(f.b).wrapping_add(g.b),
        }
    }
}

/// A key and the index it came from.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct KeyValue {
    pub key: i32,
    pub index: u32,
}

/// Arg-max by key: the larger key, the lower index on ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxKey;

impl warpkit::ops::ReduceOp<KeyValue> for MaxKey {
    #[inline(always)]
    fn identity(self) -> KeyValue {
        KeyValue {
            key: i32::MIN,
            index: u32::MAX,
        }
    }
    #[inline(always)]
    fn combine(self, a: KeyValue, b: KeyValue) -> KeyValue {
        if b.key > a.key || (b.key == a.key && b.index < a.index) {
            b
        } else {
            a
        }
    }
}

// SAFETY: plain `#[repr(C)]` data of two 4-byte fields, no padding, any bits valid.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::DeviceRepr for Affine {}
// SAFETY: as above.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::ValidAsZeroBits for Affine {}
// SAFETY: as above.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::DeviceRepr for KeyValue {}
// SAFETY: as above.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::ValidAsZeroBits for KeyValue {}

// `user_affine_{reduce,scan,rows_reduce,rows_scan}`, `user_affine_layout`, and the same for `user_argmax`.
#[cfg(feature = "custom")]
warpkit::custom_kernels! { prefix: user_affine, value: Affine, op: Compose }
#[cfg(feature = "custom")]
warpkit::custom_kernels! { prefix: user_argmax, value: KeyValue, op: MaxKey }
