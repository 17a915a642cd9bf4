//! # warpkit-host: warpkit's device reductions and scans, launched from the host
//!
//! Built on [cudarc](https://docs.rs/cudarc): the CUDA driver is loaded at run time, so
//! nothing CUDA is needed to build, and the API takes cudarc's types: `Arc<CudaContext>`,
//! `Arc<CudaStream>`, `&CudaSlice<T>`/`&CudaView<T>` inputs and `&mut CudaSlice<T>`/
//! `&mut CudaViewMut<T>` outputs, the memory of candle, burn and cubecl.
//!
//! [`Warpkit::new`]`(ordinal)` (or [`Warpkit::on`] an existing context) loads the newest
//! embedded PTX that runs on the device (built from `kernels/` for sm_70, sm_80, sm_90,
//! sm_100a) and resolves every kernel once. A [`Queue`] enqueues work on one stream and keeps
//! temporary storage between calls:
//!
//! - [`Queue::reduce`] / [`Queue::reduce_into`]: sum, min, max; [`Queue::arg_reduce`];
//! - [`Queue::scan`] / [`Queue::scan_in_place`]: inclusive or exclusive;
//! - [`Queue::rows_reduce`], [`Queue::rows_scan`]: rows of one width, one warp each (a block
//!   each for the reduce of rows of 4096 items or more);
//!   [`Queue::segments_reduce`], [`Queue::segments_scan`]: rows given by offsets;
//! - the same on raw device addresses ([`raw`]) and for your own types and operators
//!   ([`CustomKernels`]).
//!
//! Element types: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`, `half::f16`, `half::bf16` (these
//! two accumulate in `f32`). Results are deterministic: the same input on the same device
//! gives the same bits, floats included. Bad arguments are refused with an [`Error`] before
//! anything is enqueued. NaN rules: [`reference`](mod@reference).
//!
//! ```no_run
//! use warpkit::ops::{ArgMin, Sum};
//! use warpkit_host::{Queue, ScanKind, Warpkit};
//!
//! let wk = Warpkit::new(0)?;
//! let stream = wk.new_stream()?;
//! let mut queue = Queue::new(&wk, &stream)?;
//! let input = stream.clone_htod(&[3.0f32, -1.0, 2.0]).unwrap();
//! let mut output = stream.alloc_zeros::<f32>(3).unwrap();
//! queue.scan(&input, &mut output, Sum, ScanKind::Exclusive)?; // 0, 3, 2
//! assert_eq!(queue.arg_reduce(&input, ArgMin)?, Some((-1.0, 1)));
//! # Ok::<(), warpkit_host::Error>(())
//! ```
//!
//! ## Borrowing
//!
//! A view borrows its slice, so a slice cannot be dropped while a view of it is passed in;
//! and a slice dropped after work was enqueued on it is freed after that work (cudarc records
//! each use with an event, and frees stream-ordered):
//!
//! ```compile_fail
//! # use warpkit::ops::Sum;
//! # fn f(wk: &warpkit_host::Warpkit) -> Result<(), warpkit_host::Error> {
//! let stream = wk.new_stream()?;
//! let mut queue = warpkit_host::Queue::new(wk, &stream)?;
//! let data = stream.clone_htod(&[1u32, 2, 3]).unwrap();
//! let view = data.slice(1..);
//! drop(data); // error: `data` is borrowed by `view`
//! queue.reduce(&view, Sum)?;
//! # Ok(()) }
//! ```
//!
//! ## Threads
//!
//! [`Warpkit`] is `Clone + Send + Sync` (an `Arc`). [`Queue`] and [`CustomKernels`] are
//! `Send + Sync`; a queue moved to another thread keeps working (each call binds the context).
//!
//! ## CUDA graphs
//!
//! `reduce_into`, `scan`, `rows_*` can be captured: the scan's kernel advances its own epoch,
//! so every replay is correct. Capture after one call of the same element type and at least
//! the same length (so the queue's storage exists: an operation that would allocate storage
//! during a capture is refused, [`Error::Capturing`]), with cudarc's event tracking off during
//! the capture (`CudaContext::disable_event_tracking`), as for any cudarc capture. Operations
//! that return a value to the host or copy offsets from it refuse to run while capturing.
//!
//! A graph keeps the addresses of the queue's storage and kernels, and may be replayed after
//! the queue is gone, so a queue that has been captured never frees its storage (it leaks
//! what it replaces and what it holds when dropped) and keeps its kernels loaded for the rest
//! of the process (custom kernels too, from the operation that was captured). Your own
//! buffers are yours to keep alive while a graph may replay.
//!
//! A replay uses that same storage (the scan's tile status, the reduce's partials and
//! counter), so order every replay with the queue's stream: launch the graph on it, or make
//! the two streams wait for each other's events. A replay on another stream running at the
//! same time as a later operation of the queue, or as another replay, races on the storage:
//! wrong results, or a kernel that waits forever for a flag.

mod context;
#[cfg(feature = "cust")]
pub mod cust;
mod custom;
mod element;
mod error;
mod kernels;
pub mod launch;
mod module;
#[cfg(feature = "nccl")]
pub mod multi;
mod ops;
pub mod ptx;
mod queue;
pub mod raw;
pub mod reference;

pub use context::{Warpkit, open_device};
pub use custom::{Custom, CustomKernels, DeclaredLayout, declared_layout};
pub use element::{ArgElement, ArgOp, ArgResult, DeviceOp, Element, Limits, identity};
pub use error::Error;
pub use kernels::names as kernel_names;
pub use module::{Image, Module};
pub use ops::check_offsets;
pub use queue::{Queue, ScanKind};

pub use cudarc;
pub use half;

#[cfg(test)]
mod threads {
    /// What `Send`/`Sync` promise, checked at compile time: `Warpkit` and the kernel tables
    /// are shared freely; a `Queue` moves between threads (each call binds the context) and
    /// its `&mut self` operations keep one thread enqueuing at a time.
    #[test]
    fn handles_are_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<crate::Warpkit>();
        send_sync::<crate::Queue>();
        send_sync::<
            crate::CustomKernels<
                [u32; 2],
                warpkit::ops::FnOp<[u32; 2], fn([u32; 2], [u32; 2]) -> [u32; 2]>,
            >,
        >();
        send_sync::<crate::Error>();
    }
}
