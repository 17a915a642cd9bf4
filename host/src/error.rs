//! One error type for everything the host API can refuse or the driver can report.

use cudarc::driver::DriverError;

/// Why an operation was refused or failed. Refusals happen before anything is enqueued.
///
/// Only [`Error::NoDriver`] and [`Error::NoDevice`] mean "this machine cannot run GPU work";
/// every other driver failure is an [`Error::Driver`], so a broken driver never looks like a
/// machine without a GPU.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The CUDA driver library could not be loaded.
    #[error(
        "no CUDA driver library (libcuda.so / nvcuda.dll) could be loaded; GPU work needs an NVIDIA driver"
    )]
    NoDriver,
    /// The driver loaded, but there is no device with this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice { ordinal: usize, count: usize },
    /// The embedded PTX has no target this device can run that this driver can compile.
    #[error(
        "no embedded PTX runs on compute capability {major}.{minor} under driver version {driver} \
         (have: {available}; sm_90's PTX needs a CUDA 12.1 driver, sm_100a's CUDA 12.7, the \
         others CUDA 11.0): update the NVIDIA driver"
    )]
    NoPtxForDevice {
        major: u32,
        minor: u32,
        /// The driver's version, as `cuDriverGetVersion` gives it (12010 for CUDA 12.1).
        driver: u32,
        available: String,
    },
    /// A target name that is not embedded.
    #[error("no embedded PTX for target {0} (have: {1})")]
    UnknownTarget(String, String),
    /// An embedded target that this device or driver cannot run
    /// ([`Warpkit::with_target`](crate::Warpkit::with_target)).
    #[error("target {target} cannot run here: {reason} (this device and driver run: {runnable})")]
    TargetCannotRun {
        target: String,
        reason: String,
        /// The embedded targets that do run here, comma-separated.
        runnable: String,
    },
    /// A kernel a table needs is not in the loaded PTX.
    #[error("{0}")]
    MissingKernel(String),
    /// A module image that cannot be loaded as given (not a whole ELF file, a NUL byte in PTX
    /// text), or kernels built for another value type or another warpkit: the message says
    /// which, and what to build instead.
    #[error("{0}")]
    BadModule(String),
    /// A buffer's length does not fit the operation.
    #[error("{op}: {what} has {found} elements, expected {expected}")]
    LengthMismatch {
        op: &'static str,
        what: &'static str,
        expected: usize,
        found: usize,
    },
    /// `rows × width` does not fit in `usize`.
    #[error("{op}: {rows} rows × width {width} overflows usize")]
    Overflow {
        op: &'static str,
        rows: usize,
        width: usize,
    },
    /// Input and output overlap without being the same range.
    #[error("{op}: input and output overlap partially; use distinct buffers or the in-place form")]
    Overlap { op: &'static str },
    /// More elements than the kernel can index.
    #[error("{op}: {len} elements exceed the kernel's limit of {max}")]
    TooLarge {
        op: &'static str,
        len: usize,
        max: usize,
    },
    /// Row offsets that do not describe rows of the input.
    #[error("{op}: bad row offsets: {reason}")]
    BadOffsets { op: &'static str, reason: String },
    /// The operation cannot be recorded into a CUDA graph.
    #[error("{op}: not allowed while the stream is capturing a graph: {reason}")]
    Capturing {
        op: &'static str,
        reason: &'static str,
    },
    /// Buffers of another context than the queue's.
    #[error("{op}: a buffer belongs to another CUDA context than the queue")]
    WrongContext { op: &'static str },
    /// NCCL (multi-GPU, feature `nccl`) could not be found or loaded.
    #[error(
        "NCCL could not be loaded: searched {searched}. Install it with `pip install nvidia-nccl-cu13` \
         (or the package libnccl2), or set WARPKIT_NCCL_LIB=/path/to/libnccl.so.2"
    )]
    NoNccl { searched: String },
    /// Several GPUs that support multicast objects, and `NCCL_NVLS_ENABLE` unset
    /// (`warpkit_host::multi`, feature `nccl`: its "NVLink SHARP" section).
    #[error(
        "these GPUs support multicast objects, so NCCL could use NVLink SHARP (NVLS), and \
         NCCL_NVLS_ENABLE is not set: set NCCL_NVLS_ENABLE=0 (no multicast objects: required \
         where other jobs share the host's GPUs) or NCCL_NVLS_ENABLE=1 (let NCCL use NVLS) \
         before the program starts; warpkit does not change the environment itself, as \
         std::env::set_var is undefined behaviour while other threads may read it"
    )]
    NvlsUnchosen,
    /// NCCL reported an error.
    #[error("{op}: NCCL error {code}: {message}")]
    Nccl {
        op: &'static str,
        code: i32,
        message: String,
    },
    /// Shards or devices that do not fit a multi-GPU operation.
    #[error("{op}: {reason}")]
    BadShards { op: &'static str, reason: String },
    /// A launch with more threads per block than the kernel was built for.
    #[error(
        "kernel `{kernel}` was built for at most {max} threads per block \
         (#[kernel(max_threads = {max})]) but launched with {threads}: use a smaller block or raise max_threads"
    )]
    BlockTooLarge {
        kernel: &'static str,
        threads: u64,
        max: u32,
    },
    /// A thread block cluster launch the device, the kernel's module or the grid cannot take.
    #[error("kernel `{kernel}`: cannot launch clusters of {cluster:?} blocks: {reason}")]
    BadCluster {
        kernel: &'static str,
        cluster: (u32, u32, u32),
        reason: String,
    },
    /// The driver reported an error during an operation.
    #[error("{op}: CUDA driver error: {source}")]
    Driver {
        op: &'static str,
        #[source]
        source: DriverError,
    },
}

impl Error {
    /// Whether this error means the machine has no usable GPU (no driver library, or no
    /// device): the only errors GPU tests may treat as "skip".
    pub fn is_no_gpu(&self) -> bool {
        matches!(self, Error::NoDriver | Error::NoDevice { .. })
    }
}

/// Attaches the operation's name to a driver error.
pub(crate) trait During<T> {
    fn during(self, op: &'static str) -> Result<T, Error>;
}

impl<T> During<T> for Result<T, DriverError> {
    fn during(self, op: &'static str) -> Result<T, Error> {
        self.map_err(|source| Error::Driver { op, source })
    }
}
