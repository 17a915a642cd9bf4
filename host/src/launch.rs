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
//!
//! [`launch_dependent`] launches a kernel as a programmatic dependent of the one before it on
//! the stream, and [`launch_cluster`] in thread block clusters (sm_90+), whose blocks share
//! their shared memory (`warpkit::kernel::cluster`).
//!
//! Which of a kernel crate's embedded modules to load: the newest one that runs on the device
//! and whose PTX its driver compiles, `warpkit_builder::Target::best_for_driver(&MODULES,
//! major, minor, driver_version()?)`.

use crate::error::{During as _, Error};
pub use crate::module::{Image, Module, driver_version};
use crate::module::{
    Launch, allow_non_portable_clusters, device_launches_clusters, driver_has_dependent_launch,
    enqueue, max_potential_cluster_blocks,
};
use cudarc::driver::{CudaContext, CudaStream, LaunchConfig, result, sys};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::Arc;
use warpkit::kernel::launch::{DevicePtr, DevicePtrMut, KernelArgs, KernelSignature};

/// Kernel `K` in a loaded module: the function handle, typed by its descriptor.
#[derive(Debug)]
pub struct Kernel<'m, K> {
    func: sys::CUfunction,
    /// Whether [`launch_dependent`] launches it as a programmatic dependent: the device and
    /// the kernel's PTX target are sm_90 or newer, and the driver CUDA 12.3 or newer.
    dependent_launch: bool,
    /// Why [`launch_cluster`] cannot launch it, or `None` where it can.
    no_clusters: Option<String>,
    /// [`Kernel::max_cluster_blocks`] by block shape and dynamic shared memory, as the driver
    /// answered it: asked once per shape, not on every [`launch_cluster`].
    cluster_capacity: RefCell<Vec<ClusterCapacity>>,
    ctx: Arc<CudaContext>,
    _module: PhantomData<&'m Module>,
    _k: PhantomData<fn(K)>,
}

impl<'m, K: KernelSignature> Kernel<'m, K> {
    /// Finds `K::NAME` in `module` (`cuModuleGetFunction`); an error names the kernel when
    /// the module lacks it (built from another kernel crate, or an older build of this one).
    /// Also settles, once, whether [`launch_dependent`] can launch it as a dependent and
    /// whether [`launch_cluster`] can launch it in clusters.
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
        let ctx = module.context();
        let (major, minor) = ctx.compute_capability().during("device attribute")?;
        // SAFETY: a function of a loaded module; the query only reads its attributes.
        let ptx_target = unsafe {
            result::function::get_function_attribute(
                func,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PTX_VERSION,
            )
        }
        .during("kernel attribute")?;
        // (The device attribute last: see `device_launches_clusters`.)
        let no_clusters = if major < 9 {
            Some(format!(
                "the device is compute {major}.{minor}; clusters need compute 9.0 or newer"
            ))
        } else if ptx_target < 90 {
            Some(format!(
                "the kernel's code is for sm_{ptx_target}; clusters need a module built for sm_90 or newer"
            ))
        } else if !device_launches_clusters(ctx) {
            Some("the driver does not launch clusters on this device".into())
        } else {
            None
        };
        Ok(Kernel {
            func,
            dependent_launch: major >= 9 && ptx_target >= 90 && driver_has_dependent_launch()?,
            no_clusters,
            cluster_capacity: RefCell::new(Vec::new()),
            ctx: ctx.clone(),
            _module: PhantomData,
            _k: PhantomData,
        })
    }

    /// The raw handle.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.func
    }

    /// The most blocks one thread block cluster of this kernel can hold when launched with
    /// `config`'s block and dynamic shared memory (`cuOccupancyMaxPotentialClusterSize`, with
    /// sizes beyond the portable 8 allowed: 16 on an H100 or H200 for small blocks), or 0
    /// where [`launch_cluster`] cannot launch it (see its errors).
    /// The driver is asked once per block shape and shared memory size (the answer is kept).
    pub fn max_cluster_blocks(&self, config: LaunchConfig) -> Result<u32, Error> {
        if self.no_clusters.is_some() {
            return Ok(0);
        }
        let shape = (config.block_dim, config.shared_mem_bytes);
        let known = self
            .cluster_capacity
            .borrow()
            .iter()
            .find(|c| c.shape == shape)
            .map(|c| c.blocks);
        if let Some(blocks) = known {
            return Ok(blocks);
        }
        self.ctx.bind_to_thread().during("bind context")?;
        // SAFETY: a function of the module `self` borrows, which `find` found allowed to
        // launch clusters; its context is bound.
        let blocks = unsafe {
            allow_non_portable_clusters(self.func);
            max_potential_cluster_blocks(self.func, config.block_dim, config.shared_mem_bytes)
        }
        .during("cluster occupancy query")?;
        let mut capacity = self.cluster_capacity.borrow_mut();
        if capacity.len() == CLUSTER_CAPACITY_SHAPES {
            capacity.remove(0);
        }
        capacity.push(ClusterCapacity { shape, blocks });
        Ok(blocks)
    }
}

/// One answer of the cluster occupancy query: the most blocks per cluster for blocks of
/// `shape` (block dimensions, dynamic shared memory bytes).
#[derive(Clone, Copy, Debug)]
struct ClusterCapacity {
    shape: ((u32, u32, u32), u32),
    blocks: u32,
}

/// Block shapes whose cluster capacity a [`Kernel`] keeps, at most (the oldest goes first).
const CLUSTER_CAPACITY_SHAPES: usize = 8;

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
    unsafe { launch_with(kernel, stream, config, args, Launch::default()) }
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
    let how = Launch {
        dependent: kernel.dependent_launch,
        cluster: None,
    };
    // SAFETY: the caller's conditions; `find` checked device, target and driver.
    unsafe { launch_with(kernel, stream, config, args, how) }
}

/// Blocks in one cluster that every device with clusters can launch (CUDA guide, Thread Block
/// Clusters); more need the device's non-portable size.
const PORTABLE_CLUSTER_BLOCKS: u64 = 8;

/// Like [`launch`], in thread block clusters of `cluster_dim` blocks (`cuLaunchKernelEx` with
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`): the blocks of a cluster run at the same time on
/// one GPU processing cluster and reach each other's shared memory and the cluster barrier
/// (`warpkit::kernel::cluster`). Each grid dimension must be a multiple of the cluster's.
/// Up to 8 blocks per cluster are portable; up to [`Kernel::max_cluster_blocks`] (16 on an H100
/// or H200 for blocks of modest shared memory) are allowed here. Refused before the launch
/// ([`Error::BadCluster`]): a device older than compute 9.0, a module built for a target older
/// than sm_90, a grid that is not a whole number of clusters, or a cluster of more than 8
/// blocks that the device cannot hold (checked against [`Kernel::max_cluster_blocks`]; a
/// cluster of 8 or fewer whose blocks' shared memory does not fit is refused by the driver at
/// the launch, an [`Error::Driver`]).
///
/// CUDA guide: [Thread Block Clusters](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#thread-block-clusters).
///
/// # Safety
/// As for [`launch`]; where the kernel uses the cluster (its barrier, another block's shared
/// memory), the cluster shape is the one it was written for.
pub unsafe fn launch_cluster<K: KernelSignature>(
    kernel: &Kernel<'_, K>,
    stream: &CudaStream,
    config: LaunchConfig,
    cluster_dim: (u32, u32, u32),
    args: K::Args,
) -> Result<(), Error> {
    check_block::<K>(config.block_dim)?;
    let refuse = |reason: String| Error::BadCluster {
        kernel: K::NAME,
        cluster: cluster_dim,
        reason,
    };
    if let Some(reason) = &kernel.no_clusters {
        return Err(refuse(reason.clone()));
    }
    let blocks = cluster_blocks(config.grid_dim, cluster_dim).map_err(refuse)?;
    if blocks > PORTABLE_CLUSTER_BLOCKS {
        let max = kernel.max_cluster_blocks(config)?;
        if blocks > u64::from(max) {
            return Err(refuse(format!(
                "one cluster of this kernel holds at most {max} blocks of {:?} threads and {} bytes of dynamic shared memory on this device: use smaller clusters (see Kernel::max_cluster_blocks)",
                config.block_dim, config.shared_mem_bytes
            )));
        }
    }
    let how = Launch {
        dependent: false,
        cluster: Some(cluster_dim),
    };
    // SAFETY: the caller's conditions; `find` checked device and target, and the grid is a
    // whole number of clusters (the driver refuses a cluster the device cannot hold).
    unsafe { launch_with(kernel, stream, config, args, how) }
}

/// Blocks per cluster of `cluster` dimensions, where each divides the grid's `grid`.
fn cluster_blocks(grid: (u32, u32, u32), cluster: (u32, u32, u32)) -> Result<u64, String> {
    let pairs = [
        (grid.0, cluster.0),
        (grid.1, cluster.1),
        (grid.2, cluster.2),
    ];
    if pairs.iter().any(|&(g, c)| g == 0 || c == 0 || g % c != 0) {
        return Err(format!(
            "the grid {grid:?} is not a whole number of clusters: each grid dimension must be a nonzero multiple of the cluster's"
        ));
    }
    // (The product of two fits; the third is checked.)
    let blocks = u64::from(cluster.0) * u64::from(cluster.1);
    blocks
        .checked_mul(u64::from(cluster.2))
        .ok_or_else(|| format!("a cluster of {cluster:?} blocks is larger than any device holds"))
}

/// [`launch`], [`launch_dependent`] or [`launch_cluster`], as `how` says.
///
/// # Safety
/// As for [`launch_dependent`] where `how.dependent`, as for [`launch_cluster`] where
/// `how.cluster`, else as for [`launch`].
unsafe fn launch_with<K: KernelSignature>(
    kernel: &Kernel<'_, K>,
    stream: &CudaStream,
    config: LaunchConfig,
    args: K::Args,
    how: Launch,
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
            how,
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

    #[test]
    fn a_cluster_launch_needs_a_whole_number_of_clusters() {
        assert_eq!(cluster_blocks((32, 1, 1), (16, 1, 1)), Ok(16));
        assert_eq!(cluster_blocks((8, 6, 4), (2, 3, 2)), Ok(12));
        for (grid, cluster) in [
            ((30, 1, 1), (16, 1, 1)),
            ((32, 3, 1), (2, 2, 1)),
            ((32, 1, 1), (0, 1, 1)),
            ((32, 1, 1), (2, 1, 0)),
            ((0, 1, 1), (1, 1, 1)),
        ] {
            let e = cluster_blocks(grid, cluster).unwrap_err();
            assert!(
                e.contains(&format!("{grid:?}")) && e.contains("multiple of the cluster"),
                "{e}"
            );
        }
        let e = Error::BadCluster {
            kernel: "k",
            cluster: (3, 1, 1),
            reason: cluster_blocks((4, 1, 1), (3, 1, 1)).unwrap_err(),
        }
        .to_string();
        assert!(
            e.starts_with(
                "kernel `k`: cannot launch clusters of (3, 1, 1) blocks: the grid (4, 1, 1)"
            ),
            "{e}"
        );
        let huge = (u32::MAX, u32::MAX, u32::MAX);
        let e = cluster_blocks(huge, huge).unwrap_err();
        assert!(e.contains("larger than any device"), "{e}");
    }
}
