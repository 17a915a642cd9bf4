//! Sharded reduce and scan on 2 GPUs against one GPU running one shard (`cargo xtask bench
//! --multi-gpu`, or `bench-multi` from `cargo xtask gpu-pack`; `--quick` for two sizes).
//!
//! For each size `n` per GPU (2^26..2^31, the sizes whose input and output fit in the free
//! memory), `u32` and `f32` sums: the time of one GPU's reduce/scan of `n` items, the time of
//! the 2-GPU sharded operation over `2n` items (local work + NCCL all-gather + fold + carry),
//! aggregate GB/s (bytes of the operation / time), scaling efficiency (one GPU's time for its
//! shard over the 2-GPU time: 100% is perfect), and NCCL's own `ncclAllReduce` of `n` items
//! per GPU beside it. Timing: host clock around 10 back-to-back operations after a warm-up,
//! waiting for every GPU; the median of 5 such runs.

use std::time::Instant;
use warpkit::ops::Sum;
use warpkit_host::cudarc::driver::{CudaSlice, DevicePtr, result, sys};
use warpkit_host::multi::{DataType, MultiGpu, RedOp};
use warpkit_host::{Element, Queue, ScanKind};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Seconds per call of `f` (which enqueues), `sync` waiting for all of it.
fn time(mut f: impl FnMut(), sync: &dyn Fn()) -> f64 {
    f();
    sync();
    let reps = 10;
    median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..reps {
                    f();
                }
                sync();
                t.elapsed().as_secs_f64() / reps as f64
            })
            .collect(),
    )
}

fn fill<T>(gpus: &MultiGpu, shards: &[CudaSlice<T>], word: u32) {
    for (i, s) in shards.iter().enumerate() {
        let stream = gpus.stream(i);
        let (ptr, _g) = s.device_ptr(stream);
        let words = std::mem::size_of::<T>() * s.len() / 4;
        // SAFETY: `words` 4-byte words of the shard.
        unsafe { sys::cuMemsetD32Async(ptr, word, words, stream.cu_stream()) }
            .result()
            .unwrap();
    }
}

struct Row {
    op: &'static str,
    ty: &'static str,
    n: usize,
    one: f64,
    two: f64,
    nccl: f64,
    bytes: f64,
}

fn measure<T: Element>(
    gpus: &mut MultiGpu,
    single: &mut Queue,
    n: usize,
    word: u32,
    ty: DataType,
) -> Vec<Row>
where
    T::Accum: Element,
{
    let world = gpus.world_size();
    let inputs = gpus.alloc::<T>(&vec![n; world]).unwrap();
    let mut outputs = gpus.alloc::<T>(&vec![n; world]).unwrap();
    let mut totals = gpus.alloc::<T::Accum>(&vec![1; world]).unwrap();
    fill(gpus, &inputs, word);
    gpus.synchronize().unwrap();
    let item = std::mem::size_of::<T>() as f64;
    let mut rows = Vec::new();
    // One GPU: the shard of GPU 0 alone.
    let one_reduce = {
        let mut out = single.stream().alloc_zeros::<T::Accum>(1).unwrap();
        let q = &mut *single;
        let s = q.stream().clone();
        time(
            || q.reduce_into(&inputs[0], &mut out, Sum).unwrap(),
            &|| s.synchronize().unwrap(),
        )
    };
    let one_scan = {
        let q = &mut *single;
        let s = q.stream().clone();
        let out = &mut outputs[0];
        time(
            || q.scan(&inputs[0], out, Sum, ScanKind::Inclusive).unwrap(),
            &|| s.synchronize().unwrap(),
        )
    };
    let streams: Vec<_> = (0..world).map(|i| gpus.stream(i).clone()).collect();
    let sync = || streams.iter().for_each(|s| s.synchronize().unwrap());
    let two_reduce = time(
        || gpus.reduce_into(&inputs, &mut totals, Sum).unwrap(),
        &sync,
    );
    let two_scan = time(
        || {
            gpus.scan(&inputs, &mut outputs, Sum, ScanKind::Inclusive)
                .unwrap()
        },
        &sync,
    );
    let mut buffers = inputs;
    let nccl = time(
        || gpus.nccl_all_reduce(&mut buffers, ty, RedOp::Sum).unwrap(),
        &sync,
    );
    rows.push(Row {
        op: "reduce_sum",
        ty: T::NAME,
        n,
        one: one_reduce,
        two: two_reduce,
        nccl,
        bytes: n as f64 * item,
    });
    rows.push(Row {
        op: "scan_inclusive_sum",
        ty: T::NAME,
        n,
        one: one_scan,
        two: two_scan,
        nccl,
        bytes: 2.0 * n as f64 * item,
    });
    rows
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    if std::env::args().any(|a| a == "--list") {
        return; // cargo bench --no-run / libtest probes
    }
    let count = match warpkit_host::open_device(0) {
        Ok(_) => result::device::get_count().unwrap() as usize,
        Err(e) => {
            eprintln!("bench multi: {e}; it needs 2 GPUs");
            return;
        }
    };
    if count < 2 {
        eprintln!("bench multi: the driver reports {count} GPU(s); it needs 2");
        return;
    }
    let mut gpus = match MultiGpu::new(&[0, 1]) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("bench multi: {e}");
            std::process::exit(1);
        }
    };
    let (path, v) = warpkit_host::multi::nccl::library().unwrap();
    println!(
        "NCCL {}.{}.{} ({}); GPU 0: {}; GPU 1: {}",
        v.0,
        v.1,
        v.2,
        path.display(),
        gpus.warpkit(0).describe(),
        gpus.warpkit(1).describe()
    );
    let wk = gpus.warpkit(0).clone();
    let stream = wk.new_stream().unwrap();
    let mut single = Queue::new(&wk, &stream).unwrap();
    let sizes: Vec<u32> = if quick {
        vec![26, 28]
    } else {
        (26..=31).collect()
    };
    println!(
        "| op | type | n per GPU | 1 GPU (µs) | 1 GPU GB/s | 2 GPUs (µs) | 2 GPUs aggregate GB/s | scaling efficiency | NCCL all-reduce of n per GPU (µs) |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|");
    let mut csv =
        String::from("op,type,n_per_gpu,one_gpu_s,two_gpu_s,efficiency,nccl_all_reduce_s\n");
    for k in sizes {
        let n = 1usize << k;
        // Input and output per GPU, plus a margin for the scan's status and NCCL.
        let (free, _) = {
            wk.context().bind_to_thread().unwrap();
            result::mem_get_info().unwrap()
        };
        if 2 * n * 4 + (1 << 30) > free {
            println!(
                "(2^{k}: {} GiB free per GPU, not enough; stopped)",
                free >> 30
            );
            break;
        }
        let mut rows = measure::<u32>(&mut gpus, &mut single, n, 1, DataType::Uint32);
        rows.extend(measure::<f32>(
            &mut gpus,
            &mut single,
            n,
            1.0f32.to_bits(),
            DataType::Float32,
        ));
        for r in rows {
            let eff = r.one / r.two;
            println!(
                "| {} | {} | 2^{k} | {:.1} | {:.0} | {:.1} | {:.0} | {:.0}% | {:.1} |",
                r.op,
                r.ty,
                r.one * 1e6,
                r.bytes / r.one / 1e9,
                r.two * 1e6,
                2.0 * r.bytes / r.two / 1e9,
                eff * 100.0,
                r.nccl * 1e6
            );
            csv.push_str(&format!(
                "{},{},{},{},{},{},{}\n",
                r.op, r.ty, r.n, r.one, r.two, eff, r.nccl
            ));
        }
    }
    if let Some(dir) = std::env::var_os("WARPKIT_BENCH_OUT") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("multi.csv"), csv).unwrap();
    }
}
