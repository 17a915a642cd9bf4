//! Sums numbers and scans this crate's own type (2×2 matrix products, from `kernels/`) on the
//! GPU with warpkit-host, checking both against the CPU; without a GPU, says why and exits 0.

use outside_user_kernels::{Mat2, MatMul};
use rand::Rng;
use warpkit::ops::{ReduceOp, Sum};
use warpkit_host::{CustomKernels, Queue, ScanKind, Warpkit};

include!(concat!(env!("OUT_DIR"), "/my_kernels_ptx.rs"));

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let wk = match Warpkit::new(0) {
        Ok(wk) => wk,
        Err(e) if e.is_no_gpu() => {
            println!("built without CUDA; at run time: {e}");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let stream = wk.new_stream()?;
    let mut queue = Queue::new(&wk, &stream)?;
    let data: Vec<u64> = (1..=1000).collect();
    let input = stream.clone_htod(&data)?;
    let total = queue.reduce(&input, Sum)?;
    assert_eq!(total, 500_500);
    println!("{}: sum of 1..=1000 = {total}", wk.describe());

    // The kernel crate's own operator: a scan of 2×2 matrix products (order matters).
    let (major, minor) = wk.compute_capability();
    let driver = warpkit_host::launch::driver_version()?;
    let (target, ptx) =
        warpkit_builder::Target::best_for_driver(MY_KERNELS_PTX, major, minor, driver)
            .ok_or("no PTX of the kernel crate runs on this device and its driver")?;
    // SAFETY: `ptx` is this crate's kernel crate, whose `custom_kernels!` emitted `mat2`.
    let kernels = unsafe { CustomKernels::<Mat2, MatMul>::load(&wk, ptx, "mat2") }?;
    let mut rng = rand::rng();
    let n = 300_007;
    let matrices: Vec<Mat2> = (0..n).map(|_| Mat2(rng.random())).collect();
    let input = stream.clone_htod(&matrices)?;
    let mut products = stream.alloc_zeros::<Mat2>(n)?;
    queue
        .custom(&kernels)?
        .scan(&input, &mut products, ScanKind::Inclusive)?;
    let got = stream.clone_dtoh(&products)?;
    let mut acc = MatMul.identity();
    for (i, &m) in matrices.iter().enumerate() {
        acc = MatMul.combine(acc, m);
        assert_eq!(got[i], acc, "prefix product {i}");
    }
    let product = queue.custom(&kernels)?.reduce(&input)?;
    assert_eq!(product, acc, "product of all {n} matrices");
    println!("{n} prefix products of 2x2 matrices and their product (custom_kernels!, PTX {target}): match the CPU");
    Ok(())
}
