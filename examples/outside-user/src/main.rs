//! Sums a few numbers on the GPU with warpkit-host; without a GPU, says why and exits 0.

use warpkit::ops::Sum;
use warpkit_host::{Queue, Warpkit};

fn main() -> Result<(), warpkit_host::Error> {
    let wk = match Warpkit::new(0) {
        Ok(wk) => wk,
        Err(e) if e.is_no_gpu() => {
            println!("built without CUDA; at run time: {e}");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let stream = wk.new_stream()?;
    let mut queue = Queue::new(&wk, &stream)?;
    let data: Vec<u64> = (1..=1000).collect();
    let input = stream.clone_htod(&data).expect("upload");
    let total = queue.reduce(&input, Sum)?;
    assert_eq!(total, 500_500);
    println!("{}: sum of 1..=1000 = {total}", wk.describe());
    Ok(())
}
