//! The same operations on cust 0.3 memory and streams (feature `cust`), through the raw entry.
//!
//! cust's `DeviceSlice` is `Copy` and carries no lifetime, and its buffers can be freed
//! asynchronously on any stream, so nothing ties a cust buffer's life to the work enqueued on
//! it. This adapter therefore takes whole `DeviceBuffer`s and waits for the stream before it
//! returns: sound, and as fast as cust code that synchronizes anyway. For asynchronous work
//! on cust memory, use the `unsafe` raw entry ([`crate::raw`]) and keep the buffers alive.
//!
//! cust's `quick_init` and [`Warpkit::new`] both use the device's primary context, so a
//! `Warpkit` of the same device runs on cust's memory.
//!
//! ```no_run
//! # use warpkit_host::{Warpkit, cust::CustQueue};
//! let _ctx = cust::quick_init().unwrap();
//! let stream = cust::stream::Stream::new(cust::stream::StreamFlags::NON_BLOCKING, None).unwrap();
//! let wk = Warpkit::new(0)?;
//! let mut queue = CustQueue::new(&wk, &stream)?;
//! let input = cust::memory::DeviceBuffer::from_slice(&[1u32, 2, 3]).unwrap();
//! assert_eq!(queue.reduce(&input, warpkit::ops::Sum)?, 6);
//! # Ok::<(), warpkit_host::Error>(())
//! ```

use crate::error::During as _;
use crate::ops::Range;
use crate::{ArgElement, ArgOp, ArgResult, DeviceOp, Element, Error, Queue, ScanKind, Warpkit};
use cudarc::driver::sys;
use cust::memory::{DeviceBuffer, DeviceCopy};
use cust::stream::Stream;

// SAFETY: plain data of two fields, any bit pattern valid (see its `Pod` impl), no pointers.
unsafe impl<T: ArgElement + DeviceCopy> DeviceCopy for ArgResult<T> {}

/// A [`Queue`] on a cust `Stream`; every operation waits for the stream before it returns.
pub struct CustQueue<'s> {
    queue: Queue,
    _stream: &'s Stream,
}

impl<'s> CustQueue<'s> {
    /// A queue on `stream`, which must belong to `wk`'s context (the device's primary context,
    /// which cust's `quick_init` uses): [`Error::WrongContext`] otherwise.
    pub fn new(wk: &Warpkit, stream: &'s Stream) -> Result<CustQueue<'s>, Error> {
        wk.context().bind_to_thread().during("bind context")?;
        let mut ctx = std::ptr::null_mut();
        // SAFETY: a live cust stream; writes one context handle.
        unsafe { sys::cuStreamGetCtx(stream.as_inner() as _, &mut ctx) }
            .result()
            .during("query the stream's context")?;
        if ctx != wk.context().cu_ctx() {
            return Err(Error::WrongContext {
                op: "CustQueue::new",
            });
        }
        // SAFETY: the stream outlives the queue ('s), and is a stream of `wk`'s context.
        let queue = unsafe { Queue::from_raw_stream(wk, stream.as_inner() as _) };
        Ok(CustQueue {
            queue,
            _stream: stream,
        })
    }

    /// The address of `buffer`, once the driver says it is memory of the queue's context
    /// ([`Error::WrongContext`] otherwise: a cust buffer of another device or context).
    fn address<T: DeviceCopy>(&self, buffer: &DeviceBuffer<T>) -> Result<u64, Error> {
        let address = buffer.as_device_ptr().as_raw();
        if buffer.is_empty() {
            return Ok(address);
        }
        self.queue.bind()?;
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: writes one context handle for a device address.
        unsafe {
            sys::cuPointerGetAttribute(
                (&raw mut ctx).cast(),
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_CONTEXT,
                address,
            )
        }
        .result()
        .during("query a buffer's context")?;
        if ctx != self.queue.warpkit().context().cu_ctx() {
            return Err(Error::WrongContext { op: "CustQueue" });
        }
        Ok(address)
    }

    /// Runs `f` on the queue, then waits for the stream (also after an error, as part of
    /// the work may be enqueued); `f`'s error first.
    fn run<R>(&mut self, f: impl FnOnce(&mut Queue) -> Result<R, Error>) -> Result<R, Error> {
        let r = f(&mut self.queue);
        let synced = self.queue.synchronize();
        r.and_then(|value| synced.map(|()| value))
    }

    /// See [`Queue::reduce`].
    pub fn reduce<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        _op: O,
    ) -> Result<T, Error> {
        // SAFETY: `input` is a live buffer of its length; the stream is waited for.
        let i = self.address(input)?;
        self.run(|q| unsafe { q.reduce_raw::<T, O>(i, input.len()) })
    }

    /// See [`Queue::reduce_into`].
    pub fn reduce_into<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T::Accum>,
        _op: O,
    ) -> Result<(), Error>
    where
        T::Accum: DeviceCopy,
    {
        let (i, n, o, m) = (
            self.address(input)?,
            input.len(),
            self.address(output)?,
            output.len(),
        );
        // SAFETY: live buffers of their lengths, distinct (one is borrowed mutably).
        self.run(|q| unsafe { q.reduce_into_raw::<T, O>(i, n, o, m) })
    }

    /// See [`Queue::arg_reduce`].
    pub fn arg_reduce<T: ArgElement + DeviceCopy, O: ArgOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        _op: O,
    ) -> Result<Option<(T, usize)>, Error> {
        // SAFETY: as in `reduce`.
        let i = self.address(input)?;
        self.run(|q| unsafe { q.arg_reduce_raw::<T, O>(i, input.len()) })
    }

    /// See [`Queue::arg_reduce_into`]: the result stays in `output[0]`, an [`ArgResult`].
    pub fn arg_reduce_into<T: ArgElement + DeviceCopy, O: ArgOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<ArgResult<T>>,
        _op: O,
    ) -> Result<(), Error> {
        let input = Range {
            ptr: self.address(input)?,
            len: input.len(),
        };
        let output = Range {
            ptr: self.address(output)?,
            len: output.len(),
        };
        // Live buffers of their lengths (an empty one is refused); the stream is waited for.
        self.run(|q| q.do_arg_reduce_into::<T, O>("arg_reduce_into", input, output))
    }

    /// See [`Queue::scan`].
    pub fn scan<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        if input.len() != output.len() {
            return Err(Error::LengthMismatch {
                op: "scan",
                what: "output",
                expected: input.len(),
                found: output.len(),
            });
        }
        let (i, o, n) = (self.address(input)?, self.address(output)?, input.len());
        // SAFETY: live buffers of the checked length.
        self.run(|q| unsafe { q.scan_raw::<T, O>(i, o, n, kind) })
    }

    /// See [`Queue::scan_in_place`].
    pub fn scan_in_place<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        data: &mut DeviceBuffer<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let (p, n) = (self.address(data)?, data.len());
        // SAFETY: a live buffer of its length.
        self.run(|q| unsafe { q.scan_raw::<T, O>(p, p, n, kind) })
    }

    /// See [`Queue::rows_reduce`].
    pub fn rows_reduce<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        width: usize,
        output: &mut DeviceBuffer<T>,
        _op: O,
    ) -> Result<(), Error> {
        let (i, n, o, rows) = (
            self.address(input)?,
            input.len(),
            self.address(output)?,
            output.len(),
        );
        // SAFETY: live buffers of their lengths.
        self.run(|q| unsafe { q.rows_reduce_raw::<T, O>(i, n, width, o, rows) })
    }

    /// See [`Queue::rows_scan`].
    pub fn rows_scan<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        width: usize,
        output: &mut DeviceBuffer<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        if input.len() != output.len() {
            return Err(Error::LengthMismatch {
                op: "rows_scan",
                what: "output",
                expected: input.len(),
                found: output.len(),
            });
        }
        let (i, o, n) = (self.address(input)?, self.address(output)?, input.len());
        // SAFETY: live buffers of the checked length.
        self.run(|q| unsafe { q.rows_scan_raw::<T, O>(i, o, n, width, kind) })
    }

    /// See [`Queue::segments_reduce`].
    pub fn segments_reduce<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        offsets: &[u64],
        output: &mut DeviceBuffer<T>,
        _op: O,
    ) -> Result<(), Error> {
        let (i, n, o, m) = (
            self.address(input)?,
            input.len(),
            self.address(output)?,
            output.len(),
        );
        // SAFETY: live buffers of their lengths.
        self.run(|q| unsafe { q.segments_reduce_raw::<T, O>(i, n, offsets, o, m) })
    }

    /// See [`Queue::segments_scan`].
    pub fn segments_scan<T: Element + DeviceCopy, O: DeviceOp>(
        &mut self,
        input: &DeviceBuffer<T>,
        offsets: &[u64],
        output: &mut DeviceBuffer<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        if input.len() != output.len() {
            return Err(Error::LengthMismatch {
                op: "segments_scan",
                what: "output",
                expected: input.len(),
                found: output.len(),
            });
        }
        let (i, o, n) = (self.address(input)?, self.address(output)?, input.len());
        // SAFETY: live buffers of the checked length.
        self.run(|q| unsafe { q.segments_scan_raw::<T, O>(i, o, n, offsets, kind) })
    }
}
