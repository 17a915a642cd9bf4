//! Launches the example kernels of `user-kernels` and checks them against the CPU.
//! Without a GPU it says so and exits successfully.

use cust::memory::{CopyDestination, DeviceBuffer};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use cust::{launch, prelude::Device};
use rand::Rng;
use warpkit_builder::Target;

include!(concat!(env!("OUT_DIR"), "/user_kernels_ptx.rs"));

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let _context = match cust::quick_init() {
        Ok(c) => c,
        Err(e) => {
            println!("skipped: no CUDA device ({e})");
            return Ok(());
        }
    };
    let device = Device::get_device(0)?;
    let (major, minor) = (
        device.get_attribute(cust::device::DeviceAttribute::ComputeCapabilityMajor)? as u32,
        device.get_attribute(cust::device::DeviceAttribute::ComputeCapabilityMinor)? as u32,
    );
    let (target, ptx) =
        Target::best_for(USER_KERNELS_PTX, major, minor).ok_or("no PTX for this device")?;
    println!(
        "{} (compute {major}.{minor}): loading PTX for {target}",
        device.name()?
    );
    let module = Module::from_ptx(ptx, &[])?;
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None)?;

    let n = 1 << 16;
    let mut rng = rand::rng();
    let values: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let keys: Vec<u32> = (0..n).map(|_| rng.random_range(0..4)).collect();
    let (dv, dk) = (
        DeviceBuffer::from_slice(&values)?,
        DeviceBuffer::from_slice(&keys)?,
    );
    let sums = DeviceBuffer::from_slice(&vec![f32::NAN; n / 32])?;
    let maxima = DeviceBuffer::from_slice(&vec![f32::NAN; n / 8])?;
    let ranks = DeviceBuffer::from_slice(&vec![u32::MAX; n])?;
    let warp_stats = module.get_function("warp_stats")?;
    // SAFETY: the kernel takes these five pointers; one thread per value.
    unsafe {
        launch!(warp_stats<<<(n / 256) as u32, 256, 0, stream>>>(
            dv.as_device_ptr(), dk.as_device_ptr(), sums.as_device_ptr(), maxima.as_device_ptr(), ranks.as_device_ptr()
        ))?;
    }
    let values_u: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
    let du = DeviceBuffer::from_slice(&values_u)?;
    let prefix = DeviceBuffer::from_slice(&vec![u32::MAX; n])?;
    let block_prefix_sums = module.get_function("block_prefix_sums")?;
    // SAFETY: the kernel takes two pointers; 256-thread blocks cover the input.
    unsafe {
        launch!(block_prefix_sums<<<(n / 256) as u32, 256, 0, stream>>>(du.as_device_ptr(), prefix.as_device_ptr()))?;
    }
    stream.synchronize()?;

    let (mut s, mut m, mut r, mut p) = (
        vec![0.0f32; n / 32],
        vec![0.0f32; n / 8],
        vec![0u32; n],
        vec![0u32; n],
    );
    sums.copy_to(&mut s[..])?;
    maxima.copy_to(&mut m[..])?;
    ranks.copy_to(&mut r[..])?;
    prefix.copy_to(&mut p[..])?;
    for (w, got) in s.iter().enumerate() {
        let want: f64 = values[w * 32..][..32].iter().map(|&x| x as f64).sum();
        assert!(
            (*got as f64 - want).abs() < 1e-4,
            "warp {w}: {got} vs {want}"
        );
    }
    for (g, got) in m.iter().enumerate() {
        let want = values[g * 8..][..8]
            .iter()
            .cloned()
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(*got, want, "group {g}");
    }
    for i in 0..n {
        let base = i / 32 * 32;
        let want = (base..i).filter(|&j| keys[j] == keys[i]).count() as u32;
        assert_eq!(r[i], want, "rank of lane {i}");
        let block = i / 256 * 256;
        let want: u32 = values_u[block..=i].iter().sum();
        assert_eq!(p[i], want, "block prefix at {i}");
    }
    println!(
        "warp sums, Tile<8> maxima, match.any ranks and block prefix sums of {n} values: all match the CPU"
    );
    Ok(())
}
