//! Polling between blocks: back-off and the warp's poll loop.

use crate::instr::LaneMask;
use crate::instr::memory::nanosleep;

/// Exponential back-off for a spinning lane: 16 ns, doubling up to 128 ns (on an H200 the
/// scans ran 1% faster than with 32 to 512 ns, and 10% slower with 128 to 2048 ns).
pub struct Backoff(u32);

impl Backoff {
    #[inline(always)]
    pub fn new() -> Self {
        Backoff(16)
    }

    #[inline(always)]
    pub fn pause(&mut self) {
        nanosleep(self.0);
        self.0 = (self.0 * 2).min(128);
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
        if crate::warp::vote::all_sync(LaneMask::FULL, ready) {
            return value;
        }
        backoff.pause();
    }
}
