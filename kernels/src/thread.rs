//! Kernel authoring: entry points, thread/block/grid indices, shared memory, barriers.

/// Declares kernel entry points: each `unsafe fn` becomes `#[no_mangle] extern "ptx-kernel"`
/// on nvptx64 and disappears on the host. The kernel crate needs
/// `#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]`.
///
/// **Deprecated for new code**: use the [`#[kernel]`](crate::kernel) attribute, which keeps
/// the function formatted by rustfmt, checks its signature and gives the host a typed launch
/// descriptor. (This macro was `kernel!`; the attribute now owns that name.)
///
/// ```ignore
/// warpkit::kernels! {
///     pub unsafe fn scale(data: *mut f32, len: u32, factor: f32) {
///         let i = warpkit::thread::global_index();
///         if i < len as usize { unsafe { *data.add(i) *= factor } }
///     }
/// }
/// ```
#[macro_export]
macro_rules! kernels {
    ($($(#[$meta:meta])* $vis:vis unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block)*) => {$(
        $(#[$meta])*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        $vis unsafe extern "ptx-kernel" fn $name($($arg: $ty),*) $body
    )*};
}

/// A pointer to a statically allocated `.shared` array, one per thread block:
/// `let buf: *mut [f32; 256] = warpkit::shared_array!(TILE: [f32; 256]);`. The name must be
/// unique in the PTX module; the array is 16-byte aligned and uninitialized.
#[macro_export]
macro_rules! shared_array {
    ($name:ident: [$t:ty; $n:expr]) => {{
        core::arch::global_asm!(
            concat!(".shared .align 16 .b8 ", stringify!($name), "[{size}];"),
            size = const core::mem::size_of::<[$t; $n]>(),
        );
        let p: *mut [$t; $n];
        // SAFETY: takes the generic address of a shared variable declared above.
        unsafe {
            core::arch::asm!(concat!("cvta.shared.u64 {p}, ", stringify!($name), ";"),
                p = out(reg64) p, options(pure, nomem, nostack, preserves_flags));
        }
        p
    }};
}

#[cfg(target_arch = "nvptx64")]
mod indices {
    use core::arch::nvptx;

    macro_rules! index {
        ($($(#[$doc:meta])* $name:ident => $f:ident;)*) => {$(
            $(#[$doc])*
            #[inline(always)]
            pub fn $name() -> u32 {
                // SAFETY: reading a special register has no precondition.
                unsafe { nvptx::$f() as u32 }
            }
        )*};
    }

    index! {
        /// `%tid.x`
        thread_idx_x => _thread_idx_x;
        /// `%tid.y`
        thread_idx_y => _thread_idx_y;
        /// `%tid.z`
        thread_idx_z => _thread_idx_z;
        /// `%ctaid.x`
        block_idx_x => _block_idx_x;
        /// `%ctaid.y`
        block_idx_y => _block_idx_y;
        /// `%ctaid.z`
        block_idx_z => _block_idx_z;
        /// `%ntid.x`
        block_dim_x => _block_dim_x;
        /// `%ntid.y`
        block_dim_y => _block_dim_y;
        /// `%ntid.z`
        block_dim_z => _block_dim_z;
        /// `%nctaid.x`
        grid_dim_x => _grid_dim_x;
        /// `%nctaid.y`
        grid_dim_y => _grid_dim_y;
        /// `%nctaid.z`
        grid_dim_z => _grid_dim_z;
    }

    /// `blockIdx.x * blockDim.x + threadIdx.x`, as a `usize`.
    #[inline(always)]
    pub fn global_index() -> usize {
        block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize
    }

    /// The number of threads in the grid along x.
    #[inline(always)]
    pub fn grid_threads() -> usize {
        grid_dim_x() as usize * block_dim_x() as usize
    }

    /// `bar.sync 0` (`__syncthreads`): waits for every thread of the block and orders their
    /// memory accesses.
    ///
    /// # Safety
    /// Every non-exited thread of the block must reach this same barrier.
    #[inline(always)]
    pub unsafe fn sync_threads() {
        // SAFETY: the caller upholds the barrier's condition.
        unsafe { nvptx::_syncthreads() }
    }
}

#[cfg(target_arch = "nvptx64")]
pub use indices::*;
