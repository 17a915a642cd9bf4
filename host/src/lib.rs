//! # warpkit-host: warpkit's device reductions and scans, launched from the host
//!
//! [`Warpkit::new`] initializes CUDA, picks the newest embedded PTX that runs on the device
//! (compiled from `kernels/` by `build.rs` for sm_70, sm_80, sm_90 and sm_100a) and loads it.
//! A [`Queue`] enqueues work on a stream and keeps the temporary storage between calls:
//!
//! - [`Queue::reduce`] / [`Queue::reduce_into`]: sum, min, max of a device slice;
//!   [`Queue::arg_reduce`]: arg-min / arg-max;
//! - [`Queue::scan`] / [`Queue::scan_in_place`]: inclusive or exclusive sum, min, max;
//! - [`Queue::rows_reduce`], [`Queue::rows_scan`]: many rows of one width, one warp each;
//!   [`Queue::segments_reduce`], [`Queue::segments_scan`]: rows given by offsets.
//!
//! Element types: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`. Results are deterministic: the
//! same input on the same device gives the same bits, floats included. Bad arguments are
//! refused with an [`Error`] before anything is launched.

mod context;
mod element;
mod error;
pub mod ptx;
mod queue;

pub use context::{Warpkit, arg};
pub use element::{ArgOp, DeviceOp, Element};
pub use error::Error;
pub use queue::{Queue, ScanKind, check_offsets};
