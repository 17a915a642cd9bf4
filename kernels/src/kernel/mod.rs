//! Kernel authoring: entry points ([`#[kernel]`](macro@crate::kernel) and the typed
//! [`launch`] descriptors), thread/block/grid indices with CUDA's names, static
//! ([`shared!`](crate::shared)) and [`dynamic_shared`] memory, the block barrier,
//! [`println!`](crate::println) ([`print`]), thread block clusters ([`cluster`], sm_90+) and the
//! panic handler that reports where a kernel panicked (`panic`, feature `panic-handler`).
//!
//! The indices read the special registers through [`crate::instr::sreg`] (`threadIdx.x` is
//! [`thread_idx_x`], which is `%tid.x`, ...).

/// A pointer to a statically allocated `.shared` variable of type `T`, one per thread block:
/// `let storage: *mut TempStorage<f32> = warpkit::shared!(SUM_STORAGE: TempStorage<f32>);`.
/// The name must be unique in the PTX module; the variable is 16-byte aligned (so `T` may
/// need no more) and uninitialized. The address is converted with `cvta.shared.u64`
/// (see [`cvta_shared_u64`](crate::instr::memory::cvta_shared_u64)).
///
/// ```ignore
/// // ignore: `.shared` variables exist only when compiling for nvptx64.
/// let storage = unsafe { &*warpkit::shared!(SCAN_STORAGE: warpkit::block::TempStorage<u32>) };
/// ```
#[macro_export]
macro_rules! shared {
    ($name:ident: $t:ty) => {{
        const _: () = assert!(
            core::mem::align_of::<$t>() <= 16,
            "shared variables are 16-byte aligned"
        );
        #[cfg(target_arch = "nvptx64")]
        let p: *mut $t = {
            core::arch::global_asm!(
                concat!(".shared .align 16 .b8 ", stringify!($name), "[{size}];"),
                size = const core::mem::size_of::<$t>(),
            );
            let p: *mut $t;
            // SAFETY: takes the generic address of the shared variable declared above.
            unsafe {
                core::arch::asm!(concat!("cvta.shared.u64 {p}, ", stringify!($name), ";"),
                    p = out(reg64) p, options(pure, nomem, nostack, preserves_flags));
            }
            p
        };
        // On the host (where kernel bodies are type-checked) there is no shared memory.
        #[cfg(not(target_arch = "nvptx64"))]
        let p: *mut $t = $crate::kernel::host_shared();
        p
    }};
}

/// What [`shared!`](crate::shared) gives on the host: nothing (it panics).
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub fn host_shared<T>() -> *mut T {
    crate::host_stub()
}

/// A pointer to a statically allocated `.shared` array, one per thread block:
/// `let buf: *mut [f32; 256] = warpkit::shared_array!(TILE: [f32; 256]);` (the same as
/// [`shared!`](crate::shared) with an array type).
#[macro_export]
macro_rules! shared_array {
    ($name:ident: [$t:ty; $n:expr]) => {
        $crate::shared!($name: [$t; $n])
    };
}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
pub mod cluster;
pub mod dynamic_shared;
pub mod launch;
#[cfg(target_arch = "nvptx64")]
mod panic;
pub mod print;

macro_rules! index {
    ($($(#[$doc:meta])* $name:ident => $sreg:ident;)*) => {$(
        $(#[$doc])*
        #[doc = concat!("([`", stringify!($sreg), "`](crate::instr::sreg::", stringify!($sreg), ")).")]
        #[inline(always)]
        pub fn $name() -> u32 {
            crate::instr::sreg::$sreg()
        }
    )*};
}

index! {
    /// `threadIdx.x`: `%tid.x`
    thread_idx_x => tid_x;
    /// `threadIdx.y`: `%tid.y`
    thread_idx_y => tid_y;
    /// `threadIdx.z`: `%tid.z`
    thread_idx_z => tid_z;
    /// `blockIdx.x`: `%ctaid.x`
    block_idx_x => ctaid_x;
    /// `blockIdx.y`: `%ctaid.y`
    block_idx_y => ctaid_y;
    /// `blockIdx.z`: `%ctaid.z`
    block_idx_z => ctaid_z;
    /// `blockDim.x`: `%ntid.x`
    block_dim_x => ntid_x;
    /// `blockDim.y`: `%ntid.y`
    block_dim_y => ntid_y;
    /// `blockDim.z`: `%ntid.z`
    block_dim_z => ntid_z;
    /// `gridDim.x`: `%nctaid.x`
    grid_dim_x => nctaid_x;
    /// `gridDim.y`: `%nctaid.y`
    grid_dim_y => nctaid_y;
    /// `gridDim.z`: `%nctaid.z`
    grid_dim_z => nctaid_z;
    /// The calling thread's lane in its warp, `0..32`: `%laneid`
    lane_id => laneid;
}

/// `blockIdx.x * blockDim.x + threadIdx.x`, as a `usize`.
#[inline(always)]
pub fn global_index() -> usize {
    block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize
}

/// The thread's linear index in its block, `x + y·Dx + z·Dx·Dy`: the hardware splits a
/// block into warps by this index (warp `w` holds `32w .. 32w + 31`; CUDA C++ Programming
/// Guide, "SIMT Architecture",
/// <https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#simt-architecture>).
#[inline(always)]
pub fn linear_thread_index() -> u32 {
    thread_idx_x() + block_dim_x() * (thread_idx_y() + block_dim_y() * thread_idx_z())
}

/// The number of threads in the block, `Dx·Dy·Dz`.
#[inline(always)]
pub fn block_threads() -> u32 {
    block_dim_x() * block_dim_y() * block_dim_z()
}

/// The number of threads in the grid along x.
#[inline(always)]
pub fn grid_threads() -> usize {
    grid_dim_x() as usize * block_dim_x() as usize
}

/// `__syncthreads`: waits for every thread of the block and orders their memory accesses
/// ([`bar_sync_0`](crate::instr::barrier::bar_sync_0), `bar.sync 0`).
///
/// # Safety
/// Every non-exited thread of the block must reach this same barrier.
#[doc(alias = "__syncthreads")]
#[inline(always)]
pub unsafe fn sync_threads() {
    // SAFETY: the caller upholds the barrier's condition.
    unsafe { crate::instr::barrier::bar_sync_0() }
}
