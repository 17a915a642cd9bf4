//! A loaded module (PTX or cubin) and its kernels, on the driver API through
//! `cudarc::driver::result`.
//!
//! Kernels are resolved once, when a table is built; a launch is one `cuLaunchKernel` (or
//! `cuLaunchKernelEx`, for a programmatic dependent launch or a launch in clusters) with a
//! single `#[repr(C)]` parameter struct.

use crate::error::{During as _, Error};
use cudarc::driver::{CudaContext, CudaStream, DriverError, result, sys};
use std::ffi::{CString, c_void};
use std::ptr;
use std::sync::Arc;

/// What a [`Module`] is loaded from.
#[derive(Clone, Copy, Debug)]
pub enum Image<'a> {
    /// PTX text: compiled by the driver for the device at load time (runs on any device at
    /// least as new as its target; the driver caches the result unless `CUDA_CACHE_DISABLE=1`).
    Ptx(&'a str),
    /// A cubin assembled by `ptxas` (`warpkit-builder` embeds one per target as `NAME_CUBIN`):
    /// loads without compilation, on its exact compute capability only.
    Cubin(&'a [u8]),
}

/// Checks that `image` is a 64-bit little-endian ELF file (what `ptxas` writes) whose header,
/// program and section header tables, segments and sections all end within it:
/// `cuModuleLoadData` takes no length, so a truncated image would be read past its end.
fn elf_within(image: &[u8]) -> Result<(), String> {
    let field = |at: usize, bytes: usize| -> Result<u64, String> {
        let b = image
            .get(at..at + bytes)
            .ok_or_else(|| format!("{} bytes end inside the header", image.len()))?;
        Ok(b.iter().rev().fold(0, |v, &x| v << 8 | x as u64))
    };
    if !image.starts_with(b"\x7fELF") {
        return Err("no ELF magic".into());
    }
    if field(4, 1)? != 2 || field(5, 1)? != 1 {
        return Err("not a 64-bit little-endian ELF".into());
    }
    let len = image.len() as u64;
    let within = |what: &str, offset: u64, size: u64| match offset.checked_add(size) {
        Some(end) if end <= len => Ok(()),
        _ => Err(format!(
            "{what} at {offset} + {size} bytes ends past its {len} bytes"
        )),
    };
    within("the ELF header", 0, field(0x34, 2)?)?;
    let table = |offset: u64, entry: u64, count: u64| -> Result<(), String> {
        within("a header table", offset, entry * count)
    };
    let (phoff, phentsize, phnum) = (field(0x20, 8)?, field(0x36, 2)?, field(0x38, 2)?);
    let (shoff, shentsize, shnum) = (field(0x28, 8)?, field(0x3a, 2)?, field(0x3c, 2)?);
    table(phoff, phentsize, phnum)?;
    table(shoff, shentsize, shnum)?;
    for i in 0..phnum {
        let at = (phoff + i * phentsize) as usize;
        within("a segment", field(at + 8, 8)?, field(at + 0x20, 8)?)?;
    }
    const SHT_NOBITS: u64 = 8;
    for i in 0..shnum {
        let at = (shoff + i * shentsize) as usize;
        if field(at + 4, 4)? != SHT_NOBITS {
            within("a section", field(at + 0x18, 8)?, field(at + 0x20, 8)?)?;
        }
    }
    Ok(())
}

/// A CUDA module loaded into a context (`cuModuleLoadData`); unloaded on drop, after the
/// context has finished the work enqueued with its kernels.
#[derive(Debug)]
pub struct Module {
    ctx: Arc<CudaContext>,
    raw: sys::CUmodule,
}

// SAFETY: a CUmodule handle may be used from any thread once its context is bound; every use
// here binds `ctx` first. The handle is never mutated after loading.
unsafe impl Send for Module {}
// SAFETY: as above; `cuModuleGetFunction` is thread safe.
unsafe impl Sync for Module {}

impl Module {
    /// Loads `image` into `ctx` (a PTX image is JIT-compiled here).
    pub fn load(ctx: &Arc<CudaContext>, image: Image<'_>) -> Result<Module, Error> {
        ctx.bind_to_thread().during("bind context")?;
        let raw = match image {
            Image::Ptx(ptx) => {
                let text = CString::new(ptx).map_err(|_| {
                    Error::BadModule("PTX text contains a NUL byte; it cannot be loaded".into())
                })?;
                // SAFETY: a NUL-terminated PTX image, alive for the call.
                unsafe { result::module::load_data(text.as_ptr() as *const c_void) }
                    .during("load PTX module")?
            }
            Image::Cubin(cubin) => {
                elf_within(cubin).map_err(|reason| {
                    Error::BadModule(format!(
                        "the cubin image is not a whole ELF file ({reason}); pass all the bytes \
                         ptxas wrote"
                    ))
                })?;
                // SAFETY: an ELF image whose headers, header tables and sections lie within
                // the slice (the driver takes no length), alive for the call.
                unsafe { result::module::load_data(cubin.as_ptr() as *const c_void) }
                    .during("load cubin module")?
            }
        };
        Ok(Module {
            ctx: ctx.clone(),
            raw,
        })
    }

    /// The kernel `name`, or `None` when the module has no such entry point.
    pub(crate) fn kernel(&self, name: &str) -> Result<Option<Kernel>, Error> {
        self.ctx.bind_to_thread().during("bind context")?;
        match self.function(name) {
            Ok(raw) => Ok(Some(Kernel {
                raw,
                dependent: false,
            })),
            Err(Error::Driver { source, .. })
                if source.0 == sys::cudaError_enum::CUDA_ERROR_NOT_FOUND =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The context the module is loaded in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The raw handle, valid while `self` is.
    pub fn cu_module(&self) -> sys::CUmodule {
        self.raw
    }

    /// Any function of the module by name (the caller binds the context).
    pub(crate) fn function(&self, name: &str) -> Result<sys::CUfunction, Error> {
        let c_name = CString::new(name).map_err(|_| {
            Error::MissingKernel(format!("kernel name {name:?} contains a NUL byte"))
        })?;
        // SAFETY: a loaded module and a NUL-terminated name.
        unsafe { result::module::get_function(self.raw, c_name) }.during("find kernel")
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // Errors here have nowhere to go but the context's error slot, as in cudarc.
        self.ctx.record_err(self.ctx.bind_to_thread());
        // Work enqueued with this module's kernels may still be pending on some stream. If the
        // wait fails (a fault, or another thread capturing a graph in global mode), that work
        // may still run: the module stays loaded (leaked) rather than pulled from under it.
        if let Err(e) = self.ctx.synchronize() {
            self.ctx.record_err(Err::<(), _>(e));
            return;
        }
        // SAFETY: loaded by `load`, unloaded once, after every launch of its kernels.
        self.ctx
            .record_err(unsafe { result::module::unload(self.raw) });
    }
}

/// A kernel of a loaded [`Module`]. Valid while the module is: the tables that hold kernels
/// hold the module too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernel {
    raw: sys::CUfunction,
    /// Launched as a programmatic dependent of the kernel before it on the stream
    /// ([`Kernel::launched_as_dependent`]).
    dependent: bool,
}

// SAFETY: a CUfunction is an immutable handle usable from any thread with its context bound.
unsafe impl Send for Kernel {}
// SAFETY: as above.
unsafe impl Sync for Kernel {}

impl Kernel {
    /// Blocks of `block` threads one multiprocessor holds at once
    /// (`cuOccupancyMaxActiveBlocksPerMultiprocessor`, no dynamic shared memory); the kernel's
    /// context must be bound.
    pub(crate) fn resident_blocks(&self, block: u32) -> Result<u32, Error> {
        // SAFETY: a function of a loaded module; the query only reads its attributes.
        let n = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(self.raw, block as i32, 0)
        }
        .during("occupancy query")?;
        Ok(n.max(1) as u32)
    }

    /// This kernel, launched as a programmatic dependent of the kernel before it on the stream
    /// (`CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`): its blocks may start while
    /// that kernel ends, and wait in the kernel's prologue
    /// ([`warpkit::device::kernel_prologue`]) until it has completed and its writes are
    /// visible. The stream's order of effects stays as without the attribute.
    ///
    /// CUDA guide: [Programmatic Dependent Launch and Synchronization](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#programmatic-dependent-launch-and-synchronization).
    ///
    /// # Safety
    /// The kernel executes `griddepcontrol.wait` before its first access to global memory.
    pub(crate) unsafe fn launched_as_dependent(self) -> Kernel {
        Kernel {
            dependent: true,
            ..self
        }
    }

    /// The most blocks of `block` threads a launch of this kernel can put in one thread block
    /// cluster: 16 where the device launches clusters of that size (an H100 or H200, with the
    /// kernel allowed the non-portable size), else 8 where it launches the portable size, else
    /// 0: a device without cluster launch, or a kernel compiled for a target older than sm_90.
    /// The kernel's context must be bound.
    ///
    /// CUDA guide: [Thread Block Clusters](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#thread-block-clusters).
    pub(crate) fn cluster_blocks(&self, ctx: &CudaContext, block: u32) -> Result<u32, Error> {
        // SAFETY: a function of a loaded module; the query only reads its attributes.
        let target = unsafe {
            result::function::get_function_attribute(
                self.raw,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PTX_VERSION,
            )
        }
        .during("kernel attribute")?;
        if target < 90 || !device_launches_clusters(ctx) {
            return Ok(0);
        }
        // SAFETY: a function of this loaded module.
        unsafe { allow_non_portable_clusters(self.raw) };
        for blocks in [16, 8] {
            let mut attribute = cluster_attribute((blocks, 1, 1));
            let config = launch_config(
                (blocks, 1, 1),
                (block, 1, 1),
                0,
                ptr::null_mut(),
                &mut attribute,
                1,
            );
            let mut clusters = 0;
            // SAFETY: a valid configuration that outlives the call; writes one integer.
            let found =
                unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, self.raw, &config) };
            if found == sys::CUresult::CUDA_SUCCESS && clusters > 0 {
                return Ok(blocks);
            }
        }
        Ok(0)
    }

    /// Enqueues the kernel on `stream` with one parameter, `params`, passed by value; with
    /// `cluster`, the whole grid as one thread block cluster (at most
    /// [`cluster_blocks`](Self::cluster_blocks) blocks).
    ///
    /// # Safety
    /// The kernel takes exactly one parameter of type `P`; every address in it is valid for
    /// what the kernel does with it until the launch completes; the stream's context is bound.
    /// Parameters that make the kernel use a cluster (`scan_pass::CLUSTER`) come with
    /// `cluster` and a grid of at most [`cluster_blocks`](Self::cluster_blocks) blocks.
    pub(crate) unsafe fn launch<P>(
        &self,
        stream: &CudaStream,
        grid: u32,
        block: u32,
        params: &P,
        cluster: bool,
        op: &'static str,
    ) -> Result<(), Error> {
        let mut args = [params as *const P as *mut c_void];
        // SAFETY: forwarded to the caller; a dependent kernel waits for its prerequisites
        // (`launched_as_dependent`'s condition), and `Warpkit` checked the driver.
        unsafe {
            enqueue(
                self.raw,
                (grid, 1, 1),
                (block, 1, 1),
                0,
                stream,
                &mut args,
                Launch {
                    dependent: self.dependent,
                    cluster: cluster.then_some((grid, 1, 1)),
                },
            )
        }
        .during(op)
    }
}

/// Whether the driver launches thread block clusters on `ctx`'s device
/// (`CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH`). Ask only for code of sm_90 or newer: a driver older
/// than CUDA 11.8, which cannot load such code, does not know the attribute, and its error
/// counts as no clusters.
pub(crate) fn device_launches_clusters(ctx: &CudaContext) -> bool {
    ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)
        .is_ok_and(|yes| yes != 0)
}

/// Lets `func` launch in clusters of more than the portable 8 blocks where the device has
/// them (`CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`; 16 on an H100 or H200). A
/// refusal leaves the portable size, which the launch or the occupancy query then reports.
///
/// # Safety
/// `func` is a function of a module that is still loaded.
pub(crate) unsafe fn allow_non_portable_clusters(func: sys::CUfunction) {
    // SAFETY: the caller's condition; the attribute only permits larger clusters.
    let _ = unsafe {
        sys::cuFuncSetAttribute(
            func,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1,
        )
    };
}

/// The most blocks of `block` threads and `shared_bytes` of dynamic shared memory per block
/// that one cluster of `func` can hold on the device (`cuOccupancyMaxPotentialClusterSize`).
///
/// # Safety
/// `func` is a function of a module that is still loaded, its context is bound, and the
/// function (sm_90+ code) and the device launch clusters.
pub(crate) unsafe fn max_potential_cluster_blocks(
    func: sys::CUfunction,
    block: (u32, u32, u32),
    shared_bytes: u32,
) -> Result<u32, DriverError> {
    let config = launch_config(
        (1, 1, 1),
        block,
        shared_bytes,
        ptr::null_mut(),
        ptr::null_mut(),
        0,
    );
    let mut blocks = 0;
    // SAFETY: the caller's conditions; a valid configuration that outlives the call; writes
    // one integer.
    unsafe { sys::cuOccupancyMaxPotentialClusterSize(&mut blocks, func, &config) }.result()?;
    Ok(blocks.max(0) as u32)
}

/// How [`enqueue`] launches beyond grid and block.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Launch {
    /// As a programmatic dependent of the kernel before it on the stream.
    pub dependent: bool,
    /// As thread block clusters of these dimensions (each dividing the grid's).
    pub cluster: Option<(u32, u32, u32)>,
}

/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` of `(x, y, z)` blocks.
fn cluster_attribute((x, y, z): (u32, u32, u32)) -> sys::CUlaunchAttribute {
    // SAFETY: an all-zero union is a valid value of each of its integer fields.
    let mut value: sys::CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
    value.clusterDim.x = x;
    value.clusterDim.y = y;
    value.clusterDim.z = z;
    sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value,
    }
}

/// A `cuLaunchKernelEx` configuration with `count` attributes at `attrs`.
fn launch_config(
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared_bytes: u32,
    stream: sys::CUstream,
    attrs: *mut sys::CUlaunchAttribute,
    count: u32,
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: grid.0,
        gridDimY: grid.1,
        gridDimZ: grid.2,
        blockDimX: block.0,
        blockDimY: block.1,
        blockDimZ: block.2,
        sharedMemBytes: shared_bytes,
        hStream: stream,
        attrs,
        numAttrs: count,
    }
}

/// The driver's version, as `cuDriverGetVersion` gives it (12010 for CUDA 12.1): which PTX
/// it compiles (`warpkit_builder::Target::best_for_driver`).
pub fn driver_version() -> Result<u32, Error> {
    let mut version = 0;
    // SAFETY: writes one integer.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .during("driver version")?;
    Ok(version.max(0) as u32)
}

/// Whether a driver of version `driver` ([`driver_version`]) launches programmatic dependents
/// and captures them into graphs (CUDA 12.3 or later; `cuLaunchKernelEx` itself is 11.8).
pub(crate) fn launches_dependents(driver: u32) -> bool {
    driver >= 12030
}

/// [`launches_dependents`] for this process's driver.
pub(crate) fn driver_has_dependent_launch() -> Result<bool, Error> {
    Ok(launches_dependents(driver_version()?))
}

/// Enqueues `func` on `stream` with `args`: `cuLaunchKernel`, or, to launch it as
/// `launch` says, `cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`
/// (the kernel's blocks may start while the kernel before it on the stream ends) and
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`.
///
/// CUDA guide: [Programmatic Dependent Launch and Synchronization](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#programmatic-dependent-launch-and-synchronization),
/// [Thread Block Clusters](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#thread-block-clusters).
///
/// # Safety
/// `args` point to the kernel's parameters, one each, of their types; everything the kernel
/// touches is valid until it completes; the stream's context is bound. With
/// `launch.dependent`, the kernel executes `griddepcontrol.wait` before its first access to
/// global memory, and [`driver_has_dependent_launch`]. With `launch.cluster`, the kernel's own
/// conditions on its clusters hold (the driver refuses a cluster shape that does not divide
/// the grid or does not fit the device).
pub(crate) unsafe fn enqueue(
    func: sys::CUfunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared_bytes: u32,
    stream: &CudaStream,
    args: &mut [*mut c_void],
    launch: Launch,
) -> Result<(), DriverError> {
    if !launch.dependent && launch.cluster.is_none() {
        // SAFETY: the caller's conditions; the driver copies `args`.
        return unsafe {
            result::launch_kernel(func, grid, block, shared_bytes, stream.cu_stream(), args)
        };
    }
    // SAFETY: an all-zero union is a valid value of each of its integer fields.
    let mut dependent: sys::CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
    dependent.programmaticStreamSerializationAllowed = 1;
    let dependent = sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
        pad: [0; 4],
        value: dependent,
    };
    let mut attributes = [dependent; 2];
    let mut count = 0;
    if launch.dependent {
        count += 1;
    }
    if let Some(blocks) = launch.cluster {
        attributes[count] = cluster_attribute(blocks);
        count += 1;
    }
    let config = launch_config(
        grid,
        block,
        shared_bytes,
        stream.cu_stream(),
        attributes.as_mut_ptr(),
        count as u32,
    );
    // SAFETY: the caller's conditions; `config`, `attributes` and `args` outlive the call.
    unsafe { sys::cuLaunchKernelEx(&config, func, args.as_mut_ptr(), ptr::null_mut()) }.result()
}

#[cfg(test)]
mod tests {
    use super::elf_within;

    /// Every embedded cubin passes whole, and fails cut anywhere short of its end or with its
    /// section table moved past it.
    #[test]
    fn cubins_must_be_whole_elf_files() {
        let cubins = crate::ptx::KERNELS_PTX_CUBIN;
        if cubins.is_empty() {
            eprintln!("skipped: no embedded cubins (built without ptxas)");
        }
        for &(target, cubin) in cubins {
            assert_eq!(elf_within(cubin), Ok(()), "{target}");
            for cut in [0, 3, 16, 63, 64, cubin.len() / 2, cubin.len() - 1] {
                assert!(elf_within(&cubin[..cut]).is_err(), "{target} cut at {cut}");
            }
            let mut moved = cubin.to_vec();
            moved[0x28..0x30].copy_from_slice(&(cubin.len() as u64).to_le_bytes());
            assert!(
                elf_within(&moved).is_err(),
                "{target}: section table past the end"
            );
        }
        assert!(elf_within(b"\x7fELF").is_err());
        assert!(
            elf_within(b"not an ELF file at all, but long enough to be a header ....").is_err()
        );
    }
}
