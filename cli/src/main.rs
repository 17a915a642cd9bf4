//! `warpkit reduce|scan --type f32 --op sum --n 1000000`: runs one operation on generated
//! data, checks it against the CPU, and prints the result and the time.

use clap::{Parser, ValueEnum};
use cust::memory::DeviceBuffer;
use cust::stream::{Stream, StreamFlags};
use rand::Rng;
use std::time::Instant;
use warpkit::ops::{Max, Min, Sum};
use warpkit_host::{DeviceOp, Element, Queue, ScanKind, Warpkit};

#[derive(Parser)]
#[command(about = "Run a warpkit reduction or scan on generated data")]
struct Args {
    /// reduce, inclusive-scan or exclusive-scan
    #[arg(value_enum)]
    what: What,
    #[arg(long, value_enum, default_value = "f32")]
    r#type: Type,
    #[arg(long, value_enum, default_value = "sum")]
    op: Op,
    /// Number of elements.
    #[arg(long, default_value_t = 1 << 24)]
    n: usize,
}

#[derive(Clone, Copy, ValueEnum)]
enum What {
    Reduce,
    InclusiveScan,
    ExclusiveScan,
}

#[derive(Clone, Copy, ValueEnum)]
enum Type {
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

#[derive(Clone, Copy, ValueEnum)]
enum Op {
    Sum,
    Min,
    Max,
}

trait Gen: Element + Default + std::fmt::Display {
    fn draw(rng: &mut impl Rng) -> Self;
}
macro_rules! gens { ($($t:ty => $e:expr;)*) => {$(impl Gen for $t { fn draw(rng: &mut impl Rng) -> Self { let f: fn(&mut dyn rand::RngCore) -> $t = $e; f(rng) } })*}; }
gens! {
    u32 => |r| r.next_u32() % 1000; i32 => |r| (r.next_u32() % 1000) as i32 - 500;
    u64 => |r| r.next_u64() % 1000; i64 => |r| (r.next_u64() % 1000) as i64 - 500;
    f32 => |r| (r.next_u32() % 2000) as f32 / 1000.0 - 1.0; f64 => |r| (r.next_u32() % 2000) as f64 / 1000.0 - 1.0;
}

fn run<T: Gen, O: DeviceOp<T>>(
    wk: &Warpkit,
    what: What,
    n: usize,
    op: O,
) -> Result<(), warpkit_host::Error> {
    let mut rng = rand::rng();
    let data: Vec<T> = (0..n).map(|_| T::draw(&mut rng)).collect();
    let input = DeviceBuffer::from_slice(&data).map_err(|e| warpkit_host::Error::Driver {
        op: "upload",
        source: e,
    })?;
    let stream =
        Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| warpkit_host::Error::Driver {
            op: "stream",
            source: e,
        })?;
    let mut q = Queue::new(wk, &stream);
    let cpu = data.iter().fold(op.identity(), |a, &b| op.combine(a, b));
    match what {
        What::Reduce => {
            q.reduce(&input, op)?; // warm-up: module load and first-launch costs
            let start = Instant::now();
            let value = q.reduce(&input, op)?;
            let took = start.elapsed();
            println!(
                "{} of {n} {}: {value} (CPU: {cpu}) in {took:?}",
                O::NAME,
                T::NAME
            );
        }
        What::InclusiveScan | What::ExclusiveScan => {
            let kind = if matches!(what, What::InclusiveScan) {
                ScanKind::Inclusive
            } else {
                ScanKind::Exclusive
            };
            let mut output = DeviceBuffer::from_slice(&vec![T::default(); n]).map_err(|e| {
                warpkit_host::Error::Driver {
                    op: "allocate",
                    source: e,
                }
            })?;
            q.scan(&input, &mut output, op, kind)?;
            q.synchronize()?;
            let start = Instant::now();
            q.scan(&input, &mut output, op, kind)?;
            q.synchronize()?;
            let took = start.elapsed();
            let mut last = vec![T::default(); n];
            output
                .copy_to(&mut last[..])
                .map_err(|e| warpkit_host::Error::Driver {
                    op: "download",
                    source: e,
                })?;
            let shown = last
                .last()
                .map(|v| v.to_string())
                .unwrap_or_else(|| "(empty)".into());
            println!(
                "{kind:?} {} scan of {n} {}: last element {shown} (CPU total: {cpu}) in {took:?}",
                O::NAME,
                T::NAME
            );
        }
    }
    Ok(())
}

use cust::memory::CopyDestination;

fn main() {
    let args = Args::parse();
    let wk = match Warpkit::new() {
        Ok(wk) => wk,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    println!("device: {}", wk.describe());
    macro_rules! dispatch {
        ($t:ty) => {
            match args.op {
                Op::Sum => run::<$t, Sum>(&wk, args.what, args.n, Sum),
                Op::Min => run::<$t, Min>(&wk, args.what, args.n, Min),
                Op::Max => run::<$t, Max>(&wk, args.what, args.n, Max),
            }
        };
    }
    let result = match args.r#type {
        Type::U32 => dispatch!(u32),
        Type::I32 => dispatch!(i32),
        Type::U64 => dispatch!(u64),
        Type::I64 => dispatch!(i64),
        Type::F32 => dispatch!(f32),
        Type::F64 => dispatch!(f64),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
