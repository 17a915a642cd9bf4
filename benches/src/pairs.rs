//! Paired A/B timing of two GPU operations on one stream: ours and CUB (or any two).
//!
//! Both sides get the same warm-up, alternating, until each has run at least
//! [`Config::warmup`] of back-to-back GPU work (the clocks come up from idle). Then
//! [`Config::pairs`] pairs are taken, each pair one sample of either side, in the order
//! A B, B A, A B, … (neither side always goes first). A sample is two CUDA events around
//! `iters` back-to-back runs; `iters` is the same for both sides, chosen after the warm-up
//! so that a sample of the faster side lasts at least [`Config::min_sample`]. Cold-L2
//! samples ([`L2::Cold`]) time single runs (`iters = 1`), each after an L2 flush that is
//! enqueued before the start event ([`crate::cold`]). Events resolve about 0.5 µs, so a
//! cold sample of a few-µs launch is coarse on its own; the medians over the pairs are not.
//!
//! The result, [`Comparison`], keeps every per-run time: medians and spreads per side, and
//! the median over pairs of `CUB time / our time`, which cancels drifts that hit both sides of
//! a pair alike (clocks, temperature, neighbours).

use crate::cold::L2Flush;
use criterion::Criterion;
use cudarc::driver::{CudaEvent, CudaStream, DriverError, sys};
use std::sync::Arc;
use std::time::Duration;

/// Something that enqueues one run on a raw stream (no synchronisation). `run` counts the
/// side's runs from 0, to rotate over input buffers.
pub trait Enqueue {
    fn enqueue(&mut self, stream: sys::CUstream, run: u64);
}

impl<F: FnMut(sys::CUstream, u64)> Enqueue for F {
    fn enqueue(&mut self, stream: sys::CUstream, run: u64) {
        self(stream, run)
    }
}

/// Whether the data may sit in L2 from the previous run (warm) or was flushed out (cold).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum L2 {
    #[default]
    Warm,
    Cold,
}

impl L2 {
    pub fn name(self) -> &'static str {
        match self {
            L2::Warm => "warm",
            L2::Cold => "cold",
        }
    }

    pub fn parse(s: &str) -> Option<L2> {
        [L2::Warm, L2::Cold].into_iter().find(|l| l.name() == s)
    }
}

/// How long to warm up and how much to sample.
#[derive(Clone, Debug)]
pub struct Config {
    /// Back-to-back GPU work per side before sampling.
    pub warmup: Duration,
    /// Number of pairs sampled.
    pub pairs: usize,
    /// Least duration of one warm sample of the faster side.
    pub min_sample: Duration,
    /// Most runs in one sample.
    pub max_iters: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            warmup: Duration::from_millis(200),
            pairs: 31,
            min_sample: Duration::from_millis(1),
            max_iters: 100_000,
        }
    }
}

/// Order statistics of a set of samples (seconds, or ratios).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// Panics on an empty set.
    pub fn of(samples: &[f64]) -> Spread {
        assert!(!samples.is_empty(), "no samples");
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        Spread {
            median: quantile(&s, 0.5),
            p10: quantile(&s, 0.1),
            p90: quantile(&s, 0.9),
            min: s[0],
            max: s[s.len() - 1],
        }
    }
}

/// The `q` quantile of sorted samples, interpolating between neighbours (so the median of an
/// even count is the mean of the middle two).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

pub fn median(samples: &[f64]) -> f64 {
    Spread::of(samples).median
}

/// `cub[i] / ours[i]` for each pair: above 1, ours was faster in that pair.
pub fn pair_ratios(ours: &[f64], cub: &[f64]) -> Vec<f64> {
    assert_eq!(ours.len(), cub.len(), "unpaired samples");
    ours.iter().zip(cub).map(|(o, c)| c / o).collect()
}

/// One paired measurement: the time of one run (seconds) per sample and side.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub l2: L2,
    /// Runs per sample.
    pub iters: u64,
    pub ours: Vec<f64>,
    pub cub: Vec<f64>,
}

impl Comparison {
    pub fn ours(&self) -> Spread {
        Spread::of(&self.ours)
    }

    pub fn cub(&self) -> Spread {
        Spread::of(&self.cub)
    }

    /// Spread of the per-pair ratios `CUB / ours`.
    pub fn ratios(&self) -> Spread {
        Spread::of(&pair_ratios(&self.ours, &self.cub))
    }

    /// The median of the per-pair ratios `CUB / ours` (above 1: ours is faster).
    pub fn ratio(&self) -> f64 {
        self.ratios().median
    }
}

/// Runs paired measurements on one stream.
pub struct Sampler {
    stream: Arc<CudaStream>,
    /// Start and stop of either side's sample in a pair.
    events: [CudaEvent; 4],
    flush: Option<L2Flush>,
    pub config: Config,
}

impl Sampler {
    /// A sampler on `stream` (a stream from another library: `ctx.wrap_borrowed_stream(raw)`).
    pub fn new(stream: &Arc<CudaStream>, config: Config) -> Result<Sampler, DriverError> {
        let ctx = stream.context();
        let event = || ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT));
        Ok(Sampler {
            stream: stream.clone(),
            events: [event()?, event()?, event()?, event()?],
            flush: None,
            config,
        })
    }

    /// The device's L2 size (allocates the flush buffer, 2 × L2, on first use).
    pub fn l2_bytes(&mut self) -> Result<usize, DriverError> {
        Ok(self.flusher()?.l2_bytes())
    }

    /// Whether a run touching `bytes` (read + written) fits in L2: then a cold figure is
    /// worth taking beside the warm one.
    pub fn fits_in_l2(&mut self, bytes: usize) -> Result<bool, DriverError> {
        Ok(self.flusher()?.fits(bytes))
    }

    fn flusher(&mut self) -> Result<&mut L2Flush, DriverError> {
        if self.flush.is_none() {
            self.flush = Some(L2Flush::new(self.stream.context())?);
        }
        Ok(self.flush.as_mut().expect("just set"))
    }

    /// Warm-L2 comparison: back-to-back runs per sample.
    pub fn warm(
        &mut self,
        ours: &mut impl Enqueue,
        cub: &mut impl Enqueue,
    ) -> Result<Comparison, DriverError> {
        self.compare(L2::Warm, ours, cub)
    }

    /// Cold-L2 comparison: single runs, each after an L2 flush.
    pub fn cold(
        &mut self,
        ours: &mut impl Enqueue,
        cub: &mut impl Enqueue,
    ) -> Result<Comparison, DriverError> {
        self.compare(L2::Cold, ours, cub)
    }

    pub fn compare(
        &mut self,
        l2: L2,
        ours: &mut impl Enqueue,
        cub: &mut impl Enqueue,
    ) -> Result<Comparison, DriverError> {
        if l2 == L2::Cold {
            self.flusher()?;
        }
        let mut sides: [&mut dyn Enqueue; 2] = [ours, cub];
        let mut runs = [0u64; 2];
        // First runs untimed: module loading, CUB's first-call set-up.
        let raw = self.stream.cu_stream();
        for (side, run) in sides.iter_mut().zip(&mut runs) {
            side.enqueue(raw, *run);
            *run += 1;
        }
        self.stream.synchronize()?;
        let first = self.pair(&mut sides, &mut runs, 1, false, 0)?;
        let mut iters = self.iters_for(first);
        let warmup = self.config.warmup.as_secs_f64();
        let mut spent = [0.0; 2];
        let mut round = 0;
        while spent.iter().any(|&s| s < warmup) && round < 1_000_000 {
            let t = self.pair(&mut sides, &mut runs, iters, false, round)?;
            spent[0] += t[0] * iters as f64;
            spent[1] += t[1] * iters as f64;
            iters = self.iters_for(t);
            round += 1;
        }
        let (iters, cold) = match l2 {
            L2::Warm => (iters, false),
            L2::Cold => (1, true),
        };
        let mut out = Comparison {
            l2,
            iters,
            ours: Vec::with_capacity(self.config.pairs),
            cub: Vec::with_capacity(self.config.pairs),
        };
        for k in 0..self.config.pairs {
            let t = self.pair(&mut sides, &mut runs, iters, cold, k)?;
            out.ours.push(t[0]);
            out.cub.push(t[1]);
        }
        Ok(out)
    }

    /// Runs per sample so that the faster side's sample lasts `min_sample`.
    fn iters_for(&self, per_run: [f64; 2]) -> u64 {
        // Event resolution is about 0.5 µs: a shorter reading says little more than "short".
        let fastest = per_run[0].min(per_run[1]).max(0.5e-6);
        ((self.config.min_sample.as_secs_f64() / fastest).ceil() as u64)
            .clamp(1, self.config.max_iters.max(1))
    }

    /// One sample of each side (`iters` runs between two events), in the order A B for even
    /// `k` and B A for odd; returns the time of one run per side (seconds).
    fn pair(
        &mut self,
        sides: &mut [&mut dyn Enqueue; 2],
        runs: &mut [u64; 2],
        iters: u64,
        cold: bool,
        k: usize,
    ) -> Result<[f64; 2], DriverError> {
        let raw = self.stream.cu_stream();
        let order = if k.is_multiple_of(2) { [0, 1] } else { [1, 0] };
        for s in order {
            if cold {
                let stream = self.stream.clone();
                self.flusher()?.flush(&stream)?;
            }
            self.events[2 * s].record(&self.stream)?;
            for _ in 0..iters {
                sides[s].enqueue(raw, runs[s]);
                runs[s] += 1;
            }
            self.events[2 * s + 1].record(&self.stream)?;
        }
        self.stream.synchronize()?;
        let mut t = [0.0; 2];
        for (s, t) in t.iter_mut().enumerate() {
            let ms = self.events[2 * s].elapsed_ms(&self.events[2 * s + 1])?;
            *t = ms as f64 * 1e-3 / iters as f64;
        }
        Ok(t)
    }
}

/// Adds `<id>/warpkit` and `<id>/cub` to criterion's report: each side timed by criterion on
/// its own (`iter_custom`, CUDA events around criterion's `iters` back-to-back runs), so
/// criterion's statistics, outlier analysis and change detection against the previous run
/// apply. These are unpaired; the comparison in the tables comes from [`Sampler`].
pub fn criterion_sides(
    criterion: &mut Criterion,
    id: &str,
    stream: &Arc<CudaStream>,
    ours: &mut impl Enqueue,
    cub: &mut impl Enqueue,
) {
    let mut group = criterion.benchmark_group(id);
    group.bench_function("warpkit", |b| {
        b.iter_custom(|iters| time_runs(stream, iters, ours))
    });
    group.bench_function("cub", |b| {
        b.iter_custom(|iters| time_runs(stream, iters, cub))
    });
    group.finish();
}

/// GPU time of `iters` back-to-back runs of `side` between two events.
pub fn time_runs(stream: &Arc<CudaStream>, iters: u64, side: &mut impl Enqueue) -> Duration {
    let ctx = stream.context();
    let event = || {
        ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .expect("create an event")
    };
    let (start, stop) = (event(), event());
    start.record(stream).expect("record an event");
    for run in 0..iters {
        side.enqueue(stream.cu_stream(), run);
    }
    stop.record(stream).expect("record an event");
    let ms = start.elapsed_ms(&stop).expect("read the events");
    Duration::from_secs_f64(ms as f64 * 1e-3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&s, 0.5), 2.5);
        assert_eq!(quantile(&s, 0.0), 1.0);
        assert_eq!(quantile(&s, 1.0), 4.0);
        assert!((quantile(&s, 0.1) - 1.3).abs() < 1e-12);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[7.0]), 7.0);
    }

    #[test]
    fn spread_ignores_order() {
        let s = Spread::of(&[9.0, 1.0, 5.0, 3.0, 7.0, 2.0, 8.0, 4.0, 6.0, 10.0, 11.0]);
        assert_eq!((s.min, s.median, s.max), (1.0, 6.0, 11.0));
        assert_eq!((s.p10, s.p90), (2.0, 10.0));
    }

    #[test]
    fn pair_ratio_resists_one_sided_outliers() {
        // The clock drifts 2x over the run; CUB is always 1.25x our time in the same pair,
        // except for three CUB samples hit by a neighbour's burst. Those shift CUB's median
        // to another pair (another clock); the median of the pair ratios still reads 1.25.
        let ours: Vec<f64> = (0..21).map(|i| 1e-5 * (1.0 + i as f64 / 20.0)).collect();
        let mut cub: Vec<f64> = ours.iter().map(|t| t * 1.25).collect();
        for i in [2, 9, 15] {
            cub[i] *= 3.0;
        }
        let c = Comparison {
            l2: L2::Warm,
            iters: 10,
            ours: ours.clone(),
            cub,
        };
        assert!((c.ratio() - 1.25).abs() < 1e-12, "{}", c.ratio());
        let unpaired = c.cub().median / c.ours().median;
        assert!(
            unpaired > 1.3,
            "medians of drifting samples mislead: {unpaired}"
        );
        let r = c.ratios();
        assert!(r.min >= 1.25 - 1e-12 && (r.max - 3.75).abs() < 1e-12);
        assert_eq!(c.ours().min, 1e-5);
    }

    #[test]
    #[should_panic(expected = "unpaired")]
    fn ratios_need_pairs() {
        pair_ratios(&[1.0, 2.0], &[1.0]);
    }

    #[test]
    fn l2_names_round_trip() {
        for l in [L2::Warm, L2::Cold] {
            assert_eq!(L2::parse(l.name()), Some(l));
        }
        assert_eq!(L2::parse("tepid"), None);
    }
}
