//! Times GPU work with CUDA events on one stream.

use cust::event::{Event, EventFlags};
use cust::stream::Stream;
use std::time::Duration;

/// Runs `work` `iters` times between two events; returns the GPU time (criterion's custom
/// timing), and records the per-iteration time in `samples`.
pub fn time_iters(
    stream: &Stream,
    iters: u64,
    samples: &mut Vec<f64>,
    mut work: impl FnMut(u64),
) -> Duration {
    let start = Event::new(EventFlags::DEFAULT).expect("event");
    let stop = Event::new(EventFlags::DEFAULT).expect("event");
    start.record(stream).expect("record");
    for i in 0..iters {
        work(i);
    }
    stop.record(stream).expect("record");
    stop.synchronize().expect("synchronize");
    let elapsed = stop.elapsed(&start).expect("elapsed");
    samples.push(elapsed.as_secs_f64() / iters.max(1) as f64);
    elapsed
}

/// The median of `samples` (seconds).
pub fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
