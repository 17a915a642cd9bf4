//! Cold-L2 runs: before each timed launch, write a scratch buffer of twice the L2 size on the
//! stream (outside the timing events), so the launch finds none of its data in L2 (what
//! nvbench's cold runs do). Only meaningful for cases whose data fits in L2; larger ones are
//! cold anyway.

use crate::mem::DeviceMem;
use cudarc::driver::{CudaContext, CudaStream, DriverError, sys};
use std::sync::Arc;

/// The scratch buffer and the device's L2 size.
pub struct L2Flush {
    scratch: DeviceMem,
    l2_bytes: usize,
    pattern: u32,
}

impl L2Flush {
    /// Reads the L2 size from the device and allocates `2 × L2` of scratch.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<L2Flush, DriverError> {
        let l2_bytes = l2_bytes(ctx)?;
        Ok(L2Flush {
            scratch: DeviceMem::new(ctx, scratch_bytes(l2_bytes))?,
            l2_bytes,
            pattern: 0,
        })
    }

    /// The device's L2 size in bytes.
    pub fn l2_bytes(&self) -> usize {
        self.l2_bytes
    }

    /// Whether `bytes` of data (what one run reads plus writes) fit in L2, so that a warm
    /// run could be served from it and a cold figure says something different.
    pub fn fits(&self, bytes: usize) -> bool {
        fits_in_l2(bytes, self.l2_bytes)
    }

    /// Enqueues the flush on `stream`: a `cuMemsetD32Async` over the whole scratch buffer,
    /// with a new pattern each time.
    pub fn flush(&mut self, stream: &CudaStream) -> Result<(), DriverError> {
        self.pattern = self.pattern.wrapping_add(0x9e37_79b9);
        let words = self.scratch.bytes() / 4;
        let raw = stream.cu_stream();
        unsafe { sys::cuMemsetD32Async(self.scratch.ptr(), self.pattern, words, raw) }.result()
    }
}

/// The L2 size of `ctx`'s device (`CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`).
pub fn l2_bytes(ctx: &Arc<CudaContext>) -> Result<usize, DriverError> {
    let bytes = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?;
    Ok(bytes.max(0) as usize)
}

/// Scratch to write for a flush: twice the L2 size, whole 4-byte words, at least 1 MiB.
pub fn scratch_bytes(l2_bytes: usize) -> usize {
    (2 * l2_bytes).next_multiple_of(4).max(1 << 20)
}

pub fn fits_in_l2(bytes: usize, l2_bytes: usize) -> bool {
    bytes <= l2_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_twice_l2_in_whole_words() {
        // H200: 60 MiB of L2 (the attribute reads 62914560); H100: 50 MiB.
        assert_eq!(scratch_bytes(62_914_560), 125_829_120);
        assert_eq!(scratch_bytes(50 << 20), 100 << 20);
        assert_eq!(scratch_bytes(1001) % 4, 0);
        assert!(scratch_bytes(3 << 20) >= 6 << 20);
        assert_eq!(scratch_bytes(0), 1 << 20);
    }

    #[test]
    fn fits_compares_with_l2() {
        let l2 = 50 << 20;
        assert!(fits_in_l2(4 << 20, l2));
        assert!(fits_in_l2(l2, l2));
        assert!(!fits_in_l2(l2 + 1, l2));
    }
}
