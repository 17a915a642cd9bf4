//! Dynamic shared memory: the `.shared` array whose size the launch chooses
//! (`cuLaunchKernel`'s `sharedMemBytes`, CUDA's `extern __shared__ T buf[]`).
//!
//! warpkit declares one module-wide array, `extern .shared .align 16 .b8
//! warpkit_dynamic_shared[]` (PTX ISA 5.1.3 "Shared State Space" and 11.2 "Variable
//! declarations", <https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#shared-state-space>),
//! and [`dynamic_shared`] gives a typed view of it whose length comes from the special register
//! `%dynamic_smem_size` (PTX ISA 10.28, PTX 4.1, sm_20+,
//! <https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#special-registers-dynamic-smem-size>),
//! so the slice is never longer than what the launch provided.
//!
//! ```ignore
//! let buf: *mut [f32] = warpkit::dynamic_shared::dynamic_shared::<f32>();
//! // buf.len() == shared_mem_bytes / 4 (as launched); the memory is uninitialized and shared
//! // by the whole block: write before you read, and order with a barrier.
//! ```
//!
//! Every call returns the same array: views of several types alias each other. The views are
//! raw pointers: making one is safe; reading needs `unsafe` (initialization, races).

#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(".extern .shared .align 16 .b8 warpkit_dynamic_shared[];");

/// `%dynamic_smem_size`: the bytes of dynamic shared memory this launch provided.
#[inline(always)]
pub fn dynamic_shared_bytes() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: reading a special register has no precondition.
        unsafe {
            core::arch::asm!("mov.u32 {r}, %dynamic_smem_size;", r = out(reg32) r,
                options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("warpkit::dynamic_shared runs on an NVIDIA GPU only")
}

/// The dynamic shared memory as `[T]`: `dynamic_shared_bytes() / size_of::<T>()` elements
/// starting at the 16-byte aligned base. `T` must be at most 16-byte aligned and not
/// zero-sized (checked at compile time). The memory is uninitialized and shared by the block.
#[inline(always)]
pub fn dynamic_shared<T>() -> *mut [T] {
    const {
        assert!(
            core::mem::align_of::<T>() <= 16,
            "dynamic shared memory is 16-byte aligned"
        )
    };
    const { assert!(core::mem::size_of::<T>() > 0, "no zero-sized elements") };
    let len = dynamic_shared_bytes() as usize / core::mem::size_of::<T>();
    core::ptr::slice_from_raw_parts_mut(dynamic_shared_base().cast::<T>(), len)
}

/// The generic address of the dynamic shared array (`cvta.shared.u64`).
#[inline(always)]
pub fn dynamic_shared_base() -> *mut u8 {
    #[cfg(target_arch = "nvptx64")]
    {
        let p: *mut u8;
        // SAFETY: takes the address of the array declared above; touches no memory.
        unsafe {
            core::arch::asm!("cvta.shared.u64 {p}, warpkit_dynamic_shared;", p = out(reg64) p,
                options(pure, nomem, nostack, preserves_flags));
        }
        p
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("warpkit::dynamic_shared runs on an NVIDIA GPU only")
}
