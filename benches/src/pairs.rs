//! Paired A/B timing of two GPU operations on one stream: ours and CUB (or any two).
//!
//! Both sides get the same warm-up, alternating, until each has run at least
//! [`Config::warmup`] of back-to-back GPU work (the clocks come up from idle). Then
//! [`Config::pairs`] pairs are taken, each pair one sample of either side, in the order
//! A B, B A, A B, … (neither side always goes first). A sample is two CUDA events around
//! `iters` back-to-back runs, the same two events for either side, read before the next
//! sample starts (so the GPU is idle at the start of every sample); `iters` is the same for
//! both sides, chosen after the warm-up so that a sample of the faster side lasts at least
//! [`Config::min_sample`]. Cold-L2
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
/// side's runs from 0, to rotate over input buffers. An error says what failed (it is
/// reported with the side and the step of the measurement).
pub trait Enqueue {
    fn enqueue(&mut self, stream: sys::CUstream, run: u64) -> Result<(), String>;
}

impl<F: FnMut(sys::CUstream, u64) -> Result<(), String>> Enqueue for F {
    fn enqueue(&mut self, stream: sys::CUstream, run: u64) -> Result<(), String> {
        self(stream, run)
    }
}

/// A failed measurement: the step that failed (`warm-up pair 3: record mark 2 (start of
/// side B)`) and the cause (the driver's error, or the side's message).
#[derive(Clone, Debug)]
pub struct Failed {
    pub step: String,
    pub cause: String,
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.step, self.cause)
    }
}

impl std::error::Error for Failed {}

/// Attaches a step to a driver error.
pub trait Step<T> {
    fn step(self, step: impl FnOnce() -> String) -> Result<T, Failed>;
}

impl<T> Step<T> for Result<T, DriverError> {
    fn step(self, step: impl FnOnce() -> String) -> Result<T, Failed> {
        self.map_err(|e| Failed {
            step: step(),
            cause: e.to_string(),
        })
    }
}

impl<T> Step<T> for Result<T, String> {
    fn step(self, step: impl FnOnce() -> String) -> Result<T, Failed> {
        self.map_err(|cause| Failed {
            step: step(),
            cause,
        })
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
    gpu: Gpu,
    pub config: Config,
}

/// The stream, the two events (start and stop of a sample) and the L2 flush.
struct Gpu {
    stream: Arc<CudaStream>,
    events: [CudaEvent; 2],
    flush: Option<L2Flush>,
}

impl Gpu {
    fn flusher(&mut self) -> Result<&mut L2Flush, DriverError> {
        if self.flush.is_none() {
            self.flush = Some(L2Flush::new(self.stream.context())?);
        }
        Ok(self.flush.as_mut().expect("just set"))
    }
}

/// What the schedule needs of the GPU (a model of it in the tests).
///
/// Reading marks that were never recorded is an error on the GPU
/// (`cuEventElapsedTime` answers `CUDA_ERROR_INVALID_HANDLE`), so waiting for the stream
/// ([`Timeline::sync`]) and reading the marks ([`Timeline::read`]) are apart: the untimed
/// first runs only wait.
trait Timeline {
    fn stream(&self) -> sys::CUstream;
    /// Enqueues an L2 flush.
    fn flush(&mut self) -> Result<(), DriverError>;
    /// Records mark `i` (0: the start of a sample, 1: its stop).
    fn mark(&mut self, i: usize) -> Result<(), DriverError>;
    /// Waits for everything enqueued on the stream.
    fn sync(&mut self) -> Result<(), DriverError>;
    /// After [`Timeline::sync`]: the seconds between marks 0 and 1 (both recorded since the
    /// last read).
    fn read(&mut self) -> Result<f64, DriverError>;
}

impl Timeline for Gpu {
    fn stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }

    fn flush(&mut self) -> Result<(), DriverError> {
        let stream = self.stream.clone();
        self.flusher()?.flush(&stream)
    }

    fn mark(&mut self, i: usize) -> Result<(), DriverError> {
        self.events[i].record(&self.stream)
    }

    fn sync(&mut self) -> Result<(), DriverError> {
        self.stream.synchronize()
    }

    fn read(&mut self) -> Result<f64, DriverError> {
        Ok(self.events[0].elapsed_ms(&self.events[1])? as f64 * 1e-3)
    }
}

impl Sampler {
    /// A sampler on `stream` (a stream from another library: `ctx.wrap_borrowed_stream(raw)`).
    pub fn new(stream: &Arc<CudaStream>, config: Config) -> Result<Sampler, Failed> {
        let ctx = stream.context();
        let event = |i: usize| {
            ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .step(|| format!("Sampler::new: create timing event {i}"))
        };
        Ok(Sampler {
            gpu: Gpu {
                stream: stream.clone(),
                events: [event(0)?, event(1)?],
                flush: None,
            },
            config,
        })
    }

    /// The device's L2 size (allocates the flush buffer, 2 × L2, on first use).
    pub fn l2_bytes(&mut self) -> Result<usize, Failed> {
        let flush = self
            .gpu
            .flusher()
            .step(|| "allocate the L2 flush buffer".into())?;
        Ok(flush.l2_bytes())
    }

    /// Whether a run touching `bytes` (read + written) fits in L2: then a cold figure is
    /// worth taking beside the warm one.
    pub fn fits_in_l2(&mut self, bytes: usize) -> Result<bool, Failed> {
        let flush = self
            .gpu
            .flusher()
            .step(|| "allocate the L2 flush buffer".into())?;
        Ok(flush.fits(bytes))
    }

    /// Warm-L2 comparison: back-to-back runs per sample.
    pub fn warm(
        &mut self,
        ours: &mut impl Enqueue,
        cub: &mut impl Enqueue,
    ) -> Result<Comparison, Failed> {
        self.compare(L2::Warm, ours, cub)
    }

    /// Cold-L2 comparison: single runs, each after an L2 flush.
    pub fn cold(
        &mut self,
        ours: &mut impl Enqueue,
        cub: &mut impl Enqueue,
    ) -> Result<Comparison, Failed> {
        self.compare(L2::Cold, ours, cub)
    }

    /// The whole paired measurement. An error names the step (first runs, warm-up pair,
    /// sampled pair; which mark or side) and the cause.
    pub fn compare(
        &mut self,
        l2: L2,
        ours: &mut impl Enqueue,
        cub: &mut impl Enqueue,
    ) -> Result<Comparison, Failed> {
        // cudarc keeps an error from a drop (an event, a stream, a buffer freed) in the
        // context and returns it from the next call that binds the context: name it here
        // rather than let it look like a failure of the first step below.
        self.gpu.stream.context().check_err().step(|| {
            "before sampling: an error cudarc kept from an earlier drop in this context".into()
        })?;
        if l2 == L2::Cold {
            self.gpu
                .flusher()
                .step(|| "allocate the L2 flush buffer".into())?;
        }
        schedule(&mut self.gpu, &self.config, l2, [ours, cub])
    }
}

/// Side names in messages: side 0 is ours (A), side 1 CUB (B).
const SIDES: [&str; 2] = ["A (ours)", "B (CUB)"];

/// The whole measurement: untimed first runs, the alternating warm-up, the pairs.
fn schedule(
    tl: &mut impl Timeline,
    config: &Config,
    l2: L2,
    mut sides: [&mut dyn Enqueue; 2],
) -> Result<Comparison, Failed> {
    let mut runs = [0u64; 2];
    // First runs untimed: module loading, CUB's first-call set-up. No mark is recorded, so
    // none is read: only wait.
    for (s, (side, run)) in sides.iter_mut().zip(&mut runs).enumerate() {
        side.enqueue(tl.stream(), *run)
            .step(|| format!("first (untimed) run of side {}", SIDES[s]))?;
        *run += 1;
    }
    tl.sync()
        .step(|| "wait for the first (untimed) runs of both sides".into())?;
    let first = pair(tl, &mut sides, &mut runs, 1, false, 0, "first timed pair")?;
    let mut iters = iters_for(config, first);
    let warmup = config.warmup.as_secs_f64();
    let mut spent = [0.0; 2];
    let mut round = 0;
    while spent.iter().any(|&s| s < warmup) && round < 1_000_000 {
        let t = pair(
            tl,
            &mut sides,
            &mut runs,
            iters,
            false,
            round,
            "warm-up pair",
        )?;
        spent[0] += t[0] * iters as f64;
        spent[1] += t[1] * iters as f64;
        iters = iters_for(config, t);
        round += 1;
    }
    let (iters, cold) = match l2 {
        L2::Warm => (iters, false),
        L2::Cold => (1, true),
    };
    let mut out = Comparison {
        l2,
        iters,
        ours: Vec::with_capacity(config.pairs),
        cub: Vec::with_capacity(config.pairs),
    };
    for k in 0..config.pairs {
        let t = pair(tl, &mut sides, &mut runs, iters, cold, k, "sampled pair")?;
        out.ours.push(t[0]);
        out.cub.push(t[1]);
    }
    Ok(out)
}

/// Runs per sample so that the faster side's sample lasts `min_sample`.
fn iters_for(config: &Config, per_run: [f64; 2]) -> u64 {
    // Event resolution is about 0.5 µs: a shorter reading says little more than "short".
    let fastest = per_run[0].min(per_run[1]).max(0.5e-6);
    ((config.min_sample.as_secs_f64() / fastest).ceil() as u64).clamp(1, config.max_iters.max(1))
}

/// One sample of each side (`iters` runs between two marks), in the order A B for even `k`
/// and B A for odd; returns the time of one run per side (seconds). `what` names the pair
/// in errors. Both sides' samples use the same two events, and each is read before the next
/// starts: with a pair of events per side, and the second sample enqueued behind the first,
/// the A/A ratio (CUB against itself) read 0.89-1.14 at 2^16 and 2^20 items cold, a different
/// way in each process (H200).
fn pair(
    tl: &mut impl Timeline,
    sides: &mut [&mut dyn Enqueue; 2],
    runs: &mut [u64; 2],
    iters: u64,
    cold: bool,
    k: usize,
    what: &str,
) -> Result<[f64; 2], Failed> {
    let order = if k.is_multiple_of(2) { [0, 1] } else { [1, 0] };
    let mut times = [0.0; 2];
    for s in order {
        let at = || format!("{what} {k} ({iters} runs per sample), side {}", SIDES[s]);
        if cold {
            tl.flush().step(|| format!("{}: L2 flush", at()))?;
        }
        tl.mark(0)
            .step(|| format!("{}: record the start mark", at()))?;
        for _ in 0..iters {
            sides[s]
                .enqueue(tl.stream(), runs[s])
                .step(|| format!("{}: run {}", at(), runs[s]))?;
            runs[s] += 1;
        }
        tl.mark(1)
            .step(|| format!("{}: record the stop mark", at()))?;
        tl.sync().step(|| {
            format!(
                "{}: wait for the stream (a run failed on the GPU, or an earlier one)",
                at()
            )
        })?;
        let t = tl
            .read()
            .step(|| format!("{}: read the elapsed time between the marks", at()))?;
        times[s] = t / iters as f64;
    }
    Ok(times)
}

/// Adds `<id>/warpkit` and `<id>/cub` to criterion's report: each side timed by criterion on
/// its own (`iter_custom`, CUDA events around criterion's `iters` back-to-back runs), so
/// criterion's statistics, outlier analysis and change detection against the previous run
/// apply. These are unpaired; the comparison in the tables comes from [`Sampler`].
/// Criterion's closures cannot return errors: a failure panics with the step's message.
pub fn criterion_sides(
    criterion: &mut Criterion,
    id: &str,
    stream: &Arc<CudaStream>,
    ours: &mut impl Enqueue,
    cub: &mut impl Enqueue,
) {
    let mut group = criterion.benchmark_group(id);
    group.bench_function("warpkit", |b| {
        b.iter_custom(|iters| {
            time_runs(stream, iters, ours).unwrap_or_else(|e| panic!("{id}/warpkit: {e}"))
        })
    });
    group.bench_function("cub", |b| {
        b.iter_custom(|iters| {
            time_runs(stream, iters, cub).unwrap_or_else(|e| panic!("{id}/cub: {e}"))
        })
    });
    group.finish();
}

/// GPU time of `iters` back-to-back runs of `side` between two events.
pub fn time_runs(
    stream: &Arc<CudaStream>,
    iters: u64,
    side: &mut impl Enqueue,
) -> Result<Duration, Failed> {
    let ctx = stream.context();
    let event = || {
        ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .step(|| "time_runs: create a timing event".into())
    };
    let (start, stop) = (event()?, event()?);
    start
        .record(stream)
        .step(|| "time_runs: record the start event".into())?;
    for run in 0..iters {
        side.enqueue(stream.cu_stream(), run)
            .step(|| format!("time_runs: run {run} of {iters}"))?;
    }
    stop.record(stream)
        .step(|| "time_runs: record the stop event".into())?;
    let ms = start
        .elapsed_ms(&stop)
        .step(|| format!("time_runs: wait for {iters} runs and read the events"))?;
    Ok(Duration::from_secs_f64(ms as f64 * 1e-3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

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

    /// What reached the model GPU, in order.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Op {
        Run(usize, u64),
        Mark(usize),
        Flush,
        /// The host waited for the stream.
        Sync,
    }

    /// A model GPU: a run of side `s` takes `cost[s]` seconds, twice that while the clock is
    /// still low (the first 50 ms of work), plus `cold_miss` when an L2 flush came since the
    /// side's last run.
    struct Model {
        log: Rc<RefCell<Vec<Op>>>,
        cost: [f64; 2],
        cold_miss: f64,
        done: usize,
        clock: f64,
        flushed: [bool; 2],
        /// Marks recorded (and completed) since the last read, and the time between them.
        recorded: [bool; 2],
        time: f64,
    }

    impl Timeline for Model {
        fn stream(&self) -> sys::CUstream {
            std::ptr::null_mut()
        }
        fn flush(&mut self) -> Result<(), DriverError> {
            self.log.borrow_mut().push(Op::Flush);
            Ok(())
        }
        fn mark(&mut self, i: usize) -> Result<(), DriverError> {
            self.log.borrow_mut().push(Op::Mark(i));
            Ok(())
        }
        fn sync(&mut self) -> Result<(), DriverError> {
            self.log.borrow_mut().push(Op::Sync);
            let log = self.log.borrow();
            let mut start = 0.0;
            for op in &log[self.done..] {
                match *op {
                    Op::Flush => self.flushed = [true; 2],
                    Op::Mark(i) => {
                        self.recorded[i] = true;
                        if i == 0 {
                            start = self.clock;
                        } else {
                            self.time = self.clock - start;
                        }
                    }
                    Op::Sync => {}
                    Op::Run(s, _) => {
                        let slow = if self.clock < 0.05 { 2.0 } else { 1.0 };
                        let miss = if self.flushed[s] { self.cold_miss } else { 0.0 };
                        self.flushed[s] = false;
                        self.clock += self.cost[s] * slow + miss;
                    }
                }
            }
            self.done = log.len();
            Ok(())
        }
        /// As `cuEventElapsedTime`: reading a mark never recorded is `INVALID_HANDLE` (the
        /// error bench-pairs hit when the first untimed runs were followed by a read).
        fn read(&mut self) -> Result<f64, DriverError> {
            if self.recorded != [true; 2] {
                return Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_HANDLE));
            }
            self.recorded = [false; 2];
            Ok(self.time)
        }
    }

    fn model(log: &Rc<RefCell<Vec<Op>>>) -> Model {
        Model {
            log: log.clone(),
            cost: [2e-6, 3e-6],
            cold_miss: 1e-6,
            done: 0,
            clock: 0.0,
            flushed: [false; 2],
            recorded: [false; 2],
            time: 0.0,
        }
    }

    fn model_run(l2: L2) -> (Comparison, Vec<Op>, Config) {
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut model = model(&log);
        let side = |s: usize| {
            let log = log.clone();
            move |_: sys::CUstream, run: u64| {
                log.borrow_mut().push(Op::Run(s, run));
                Ok(())
            }
        };
        let (mut a, mut b) = (side(0), side(1));
        let config = Config::default();
        let c = schedule(&mut model, &config, l2, [&mut a, &mut b]).unwrap();
        let ops = log.borrow().clone();
        (c, ops, config)
    }

    /// The sampled pairs: the ops after the warm-up (the last `pairs` pairs of marks).
    fn sampled(ops: &[Op], pairs: usize) -> &[Op] {
        let starts: Vec<usize> = (0..ops.len())
            .filter(|&i| matches!(ops[i], Op::Mark(0)))
            .collect();
        let first = starts[starts.len() - 2 * pairs];
        // Include a flush enqueued just before the first start mark.
        &ops[if first > 0 && ops[first - 1] == Op::Flush {
            first - 1
        } else {
            first
        }..]
    }

    #[test]
    fn warm_schedule_on_a_model_gpu() {
        let (c, ops, config) = model_run(L2::Warm);
        assert_eq!((c.ours.len(), c.cub.len()), (config.pairs, config.pairs));
        // The clock is up after the warm-up: samples of 1 ms of the faster side.
        assert_eq!(c.iters, 500);
        assert!((c.ours().median - 2e-6).abs() < 1e-12);
        assert!((c.ratio() - 1.5).abs() < 1e-9);
        assert!(!ops.contains(&Op::Flush));
        // Each side ran its runs in order, as many as the other.
        for s in 0..2 {
            let runs: Vec<u64> = ops
                .iter()
                .filter_map(|op| match *op {
                    Op::Run(side, r) if side == s => Some(r),
                    _ => None,
                })
                .collect();
            assert!(runs.iter().enumerate().all(|(i, &r)| r == i as u64));
        }
        // Warm-up: at least `warmup` of GPU time per side (as the model ran it: slow clock
        // first) before the first sampled pair.
        let sample = sampled(&ops, config.pairs);
        let before = &ops[..ops.len() - sample.len()];
        let (mut clock, mut spent) = (0.0, [0.0; 2]);
        for op in before {
            if let Op::Run(s, _) = *op {
                let t = [2e-6, 3e-6][s] * if clock < 0.05 { 2.0 } else { 1.0 };
                clock += t;
                spent[s] += t;
            }
        }
        let warmup = config.warmup.as_secs_f64();
        assert!(spent.iter().all(|&t| t >= warmup), "{spent:?}");
        // ... and not much more: the last warm-up pair adds at most 1 ms per side.
        assert!(spent.iter().any(|&t| t < warmup + 2e-3), "{spent:?}");
        // Sampled pairs alternate which side goes first; both sides run `iters` per sample.
        let firsts: Vec<usize> = sample
            .windows(2)
            .filter_map(|w| match w {
                [Op::Mark(0), Op::Run(s, _)] => Some(*s),
                _ => None,
            })
            .step_by(2)
            .collect();
        assert_eq!(firsts.len(), config.pairs);
        assert!(firsts.iter().enumerate().all(|(k, &s)| s == k % 2));
        let runs_between = sample
            .split(|op| matches!(op, Op::Mark(_)))
            .map(|chunk| chunk.iter().filter(|op| matches!(op, Op::Run(..))).count())
            .filter(|&runs| runs > 0)
            .collect::<Vec<_>>();
        assert_eq!(runs_between.len(), 2 * config.pairs);
        assert!(runs_between.iter().all(|&n| n == 500));
    }

    #[test]
    fn cold_schedule_flushes_before_every_single_run() {
        let (c, ops, config) = model_run(L2::Cold);
        assert_eq!(c.iters, 1);
        // (3 + 1) µs against (2 + 1) µs: the miss is paid on every sample.
        assert!((c.ratio() - 4.0 / 3.0).abs() < 1e-9, "{}", c.ratio());
        let sample = sampled(&ops, config.pairs);
        let mut starts = 0;
        for (i, op) in sample.iter().enumerate() {
            if let Op::Mark(0) = op {
                assert_eq!(sample[i - 1], Op::Flush, "no flush before sample start {i}");
                // ... and the GPU idle before the flush, whichever side ran before.
                if i >= 2 {
                    assert_eq!(sample[i - 2], Op::Sync, "no wait before sample start {i}");
                }
                starts += 1;
            }
        }
        assert_eq!(starts, 2 * config.pairs);
        // No flush inside a timed sample.
        let mut timing = false;
        for op in sample {
            match op {
                Op::Mark(m) => timing = *m == 0,
                Op::Flush => assert!(!timing, "flush between the events"),
                Op::Sync => assert!(!timing, "wait between the events"),
                Op::Run(..) => {}
            }
        }
    }

    #[test]
    fn a_failing_side_names_the_step() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut model = model(&log);
        let mut a = |_: sys::CUstream, _: u64| Ok(());
        let mut b = |_: sys::CUstream, run: u64| {
            if run == 5 {
                Err("cudaErrorInvalidResourceHandle".to_string())
            } else {
                Ok(())
            }
        };
        let e = schedule(&mut model, &Config::default(), L2::Warm, [&mut a, &mut b])
            .expect_err("side B fails at run 5");
        assert!(
            e.step.contains("warm-up pair") && e.step.contains("side B (CUB): run 5"),
            "{e}"
        );
        assert_eq!(e.cause, "cudaErrorInvalidResourceHandle");
    }

    #[test]
    fn reading_marks_never_recorded_fails_as_on_the_gpu() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut m = model(&log);
        m.sync().unwrap();
        let e = m.read().expect_err("no mark recorded yet");
        assert_eq!(e.0, sys::CUresult::CUDA_ERROR_INVALID_HANDLE);
    }

    #[test]
    fn l2_names_round_trip() {
        for l in [L2::Warm, L2::Cold] {
            assert_eq!(L2::parse(l.name()), Some(l));
        }
        assert_eq!(L2::parse("tepid"), None);
    }
}
