//! A [`Queue`]: work enqueued on one stream, with the temporary storage it reuses between
//! calls. The typed operations are in [`crate::ops`], the raw entry in [`crate::raw`].

use crate::context::Warpkit;
use crate::error::{During as _, Error};
use crate::module::Kernel;
use crate::ops::Set;
use cudarc::driver::{
    CudaEvent, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr, ValidAsZeroBits, result, sys,
};
use std::num::NonZeroU32;
use std::sync::Arc;
use warpkit::abi::params::scan_pass;
use warpkit::abi::{layout, params};
use warpkit::device::tuning::{
    self, REDUCE_BLOCKS_PER_SM, REDUCE_THREADS, ROWS_THREADS, SCAN_THREADS,
};

/// Which scan: `y[i] = x[0] ⊕ … ⊕ x[i]` or `x[0] ⊕ … ⊕ x[i-1]` (the identity at `i = 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanKind {
    Inclusive,
    Exclusive,
}

/// Work on one stream. Every allocation, memset, copy and launch of a queue goes to its
/// stream, never to the legacy default stream. Operations are asynchronous unless they return
/// a value to the host. A queue owns its temporary storage (freed stream-ordered on its
/// stream, after the work that uses it), so queues never share it.
///
/// `Queue` is `Send`: move it to another thread and keep using it (each call binds the
/// context to the calling thread). It is `Sync` too, but every operation takes `&mut self`,
/// so one queue enqueues from one thread at a time.
///
/// ```no_run
/// use warpkit::ops::Sum;
/// use warpkit_host::{Queue, ScanKind, Warpkit};
///
/// let wk = Warpkit::new(0)?;
/// let stream = wk.new_stream()?;
/// let mut queue = Queue::new(&wk, &stream)?;
/// let input = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
/// let mut output = stream.alloc_zeros::<f32>(3).unwrap();
/// queue.scan(&input, &mut output, Sum, ScanKind::Inclusive)?; // 1, 3, 6
/// assert_eq!(queue.reduce(&input, Sum)?, 6.0);
/// # Ok::<(), warpkit_host::Error>(())
/// ```
pub struct Queue {
    pub(crate) wk: Warpkit,
    pub(crate) stream: Arc<CudaStream>,
    reduce: Option<ReduceStorage>,
    scan: Option<ScanStorage>,
    offsets: Option<Buffer<u64>>,
    /// The host copy of the offsets last uploaded ([`Queue::upload_offsets`]).
    staged_offsets: Option<StagedOffsets>,
    /// Blocks resident per multiprocessor of each kernel whose grid fills the device (the
    /// device reduce, the block-per-row reduce), asked of the driver at its first launch (not
    /// on every launch: small reduces are host-bound).
    resident_blocks: Vec<(Kernel, u32)>,
    /// The largest cluster of each scan kernel launched on this queue, asked of the driver at
    /// its first launch ([`Kernel::cluster_blocks`]).
    scan_clusters: Vec<(Kernel, u32)>,
    /// Blocks of the device reduce's launches, if not the default ([`Queue::set_reduce_grid`]).
    reduce_grid: Option<NonZeroU32>,
    /// Operations enqueued while the stream was capturing a graph ([`Queue::note_capture`]).
    pub(crate) captured: u64,
}

/// A buffer the queue owns, with its address taken once (the queue orders its own uses on
/// its stream; dropping the slice frees it on that stream after them).
pub(crate) struct Buffer<T> {
    _slice: CudaSlice<T>,
    pub(crate) ptr: u64,
    pub(crate) len: usize,
}

impl<T: DeviceRepr + ValidAsZeroBits> Buffer<T> {
    pub(crate) fn new(
        stream: &Arc<CudaStream>,
        len: usize,
        zeroed: bool,
    ) -> Result<Buffer<T>, Error> {
        let len = len.max(1);
        let mut slice = if zeroed {
            stream.alloc_zeros::<T>(len).during("allocate")?
        } else {
            // SAFETY: the kernels write this storage before they read it.
            unsafe { stream.alloc::<T>(len) }.during("allocate")?
        };
        let (ptr, _record) = slice.device_ptr_mut(stream);
        drop(_record);
        Ok(Buffer {
            _slice: slice,
            ptr,
            len,
        })
    }
}

/// Row offsets copied from the caller's slice before they go to the device, so that the
/// device reads the offsets that were checked: a copy from pinned memory (a pinned slice's
/// `as_slice`, registered pages) runs after the call returns and would see later writes. The
/// queue keeps them until `copied` (recorded after the copy) has completed, since the driver
/// may not stage this buffer either.
struct StagedOffsets {
    host: Vec<u64>,
    copied: CudaEvent,
}

impl StagedOffsets {
    /// Waits for the copy from `host`; on failure leaks `host` (the copy may still read it).
    fn wait(self) -> Result<(Vec<u64>, CudaEvent), Error> {
        match self.copied.synchronize() {
            Ok(()) => Ok((self.host, self.copied)),
            Err(e) => {
                std::mem::forget(self.host);
                Err(e).during("wait for the copy of the row offsets")
            }
        }
    }
}

struct ReduceStorage {
    partials: Buffer<u8>,
    /// Zero between launches (`params::Reduce::slots`).
    slots: Buffer<u64>,
    result: Buffer<u8>,
    /// A `u32`, zero between launches (each launch's last block resets it).
    counter: Buffer<u32>,
}

struct ScanStorage {
    status: Buffer<u64>,
    /// One `layout::ScanControl`.
    control: Buffer<u32>,
    /// A power of two.
    capacity: usize,
}

/// The scan's tiles (blocks) for `len` items of `item_bytes`, or why there would be too many.
pub(crate) fn scan_tiles(len: usize, item_bytes: usize) -> Result<usize, Error> {
    let tile = layout::scan_tile_items(len as u64, item_bytes) as usize;
    let tiles = len.div_ceil(tile);
    if tiles > i32::MAX as usize {
        return Err(Error::TooLarge {
            op: "scan",
            len,
            max: i32::MAX as usize * tile,
        });
    }
    Ok(tiles)
}

/// How a scan launch finds each tile's prefix ([`params::Scan::pass`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum ScanPass {
    /// Read, scan and write with the look-back. `carry`: 0, or the device address of one
    /// accumulator combined in front of every output ([`params::Scan::carry`]).
    Single { carry: u64 },
    /// Tile `t`'s total to `tiles[t]`: room for [`scan_tiles`] accumulators (nothing is
    /// written to the output).
    #[cfg(feature = "nccl")]
    TileTotals { tiles: u64 },
    /// Tile `t` scanned after the accumulator `tiles[t]`, for each of the [`scan_tiles`].
    #[cfg(feature = "nccl")]
    FromTilePrefixes { tiles: u64 },
}

impl ScanPass {
    /// `(params::Scan::pass, params::Scan::carry, params::Scan::tiles)` for this pass.
    fn fields(self) -> (u32, u64, u64) {
        match self {
            Self::Single { carry } => (scan_pass::SINGLE, carry, 0),
            #[cfg(feature = "nccl")]
            Self::TileTotals { tiles } => (scan_pass::TILE_TOTALS, 0, tiles),
            #[cfg(feature = "nccl")]
            Self::FromTilePrefixes { tiles } => (scan_pass::FROM_TILE_PREFIXES, 0, tiles),
        }
    }
}

/// `kernel`'s entry of `cache`, asked of `query` (the driver) the first time only.
fn per_kernel(
    cache: &mut Vec<(Kernel, u32)>,
    kernel: Kernel,
    query: impl FnOnce() -> Result<u32, Error>,
) -> Result<u32, Error> {
    if let Some(&(_, value)) = cache.iter().find(|(k, _)| *k == kernel) {
        return Ok(value);
    }
    let value = query()?;
    cache.push((kernel, value));
    Ok(value)
}

/// Tiles of scan status allocated at least (a power of two).
const MIN_SCAN_CAPACITY: usize = 1024;

impl Queue {
    /// A queue on `stream`, which must belong to `wk`'s context. Allocates nothing until an
    /// operation needs it.
    pub fn new(wk: &Warpkit, stream: &Arc<CudaStream>) -> Result<Queue, Error> {
        if stream.context().cu_ctx() != wk.context().cu_ctx() {
            return Err(Error::WrongContext { op: "Queue::new" });
        }
        Ok(Queue::on(wk, stream.clone()))
    }

    /// A queue with no storage yet.
    fn on(wk: &Warpkit, stream: Arc<CudaStream>) -> Queue {
        Queue {
            wk: wk.clone(),
            stream,
            reduce: None,
            scan: None,
            offsets: None,
            staged_offsets: None,
            resident_blocks: Vec::new(),
            scan_clusters: Vec::new(),
            reduce_grid: None,
            captured: 0,
        }
    }

    /// A queue on a stream created by another library (cust, PyTorch, ...).
    ///
    /// # Safety
    /// `stream` is a valid stream of `wk`'s context and stays valid until the queue is dropped
    /// (dropping it enqueues the free of its storage on `stream`).
    pub unsafe fn from_raw_stream(wk: &Warpkit, stream: sys::CUstream) -> Queue {
        // SAFETY: forwarded to the caller.
        let stream = unsafe { wk.context().wrap_borrowed_stream(stream) };
        Queue::on(wk, stream)
    }

    /// Launches the device reduce with `blocks` blocks (at most one per tile) instead of the
    /// default, as many as the device holds at once; `None` restores the default. The results
    /// have the same bits for every grid: this is how the tests show it. (The device scan has
    /// no such knob: it launches one block per tile, a function of the length alone.)
    pub fn set_reduce_grid(&mut self, blocks: Option<NonZeroU32>) {
        self.reduce_grid = blocks;
    }

    /// The stream this queue enqueues on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The kernels this queue launches.
    pub fn warpkit(&self) -> &Warpkit {
        &self.wk
    }

    /// Waits for everything enqueued so far.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream.synchronize().during("synchronize")
    }

    /// Binds the context to the calling thread (a queue may have moved threads).
    pub(crate) fn bind(&self) -> Result<(), Error> {
        self.wk.context().bind_to_thread().during("bind context")
    }

    /// Refuses `op` while the stream is capturing a graph.
    pub(crate) fn not_capturing(
        &self,
        op: &'static str,
        reason: &'static str,
    ) -> Result<(), Error> {
        if self.capturing()? {
            Err(Error::Capturing { op, reason })
        } else {
            Ok(())
        }
    }

    /// Whether the stream is capturing a graph now.
    pub(crate) fn capturing(&self) -> Result<bool, Error> {
        // SAFETY: a valid stream of the bound context.
        let status = unsafe { result::stream::is_capturing(self.stream.cu_stream()) }
            .during("query capture status")?;
        Ok(status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
    }

    /// Counts an operation about to be enqueued in `captured` if the stream is capturing
    /// (`capturing`, from [`Queue::capturing`]); called once nothing can refuse the operation
    /// any more, so that a refused one leaks nothing.
    ///
    /// A captured launch keeps the addresses of the queue's storage and of its kernels for as
    /// long as the graph lives, which the queue cannot see (and a graph may be replayed after
    /// the queue is gone). So once the queue has been captured it never frees its reduce and
    /// scan storage (row offsets are never captured: `upload_offsets` refuses):
    /// storage it replaces, and its storage when it is dropped, are leaked, and so is one
    /// reference to its [`Warpkit`] (its kernels stay loaded). Storage is never allocated
    /// during a capture: the operation is refused instead (an allocation captured into the
    /// graph would not exist until the graph runs).
    pub(crate) fn note_capture(&mut self, capturing: bool) {
        if capturing {
            if self.captured == 0 {
                std::mem::forget(self.wk.clone());
            }
            self.captured += 1;
        }
    }

    /// Frees `old` storage in stream order, or leaks it if the queue has been captured
    /// ([`Queue::note_capture`]).
    pub(crate) fn retire<S>(&self, old: S) {
        if self.captured > 0 {
            std::mem::forget(old);
        }
    }

    /// Refuses an operation that needs new storage during a capture ([`Queue::note_capture`]).
    fn no_allocation_in_capture(op: &'static str, capturing: bool) -> Result<(), Error> {
        if capturing {
            Err(Error::Capturing {
                op,
                reason: "it needs more temporary storage than the queue has: run the same \
                         operation once with the same element type and at least this length \
                         before capturing",
            })
        } else {
            Ok(())
        }
    }

    /// Readies the queue's storage for reduces of accumulators of `value_bytes`: allocated now
    /// outside a capture, refused during one, as a reduce itself would. Operations over
    /// several queues (the multi-GPU ones) ready all of them before they enqueue on any, so
    /// that a refusal leaves nothing captured.
    #[cfg(feature = "nccl")]
    pub(crate) fn reserve_reduce(&mut self, value_bytes: usize) -> Result<(), Error> {
        self.reduce_storage(value_bytes).map(|_| ())
    }

    /// As [`Queue::reserve_reduce`], for scans of up to `tiles` tiles of accumulators of
    /// `value_bytes`.
    #[cfg(feature = "nccl")]
    pub(crate) fn reserve_scan(&mut self, tiles: usize, value_bytes: usize) -> Result<(), Error> {
        self.scan_storage(tiles, value_bytes).map(|_| ())
    }

    fn reduce_storage(&mut self, value_bytes: usize) -> Result<&ReduceStorage, Error> {
        let partial_bytes = layout::REDUCE_MAX_TILES as usize * value_bytes;
        let slot_words = layout::reduce_slot_words(value_bytes);
        let fits = self.reduce.as_ref().is_some_and(|s| {
            s.partials.len >= partial_bytes
                && s.slots.len >= slot_words
                && s.result.len >= value_bytes
        });
        let capturing = self.capturing()?;
        if !fits {
            Self::no_allocation_in_capture("reduce", capturing)?;
            // Sized for values of at least 16 bytes: once a queue has reduced, a library
            // type's reduce never replaces its storage.
            let bytes = value_bytes.max(16);
            let slot_capacity = layout::reduce_slot_words(bytes);
            let (counter, slots) = match self.reduce.take() {
                // The counter and the slots are zero between launches, in stream order: keep
                // them where they are large enough.
                Some(old) if old.slots.len >= slot_words => {
                    self.retire((old.partials, old.result));
                    (old.counter, old.slots)
                }
                Some(old) => {
                    let slots = Buffer::new(&self.stream, slot_capacity, true)?;
                    self.retire((old.partials, old.result, old.slots));
                    (old.counter, slots)
                }
                None => (
                    Buffer::new(&self.stream, 1, true)?,
                    Buffer::new(&self.stream, slot_capacity, true)?,
                ),
            };
            self.reduce = Some(ReduceStorage {
                partials: Buffer::new(
                    &self.stream,
                    layout::REDUCE_MAX_TILES as usize * bytes,
                    false,
                )?,
                slots,
                result: Buffer::new(&self.stream, bytes, false)?,
                counter,
            });
        }
        self.note_capture(capturing);
        Ok(self.reduce.as_ref().expect("just allocated"))
    }

    /// Enqueues reduce `kernel` over `len > 0` items of `item_bytes` at `input`, writing one
    /// value of `value_bytes` to `output` (`None`: the queue's result slot).
    pub(crate) fn enqueue_reduce(
        &mut self,
        kernel: Kernel,
        input: u64,
        len: usize,
        item_bytes: usize,
        value_bytes: usize,
        output: Option<u64>,
    ) -> Result<(), Error> {
        debug_assert!(len > 0);
        if len as u64 > layout::REDUCE_MAX_LEN {
            return Err(Error::TooLarge {
                op: "reduce",
                len,
                max: layout::REDUCE_MAX_LEN as usize,
            });
        }
        // Below 2^32 up to REDUCE_MAX_LEN items (checked by the layout's tests).
        let tile_items = layout::reduce_tile_items(len as u64, item_bytes) as u32;
        let tiles = layout::reduce_tiles(len as u64, item_bytes);
        // A grid that is resident at once: a second, partial wave would leave most of the
        // machine idle at the end (wide arg-reduce accumulators take more registers).
        let per_sm = self.reduce_blocks_per_sm(kernel)?;
        let max = (self.wk.multiprocessors() * per_sm) as u64;
        let grid = self
            .reduce_grid
            .map_or(max, |g| g.get() as u64)
            .clamp(1, tiles) as u32;
        // A small input of a kernel that does much per item: one vector per thread.
        let spread = if self.reduce_grid.is_none()
            && tuning::reduce_spreads_small_inputs(item_bytes, value_bytes)
        {
            layout::reduce_spread_grid(input, len as u64, item_bytes)
        } else {
            None
        };
        let (grid, (share_tiles, share_extra)) = match spread {
            Some(blocks) => (blocks.min(max as u32), (0, 0)),
            None => (
                grid,
                layout::reduce_even_share(input, len as u64, item_bytes, grid),
            ),
        };
        let storage = self.reduce_storage(value_bytes)?;
        let params = params::Reduce {
            input,
            len: len as u64,
            partials: storage.partials.ptr,
            slots: storage.slots.ptr,
            counter: storage.counter.ptr,
            output: output.unwrap_or(storage.result.ptr),
            tile_items,
            tiles: tiles as u32,
            share_tiles,
            share_extra,
        };
        // SAFETY: reduce kernels take `params::Reduce`; the partials hold REDUCE_MAX_TILES
        // values; the slots and the counter are zero; the callers checked input and output.
        unsafe {
            kernel.launch(
                &self.stream,
                grid,
                REDUCE_THREADS,
                &params,
                false,
                "reduce launch",
            )
        }
    }

    /// The most tiles a scan with `kernel` runs as one thread block cluster
    /// ([`scan_pass::CLUSTER`]): at most [`layout::SCAN_CLUSTER_TILES`], 0 where the device or
    /// the kernel's target has no clusters.
    fn scan_cluster_blocks(&mut self, kernel: Kernel) -> Result<u32, Error> {
        let ctx = self.wk.context();
        per_kernel(&mut self.scan_clusters, kernel, || {
            Ok(kernel
                .cluster_blocks(ctx, SCAN_THREADS)?
                .min(layout::SCAN_CLUSTER_TILES as u32))
        })
    }

    /// Blocks of `kernel` the reduce grid puts on each multiprocessor: as many as are resident
    /// at once, at most [`REDUCE_BLOCKS_PER_SM`].
    fn reduce_blocks_per_sm(&mut self, kernel: Kernel) -> Result<u32, Error> {
        Ok(self
            .resident_blocks(kernel, REDUCE_THREADS)?
            .min(REDUCE_BLOCKS_PER_SM))
    }

    /// Blocks of `kernel`, of `threads` threads each, resident at once on one multiprocessor.
    fn resident_blocks(&mut self, kernel: Kernel, threads: u32) -> Result<u32, Error> {
        per_kernel(&mut self.resident_blocks, kernel, || {
            kernel.resident_blocks(threads)
        })
    }

    /// Copies `bytes` bytes of the result slot to the host, after the stream's work.
    pub(crate) fn read_result(&self, bytes: usize) -> Result<Vec<u8>, Error> {
        let storage = self.reduce.as_ref().expect("a reduce was enqueued");
        let mut out = vec![0u8; bytes];
        // SAFETY: the slot holds at least `bytes` bytes; `out` lives until the synchronize
        // below has completed the copy.
        unsafe { result::memcpy_dtoh_async(&mut out, storage.result.ptr, self.stream.cu_stream()) }
            .during("copy result")?;
        self.synchronize()?;
        Ok(out)
    }

    /// Enqueues the writing of `bytes` to device address `dst`, with memsets (which a CUDA graph
    /// can hold, unlike a copy from host memory).
    pub(crate) fn write_bytes(&self, dst: u64, bytes: &[u8]) -> Result<(), Error> {
        let s = self.stream.cu_stream();
        // SAFETY: the callers pass an address with room for `bytes`.
        let r = unsafe {
            if bytes.len().is_multiple_of(4) && dst.is_multiple_of(4) {
                bytes.chunks_exact(4).enumerate().try_for_each(|(i, w)| {
                    let word = u32::from_ne_bytes(w.try_into().expect("4 bytes"));
                    sys::cuMemsetD32Async(dst + 4 * i as u64, word, 1, s).result()
                })
            } else if bytes.len().is_multiple_of(2) && dst.is_multiple_of(2) {
                bytes.chunks_exact(2).enumerate().try_for_each(|(i, w)| {
                    let half = u16::from_ne_bytes(w.try_into().expect("2 bytes"));
                    sys::cuMemsetD16Async(dst + 2 * i as u64, half, 1, s).result()
                })
            } else {
                bytes
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, &b)| result::memset_d8_async(dst + i as u64, b, 1, s))
            }
        };
        r.during("write identity")
    }

    /// Enqueues the scan kernel of `set` over `len` items, as the `pass` says: tiles sized
    /// for its items, status slots for its accumulator (what the tiles publish).
    pub(crate) fn enqueue_scan(
        &mut self,
        set: Set,
        input: u64,
        output: u64,
        len: usize,
        kind: ScanKind,
        pass: ScanPass,
    ) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        let (kernel, item_bytes) = (set.scan, set.item_bytes);
        let tiles = scan_tiles(len, item_bytes)?;
        let (pass_code, carry, tile_prefixes) = pass.fields();
        // One cluster of at most 16 tiles: no look-back through global memory.
        let cluster = pass_code == scan_pass::SINGLE
            && tiles > 1
            && tiles <= self.scan_cluster_blocks(kernel)? as usize;
        let pass_code = if cluster {
            scan_pass::CLUSTER
        } else {
            pass_code
        };
        let storage = self.scan_storage(tiles, set.value_bytes)?;
        let params = params::Scan {
            input,
            output,
            len: len as u64,
            status: storage.status.ptr,
            control: storage.control.ptr,
            capacity: storage.capacity as u32,
            exclusive: (kind == ScanKind::Exclusive) as u32,
            carry,
            stripes: layout::scan_stripes(len as u64, item_bytes),
            pass: pass_code,
            tiles: tile_prefixes,
        };
        // SAFETY: scan kernels take `params::Scan`; one block per tile; the status has slots for
        // `capacity ≥ tiles` tiles of this accumulator size (`set.value_bytes`, what the kernel
        // publishes) and was zeroed when allocated; the
        // kernel keeps the control block (epoch) itself; `pass` holds what its variant says.
        unsafe {
            kernel.launch(
                &self.stream,
                tiles as u32,
                SCAN_THREADS,
                &params,
                cluster,
                "scan launch",
            )
        }
    }

    /// Scan status for `tiles` tiles publishing accumulators of `value_bytes`; new storage is
    /// zeroed on the stream, and the old is freed on it after the work that uses it.
    fn scan_storage(&mut self, tiles: usize, value_bytes: usize) -> Result<&ScanStorage, Error> {
        let words = |capacity| layout::scan_status_words(capacity, value_bytes);
        let fits = self
            .scan
            .as_ref()
            .is_some_and(|s| s.capacity >= tiles && s.status.len >= words(s.capacity));
        let capturing = self.capturing()?;
        if !fits {
            Self::no_allocation_in_capture("scan", capturing)?;
            let old = self.scan.take();
            let capacity = tiles
                .next_power_of_two()
                .max(MIN_SCAN_CAPACITY)
                .max(old.as_ref().map_or(0, |s| s.capacity));
            // Room for the largest accumulator seen so far, too.
            let status_words = words(capacity).max(old.as_ref().map_or(0, |s| s.status.len));
            self.retire(old);
            let control_words = std::mem::size_of::<layout::ScanControl>() / 4;
            self.scan = Some(ScanStorage {
                status: Buffer::new(&self.stream, status_words, true)?,
                control: Buffer::new(&self.stream, control_words, true)?,
                capacity,
            });
        }
        self.note_capture(capturing);
        Ok(self.scan.as_ref().expect("just allocated"))
    }

    /// Copies `offsets` into the queue's offset buffer, in stream order; returns its address.
    pub(crate) fn upload_offsets(
        &mut self,
        op: &'static str,
        offsets: &[u64],
    ) -> Result<u64, Error> {
        self.not_capturing(
            op,
            "it copies the row offsets from host memory, which a graph replay would read again after it is gone",
        )?;
        if self.offsets.as_ref().is_none_or(|b| b.len < offsets.len()) {
            // (Never in a graph: `upload_offsets` refuses to run during a capture.)
            self.offsets = None;
            self.offsets = Some(Buffer::new(&self.stream, offsets.len(), false)?);
        }
        let buffer = self.offsets.as_ref().expect("just allocated");
        let (mut host, copied) = match self.staged_offsets.take() {
            Some(last) => last.wait()?,
            None => (
                Vec::new(),
                self.stream
                    .context()
                    .new_event(None)
                    .during("create an event")?,
            ),
        };
        host.clear();
        host.extend_from_slice(offsets);
        // SAFETY: room for `offsets`; `host` stays in the queue until `copied` has completed.
        unsafe { result::memcpy_htod_async(buffer.ptr, &host[..], self.stream.cu_stream()) }
            .during("copy offsets")?;
        let staged = StagedOffsets { host, copied };
        if let Err(e) = staged.copied.record(&self.stream) {
            std::mem::forget(staged.host);
            return Err(e).during("record the copy of the row offsets");
        }
        self.staged_offsets = Some(staged);
        Ok(buffer.ptr)
    }

    /// Enqueues a rows kernel: one warp per row, or one block per row for the reduce of wide
    /// rows of one width ([`tuning::rows_reduce_takes_blocks`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_rows(
        &mut self,
        kernel: Kernel,
        input: u64,
        offsets: u64,
        width: usize,
        rows: usize,
        output: u64,
        kind: Option<ScanKind>,
    ) -> Result<(), Error> {
        if rows == 0 {
            return Ok(());
        }
        let capturing = self.capturing()?;
        self.note_capture(capturing);
        let grid = if kind.is_none() && tuning::rows_reduce_takes_blocks(width as u64, offsets) {
            // A block per row: as many as fit at once (the kernel strides over the rows).
            let per_sm = self.resident_blocks(kernel, ROWS_THREADS)?;
            rows.min((self.wk.multiprocessors() * per_sm) as usize) as u32
        } else {
            let warps_per_block = (ROWS_THREADS / 32) as usize;
            let max_blocks = self.wk.multiprocessors() as usize * 64;
            rows.div_ceil(warps_per_block).min(max_blocks) as u32
        };
        let params = params::Rows {
            input,
            offsets,
            width: width as u64,
            rows: rows as u64,
            output,
            exclusive: (kind == Some(ScanKind::Exclusive)) as u32,
            padding: 0,
        };
        // SAFETY: rows kernels take `params::Rows`; the callers checked that every row lies
        // inside input and output.
        unsafe {
            kernel.launch(
                &self.stream,
                grid,
                ROWS_THREADS,
                &params,
                false,
                "rows launch",
            )
        }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // The last copy of offsets may still read its host buffer (`wait` leaks it if the
        // wait fails). The device storage needs nothing: it is freed in stream order.
        if let Some(staged) = self.staged_offsets.take() {
            let _ = staged.wait();
        }
        // A graph may still replay captured work on this storage ([`Queue::note_capture`]).
        if self.captured > 0 {
            std::mem::forget((self.reduce.take(), self.scan.take()));
        }
    }
}
