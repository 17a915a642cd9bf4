//! Typed launches of kernels declared with `#[warpkit::kernel]`, on cudarc.
//!
//! The kernel crate, compiled for the host, gives one descriptor type per kernel
//! (`my_kernels::scale`) implementing [`KernelSignature`]: its PTX name and its parameter
//! list in host form (`*mut f32` → [`DevicePtrMut<f32>`](warpkit::launch::DevicePtrMut),
//! scalars as themselves). [`Kernel<K>`] is that kernel found in a loaded [`Module`], and
//! [`launch`] takes exactly `K::Args`, so a wrong argument list is a compile error:
//!
//! ```ignore
//! let module = Module::load(&ctx, Image::Ptx(ptx_text))?;          // or Image::Cubin(bytes)
//! let scale = Kernel::<my_kernels::scale>::find(&module)?;
//! let cfg = LaunchConfig { grid_dim: (n.div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
//! unsafe { launch(&scale, &stream, cfg, (device_ptr_mut(&mut data, &stream), n, 2.0f32)) }?;
//! ```
//!
//! Merge note (issue 11): this file is written for `warpkit-host` (`host/src/launch.rs`, `pub
//! mod launch;` in `host/src/lib.rs`); until then `examples/user-app` compiles it through
//! `#[path]`. It needs `cudarc` with the `driver` feature only, and `warpkit` on the host.

use cudarc::driver::{CudaContext, CudaStream, DriverError, LaunchConfig, result, sys};
use std::ffi::{CString, c_void};
use std::marker::PhantomData;
use std::sync::Arc;
use warpkit::launch::{DevicePtr, DevicePtrMut, KernelArgs, KernelSignature};

/// What a [`Module`] is loaded from.
#[derive(Clone, Copy, Debug)]
pub enum Image<'a> {
    /// PTX text: compiled by the driver for the device at load time (any newer device).
    Ptx(&'a str),
    /// A cubin from `ptxas`: loads without compilation, only on its exact compute capability.
    Cubin(&'a [u8]),
}

/// A loaded CUDA module (`cuModuleLoadData`), unloaded on drop.
#[derive(Debug)]
pub struct Module {
    raw: sys::CUmodule,
    ctx: Arc<CudaContext>,
}

// SAFETY: a CUmodule handle may be used from any thread of its context.
unsafe impl Send for Module {}
// SAFETY: as above; the driver's module functions are thread-safe.
unsafe impl Sync for Module {}

impl Module {
    /// Loads `image` into `ctx` (made current on this thread first).
    pub fn load(ctx: &Arc<CudaContext>, image: Image<'_>) -> Result<Module, DriverError> {
        ctx.bind_to_thread()?;
        let raw = match image {
            Image::Ptx(text) => {
                let c = CString::new(text).expect("PTX text has no NUL byte");
                // SAFETY: a NUL-terminated PTX image, alive during the call.
                unsafe { result::module::load_data(c.as_ptr() as *const c_void) }?
            }
            Image::Cubin(bytes) => {
                // SAFETY: an ELF image is self-describing in length; alive during the call.
                unsafe { result::module::load_data(bytes.as_ptr() as *const c_void) }?
            }
        };
        Ok(Module {
            raw,
            ctx: ctx.clone(),
        })
    }

    /// The raw handle.
    pub fn cu_module(&self) -> sys::CUmodule {
        self.raw
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: loaded by `load`, unloaded once.
        let _ = unsafe { result::module::unload(self.raw) };
    }
}

/// Kernel `K` in a loaded module: the function handle, typed by its descriptor.
#[derive(Debug)]
pub struct Kernel<'m, K> {
    func: sys::CUfunction,
    _module: PhantomData<&'m Module>,
    _k: PhantomData<fn(K)>,
}

impl<'m, K: KernelSignature> Kernel<'m, K> {
    /// Finds `K::NAME` in `module` (`cuModuleGetFunction`).
    pub fn find(module: &'m Module) -> Result<Kernel<'m, K>, DriverError> {
        module.ctx.bind_to_thread()?;
        let name = CString::new(K::NAME).expect("kernel names have no NUL");
        // SAFETY: a loaded module and a NUL-terminated name.
        let func = unsafe { result::module::get_function(module.raw, name) }?;
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
) -> Result<(), DriverError> {
    let mut params = [std::ptr::null_mut(); 32];
    let n = args.param_ptrs(&mut params);
    stream.context().bind_to_thread()?;
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
}

/// The address of a cudarc slice as a `*const T` kernel argument.
pub fn device_ptr<T>(slice: &cudarc::driver::CudaSlice<T>, stream: &CudaStream) -> DevicePtr<T> {
    use cudarc::driver::DevicePtr as _;
    let (addr, _sync) = slice.device_ptr(stream);
    DevicePtr::from_raw(addr)
}

/// The address of a cudarc slice as a `*mut T` kernel argument.
pub fn device_ptr_mut<T>(
    slice: &mut cudarc::driver::CudaSlice<T>,
    stream: &CudaStream,
) -> DevicePtrMut<T> {
    use cudarc::driver::DevicePtrMut as _;
    let (addr, _sync) = slice.device_ptr_mut(stream);
    DevicePtrMut::from_raw(addr)
}
