//! One error type for everything the host API can refuse or the driver can report.

/// Why an operation was refused or failed. Refusals happen before anything is launched or
/// written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No CUDA driver or no GPU.
    #[error(
        "no CUDA device available ({0}); GPU work needs a machine with an NVIDIA GPU and driver"
    )]
    NoDevice(cust::error::CudaError),
    /// The embedded PTX has no target this device can run.
    #[error("no embedded PTX runs on compute capability {major}.{minor} (have: {available})")]
    NoPtxForDevice {
        major: u32,
        minor: u32,
        available: String,
    },
    /// A target name that is not embedded.
    #[error("no embedded PTX for target {0} (have: {1})")]
    UnknownTarget(String, String),
    /// Output and input lengths differ.
    #[error("{op}: output has {output} elements but input has {input}; they must be equal")]
    LengthMismatch {
        op: &'static str,
        input: usize,
        output: usize,
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
    /// The driver reported an error during an operation.
    #[error("{op}: CUDA error: {source}")]
    Driver {
        op: &'static str,
        #[source]
        source: cust::error::CudaError,
    },
}

/// Attaches the operation's name to a driver error.
pub(crate) trait Context<T> {
    fn during(self, op: &'static str) -> Result<T, Error>;
}

impl<T> Context<T> for cust::error::CudaResult<T> {
    fn during(self, op: &'static str) -> Result<T, Error> {
        self.map_err(|source| Error::Driver { op, source })
    }
}
