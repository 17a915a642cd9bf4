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
use crate::module::{Launch, driver_has_dependent_launch, enqueue};
use cudarc::driver::{CudaStream, LaunchConfig, result, sys};
use std::marker::PhantomData;
use warpkit::kernel::launch::{DevicePtr, DevicePtrMut, KernelArgs, KernelSignature};

/// Kernel `K` in a loaded module: the function handle, typed by its descriptor.
#[derive(Debug)]
pub struct Kernel<'m, K> {
    func: sys::CUfunction,
    /// Whether [`launch_dependent`] launches it as a programmatic dependent: the device and
    /// the kernel's PTX target are sm_90 or newer, and the driver CUDA 12.3 or newer.
    dependent_launch: bool,
    _module: PhantomData<&'m Module>,
    _k: PhantomData<fn(K)>,
}

impl<'m, K: KernelSignature> Kernel<'m, K> {
    /// Finds `K::NAME` in `module` (`cuModuleGetFunction`); an error names the kernel when
    /// the module lacks it (built from another kernel crate, or an older build of this one).
    /// Also settles, once, whether [`launch_dependent`] can launch it as a dependent.
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
        let (major, _) = module
            .context()
            .compute_capability()
            .during("device attribute")?;
        // SAFETY: a function of a loaded module; the query only reads its attributes.
        let ptx_target = unsafe {
            result::function::get_function_attribute(
                func,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PTX_VERSION,
            )
        }
        .during("kernel attribute")?;
        Ok(Kernel {
            func,
            dependent_launch: major >= 9 && ptx_target >= 90 && driver_has_dependent_launch()?,
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
/// kernel itself show up at the next synchronizing call. A block larger than the kernel's
/// `#[kernel(max_threads = N)]` is refused ([`Error::BlockTooLarge`]) before the driver sees it.
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
    // SAFETY: the caller's conditions; not a dependent launch.
    unsafe { launch_with(kernel, stream, config, args, false) }
}

/// Like [`launch`], as a *programmatic dependent* of the kernel before it on `stream`
/// (`cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`): the
/// kernel's blocks may be scheduled while that kernel still runs, which hides most of the
/// launch latency between short kernels. The kernel waits for it with
/// [`warpkit::instr::griddepcontrol::griddepcontrol_wait`] (or
/// [`warpkit::device::kernel_prologue`], which then also lets the next kernel start). Where the
/// device or the kernel's PTX target is older than sm_90, or the driver older than CUDA 12.3,
/// this is a plain [`launch`].
///
/// CUDA guide: [Programmatic Dependent Launch and Synchronization](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#programmatic-dependent-launch-and-synchronization).
///
/// # Safety
/// As for [`launch`], and the kernel executes `griddepcontrol.wait` before its first access to
/// global memory. A kernel compiled for a target below sm_90 has no such instruction
/// (`kernel_prologue` is empty there): launch it with [`launch`].
pub unsafe fn launch_dependent<K: KernelSignature>(
    kernel: &Kernel<'_, K>,
    stream: &CudaStream,
    config: LaunchConfig,
    args: K::Args,
) -> Result<(), Error> {
    // SAFETY: the caller's conditions; `find` checked device, target and driver.
    unsafe { launch_with(kernel, stream, config, args, kernel.dependent_launch) }
}

/// [`launch`] or [`launch_dependent`].
///
/// # Safety
/// As for [`launch_dependent`] where `dependent`, else as for [`launch`].
unsafe fn launch_with<K: KernelSignature>(
    kernel: &Kernel<'_, K>,
    stream: &CudaStream,
    config: LaunchConfig,
    args: K::Args,
    dependent: bool,
) -> Result<(), Error> {
    check_block::<K>(config.block_dim)?;
    let mut params = [std::ptr::null_mut(); 32];
    let n = args.param_ptrs(&mut params);
    stream.context().bind_to_thread().during("bind context")?;
    // SAFETY: `params[..n]` point into `args`, alive during the call, one per parameter of
    // the kernel with its host type (the descriptor's contract); the rest is the caller's.
    unsafe {
        enqueue(
            kernel.func,
            config.grid_dim,
            config.block_dim,
            config.shared_mem_bytes,
            stream,
            &mut params[..n],
            Launch {
                dependent,
                cluster: None,
            },
        )
    }
    .during("launch kernel")
}

/// Refuses a block of more threads than `K` was built for (its `.maxntid`).
fn check_block<K: KernelSignature>((x, y, z): (u32, u32, u32)) -> Result<(), Error> {
    let threads = u64::from(x) * u64::from(y) * u64::from(z);
    match K::MAX_THREADS {
        Some(max) if threads > u64::from(max) => Err(Error::BlockTooLarge {
            kernel: K::NAME,
            threads,
            max,
        }),
        _ => Ok(()),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[warpkit::kernel(max_threads = 128, min_blocks_per_sm = 2)]
    unsafe fn bounded(n: u32) {
        let _ = n;
    }

    #[warpkit::kernel]
    unsafe fn unbounded(n: u32) {
        let _ = n;
    }

    #[test]
    fn blocks_above_the_launch_bounds_are_refused() {
        assert_eq!(bounded::MAX_THREADS, Some(128));
        assert_eq!(bounded::MIN_BLOCKS_PER_SM, 2);
        assert!(check_block::<bounded>((128, 1, 1)).is_ok());
        assert!(check_block::<bounded>((32, 4, 1)).is_ok());
        let e = check_block::<bounded>((32, 2, 3)).unwrap_err().to_string();
        assert!(
            e.contains("at most 128 threads") && e.contains("launched with 192"),
            "{e}"
        );
        assert!(check_block::<unbounded>((1024, 1, 1)).is_ok());
    }
}
