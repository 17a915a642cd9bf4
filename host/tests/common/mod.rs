//! Shared by the GPU tests: device detection that skips cleanly, buffers, launches.
#![allow(dead_code)]

use cust::memory::{CopyDestination, DeviceBuffer, DeviceCopy};
use cust::stream::{Stream, StreamFlags};
use warpkit_host::{Error, Warpkit, arg};

/// The device, or `None` with the reason printed when there is none.
pub fn device(target: Option<&str>) -> Option<Warpkit> {
    let wk = match target {
        None => Warpkit::new(),
        Some(t) => Warpkit::with_target(t),
    };
    match wk {
        Ok(wk) => {
            eprintln!("device: {}", wk.describe());
            Some(wk)
        }
        Err(Error::NoDevice(e)) => {
            eprintln!(
                "skipped: no CUDA device on this machine ({e}); this test runs on the GPU machine"
            );
            None
        }
        Err(e) => panic!("{e}"),
    }
}

pub fn stream() -> Stream {
    Stream::new(StreamFlags::NON_BLOCKING, None).unwrap()
}

pub fn upload<T: DeviceCopy>(data: &[T]) -> DeviceBuffer<T> {
    DeviceBuffer::from_slice(data).unwrap()
}

/// A device buffer of `len` elements, every byte 0xA5 (so unwritten elements show).
pub fn poisoned<T: DeviceCopy + bytemuck::Pod>(len: usize) -> DeviceBuffer<T> {
    let mut b = unsafe { DeviceBuffer::uninitialized(len) }.unwrap();
    poison(&mut b);
    b
}

pub fn poison<T: DeviceCopy + bytemuck::Pod>(b: &mut DeviceBuffer<T>) {
    let mut host = vec![T::zeroed(); b.len()];
    bytemuck::cast_slice_mut::<T, u8>(&mut host).fill(0xA5);
    b.copy_from(&host[..]).unwrap();
}

pub fn download<T: DeviceCopy + Default + Clone>(b: &DeviceBuffer<T>) -> Vec<T> {
    let mut v = vec![T::default(); b.len()];
    b.copy_to(&mut v[..]).unwrap();
    v
}

/// Launches a test kernel with 256-thread blocks over `threads` threads and waits.
pub fn run(wk: &Warpkit, name: &str, threads: usize, args: &[*mut std::ffi::c_void]) {
    let s = stream();
    let block = threads.min(256) as u32;
    let grid = threads.div_ceil(block as usize) as u32;
    unsafe { wk.launch(&s, name, grid, block, args) }.unwrap();
    s.synchronize().unwrap_or_else(|e| panic!("{name}: {e}"));
}

pub fn ptr<T: DeviceCopy>(b: &DeviceBuffer<T>) -> u64 {
    b.as_device_ptr().as_raw()
}

pub fn a<T>(v: &T) -> *mut std::ffi::c_void {
    arg(v)
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
