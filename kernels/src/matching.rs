//! `match.sync`: which lanes hold the same value (PTX 6.0, sm_70+).
//!
//! Values are compared bit for bit: `-0.0` and `+0.0` differ, a NaN matches the same NaN bits.
//! Any [`Pod`] type of 4 bytes (`.b32`) or 8 bytes (`.b64`) can be matched; other sizes are a
//! compile-time error.

#[cfg(target_arch = "nvptx64")]
use crate::lane::LaneMask;
#[cfg(target_arch = "nvptx64")]
use bytemuck::Pod;

#[cfg(target_arch = "nvptx64")]
const fn assert_matchable<T>() {
    let size = core::mem::size_of::<T>();
    assert!(
        size == 4 || size == 8,
        "match.sync compares 32- or 64-bit values only"
    );
}

/// `match.any.sync.b32` / `.b64`: the lanes of `membermask` whose `value` equals the caller's
/// (`__match_any_sync`). Always contains the caller, so it is a [`LaneMask`].
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn match_any_sync<T: Pod>(membermask: LaneMask, value: T) -> LaneMask {
    const { assert_matchable::<T>() };
    let d: u32;
    let m = membermask.bits();
    // SAFETY: the calling lane is in `membermask`; match.sync has no other precondition.
    unsafe {
        if core::mem::size_of::<T>() == 4 {
            let a: u32 = value_words::<T, 1>(value)[0];
            core::arch::asm!("match.any.sync.b32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) m,
                options(nomem, nostack, preserves_flags));
        } else {
            let a: u64 = bytemuck::cast(value_words::<T, 2>(value));
            core::arch::asm!("match.any.sync.b64 {d}, {a}, {m};", d = out(reg32) d, a = in(reg64) a, m = in(reg32) m,
                options(nomem, nostack, preserves_flags));
        }
        LaneMask::from_bits_unchecked(d)
    }
}

/// `match.all.sync.b32` / `.b64 d|p`: if every non-exited lane of `membermask` holds the
/// caller's `value`, returns (the mask of those lanes, `true`); otherwise (`0`, `false`)
/// (`__match_all_sync`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn match_all_sync<T: Pod>(membermask: LaneMask, value: T) -> (u32, bool) {
    const { assert_matchable::<T>() };
    let d: u32;
    let p: u32;
    let m = membermask.bits();
    // SAFETY: the calling lane is in `membermask`; match.sync has no other precondition.
    unsafe {
        if core::mem::size_of::<T>() == 4 {
            let a: u32 = value_words::<T, 1>(value)[0];
            core::arch::asm!("{{", ".reg .pred %p;", "match.all.sync.b32 {d}|%p, {a}, {m};", "selp.u32 {p}, 1, 0, %p;", "}}",
                d = out(reg32) d, p = out(reg32) p, a = in(reg32) a, m = in(reg32) m,
                options(nomem, nostack, preserves_flags));
        } else {
            let a: u64 = bytemuck::cast(value_words::<T, 2>(value));
            core::arch::asm!("{{", ".reg .pred %p;", "match.all.sync.b64 {d}|%p, {a}, {m};", "selp.u32 {p}, 1, 0, %p;", "}}",
                d = out(reg32) d, p = out(reg32) p, a = in(reg64) a, m = in(reg32) m,
                options(nomem, nostack, preserves_flags));
        }
    }
    (d, p != 0)
}

/// The bytes of `value` as `N` words (`size_of::<T>() == 4 * N`, checked by the callers).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn value_words<T: Pod, const N: usize>(value: T) -> [u32; N] {
    let mut words = [0u32; N];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words).copy_from_slice(bytemuck::bytes_of(&value));
    words
}
