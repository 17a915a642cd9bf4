//! Reductions and scans enqueued on a stream, with temporary storage reused across calls.

use crate::context::{Warpkit, arg};
use crate::element::{ArgOp, DeviceOp, Element};
use crate::error::{Context as _, Error};
use cust::memory::{CopyDestination, DeviceBuffer, DeviceCopy, DeviceSlice};
use cust::stream::Stream;
use warpkit::abi::{layout, params};
use warpkit::device::tuning::*;
use warpkit::ops::Indexed;

/// Which scan: `y[i] = x[0] ⊕ … ⊕ x[i]` or `x[0] ⊕ … ⊕ x[i-1]` (the identity at `i = 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanKind {
    Inclusive,
    Exclusive,
}

/// Work on one stream. Operations are asynchronous unless they return a value to the host;
/// a `Queue` owns its temporary storage, so queues on different streams never share it.
///
/// ```no_run
/// use cust::memory::DeviceBuffer;
/// use cust::stream::{Stream, StreamFlags};
/// use warpkit::ops::Sum;
/// use warpkit_host::{Queue, ScanKind, Warpkit};
///
/// let wk = Warpkit::new()?;
/// let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
/// let mut queue = Queue::new(&wk, &stream);
/// let input = DeviceBuffer::from_slice(&[1.0f32, 2.0, 3.0]).unwrap();
/// let mut output = DeviceBuffer::from_slice(&[0.0f32; 3]).unwrap();
/// queue.scan(&input, &mut output, Sum, ScanKind::Inclusive)?; // 1, 3, 6
/// assert_eq!(queue.reduce(&input, Sum)?, 6.0);
/// # Ok::<(), warpkit_host::Error>(())
/// ```
pub struct Queue<'a> {
    wk: &'a Warpkit,
    stream: &'a Stream,
    reduce: Option<ReduceStorage>,
    scan: Option<ScanStorage>,
    offsets: Option<DeviceBuffer<u64>>,
}

struct ReduceStorage {
    partials: DeviceBuffer<u8>,
    result: DeviceBuffer<u8>,
    counter: DeviceBuffer<u32>,
}

struct ScanStorage {
    /// The tile status for values of up to 8 bytes.
    status: DeviceBuffer<u64>,
    /// The kernel's control block (tickets, epoch), zeroed once.
    control: DeviceBuffer<u32>,
    /// A power of two, at least the number of tiles.
    capacity: usize,
}

/// Bytes of the largest reduced value (an `Indexed<f64, u64>`).
const MAX_VALUE_BYTES: usize = 16;

fn ptr<T: DeviceCopy>(s: &DeviceSlice<T>) -> u64 {
    s.as_device_ptr().as_raw()
}

fn overlap<T: DeviceCopy>(a: &DeviceSlice<T>, b: &DeviceSlice<T>) -> bool {
    let size = std::mem::size_of::<T>() as u64;
    let (a0, b0) = (ptr(a), ptr(b));
    a0 < b0 + b.len() as u64 * size && b0 < a0 + a.len() as u64 * size
}

/// Refuses an output whose length differs from the input's, or that overlaps the input other
/// than exactly (`in_place`: the same range is allowed).
fn check_output<T: DeviceCopy>(
    op: &'static str,
    input: &DeviceSlice<T>,
    output: &DeviceSlice<T>,
    in_place: bool,
) -> Result<(), Error> {
    if input.len() != output.len() {
        return Err(Error::LengthMismatch {
            op,
            input: input.len(),
            output: output.len(),
        });
    }
    let same = ptr(input) == ptr(output);
    if overlap(input, output) && !(in_place && same) {
        return Err(Error::Overlap { op });
    }
    Ok(())
}

impl<'a> Queue<'a> {
    /// A queue on `stream`; allocates nothing until an operation needs it.
    pub fn new(wk: &'a Warpkit, stream: &'a Stream) -> Queue<'a> {
        Queue {
            wk,
            stream,
            reduce: None,
            scan: None,
            offsets: None,
        }
    }

    /// Waits for everything enqueued so far.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream.synchronize().during("synchronize")
    }

    fn reduce_grid(&self, len: usize, item_bytes: usize) -> u32 {
        let tiles = layout::reduce_tiles(len as u64, item_bytes);
        let max = self.wk.multiprocessors() * REDUCE_BLOCKS_PER_SM;
        tiles.clamp(1, max as u64) as u32
    }

    fn reduce_storage(&mut self) -> Result<&ReduceStorage, Error> {
        if self.reduce.is_none() {
            let tiles = layout::REDUCE_MAX_TILES as usize;
            // SAFETY: u8 has no invalid bit patterns; the kernels write before reading.
            let partials = unsafe { DeviceBuffer::uninitialized(tiles * MAX_VALUE_BYTES) }
                .during("allocate")?;
            let result = DeviceBuffer::zeroed(MAX_VALUE_BYTES).during("allocate")?;
            let counter = DeviceBuffer::zeroed(1).during("allocate")?;
            self.reduce = Some(ReduceStorage {
                partials,
                result,
                counter,
            });
        }
        Ok(self.reduce.as_ref().expect("just allocated"))
    }

    /// Enqueues the single-pass reduce kernel `name` writing one `U` to `output`.
    fn launch_reduce<T: Element>(
        &mut self,
        name: &str,
        input: &DeviceSlice<T>,
        output: u64,
    ) -> Result<(), Error> {
        let grid = self.reduce_grid(input.len(), std::mem::size_of::<T>());
        let storage = self.reduce_storage()?;
        let params = params::Reduce {
            input: ptr(input),
            len: input.len() as u64,
            partials: storage.partials.as_device_ptr().as_raw(),
            counter: storage.counter.as_device_ptr().as_raw(),
            output,
        };
        let args = [arg(&params)];
        // SAFETY: the kernel takes `params::Reduce`; partials has room for the largest grid;
        // the counter is zero between launches (the last block resets it).
        unsafe {
            self.wk
                .launch(self.stream, name, grid, REDUCE_THREADS, &args)
        }
    }

    /// Enqueues the reduction of `input` into `output[0]`. Empty input writes the identity.
    pub fn reduce_into<T: Element, O: DeviceOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        output: &mut DeviceSlice<T>,
        op: O,
    ) -> Result<(), Error> {
        if output.is_empty() {
            return Err(Error::LengthMismatch {
                op: "reduce",
                input: 1,
                output: 0,
            });
        }
        if input.is_empty() {
            let identity = [op.identity()];
            // SAFETY: the host slice outlives the copy, which is complete when this returns.
            return unsafe {
                cust::memory::AsyncCopyDestination::async_copy_from(
                    &mut output.index(0..1),
                    &identity[..],
                    self.stream,
                )
            }
            .and_then(|_| self.stream.synchronize())
            .during("reduce");
        }
        let name = format!("warpkit_reduce_{}_{}", O::NAME, T::NAME);
        self.launch_reduce(&name, input, ptr(output))
    }

    /// The reduction of `input`, returned to the host (waits for the stream). Empty input
    /// gives the operator's identity.
    pub fn reduce<T: Element, O: DeviceOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        op: O,
    ) -> Result<T, Error> {
        if input.is_empty() {
            return Ok(op.identity());
        }
        let name = format!("warpkit_reduce_{}_{}", O::NAME, T::NAME);
        let out = self.reduce_storage()?.result.as_device_ptr().as_raw();
        self.launch_reduce(&name, input, out)?;
        self.read_result()
    }

    /// Arg-min or arg-max of `input`: the extreme value and the lowest index holding it, or
    /// `None` for empty input. NaN never wins over a number.
    pub fn arg_reduce<T: Element, O: ArgOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        _op: O,
    ) -> Result<Option<(T, usize)>, Error>
    where
        Indexed<T, T::Index>: bytemuck::Pod,
    {
        if input.is_empty() {
            return Ok(None);
        }
        // The index type's largest value marks "no index" (the identity).
        let max = if std::mem::size_of::<T::Index>() == 4 {
            u32::MAX as u64
        } else {
            u64::MAX
        };
        if input.len() as u64 >= max {
            return Err(Error::TooLarge {
                op: "arg_reduce",
                len: input.len(),
                max: max as usize - 1,
            });
        }
        let name = format!("warpkit_reduce_{}_{}", O::NAME, T::NAME);
        let out = self.reduce_storage()?.result.as_device_ptr().as_raw();
        self.launch_reduce(&name, input, out)?;
        let r: Indexed<T, T::Index> = self.read_result()?;
        Ok(Some((r.value, r.index.into() as usize)))
    }

    fn read_result<U: bytemuck::Pod>(&self) -> Result<U, Error> {
        self.synchronize()?;
        let mut bytes = [0u8; MAX_VALUE_BYTES];
        let storage = self
            .reduce
            .as_ref()
            .expect("reduce storage exists after a launch");
        storage
            .result
            .copy_to(&mut bytes[..])
            .during("copy result")?;
        Ok(bytemuck::pod_read_unaligned(
            &bytes[..std::mem::size_of::<U>()],
        ))
    }

    /// Enqueues a scan of `input` into `output` (same length; the same range or disjoint).
    pub fn scan<T: Element, O: DeviceOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        output: &mut DeviceSlice<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        check_output("scan", input, output, true)?;
        self.scan_raw::<T, O>(ptr(input), ptr(output), input.len(), kind)
    }

    /// Enqueues a scan of `data` in place.
    pub fn scan_in_place<T: Element, O: DeviceOp<T>>(
        &mut self,
        data: &mut DeviceSlice<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        self.scan_raw::<T, O>(ptr(data), ptr(data), data.len(), kind)
    }

    fn scan_raw<T: Element, O: DeviceOp<T>>(
        &mut self,
        src: u64,
        dst: u64,
        len: usize,
        kind: ScanKind,
    ) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        let tile = layout::scan_tile_items(std::mem::size_of::<T>()) as usize;
        let tiles = len.div_ceil(tile);
        if tiles > i32::MAX as usize {
            return Err(Error::TooLarge {
                op: "scan",
                len,
                max: i32::MAX as usize * tile,
            });
        }
        let storage = self.scan_storage(tiles)?;
        let params = params::Scan {
            input: src,
            output: dst,
            len: len as u64,
            status: storage.status.as_device_ptr().as_raw(),
            control: storage.control.as_device_ptr().as_raw(),
            capacity: storage.capacity as u32,
            exclusive: (kind == ScanKind::Exclusive) as u32,
        };
        let args = [arg(&params)];
        let name = format!("warpkit_scan_{}_{}", O::NAME, T::NAME);
        // SAFETY: the kernel takes `params::Scan`; one block per tile; the status tree has
        // room for every tile and no word of this epoch.
        unsafe {
            self.wk
                .launch(self.stream, &name, tiles as u32, SCAN_THREADS, &args)
        }
    }

    /// Tile-status storage for `tiles` tiles.
    fn scan_storage(&mut self, tiles: usize) -> Result<&ScanStorage, Error> {
        if self.scan.as_ref().is_none_or(|s| s.capacity < tiles) {
            // Dropping the old buffer waits for the work that uses it.
            self.scan = None;
            let capacity = tiles.next_power_of_two().max(1024);
            self.scan = Some(ScanStorage {
                status: DeviceBuffer::zeroed(layout::scan_status_words(capacity, 8))
                    .during("allocate")?,
                control: DeviceBuffer::zeroed(4).during("allocate")?,
                capacity,
            });
        }
        Ok(self.scan.as_ref().expect("just allocated"))
    }

    /// Enqueues one reduction per row of `width` elements: `output[r]` reduces
    /// `input[r*width..(r+1)*width]`. `input.len()` must be `output.len() * width`.
    pub fn rows_reduce<T: Element, O: DeviceOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        width: usize,
        output: &mut DeviceSlice<T>,
        _op: O,
    ) -> Result<(), Error> {
        let rows = output.len();
        if rows.checked_mul(width) != Some(input.len()) {
            return Err(Error::LengthMismatch {
                op: "rows_reduce",
                input: input.len(),
                output: rows * width,
            });
        }
        self.rows::<T, O>("reduce", input, 0, width, rows, ptr(output), None)
    }

    /// Enqueues one scan per row of `width` elements into `output` (same length as `input`).
    pub fn rows_scan<T: Element, O: DeviceOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        width: usize,
        output: &mut DeviceSlice<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        check_output("rows_scan", input, output, false)?;
        let rows = input.len().checked_div(width).unwrap_or(0);
        if rows * width != input.len() {
            return Err(Error::LengthMismatch {
                op: "rows_scan",
                input: input.len(),
                output: rows * width,
            });
        }
        self.rows::<T, O>("scan", input, 0, width, rows, ptr(output), Some(kind))
    }

    /// Enqueues one reduction per row `r` = `input[offsets[r]..offsets[r+1]]`.
    pub fn segments_reduce<T: Element, O: DeviceOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        offsets: &[u64],
        output: &mut DeviceSlice<T>,
        _op: O,
    ) -> Result<(), Error> {
        let rows = check_offsets("segments_reduce", offsets, input.len())?;
        if output.len() != rows {
            return Err(Error::LengthMismatch {
                op: "segments_reduce",
                input: rows,
                output: output.len(),
            });
        }
        let offsets = self.upload_offsets(offsets)?;
        self.rows::<T, O>("reduce", input, offsets, 0, rows, ptr(output), None)
    }

    /// Enqueues one scan per row `r` = `input[offsets[r]..offsets[r+1]]`, into the same
    /// positions of `output`; elements outside every row are left as they are.
    pub fn segments_scan<T: Element, O: DeviceOp<T>>(
        &mut self,
        input: &DeviceSlice<T>,
        offsets: &[u64],
        output: &mut DeviceSlice<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        check_output("segments_scan", input, output, false)?;
        let rows = check_offsets("segments_scan", offsets, input.len())?;
        let offsets = self.upload_offsets(offsets)?;
        self.rows::<T, O>("scan", input, offsets, 0, rows, ptr(output), Some(kind))
    }

    fn upload_offsets(&mut self, offsets: &[u64]) -> Result<u64, Error> {
        if self
            .offsets
            .as_ref()
            .is_none_or(|b| b.len() < offsets.len())
        {
            self.offsets = None;
            // SAFETY: u64 has no invalid bit patterns; it is written before any kernel reads it.
            self.offsets =
                Some(unsafe { DeviceBuffer::uninitialized(offsets.len()) }.during("allocate")?);
        }
        let buffer = self.offsets.as_mut().expect("just allocated");
        self.stream.synchronize().during("synchronize")?;
        buffer
            .index(0..offsets.len())
            .copy_from(offsets)
            .during("copy offsets")?;
        Ok(buffer.as_device_ptr().as_raw())
    }

    #[allow(clippy::too_many_arguments)]
    fn rows<T: Element, O: DeviceOp<T>>(
        &mut self,
        algo: &str,
        input: &DeviceSlice<T>,
        offsets: u64,
        width: usize,
        rows: usize,
        output: u64,
        kind: Option<ScanKind>,
    ) -> Result<(), Error> {
        if rows == 0 {
            return Ok(());
        }
        let warps_per_block = (ROWS_THREADS / 32) as usize;
        let max_blocks = self.wk.multiprocessors() as usize * 64;
        let grid = rows.div_ceil(warps_per_block).min(max_blocks) as u32;
        let params = params::Rows {
            input: ptr(input),
            offsets,
            width: width as u64,
            rows: rows as u64,
            output,
            exclusive: (kind == Some(ScanKind::Exclusive)) as u32,
            padding: 0,
        };
        let name = format!("warpkit_rows_{algo}_{}_{}", O::NAME, T::NAME);
        let args = [arg(&params)];
        // SAFETY: the row kernels take `params::Rows`; the callers checked that every row lies
        // inside input and output.
        unsafe {
            self.wk
                .launch(self.stream, &name, grid, ROWS_THREADS, &args)
        }
    }
}

/// Checks that `offsets` describe rows inside `len` elements; returns the row count.
pub fn check_offsets(op: &'static str, offsets: &[u64], len: usize) -> Result<usize, Error> {
    let bad = |reason: String| Err(Error::BadOffsets { op, reason });
    if offsets.is_empty() {
        return bad("need at least one offset (rows + 1 of them)".into());
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return bad(format!(
            "offsets[{}] = {} is below offsets[{i}] = {}; they must not decrease",
            i + 1,
            offsets[i + 1],
            offsets[i]
        ));
    }
    let last = *offsets.last().expect("not empty");
    if last > len as u64 {
        return bad(format!(
            "the last offset {last} exceeds the input length {len}"
        ));
    }
    Ok(offsets.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_must_be_monotonic_and_inside_the_input() {
        assert_eq!(check_offsets("t", &[0, 3, 3, 10], 10).unwrap(), 3);
        assert_eq!(check_offsets("t", &[5], 10).unwrap(), 0);
        let err = check_offsets("t", &[0, 4, 2], 10).unwrap_err().to_string();
        assert!(
            err.contains("offsets[2] = 2 is below offsets[1] = 4"),
            "{err}"
        );
        let err = check_offsets("t", &[0, 11], 10).unwrap_err().to_string();
        assert!(err.contains("exceeds the input length 10"), "{err}");
        assert!(check_offsets("t", &[], 10).is_err());
    }
}
