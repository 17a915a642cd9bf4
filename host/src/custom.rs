//! Your own value types and operators: kernels emitted in your kernel crate by
//! `warpkit::custom_kernels!`, launched with the same checks as the library's.
//!
//! In the kernel crate (built to PTX by `warpkit-builder`):
//!
//! ```ignore
//! warpkit::custom_kernels! { prefix: my_affine, value: Affine, op: Compose }
//! ```
//!
//! emits `my_affine_reduce`, `my_affine_scan`, `my_affine_rows_reduce`, `my_affine_rows_scan`
//! and the global `my_affine_layout`, holding `Affine`'s size and alignment and the
//! [`warpkit::abi::ABI_FINGERPRINT`] it was built with, which `load` compares with the host's
//! type and its own warpkit before anything is loaded. On the host, with the same
//! `Affine` and `Compose` (shared by both crates):
//!
//! ```ignore
//! // SAFETY: MY_PTX is the kernel crate's PTX, whose `my_affine` kernels
//! // `custom_kernels!` emitted for `Affine` and `Compose`.
//! let kernels = unsafe { CustomKernels::<Affine, Compose>::load(&wk, MY_PTX, "my_affine") }?;
//! let total: Affine = queue.custom(&kernels)?.reduce(&maps)?;
//! ```

use crate::context::Warpkit;
use crate::error::Error;
use crate::module::{Image, Module};
use crate::ops::{Range, Set, input, output, value};
use crate::queue::{Queue, ScanKind};
use bytemuck::Pod;
use cudarc::driver::{DevicePtr, DevicePtrMut};
use std::marker::PhantomData;
use std::sync::Arc;
use warpkit::ops::ReduceOp;

/// What `{prefix}_layout`, the global `warpkit::custom_kernels!` declares beside the kernels,
/// holds in the PTX text, if it is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeclaredLayout {
    /// The value type's size and alignment in bytes.
    pub size: usize,
    pub align: usize,
    /// The [`warpkit::abi::ABI_FINGERPRINT`] of the warpkit the kernels were built with
    /// (`None`: PTX from a warpkit that wrote none).
    pub abi: Option<u32>,
}

/// The layout `{prefix}_layout` declares in `ptx`, if it is there ([`DeclaredLayout`]).
pub fn declared_layout(ptx: &str, prefix: &str) -> Option<DeclaredLayout> {
    let key = format!(" {prefix}_layout[");
    let line = ptx
        .lines()
        .find(|l| l.contains(".global") && l.contains(&key))?;
    let inside = line
        .split(&key)
        .nth(1)?
        .split('{')
        .nth(1)?
        .split('}')
        .next()?;
    let numbers: Vec<u64> = inside
        .split(',')
        .map(|x| x.trim().parse::<u64>().ok())
        .collect::<Option<_>>()?;
    let (size, align, abi) = match numbers[..] {
        [size, align] => (size, align, None),
        [size, align, abi] => (size, align, u32::try_from(abi).ok()),
        _ => return None,
    };
    Some(DeclaredLayout {
        size: size as usize,
        align: align as usize,
        abi,
    })
}

/// The four kernels of a value type `T` and operator `Op` from a user's PTX, resolved once.
/// Kernels built for a type of another size or alignment are refused when they load. `Op`
/// must be the operator the kernels were built with: the host uses its identity for empty
/// input. Dropping the last one of a module waits for the whole context (`cuCtxSynchronize`:
/// every stream, other libraries' too) before it unloads the module, as work of its kernels
/// may still be pending on any stream.
pub struct CustomKernels<T, Op> {
    pub(crate) module: Arc<Module>,
    pub(crate) set: Set,
    pub(crate) identity: T,
    _op: PhantomData<fn() -> Op>,
}

impl<T: Pod, Op: ReduceOp<T> + Default> CustomKernels<T, Op> {
    /// Loads `ptx` into `wk`'s context and resolves the `prefix` kernels for `T`.
    ///
    /// # Safety
    /// The `prefix` kernels of `ptx` are those `warpkit::custom_kernels!` emitted for `T` and
    /// `Op` (your kernel crate's PTX, from its build script): the safe operations launch them
    /// with the library's parameters and rely on them to touch only the memory those describe.
    /// `load` checks the layout and ABI line the macro writes, which catches a stale or
    /// mismatched build, but no text check can prove where code came from: loading other PTX
    /// is like loading a shared library.
    pub unsafe fn load(wk: &Warpkit, ptx: &str, prefix: &str) -> Result<Self, Error> {
        let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
        match declared_layout(ptx, prefix) {
            Some(DeclaredLayout {
                size: s, align: a, ..
            }) if (s, a) != (size, align) => {
                return Err(Error::BadModule(format!(
                    "the PTX's `{prefix}` kernels were built for a type of {s} bytes aligned to \
                     {a}, not {size} bytes aligned to {align}: use the same type on both sides"
                )));
            }
            Some(DeclaredLayout { abi, .. }) if abi != Some(warpkit::abi::ABI_FINGERPRINT) => {
                return Err(Error::BadModule(format!(
                    "the PTX's `{prefix}` kernels were built against another warpkit (ABI \
                     fingerprint {}, this warpkit-host's {:#010x}): rebuild the kernel crate \
                     with the warpkit that warpkit-host depends on",
                    abi.map_or("none".into(), |f| format!("{f:#010x}")),
                    warpkit::abi::ABI_FINGERPRINT
                )));
            }
            Some(_) => {}
            None => {
                return Err(Error::MissingKernel(format!(
                    "the PTX has no `{prefix}_layout`: emit the kernels with \
                     `warpkit::custom_kernels! {{ prefix: {prefix}, value: .., op: .. }}`"
                )));
            }
        }
        let module = Arc::new(Module::load(wk.context(), Image::Ptx(ptx))?);
        let resolve = |family: &str| {
            let name = format!("{prefix}_{family}");
            module.kernel(&name)?.ok_or_else(|| {
                Error::MissingKernel(format!(
                    "the PTX lacks `.entry {name}` (emitted by `warpkit::custom_kernels!`)"
                ))
            })
        };
        let set = Set {
            reduce: resolve("reduce")?,
            scan: resolve("scan")?,
            rows_reduce: resolve("rows_reduce")?,
            rows_scan: resolve("rows_scan")?,
            item_bytes: size,
            value_bytes: size,
        };
        Ok(CustomKernels {
            module,
            set,
            identity: Op::default().identity(),
            _op: PhantomData,
        })
    }
}

impl Queue {
    /// The operations of custom kernels on this queue. The kernels must be loaded in the
    /// queue's context.
    pub fn custom<'q, T: Pod, Op>(
        &'q mut self,
        kernels: &'q CustomKernels<T, Op>,
    ) -> Result<Custom<'q, T, Op>, Error> {
        if kernels.module.context().cu_ctx() != self.wk.context().cu_ctx() {
            return Err(Error::WrongContext { op: "custom" });
        }
        Ok(Custom {
            queue: self,
            kernels,
        })
    }
}

/// [`Queue`]'s operations with custom kernels ([`Queue::custom`]); the same checks and
/// semantics as the library's (reduce writes one `T`).
pub struct Custom<'q, T, Op> {
    queue: &'q mut Queue,
    kernels: &'q CustomKernels<T, Op>,
}

/// Keeps `modules` loaded for good if an operation was just captured into a graph
/// (`captured_after > captured_before`): the graph may be replayed after the [`CustomKernels`]
/// are dropped, as the queue keeps its storage (`Queue::note_capture`). Done as the operation
/// returns, not in a destructor, which safe code may skip (`std::mem::forget`).
pub(crate) fn pin_if_captured<'m>(
    captured_before: u64,
    captured_after: u64,
    modules: impl IntoIterator<Item = &'m Arc<Module>>,
) {
    if captured_after > captured_before {
        for module in modules {
            std::mem::forget(module.clone());
        }
    }
}

impl<T: Pod, Op> Custom<'_, T, Op> {
    /// Runs one operation of the queue with these kernels ([`pin_if_captured`]).
    fn run<R>(&mut self, op: impl FnOnce(&mut Queue, Set) -> Result<R, Error>) -> Result<R, Error> {
        let before = self.queue.captured;
        let result = op(self.queue, self.kernels.set);
        pin_if_captured(before, self.queue.captured, [&self.kernels.module]);
        result
    }

    /// See [`Queue::reduce_into`].
    pub fn reduce_into(
        &mut self,
        input: &impl DevicePtr<T>,
        output: &mut impl DevicePtrMut<T>,
    ) -> Result<(), Error> {
        let stream = self.queue.stream.clone();
        let (i, _ri) = input!(self.queue, "reduce_into", stream, input);
        let (o, _ro) = output!(self.queue, "reduce_into", stream, output);
        let identity = self.kernels.identity;
        self.run(|q, set| q.do_reduce_into(set, i, o, bytemuck::bytes_of(&identity)))
    }

    /// See [`Queue::reduce`].
    pub fn reduce(&mut self, input: &impl DevicePtr<T>) -> Result<T, Error> {
        let stream = self.queue.stream.clone();
        let (i, _ri) = input!(self.queue, "reduce", stream, input);
        let identity = self.kernels.identity;
        Ok(value(&self.run(|q, set| {
            q.do_reduce(set, i, bytemuck::bytes_of(&identity))
        })?))
    }

    /// See [`Queue::scan`].
    pub fn scan(
        &mut self,
        input: &impl DevicePtr<T>,
        output: &mut impl DevicePtrMut<T>,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.queue.stream.clone();
        let (i, _ri) = input!(self.queue, "scan", stream, input);
        let (o, _ro) = output!(self.queue, "scan", stream, output);
        self.run(|q, set| q.do_scan(set, i, o, kind))
    }

    /// See [`Queue::scan_in_place`].
    pub fn scan_in_place(
        &mut self,
        data: &mut impl DevicePtrMut<T>,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.queue.stream.clone();
        let (d, _rd) = output!(self.queue, "scan_in_place", stream, data);
        self.run(|q, set| q.do_scan(set, d, d, kind))
    }

    /// See [`Queue::rows_reduce`].
    pub fn rows_reduce(
        &mut self,
        input: &impl DevicePtr<T>,
        width: usize,
        output: &mut impl DevicePtrMut<T>,
    ) -> Result<(), Error> {
        let stream = self.queue.stream.clone();
        let (i, _ri) = input!(self.queue, "rows_reduce", stream, input);
        let (o, _ro) = output!(self.queue, "rows_reduce", stream, output);
        self.run(|q, set| q.do_rows_reduce(set, i, width, o))
    }

    /// See [`Queue::rows_scan`].
    pub fn rows_scan(
        &mut self,
        input: &impl DevicePtr<T>,
        width: usize,
        output: &mut impl DevicePtrMut<T>,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.queue.stream.clone();
        let (i, _ri) = input!(self.queue, "rows_scan", stream, input);
        let (o, _ro) = output!(self.queue, "rows_scan", stream, output);
        self.run(|q, set| q.do_rows_scan(set, i, width, o, kind))
    }

    /// See [`Queue::segments_reduce`].
    pub fn segments_reduce(
        &mut self,
        input: &impl DevicePtr<T>,
        offsets: &[u64],
        output: &mut impl DevicePtrMut<T>,
    ) -> Result<(), Error> {
        let stream = self.queue.stream.clone();
        let (i, _ri) = input!(self.queue, "segments_reduce", stream, input);
        let (o, _ro) = output!(self.queue, "segments_reduce", stream, output);
        self.run(|q, set| q.do_segments_reduce(set, i, offsets, o))
    }

    /// See [`Queue::segments_scan`].
    pub fn segments_scan(
        &mut self,
        input: &impl DevicePtr<T>,
        offsets: &[u64],
        output: &mut impl DevicePtrMut<T>,
        kind: ScanKind,
    ) -> Result<(), Error> {
        let stream = self.queue.stream.clone();
        let (i, _ri) = input!(self.queue, "segments_scan", stream, input);
        let (o, _ro) = output!(self.queue, "segments_scan", stream, output);
        self.run(|q, set| q.do_segments_scan(set, i, offsets, o, kind))
    }
}

#[cfg(test)]
mod tests {
    use super::{DeclaredLayout, declared_layout};

    #[test]
    fn the_declared_layout_is_read_from_the_ptx_text() {
        let ptx = ".version 7.8\n.visible .global .align 4 .u32 my_affine_layout[3] = { 8, 4, 3735928559 };\n";
        assert_eq!(
            declared_layout(ptx, "my_affine"),
            Some(DeclaredLayout {
                size: 8,
                align: 4,
                abi: Some(0xdead_beef)
            })
        );
        assert_eq!(declared_layout(ptx, "affine"), None);
        assert_eq!(
            declared_layout(".visible .entry my_affine_scan(", "my_affine"),
            None
        );
        let old = ".visible .global .align 4 .u32 my_affine_layout[2] = { 8, 4 };";
        assert_eq!(
            declared_layout(old, "my_affine").map(|l| (l.size, l.align, l.abi)),
            Some((8, 4, None))
        );
    }
}
