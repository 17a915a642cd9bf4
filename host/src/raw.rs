//! The raw entry: the same operations on device addresses, for memory that cudarc does not
//! own (cust, PyTorch, CuPy, ...). Arguments are checked as in the typed API; what cannot be
//! checked (that the addresses are live device memory of the queue's context, of the stated
//! length, and stay so until the work completes) is the caller's `unsafe` promise.
//!
//! ```no_run
//! use warpkit::ops::Sum;
//! use warpkit_host::{Queue, Warpkit};
//! # fn other_library() -> (u64, usize, u64, cudarc::driver::sys::CUstream) { unimplemented!() }
//! let wk = Warpkit::new(0)?;
//! let (input, len, output, stream) = other_library(); // device addresses and a CUstream
//! // SAFETY: the other library keeps the stream and both buffers alive and unused meanwhile.
//! let mut queue = unsafe { Queue::from_raw_stream(&wk, stream) };
//! unsafe { queue.reduce_into_raw::<f32, Sum>(input, len, output, 1)? };
//! # Ok::<(), warpkit_host::Error>(())
//! ```

use crate::element::{ArgElement, ArgOp, DeviceOp, Element, identity};
use crate::error::Error;
use crate::ops::{Range, value};
use crate::queue::{Queue, ScanKind};

/// # Safety (every function here)
/// Each address is the start of `len` elements of the named type in device memory of the
/// queue's context, valid for reading (inputs) or writing (outputs) until the enqueued work
/// completes on the queue's stream, and not written by other work meanwhile.
impl Queue {
    /// [`Queue::reduce_into`] on addresses; `output` holds `output_len` accumulators.
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn reduce_into_raw<T: Element, O: DeviceOp>(
        &mut self,
        input: u64,
        len: usize,
        output: u64,
        output_len: usize,
    ) -> Result<(), Error> {
        let id = identity::<T, O>();
        self.do_reduce_into(
            self.set::<T, O>(),
            Range { ptr: input, len },
            Range {
                ptr: output,
                len: output_len,
            },
            bytemuck::bytes_of(&id),
        )
    }

    /// [`Queue::reduce`] on an address.
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn reduce_raw<T: Element, O: DeviceOp>(
        &mut self,
        input: u64,
        len: usize,
    ) -> Result<T, Error> {
        let id = identity::<T, O>();
        let bytes = self.do_reduce(
            self.set::<T, O>(),
            Range { ptr: input, len },
            bytemuck::bytes_of(&id),
        )?;
        Ok(T::from_accum(value(&bytes)))
    }

    /// [`Queue::arg_reduce`] on an address.
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn arg_reduce_raw<T: ArgElement, O: ArgOp>(
        &mut self,
        input: u64,
        len: usize,
    ) -> Result<Option<(T, usize)>, Error> {
        let kernel = self.wk.table().of::<T>().arg[O::INDEX];
        let found = self.do_arg_reduce(
            kernel,
            Range { ptr: input, len },
            std::mem::size_of::<T>(),
            std::mem::size_of::<T::Index>(),
        )?;
        Ok(found.map(|(v, i)| (value(&v), i as usize)))
    }

    /// [`Queue::arg_reduce`] left on the device, enqueued only (no wait, so it can be timed
    /// back to back and captured in a graph): at `output`, the value (`size_of::<T>()` bytes)
    /// and right after it the index as `T::Index` (`u32` beside 32-bit values, `u64` beside
    /// 64-bit ones), `size_of::<T>() + size_of::<T::Index>()` bytes aligned for `T::Index`: an
    /// [`ArgResult<T>`](crate::ArgResult).
    /// Empty input is refused (there is no index to write).
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn arg_reduce_into_raw<T: ArgElement, O: ArgOp>(
        &mut self,
        input: u64,
        len: usize,
        output: u64,
    ) -> Result<(), Error> {
        // `output` holds one result (the impl block's condition).
        let (input, output) = (
            Range { ptr: input, len },
            Range {
                ptr: output,
                len: 1,
            },
        );
        self.do_arg_reduce_into::<T, O>("arg_reduce_into_raw", input, output)
    }

    /// [`Queue::scan`] on addresses (`input == output` scans in place).
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn scan_raw<T: Element, O: DeviceOp>(
        &mut self,
        input: u64,
        output: u64,
        len: usize,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let (i, o) = (Range { ptr: input, len }, Range { ptr: output, len });
        self.do_scan(self.set::<T, O>(), i, o, kind)
    }

    /// [`Queue::rows_reduce`] on addresses: `rows` outputs, `rows * width` inputs.
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn rows_reduce_raw<T: Element, O: DeviceOp>(
        &mut self,
        input: u64,
        len: usize,
        width: usize,
        output: u64,
        rows: usize,
    ) -> Result<(), Error> {
        let (i, o) = (
            Range { ptr: input, len },
            Range {
                ptr: output,
                len: rows,
            },
        );
        self.do_rows_reduce(self.set::<T, O>(), i, width, o)
    }

    /// [`Queue::rows_scan`] on addresses (`len` elements each).
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn rows_scan_raw<T: Element, O: DeviceOp>(
        &mut self,
        input: u64,
        output: u64,
        len: usize,
        width: usize,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let (i, o) = (Range { ptr: input, len }, Range { ptr: output, len });
        self.do_rows_scan(self.set::<T, O>(), i, width, o, kind)
    }

    /// [`Queue::segments_reduce`] on addresses: `offsets.len() - 1` outputs.
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn segments_reduce_raw<T: Element, O: DeviceOp>(
        &mut self,
        input: u64,
        len: usize,
        offsets: &[u64],
        output: u64,
        output_len: usize,
    ) -> Result<(), Error> {
        let (i, o) = (
            Range { ptr: input, len },
            Range {
                ptr: output,
                len: output_len,
            },
        );
        self.do_segments_reduce(self.set::<T, O>(), i, offsets, o)
    }

    /// [`Queue::segments_scan`] on addresses (`len` elements each).
    ///
    /// # Safety
    /// See the impl block.
    pub unsafe fn segments_scan_raw<T: Element, O: DeviceOp>(
        &mut self,
        input: u64,
        output: u64,
        len: usize,
        offsets: &[u64],
        kind: ScanKind,
    ) -> Result<(), Error> {
        let (i, o) = (Range { ptr: input, len }, Range { ptr: output, len });
        self.do_segments_scan(self.set::<T, O>(), i, offsets, o, kind)
    }
}
