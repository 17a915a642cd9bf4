//! The `cust` adapter on the GPU: cust's context, stream and `DeviceBuffer`s, warpkit's
//! operations through `CustQueue`, every result against the CPU model. Skips without a GPU
//! (fails with `WARPKIT_REQUIRE_GPU=1`). Needs libcuda at link time (feature `cust`).

mod common;

use cust::memory::{CopyDestination, DeviceBuffer};
use cust::stream::{Stream, StreamFlags};
use rand::Rng;
use warpkit::ops::{ArgMax, Max, Min, Sum};
use warpkit_host::cust::CustQueue;
use warpkit_host::{ArgResult, ScanKind, reference};

#[test]
fn cust_buffers_and_stream() {
    let Some(wk) = common::device(None) else {
        return;
    };
    // cust's context is the device's primary context, the one warpkit-host uses.
    let _ctx = cust::quick_init().expect("cust::quick_init");
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    let mut queue = CustQueue::new(&wk, &stream).unwrap();
    let mut rng = rand::rng();
    for n in [1usize, 1000, (1 << 20) + 17] {
        let data: Vec<u32> = (0..n).map(|_| rng.random_range(0..1 << 20)).collect();
        let input = DeviceBuffer::from_slice(&data).unwrap();
        assert_eq!(
            queue.reduce(&input, Sum).unwrap(),
            reference::reduce::<u32, Sum>(&data),
            "sum of {n}"
        );
        let mut output = DeviceBuffer::from_slice(&vec![0xA5A5_A5A5u32; n]).unwrap();
        queue
            .scan(&input, &mut output, Max, ScanKind::Exclusive)
            .unwrap();
        let mut got = vec![0u32; n];
        output.copy_to(&mut got[..]).unwrap();
        assert_eq!(got, reference::scan::<u32, Max>(&data, true), "scan of {n}");

        let floats: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let input = DeviceBuffer::from_slice(&floats).unwrap();
        assert_eq!(
            queue.reduce(&input, Min).unwrap().to_bits(),
            reference::reduce::<f32, Min>(&floats).to_bits(),
            "f32 min of {n}"
        );
        let (value, index) = queue.arg_reduce(&input, ArgMax).unwrap().unwrap();
        let (want_value, want_index) = reference::arg_reduce::<f32, ArgMax>(&floats).unwrap();
        assert_eq!((value.to_bits(), index), (want_value.to_bits(), want_index));
        let poison = ArgResult::new(f32::from_bits(0xA5A5_A5A5), 0xA5A5_A5A5);
        let mut slot = DeviceBuffer::from_slice(&[poison]).unwrap();
        queue.arg_reduce_into(&input, &mut slot, ArgMax).unwrap();
        let mut got = [poison];
        slot.copy_to(&mut got[..]).unwrap();
        assert_eq!(
            (got[0].value.to_bits(), got[0].index as usize),
            (want_value.to_bits(), want_index),
            "arg_reduce_into of {n}"
        );
    }
    let input = DeviceBuffer::from_slice(&[1.0f32]).unwrap();
    let mut none = DeviceBuffer::<ArgResult<f32>>::from_slice(&[]).unwrap();
    let refused = queue
        .arg_reduce_into(&input, &mut none, ArgMax)
        .unwrap_err();
    assert!(refused.to_string().contains("output"), "{refused}");
}
