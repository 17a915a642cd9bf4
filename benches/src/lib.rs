//! Helpers of the throughput benchmark: CUB in the same process ([`cub`]), paired A/B timing
//! against it ([`pairs`]), cold-L2 runs ([`cold`]), the report ([`report`]).
//!
//! One case, with `lib = cub::CubLib::build(&cub::source(), &cub::build_dir(), compute)?` and
//! `sampler = pairs::Sampler::new(&stream, pairs::Config::default())?` made once, and
//! `input_ptrs`/`out_ptr` the raw `CUdeviceptr`s of our buffers (cudarc:
//! `slice.device_ptr(&stream).0`):
//!
//! ```ignore
//! let mut theirs = cub::CubCase::device(&lib, "reduce_sum", "u32", &input_ptrs, out_ptr, n, &stream)?;
//! let mut ours = |_s: CUstream, i: u64| q.reduce_into(&inputs[i as usize % k], &mut r, Sum).map_err(|e| e.to_string());
//! let c = sampler.warm(&mut ours, &mut theirs)?; // Err: pairs::Failed, naming the step
//! rows.push(report::Row::from_comparison("reduce_sum", "u32", n, bytes, &c, read_bw, "read"));
//! ```
//!
//! (`CUstream` is `cudarc::driver::sys::CUstream`; closures need their argument types written
//! and return `Result<(), String>`.) `benches/throughput.rs` is the full example, with the
//! output check before timing.
//! Ours must run on `stream` (the closure also gets the raw `CUstream`) and rotate over the
//! same buffers by the run index, and over its own storage too (one queue per buffer), as
//! [`cub::CubCase`] does with its temporary storage. `sampler.cold(..)` is the same
//! with an L2 flush before each single timed run, for cases where `sampler.fits_in_l2(bytes)`.
//! [`pairs::criterion_sides`] adds both sides to criterion's report (unpaired; the tables
//! use the paired figures).

pub mod cold;
pub mod cub;
pub mod mem;
pub mod pairs;
pub mod par;
pub mod report;
pub mod timing;
