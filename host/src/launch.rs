//! Typed launches of kernels declared with `#[warpkit::kernel]`, on cudarc.
//!
//! The kernel crate, compiled for the host, gives one descriptor type per kernel
//! (`my_kernels::scale`) implementing [`KernelSignature`]: its PTX name and its parameter
//! list in host form (`*mut f32` → [`DevicePtrMut<f32>`](warpkit::kernel::launch::DevicePtrMut),
//! scalars as themselves). [`Kernel<K>`] is that kernel found in a loaded [`Module`], and
//! [`launch`] takes exactly `K::Args`, so a wrong argument list is a compile error:
//!
//! ```ignore
//! let module = Module::load(&ctx, Image::Ptx(ptx_text))?;          // or Image::Cubin(bytes)
//! let scale = Kernel::<my_kernels::scale>::find(&module)?;
//! let cfg = LaunchConfig { grid_dim: (n.div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
//! unsafe { launch(&scale, &stream, cfg, (device_ptr_mut(&mut data, &stream), n, 2.0f32)) }?;
//! ```

use crate::error::{During as _, Error};
pub use crate::module::{Image, Module};
use cudarc::driver::{CudaStream, LaunchConfig, result, sys};
use std::marker::PhantomData;
use warpkit::kernel::launch::{DevicePtr, DevicePtrMut, KernelArgs, KernelSignature};

/// Kernel `K` in a loaded module: the function handle, typed by its descriptor.
#[derive(Debug)]
pub struct Kernel<'m, K> {
    func: sys::CUfunction,
    _module: PhantomData<&'m Module>,
    _k: PhantomData<fn(K)>,
}

impl<'m, K: KernelSignature> Kernel<'m, K> {
    /// Finds `K::NAME` in `module` (`cuModuleGetFunction`); an error names the kernel when
    /// the module lacks it (built from another kernel crate, or an older build of this one).
    pub fn find(module: &'m Module) -> Result<Kernel<'m, K>, Error> {
        module.context().bind_to_thread().during("bind context")?;
        let func = module.function(K::NAME).map_err(|e| match e {
            Error::Driver { source, .. }
                if source.0 == sys::cudaError_enum::CUDA_ERROR_NOT_FOUND =>
            {
                Error::MissingKernel(format!(
                    "the module has no kernel `{}`: load the PTX or cubin of the crate that declares it",
                    K::NAME
                ))
            }
            e => e,
        })?;
        Ok(Kernel {
            func,
            _module: PhantomData,
            _k: PhantomData,
        })
    }

    /// The raw handle.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.func
    }
}

/// Launches kernel `K` on `stream` with `config` (grid, block, dynamic shared memory bytes)
/// and exactly the argument list `K::Args` (`cuLaunchKernel`). Asynchronous: errors of the
/// kernel itself show up at the next synchronizing call.
///
/// # Safety
/// Whatever the kernel's own `# Safety` section asks: the pointers are valid device memory
/// of the right length and alive until the kernel finishes, writes do not race, the grid
/// covers what the kernel assumes, and `config.shared_mem_bytes` is what it expects of
/// dynamic shared memory.
pub unsafe fn launch<K: KernelSignature>(
    kernel: &Kernel<'_, K>,
    stream: &CudaStream,
    config: LaunchConfig,
    args: K::Args,
) -> Result<(), Error> {
    let mut params = [std::ptr::null_mut(); 32];
    let n = args.param_ptrs(&mut params);
    stream.context().bind_to_thread().during("bind context")?;
    // SAFETY: `params[..n]` point into `args`, alive during the call, one per parameter of
    // the kernel with its host type (the descriptor's contract); the rest is the caller's.
    unsafe {
        result::launch_kernel(
            kernel.func,
            config.grid_dim,
            config.block_dim,
            config.shared_mem_bytes,
            stream.cu_stream(),
            &mut params[..n],
        )
    }
    .during("launch kernel")
}

/// The address of a cudarc slice as a `*const T` kernel argument. cudarc's cross-stream
/// event tracking does not cover the launch this address goes to (its events are recorded
/// now): keep the slice on `stream`, or order other streams yourself, as [`launch`]'s
/// `# Safety` asks.
pub fn device_ptr<T>(slice: &cudarc::driver::CudaSlice<T>, stream: &CudaStream) -> DevicePtr<T> {
    use cudarc::driver::DevicePtr as _;
    let (addr, _sync) = slice.device_ptr(stream);
    DevicePtr::from_raw(addr)
}

/// The address of a cudarc slice as a `*mut T` kernel argument (see [`device_ptr`]).
pub fn device_ptr_mut<T>(
    slice: &mut cudarc::driver::CudaSlice<T>,
    stream: &CudaStream,
) -> DevicePtrMut<T> {
    use cudarc::driver::DevicePtrMut as _;
    let (addr, _sync) = slice.device_ptr_mut(stream);
    DevicePtrMut::from_raw(addr)
}
