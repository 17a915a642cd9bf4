//! Shared by the GPU tests: device detection that skips cleanly (or fails, with
//! `WARPKIT_REQUIRE_GPU=1`), buffers, launches.
#![allow(dead_code)]

use std::sync::Arc;
use warpkit_host::cudarc::driver::{CudaGraph, CudaSlice, CudaStream, DeviceRepr, sys};
use warpkit_host::{Error, Warpkit, open_device};

/// Whether a missing GPU is a failure (the GPU machine sets `WARPKIT_REQUIRE_GPU=1`).
pub fn gpu_required() -> bool {
    std::env::var("WARPKIT_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Device 0 (with the PTX of `target`), or `None` with the reason printed when this machine
/// has no driver or no device. Any other error fails the test: a broken driver is not "no GPU".
pub fn device(target: Option<&str>) -> Option<Warpkit> {
    let wk = open_device(0).and_then(|ctx| match target {
        None => Warpkit::on(&ctx),
        Some(t) => Warpkit::with_target(&ctx, t),
    });
    match wk {
        Ok(wk) => {
            eprintln!("device: {}", wk.describe());
            Some(wk)
        }
        Err(e) if e.is_no_gpu() && !gpu_required() => {
            eprintln!("skipped: {e}; this test runs on the GPU machine");
            None
        }
        Err(e @ (Error::NoDriver | Error::NoDevice { .. })) => {
            panic!("WARPKIT_REQUIRE_GPU=1 but: {e}")
        }
        Err(e) => panic!("{e}"),
    }
}

thread_local! {
    static STREAM: std::cell::OnceCell<Arc<CudaStream>> = const { std::cell::OnceCell::new() };
}

/// This thread's test stream (non-blocking) on device 0.
pub fn stream() -> Arc<CudaStream> {
    STREAM.with(|s| {
        s.get_or_init(|| open_device(0).unwrap().new_stream().unwrap())
            .clone()
    })
}

pub fn upload<T: DeviceRepr>(data: &[T]) -> CudaSlice<T> {
    stream().clone_htod(data).unwrap()
}

/// A device buffer of `len` elements, every byte 0xA5 (so unwritten elements show).
pub fn poisoned<T: DeviceRepr + bytemuck::Pod>(len: usize) -> CudaSlice<T> {
    let mut host = vec![T::zeroed(); len];
    bytemuck::cast_slice_mut::<T, u8>(&mut host).fill(0xA5);
    upload(&host)
}

pub fn download<T: DeviceRepr>(b: &CudaSlice<T>) -> Vec<T> {
    b.stream().clone_dtoh(b).unwrap()
}

/// The targets whose PTX runs on this device: the newest, and older ones that hold the
/// shuffle fallbacks (the driver compiles their PTX for the device).
pub fn runnable_targets(wk: &Warpkit) -> Vec<&'static str> {
    let (major, minor) = wk.compute_capability();
    warpkit_host::ptx::targets()
        .into_iter()
        .filter(|t| {
            warpkit_builder::Target::parse(t)
                .unwrap()
                .runs_on(major, minor)
        })
        .collect()
}

/// A capture whose operations were all refused captured nothing: the graph the driver
/// returned for it, if any, has no nodes.
pub fn assert_captured_nothing(graph: Option<CudaGraph>, what: &str) {
    if let Some(graph) = graph {
        let mut nodes = 0usize;
        // SAFETY: a live graph; asks for the node count only.
        unsafe { sys::cuGraphGetNodes(graph.cu_graph(), std::ptr::null_mut(), &mut nodes) }
            .result()
            .unwrap();
        assert_eq!(nodes, 0, "{what} captured work");
    }
}
