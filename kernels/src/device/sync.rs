//! Memory-order instructions and polling between blocks.

use crate::lane::LaneMask;
use core::arch::asm;

/// `ld.relaxed.gpu.u64`: a load that bypasses the incoherent L1 for data other blocks write.
///
/// # Safety
/// `p` is a valid, aligned global pointer.
#[inline(always)]
pub unsafe fn ld_relaxed_gpu_u64(p: *const u64) -> u64 {
    let v: u64;
    // SAFETY: the caller passes a valid global pointer.
    unsafe {
        asm!("ld.relaxed.gpu.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack))
    };
    v
}

/// `ld.relaxed.gpu.u32`
///
/// # Safety
/// `p` is a valid, aligned global pointer.
#[inline(always)]
pub unsafe fn ld_relaxed_gpu_u32(p: *const u32) -> u32 {
    let v: u32;
    // SAFETY: the caller passes a valid global pointer.
    unsafe {
        asm!("ld.relaxed.gpu.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(nostack))
    };
    v
}

/// `st.relaxed.gpu.u64`
///
/// # Safety
/// `p` is a valid, aligned global pointer.
#[inline(always)]
pub unsafe fn st_relaxed_gpu_u64(p: *mut u64, v: u64) {
    // SAFETY: the caller passes a valid global pointer.
    unsafe {
        asm!("st.relaxed.gpu.u64 [{p}], {v};", v = in(reg64) v, p = in(reg64) p, options(nostack))
    };
}

/// `atom.acq_rel.gpu.add.u32`: returns the old value.
///
/// # Safety
/// `p` is a valid, aligned global pointer.
#[inline(always)]
pub unsafe fn atom_add_acq_rel_gpu_u32(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller passes a valid global pointer.
    unsafe {
        asm!("atom.acq_rel.gpu.add.u32 {o}, [{p}], {v};", o = out(reg32) old, v = in(reg32) v,
            p = in(reg64) p, options(nostack))
    };
    old
}

/// `nanosleep.u32`: suspends the thread for about `ns` nanoseconds (sm_70+).
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: a timed pause has no precondition.
    unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack)) };
}

/// Exponential back-off for a spinning lane: 32 ns, doubling up to 512 ns.
pub struct Backoff(u32);

impl Backoff {
    #[inline(always)]
    pub fn new() -> Self {
        Backoff(32)
    }

    #[inline(always)]
    pub fn pause(&mut self) {
        nanosleep(self.0);
        self.0 = (self.0 * 2).min(512);
    }
}

/// Every lane of the warp polls `read` (lanes with `pending` false start with `default`)
/// until each has a value, backing off between rounds; returns the lane's value.
#[inline(always)]
pub fn warp_poll<R: Copy>(pending: bool, default: R, mut read: impl FnMut() -> Option<R>) -> R {
    let (mut value, mut ready) = (default, !pending);
    let mut backoff = Backoff::new();
    loop {
        if !ready && let Some(v) = read() {
            (value, ready) = (v, true);
        }
        if crate::vote::vote_all(LaneMask::FULL, ready) {
            return value;
        }
        backoff.pause();
    }
}
