//! `warpkit reduce|arg-min|inclusive-scan|rows-reduce|segments-scan|... --type f32 --op sum
//! --n 1000000`: runs one operation on generated data, checks it against the CPU model
//! (`warpkit_host::reference`), and prints the result and the time. Exits with 1 on a
//! mismatch or an error, so `compute-sanitizer` runs of it check results too.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};
use half::{bf16, f16};
use rand::Rng;
use std::time::Instant;
use warpkit::ops::{ArgMax, ArgMin, Max, Min, Sum};
use warpkit_host::cudarc::driver::DeviceRepr;
use warpkit_host::reference::{self, Fold, Model};
use warpkit_host::{ArgElement, ArgOp, DeviceOp, Element, Error, Queue, ScanKind, Warpkit};

#[derive(Parser)]
#[command(
    name = "warpkit",
    about = "Run a warpkit reduction or scan on generated data and check it"
)]
struct Args {
    #[arg(value_enum)]
    what: What,
    #[arg(long, value_enum, default_value = "f32")]
    r#type: Type,
    /// The operator of reduces and scans [default: sum]; arg-min and arg-max take none.
    #[arg(long, value_enum)]
    op: Option<Op>,
    /// Number of elements.
    #[arg(long, default_value_t = 1 << 24)]
    n: usize,
    /// Row width of rows-reduce / rows-scan (segments: ragged rows of about this length).
    #[arg(long, default_value_t = 1000)]
    width: usize,
    /// Exclusive rows-scan / segments-scan (device scans: exclusive-scan).
    #[arg(long)]
    exclusive: bool,
    /// Items before the input's (and the output's) first item in its buffer: with 1-3, 4-byte
    /// items start off their 16-byte alignment.
    #[arg(long, default_value_t = 0)]
    offset: usize,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum What {
    Reduce,
    ArgMin,
    ArgMax,
    InclusiveScan,
    ExclusiveScan,
    RowsReduce,
    RowsScan,
    SegmentsReduce,
    SegmentsScan,
}

#[derive(Clone, Copy, ValueEnum)]
enum Type {
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    F16,
    Bf16,
}

#[derive(Clone, Copy, ValueEnum)]
enum Op {
    Sum,
    Min,
    Max,
}

trait Gen: Element + std::fmt::Display
where
    Self::Accum: Model,
{
    fn draw(rng: &mut impl Rng) -> Self;
}
macro_rules! gens { ($($t:ty => $e:expr;)*) => {$(impl Gen for $t { fn draw(rng: &mut impl Rng) -> Self { let f: fn(&mut dyn rand::RngCore) -> $t = $e; f(rng) } })*}; }
gens! {
    u32 => |r| r.next_u32() % 1000; i32 => |r| (r.next_u32() % 1000) as i32 - 500;
    u64 => |r| r.next_u64() % 1000; i64 => |r| (r.next_u64() % 1000) as i64 - 500;
    f32 => |r| (r.next_u32() % 2000) as f32 / 1000.0 - 1.0; f64 => |r| (r.next_u32() % 2000) as f64 / 1000.0 - 1.0;
    f16 => |r| f16::from_f32((r.next_u32() % 2000) as f32 / 1000.0 - 1.0);
    bf16 => |r| bf16::from_f32((r.next_u32() % 2000) as f32 / 1000.0 - 1.0);
}

/// Whether a device value matches the model: exact, or for floats within `1e-3 × Σ|x|` plus
/// the rounding of a half-precision result.
fn close<A: Model>(got: A, want: A, magnitude: f64) -> bool {
    if bytemuck::bytes_of(&got) == bytemuck::bytes_of(&want) || (got.nan() && want.nan()) {
        return true;
    }
    A::canonical_nan().nan()
        && (got.wide() - want.wide()).abs() <= 1e-3 * magnitude.max(1.0) + want.wide().abs() / 128.0
}

struct Run<'a> {
    wk: &'a Warpkit,
    args: &'a Args,
}

impl Run<'_> {
    fn go<T: Gen + DeviceRepr>(&self) -> Result<bool, Error>
    where
        T::Accum: Model,
    {
        match self.args.op.unwrap_or(Op::Sum) {
            Op::Sum => self.op::<T, Sum>(),
            Op::Min => self.op::<T, Min>(),
            Op::Max => self.op::<T, Max>(),
        }
    }

    fn arg<T: Gen + ArgElement + DeviceRepr>(&self) -> Result<bool, Error>
    where
        T::Accum: Model,
    {
        match self.args.what {
            What::ArgMin => self.arg_op::<T, ArgMin>(),
            _ => self.arg_op::<T, ArgMax>(),
        }
    }

    fn arg_op<T: Gen + ArgElement + DeviceRepr, O: ArgOp>(&self) -> Result<bool, Error>
    where
        T::Accum: Model,
    {
        let (data, stream, mut q) = self.setup::<T>()?;
        let buffer = self.upload(&stream, &data)?;
        let input = buffer.slice(self.args.offset..);
        q.arg_reduce(&input, O::default())?;
        let start = Instant::now();
        let got = q.arg_reduce(&input, O::default())?;
        let took = start.elapsed();
        let want = reference::arg_reduce::<T, O>(&data);
        let ok = got
            .map(|(v, i)| (v.to_accum(), i))
            .map(|(v, i)| (bytemuck::bytes_of(&v).to_vec(), i))
            == want.map(|(v, i)| (bytemuck::bytes_of(&v).to_vec(), i));
        println!(
            "{} of {} {}: {got:?} (CPU: {want:?}) in {took:?}",
            O::NAME,
            data.len(),
            T::NAME
        );
        Ok(ok)
    }

    fn setup<T: Gen>(
        &self,
    ) -> Result<
        (
            Vec<T>,
            std::sync::Arc<warpkit_host::cudarc::driver::CudaStream>,
            Queue,
        ),
        Error,
    >
    where
        T::Accum: Model,
    {
        let mut rng = rand::rng();
        let data: Vec<T> = (0..self.args.n).map(|_| T::draw(&mut rng)).collect();
        let stream = self.wk.new_stream()?;
        let q = Queue::new(self.wk, &stream)?;
        Ok((data, stream, q))
    }

    /// `data` on the device, `--offset` items into its buffer.
    fn upload<T: Gen + DeviceRepr>(
        &self,
        stream: &std::sync::Arc<warpkit_host::cudarc::driver::CudaStream>,
        data: &[T],
    ) -> Result<warpkit_host::cudarc::driver::CudaSlice<T>, Error>
    where
        T::Accum: Model,
    {
        let padding = std::iter::repeat_n(T::zeroed(), self.args.offset);
        let padded: Vec<T> = padding.chain(data.iter().copied()).collect();
        stream.clone_htod(&padded).map_err(driver("upload"))
    }

    fn op<T: Gen + DeviceRepr, O: DeviceOp>(&self) -> Result<bool, Error>
    where
        T::Accum: Model,
    {
        let (data, stream, mut q) = self.setup::<T>()?;
        let n = data.len();
        let buffer = self.upload(&stream, &data)?;
        let input = buffer.slice(self.args.offset..);
        let magnitude: f64 = data.iter().map(|x| x.to_accum().wide().abs()).sum();
        let width = self.args.width.max(1);
        // Ragged rows: lengths cycling 0..2*width, the last row cut at n.
        let mut offsets = vec![0u64];
        while *offsets.last().unwrap() < n as u64 {
            let next = offsets.last().unwrap() + (offsets.len() as u64 * 7919) % (2 * width as u64);
            offsets.push(next.min(n as u64));
        }
        let what = self.args.what;
        let kind = if what == What::ExclusiveScan || self.args.exclusive {
            ScanKind::Exclusive
        } else {
            ScanKind::Inclusive
        };
        let rows_out = match what {
            What::RowsReduce => n / width,
            What::SegmentsReduce => offsets.len() - 1,
            _ => n,
        };
        let mut output_buffer = stream
            .alloc_zeros::<T>(self.args.offset + rows_out)
            .map_err(driver("allocate"))?;
        let mut output = output_buffer.slice_mut(self.args.offset..);
        let rows_in = input.slice(
            0..if what == What::RowsReduce {
                rows_out * width
            } else {
                n
            },
        );
        let (value, took) = {
            let mut once = |q: &mut Queue| -> Result<Option<T>, Error> {
                match what {
                    What::Reduce => return q.reduce(&input, O::default()).map(Some),
                    What::InclusiveScan | What::ExclusiveScan => {
                        q.scan(&input, &mut output, O::default(), kind)?
                    }
                    What::RowsReduce => {
                        q.rows_reduce(&rows_in, width, &mut output, O::default())?
                    }
                    What::RowsScan => {
                        let whole = input.slice(0..n / width * width);
                        let mut out = output.slice_mut(0..n / width * width);
                        q.rows_scan(&whole, width, &mut out, O::default(), kind)?
                    }
                    What::SegmentsReduce => {
                        q.segments_reduce(&input, &offsets, &mut output, O::default())?
                    }
                    What::SegmentsScan => {
                        q.segments_scan(&input, &offsets, &mut output, O::default(), kind)?
                    }
                    What::ArgMin | What::ArgMax => unreachable!(),
                }
                q.synchronize()?;
                Ok(None)
            };
            once(&mut q)?; // warm-up: module load and first-launch costs
            let start = Instant::now();
            let v = once(&mut q)?;
            (v, start.elapsed())
        };
        if let Some(v) = value {
            let want = reference::reduce::<T, O>(&data);
            println!(
                "{} of {n} {}: {v} (CPU: {want:?}) in {took:?}",
                O::NAME,
                T::NAME
            );
            return Ok(close(
                v.to_accum(),
                T::from_accum(want).to_accum(),
                magnitude,
            ));
        }
        let got = stream.clone_dtoh(&output).map_err(driver("download"))?;
        let rows: Vec<(usize, usize)> = match what {
            What::InclusiveScan | What::ExclusiveScan => vec![(0, n)],
            What::RowsReduce | What::RowsScan => (0..n / width)
                .map(|r| (r * width, (r + 1) * width))
                .collect(),
            _ => offsets
                .windows(2)
                .map(|w| (w[0] as usize, w[1] as usize))
                .collect(),
        };
        let mut bad = 0usize;
        for (r, &(a, b)) in rows.iter().enumerate() {
            let mut fold = Fold::<T::Accum>::new(O::NAME);
            let mut mag = 0.0;
            for i in a..b {
                let before = fold.value();
                fold.push(data[i].to_accum());
                mag += data[i].to_accum().wide().abs();
                if matches!(what, What::RowsReduce | What::SegmentsReduce) {
                    continue;
                }
                let want = if kind == ScanKind::Exclusive {
                    before
                } else {
                    fold.value()
                };
                bad += !close(got[i].to_accum(), T::from_accum(want).to_accum(), mag) as usize;
            }
            if matches!(what, What::RowsReduce | What::SegmentsReduce) {
                bad += !close(
                    got[r].to_accum(),
                    T::from_accum(fold.value()).to_accum(),
                    mag,
                ) as usize;
            }
        }
        println!(
            "{} {} of {n} {} ({} rows): {} mismatches against the CPU, in {took:?}",
            clap::ValueEnum::to_possible_value(&what)
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default(),
            O::NAME,
            T::NAME,
            rows.len(),
            bad
        );
        Ok(bad == 0)
    }
}

fn driver(op: &'static str) -> impl Fn(warpkit_host::cudarc::driver::DriverError) -> Error {
    move |source| Error::Driver { op, source }
}

/// Refuses, as clap refuses a bad argument (usage and exit status 2), the combinations that
/// its attributes cannot express.
fn refuse_conflicts(args: &Args) {
    let arg = matches!(args.what, What::ArgMin | What::ArgMax);
    let conflict = match (arg, args.op) {
        (true, Some(_)) => {
            "arg-min and arg-max take no --op: they find the index of the least or greatest value"
        }
        _ => return,
    };
    Args::command()
        .error(ErrorKind::ArgumentConflict, conflict)
        .exit()
}

fn main() {
    let args = Args::parse();
    refuse_conflicts(&args);
    let wk = match Warpkit::new(args.device) {
        Ok(wk) => wk,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    println!("device: {}", wk.describe());
    let run = Run {
        wk: &wk,
        args: &args,
    };
    let arg = matches!(args.what, What::ArgMin | What::ArgMax);
    let result = match (args.r#type, arg) {
        (Type::U32, false) => run.go::<u32>(),
        (Type::I32, false) => run.go::<i32>(),
        (Type::U64, false) => run.go::<u64>(),
        (Type::I64, false) => run.go::<i64>(),
        (Type::F32, false) => run.go::<f32>(),
        (Type::F64, false) => run.go::<f64>(),
        (Type::F16, false) => run.go::<f16>(),
        (Type::Bf16, false) => run.go::<bf16>(),
        (Type::U32, true) => run.arg::<u32>(),
        (Type::I32, true) => run.arg::<i32>(),
        (Type::U64, true) => run.arg::<u64>(),
        (Type::I64, true) => run.arg::<i64>(),
        (Type::F32, true) => run.arg::<f32>(),
        (Type::F64, true) => run.arg::<f64>(),
        (Type::F16, true) => run.arg::<f16>(),
        (Type::Bf16, true) => run.arg::<bf16>(),
    };
    match result {
        Ok(true) => {}
        Ok(false) => {
            eprintln!("error: the result differs from the CPU's");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
