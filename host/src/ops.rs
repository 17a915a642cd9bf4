//! The operations of a [`Queue`]: argument checks on addresses and lengths (shared by the
//! typed API on cudarc slices, the raw entry and custom kernels), then the typed API.

use crate::element::{ArgElement, ArgOp, ArgResult, DeviceOp, Element, identity};
use crate::error::Error;
use crate::module::Kernel;
use crate::queue::{Queue, ScanKind, ScanPass};
use bytemuck::Pod;
use cudarc::driver::{DevicePtr, DevicePtrMut, DeviceSlice};

/// The kernels of one value type and operator, and the sizes they work in.
#[derive(Clone, Copy)]
pub(crate) struct Set {
    pub reduce: Kernel,
    pub scan: Kernel,
    pub rows_reduce: Kernel,
    pub rows_scan: Kernel,
    /// Bytes of an input item.
    pub item_bytes: usize,
    /// Bytes of what the reduce kernel writes.
    pub value_bytes: usize,
}

/// A device range: address and element count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub ptr: u64,
    pub len: usize,
}

pub(crate) fn overlap(a: Range, b: Range, item: usize) -> bool {
    let end = |r: Range| r.ptr + (r.len * item) as u64;
    a.len > 0 && b.len > 0 && a.ptr < end(b) && b.ptr < end(a)
}

/// Refuses an output whose length differs from the input's, or that overlaps the input other
/// than exactly (`in_place`: the same range is allowed).
pub(crate) fn check_output(
    op: &'static str,
    input: Range,
    output: Range,
    item: usize,
    in_place: bool,
) -> Result<(), Error> {
    if input.len != output.len {
        return Err(Error::LengthMismatch {
            op,
            what: "output",
            expected: input.len,
            found: output.len,
        });
    }
    if overlap(input, output, item) && !(in_place && input.ptr == output.ptr) {
        return Err(Error::Overlap { op });
    }
    Ok(())
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

/// Rows of `width` in `len` elements, or why not.
pub(crate) fn rows_of(op: &'static str, len: usize, width: usize) -> Result<usize, Error> {
    match len.checked_div(width) {
        Some(rows) if rows * width == len => Ok(rows),
        Some(rows) => Err(Error::LengthMismatch {
            op,
            what: "input (a whole number of rows of the width)",
            expected: rows * width,
            found: len,
        }),
        None if len == 0 => Ok(0),
        None => Err(Error::LengthMismatch {
            op,
            what: "input (rows of width 0)",
            expected: 0,
            found: len,
        }),
    }
}

/// The checked operations on device ranges.
impl Queue {
    pub(crate) fn do_reduce_into(
        &mut self,
        set: Set,
        input: Range,
        output: Range,
        identity: &[u8],
    ) -> Result<(), Error> {
        if output.len == 0 {
            return Err(Error::LengthMismatch {
                op: "reduce_into",
                what: "output",
                expected: 1,
                found: 0,
            });
        }
        self.bind()?;
        if input.len == 0 {
            return self.write_bytes(output.ptr, identity);
        }
        let (item, value) = (set.item_bytes, set.value_bytes);
        self.enqueue_reduce(
            set.reduce,
            input.ptr,
            input.len,
            item,
            value,
            Some(output.ptr),
        )
    }

    pub(crate) fn do_reduce(
        &mut self,
        set: Set,
        input: Range,
        identity: &[u8],
    ) -> Result<Vec<u8>, Error> {
        if input.len == 0 {
            return Ok(identity.to_vec());
        }
        self.bind()?;
        self.not_capturing(
            "reduce",
            "it returns the result to the host; use reduce_into",
        )?;
        let (item, value) = (set.item_bytes, set.value_bytes);
        self.enqueue_reduce(set.reduce, input.ptr, input.len, item, value, None)?;
        self.read_result(value)
    }

    pub(crate) fn do_scan(
        &mut self,
        set: Set,
        input: Range,
        output: Range,
        kind: ScanKind,
    ) -> Result<(), Error> {
        check_output("scan", input, output, set.item_bytes, true)?;
        self.bind()?;
        self.enqueue_scan(
            set,
            input.ptr,
            output.ptr,
            input.len,
            kind,
            ScanPass::Single { carry: 0 },
        )
    }

    pub(crate) fn do_rows_reduce(
        &mut self,
        set: Set,
        input: Range,
        width: usize,
        output: Range,
    ) -> Result<(), Error> {
        let op = "rows_reduce";
        let rows = output.len;
        let expected = rows
            .checked_mul(width)
            .ok_or(Error::Overflow { op, rows, width })?;
        if expected != input.len {
            return Err(Error::LengthMismatch {
                op,
                what: "input (rows × width, rows = output length)",
                expected,
                found: input.len,
            });
        }
        if overlap(input, output, set.item_bytes) {
            return Err(Error::Overlap { op });
        }
        self.bind()?;
        self.enqueue_rows(set.rows_reduce, input.ptr, 0, width, rows, output.ptr, None)
    }

    pub(crate) fn do_rows_scan(
        &mut self,
        set: Set,
        input: Range,
        width: usize,
        output: Range,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let op = "rows_scan";
        check_output(op, input, output, set.item_bytes, false)?;
        let rows = rows_of(op, input.len, width)?;
        self.bind()?;
        self.enqueue_rows(
            set.rows_scan,
            input.ptr,
            0,
            width,
            rows,
            output.ptr,
            Some(kind),
        )
    }

    pub(crate) fn do_segments_reduce(
        &mut self,
        set: Set,
        input: Range,
        offsets: &[u64],
        output: Range,
    ) -> Result<(), Error> {
        let op = "segments_reduce";
        let rows = check_offsets(op, offsets, input.len)?;
        if output.len != rows {
            return Err(Error::LengthMismatch {
                op,
                what: "output (one element per row)",
                expected: rows,
                found: output.len,
            });
        }
        if overlap(input, output, set.item_bytes) {
            return Err(Error::Overlap { op });
        }
        if rows == 0 {
            return Ok(());
        }
        self.bind()?;
        let offsets = self.upload_offsets(op, offsets)?;
        self.enqueue_rows(
            set.rows_reduce,
            input.ptr,
            offsets,
            0,
            rows,
            output.ptr,
            None,
        )
    }

    pub(crate) fn do_segments_scan(
        &mut self,
        set: Set,
        input: Range,
        offsets: &[u64],
        output: Range,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let op = "segments_scan";
        check_output(op, input, output, set.item_bytes, false)?;
        let rows = check_offsets(op, offsets, input.len)?;
        if rows == 0 {
            return Ok(());
        }
        self.bind()?;
        let offsets = self.upload_offsets(op, offsets)?;
        self.enqueue_rows(
            set.rows_scan,
            input.ptr,
            offsets,
            0,
            rows,
            output.ptr,
            Some(kind),
        )
    }

    pub(crate) fn do_arg_reduce(
        &mut self,
        kernel: Kernel,
        input: Range,
        item: usize,
        index_bytes: usize,
    ) -> Result<Option<(Vec<u8>, u64)>, Error> {
        if input.len == 0 {
            return Ok(None);
        }
        self.not_capturing(
            "arg_reduce",
            "it returns the result to the host; use arg_reduce_into",
        )?;
        self.enqueue_arg_reduce("arg_reduce", kernel, input, item, index_bytes, None)?;
        // The value filled out to the index's size, then the index (`ArgResult`'s layout).
        let bytes = self.read_result(2 * index_bytes)?;
        let mut index = [0u8; 8];
        index[..index_bytes].copy_from_slice(&bytes[index_bytes..]);
        Ok(Some((bytes[..item].to_vec(), u64::from_le_bytes(index))))
    }

    /// Enqueues the arg-reduce of `T` and `O` over `input` into `output[0]`, an
    /// [`ArgResult<T>`]; refuses an empty input or output (there is no index to write).
    pub(crate) fn do_arg_reduce_into<T: ArgElement, O: ArgOp>(
        &mut self,
        op: &'static str,
        input: Range,
        output: Range,
    ) -> Result<(), Error> {
        let () = ArgResult::<T>::KERNEL_LAYOUT;
        for (what, found) in [("input", input.len), ("output", output.len)] {
            if found == 0 {
                return Err(Error::LengthMismatch {
                    op,
                    what,
                    expected: 1,
                    found,
                });
            }
        }
        let kernel = self.wk.table().of::<T>().arg[O::INDEX];
        self.enqueue_arg_reduce(
            op,
            kernel,
            input,
            std::mem::size_of::<T>(),
            std::mem::size_of::<T::Index>(),
            Some(output.ptr),
        )
    }

    /// Enqueues arg-reduce `kernel` over `input` (`len > 0`, `item` bytes each), writing the
    /// value filled out to `index_bytes` and then the index (`index_bytes`) to `output`
    /// (`None`: the result slot).
    pub(crate) fn enqueue_arg_reduce(
        &mut self,
        op: &'static str,
        kernel: Kernel,
        input: Range,
        item: usize,
        index_bytes: usize,
        output: Option<u64>,
    ) -> Result<(), Error> {
        debug_assert!(input.len > 0);
        // The index type's largest value marks "no index".
        let max = if index_bytes == 4 {
            u32::MAX as u64
        } else {
            u64::MAX
        };
        if input.len as u64 >= max {
            return Err(Error::TooLarge {
                op,
                len: input.len,
                max: (max - 1) as usize,
            });
        }
        self.bind()?;
        self.enqueue_reduce(kernel, input.ptr, input.len, item, 2 * index_bytes, output)
    }

    /// The library kernels of `T` and `O`.
    pub(crate) fn set<T: Element, O: DeviceOp>(&self) -> Set {
        let k = self.wk.table().of::<T>();
        Set {
            reduce: k.reduce[O::INDEX],
            scan: k.scan[O::INDEX],
            rows_reduce: k.rows_reduce[O::INDEX],
            rows_scan: k.rows_scan[O::INDEX],
            item_bytes: std::mem::size_of::<T>(),
            value_bytes: std::mem::size_of::<T::Accum>(),
        }
    }

    /// Refuses a slice of another context.
    pub(crate) fn same_context<T>(
        &self,
        op: &'static str,
        s: &impl DeviceSlice<T>,
    ) -> Result<(), Error> {
        if s.stream().context().cu_ctx() == self.wk.context().cu_ctx() {
            Ok(())
        } else {
            Err(Error::WrongContext { op })
        }
    }
}

/// Reads a result's bytes as `U`.
pub(crate) fn value<U: Pod>(bytes: &[u8]) -> U {
    bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<U>()])
}

/// The address and length of an input, with the guard that records its use on `stream`.
macro_rules! input {
    ($q:expr, $op:literal, $stream:ident, $s:ident) => {{
        $q.same_context($op, $s)?;
        let len = $s.len();
        let (ptr, guard) = $s.device_ptr(&$stream);
        (Range { ptr, len }, guard)
    }};
}

macro_rules! output {
    ($q:expr, $op:literal, $stream:ident, $s:ident) => {{
        $q.same_context($op, $s)?;
        let len = $s.len();
        let (ptr, guard) = $s.device_ptr_mut(&$stream);
        (Range { ptr, len }, guard)
    }};
}
pub(crate) use {input, output};

/// The typed operations on cudarc memory: inputs are `&CudaSlice<T>` or `&CudaView<T>`,
/// outputs `&mut CudaSlice<T>` or `&mut CudaViewMut<T>`, of the queue's context. Each records
/// its use of a buffer with cudarc's events, so a buffer dropped (or written on another
/// stream) waits for the work enqueued here.
impl Queue {
    /// Enqueues the reduction of `input` into `output[0]`; empty input writes the identity.
    /// For `f16`/`bf16` the output is the `f32` accumulator ([`Element::Accum`]).
    pub fn reduce_into<T: Element, O: DeviceOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        output: &mut impl DevicePtrMut<T::Accum>,
        _op: O,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "reduce_into", stream, input);
        let (output, _ro) = output!(self, "reduce_into", stream, output);
        let id = identity::<T, O>();
        self.do_reduce_into(self.set::<T, O>(), input, output, bytemuck::bytes_of(&id))
    }

    /// The reduction of `input`, returned to the host (waits for the stream). Empty input
    /// gives the operator's identity; `f16`/`bf16` results are the `f32` sum (or min, max)
    /// rounded once.
    pub fn reduce<T: Element, O: DeviceOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        _op: O,
    ) -> Result<T, Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "reduce", stream, input);
        let id = identity::<T, O>();
        let bytes = self.do_reduce(self.set::<T, O>(), input, bytemuck::bytes_of(&id))?;
        Ok(T::from_accum(value(&bytes)))
    }

    /// Arg-min or arg-max of `input`: the extreme value and the lowest index holding it, or
    /// `None` for empty input. NaN is skipped; all-NaN input gives a NaN and index 0.
    pub fn arg_reduce<T: ArgElement, O: ArgOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        _op: O,
    ) -> Result<Option<(T, usize)>, Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "arg_reduce", stream, input);
        let kernel = self.wk.table().of::<T>().arg[O::INDEX];
        let found = self.do_arg_reduce(
            kernel,
            input,
            std::mem::size_of::<T>(),
            std::mem::size_of::<T::Index>(),
        )?;
        Ok(found.map(|(v, i)| (value(&v), i as usize)))
    }

    /// [`Queue::arg_reduce`] left on the device in `output[0]`, enqueued only (no wait, so it
    /// can be captured in a graph). Empty input is refused ([`Error::LengthMismatch`]): there
    /// is no index to write.
    pub fn arg_reduce_into<T: ArgElement, O: ArgOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        output: &mut impl DevicePtrMut<ArgResult<T>>,
        _op: O,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "arg_reduce_into", stream, input);
        let (output, _ro) = output!(self, "arg_reduce_into", stream, output);
        self.do_arg_reduce_into::<T, O>("arg_reduce_into", input, output)
    }

    /// Enqueues a scan of `input` into `output` (same length, disjoint).
    pub fn scan<T: Element, O: DeviceOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        output: &mut impl DevicePtrMut<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "scan", stream, input);
        let (output, _ro) = output!(self, "scan", stream, output);
        self.do_scan(self.set::<T, O>(), input, output, kind)
    }

    /// Enqueues a scan of `data` in place.
    pub fn scan_in_place<T: Element, O: DeviceOp>(
        &mut self,
        data: &mut impl DevicePtrMut<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (data, _rd) = output!(self, "scan_in_place", stream, data);
        self.do_scan(self.set::<T, O>(), data, data, kind)
    }

    /// Enqueues one reduction per row of `width` elements: `output[r]` reduces
    /// `input[r*width..(r+1)*width]`. `input.len()` must be `output.len() * width`.
    pub fn rows_reduce<T: Element, O: DeviceOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        width: usize,
        output: &mut impl DevicePtrMut<T>,
        _op: O,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "rows_reduce", stream, input);
        let (output, _ro) = output!(self, "rows_reduce", stream, output);
        self.do_rows_reduce(self.set::<T, O>(), input, width, output)
    }

    /// Enqueues one scan per row of `width` elements into `output` (same length as `input`).
    pub fn rows_scan<T: Element, O: DeviceOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        width: usize,
        output: &mut impl DevicePtrMut<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "rows_scan", stream, input);
        let (output, _ro) = output!(self, "rows_scan", stream, output);
        self.do_rows_scan(self.set::<T, O>(), input, width, output, kind)
    }

    /// Enqueues one reduction per row `r` = `input[offsets[r]..offsets[r+1]]`. The offsets
    /// are copied to the device in stream order (so not inside a graph capture), from a host
    /// buffer the queue keeps until that copy is done: a second `segments_*` call first waits
    /// on the host for the previous call's copy, so for the work enqueued before it.
    pub fn segments_reduce<T: Element, O: DeviceOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        offsets: &[u64],
        output: &mut impl DevicePtrMut<T>,
        _op: O,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "segments_reduce", stream, input);
        let (output, _ro) = output!(self, "segments_reduce", stream, output);
        self.do_segments_reduce(self.set::<T, O>(), input, offsets, output)
    }

    /// Enqueues one scan per row `r` = `input[offsets[r]..offsets[r+1]]`, into the same
    /// positions of `output`; elements outside every row are left as they are. The offsets
    /// travel as in [`Queue::segments_reduce`] (with its wait for the previous call's copy).
    pub fn segments_scan<T: Element, O: DeviceOp>(
        &mut self,
        input: &impl DevicePtr<T>,
        offsets: &[u64],
        output: &mut impl DevicePtrMut<T>,
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.stream.clone();
        let (input, _ri) = input!(self, "segments_scan", stream, input);
        let (output, _ro) = output!(self, "segments_scan", stream, output);
        self.do_segments_scan(self.set::<T, O>(), input, offsets, output, kind)
    }
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

    #[test]
    fn outputs_are_checked_with_the_real_lengths() {
        let a = Range { ptr: 4096, len: 4 };
        let short = Range { ptr: 8192, len: 3 };
        let err = check_output("scan", a, short, 4, true)
            .unwrap_err()
            .to_string();
        assert_eq!(err, "scan: output has 3 elements, expected 4");
        let shifted = Range { ptr: 4100, len: 4 };
        assert!(matches!(
            check_output("scan", a, shifted, 4, true),
            Err(Error::Overlap { .. })
        ));
        assert!(check_output("scan", a, a, 4, true).is_ok());
        assert!(check_output("rows_scan", a, a, 4, false).is_err());
        let after = Range {
            ptr: 4096 + 16,
            len: 4,
        };
        assert!(
            check_output("scan", a, after, 4, false).is_ok(),
            "adjacent is not overlap"
        );
    }

    #[test]
    fn rows_of_width() {
        assert_eq!(rows_of("t", 12, 4).unwrap(), 3);
        assert_eq!(rows_of("t", 0, 0).unwrap(), 0);
        assert_eq!(
            rows_of("t", 13, 4).unwrap_err().to_string(),
            "t: input (a whole number of rows of the width) has 13 elements, expected 12"
        );
        assert!(rows_of("t", 5, 0).is_err());
    }
}
