//! The CUDA-style matches, `__match_any_sync` and `__match_all_sync`, for any [`Pod`] type of
//! 4 bytes (`match.any.sync.b32`) or 8 bytes (`.b64`); other sizes are a compile-time error.
//! Values are compared bit for bit.

use crate::instr::LaneMask;
use crate::instr::matching::{
    match_all_sync_b32, match_all_sync_b64, match_any_sync_b32, match_any_sync_b64,
};
use bytemuck::Pod;

const fn assert_matchable<T>() {
    let size = core::mem::size_of::<T>();
    assert!(
        size == 4 || size == 8,
        "match.sync compares 32- or 64-bit values only"
    );
}

/// The bytes of `value` (4 or 8 of them) as a `u64`, zero-extended.
#[inline(always)]
fn bits<T: Pod>(value: T) -> u64 {
    let mut w = 0u64;
    bytemuck::bytes_of_mut(&mut w)[..core::mem::size_of::<T>()]
        .copy_from_slice(bytemuck::bytes_of(&value));
    w
}

/// `__match_any_sync`: the lanes of `mask` whose `value` equals the caller's, bit for bit
/// ([`match_any_sync_b32`] or [`match_any_sync_b64`] by the size of `T`). Always contains the
/// caller, so it is a [`LaneMask`].
///
/// ```no_run
/// use warpkit::{instr::{LaneMask, sreg::lanemask_lt}, warp::matching::match_any_sync};
/// /// How many lanes below the caller hold the same key.
/// fn rank_among_equal(key: f32) -> u32 {
///     (match_any_sync(LaneMask::FULL, key).bits() & lanemask_lt()).count_ones()
/// }
/// ```
#[doc(alias = "__match_any_sync")]
#[inline(always)]
pub fn match_any_sync<T: Pod>(mask: LaneMask, value: T) -> LaneMask {
    const { assert_matchable::<T>() };
    if core::mem::size_of::<T>() == 4 {
        match_any_sync_b32(mask, bits(value) as u32)
    } else {
        match_any_sync_b64(mask, bits(value))
    }
}

/// `__match_all_sync`: if every non-exited lane of `mask` holds the caller's `value`,
/// (the mask of those lanes, `true`); otherwise (`0`, `false`) ([`match_all_sync_b32`] or
/// [`match_all_sync_b64`] by the size of `T`).
#[doc(alias = "__match_all_sync")]
#[inline(always)]
pub fn match_all_sync<T: Pod>(mask: LaneMask, value: T) -> (u32, bool) {
    const { assert_matchable::<T>() };
    if core::mem::size_of::<T>() == 4 {
        match_all_sync_b32(mask, bits(value) as u32)
    } else {
        match_all_sync_b64(mask, bits(value))
    }
}
