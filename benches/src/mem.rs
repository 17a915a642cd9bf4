//! Raw device memory for the harness (CUB's temporary storage, the L2 scratch buffer, the
//! demo's buffers): plain `cuMemAlloc`, so it works beside any other CUDA wrapper.

use cudarc::driver::{CudaContext, DriverError, result, sys};
use std::sync::Arc;

/// `bytes` of device memory, freed on drop.
pub struct DeviceMem {
    ctx: Arc<CudaContext>,
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl DeviceMem {
    /// Allocates `bytes` (at least one, so the pointer is never null).
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<DeviceMem, DriverError> {
        ctx.bind_to_thread()?;
        let ptr = unsafe { result::malloc_sync(bytes.max(1)) }?;
        Ok(DeviceMem {
            ctx: ctx.clone(),
            ptr,
            bytes,
        })
    }

    /// Allocates room for `host` and copies it in.
    pub fn from_slice<T: Copy>(
        ctx: &Arc<CudaContext>,
        host: &[T],
    ) -> Result<DeviceMem, DriverError> {
        let mem = DeviceMem::new(ctx, std::mem::size_of_val(host))?;
        unsafe { result::memcpy_htod_sync(mem.ptr, host) }?;
        Ok(mem)
    }

    /// Copies the first `out.len()` elements back (synchronously).
    pub fn read<T: Copy>(&self, out: &mut [T]) -> Result<(), DriverError> {
        assert!(std::mem::size_of_val(out) <= self.bytes.max(1));
        self.ctx.bind_to_thread()?;
        unsafe { result::memcpy_dtoh_sync(out, self.ptr) }
    }

    pub fn ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for DeviceMem {
    fn drop(&mut self) {
        // Work still queued on the memory must finish first (cuMemFree does not wait for it).
        let _ = self.ctx.bind_to_thread();
        let _ = self.ctx.synchronize();
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}
