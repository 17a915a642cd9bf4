//! Times GPU work with CUDA events on one stream.

use cudarc::driver::{CudaStream, sys::CUevent_flags};
use std::time::Duration;

/// Runs `work` `iters` times between two events; returns the GPU time (criterion's custom
/// timing), and records the per-iteration time in `samples`.
pub fn time_iters(
    stream: &CudaStream,
    iters: u64,
    samples: &mut Vec<f64>,
    mut work: impl FnMut(u64),
) -> Duration {
    // Timing events (cudarc's default events have timing disabled).
    let start = stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("record");
    for i in 0..iters {
        work(i);
    }
    let stop = stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("record");
    stop.synchronize().expect("synchronize");
    let ms = start.elapsed_ms(&stop).expect("elapsed");
    let elapsed = Duration::from_secs_f64(ms as f64 / 1e3);
    samples.push(elapsed.as_secs_f64() / iters.max(1) as f64);
    elapsed
}

/// The median of `samples` (seconds).
pub fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
