//! Reductions and scans over several GPUs of one host (or one GPU per process, several
//! processes or hosts), through NCCL (feature `nccl`).
//!
//! The data is sharded: one device buffer per GPU, on that GPU's context; shard `r` holds
//! the items after those of shards `0..r`. Every operation is warpkit's single-GPU kernel on
//! each shard plus one NCCL `all_gather` of one value per GPU
//! (<https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/collectives.html#allgather>):
//!
//! - **reduce**: each GPU reduces its shard to one value (an empty shard gives the identity);
//!   the values are all-gathered, and each GPU reduces the gathered array (`world` values, in
//!   rank order) with warpkit's reduce kernel of the same operator. NCCL's `all_reduce` is not
//!   used: it knows only sum/prod/min/max of its own types, its float order is not fixed, and
//!   its min/max do not follow warpkit's NaN and signed-zero rules. The all-gather moves bytes,
//!   so every type and operator works (custom ones too), and every GPU computes the same bits.
//! - **scan**: a reduce-then-scan over the scan kernel's own tiles
//!   (`warpkit::abi::params::scan_pass`). Each GPU writes its shard's tile totals (a read-only
//!   pass of the scan kernel) and reduces them to its shard's total; the totals are
//!   all-gathered; GPU `r` reduces the totals of ranks `0..r` into its carry, scans its tile
//!   totals exclusively after that carry, and scans its shard with each tile starting from its
//!   prefix (no look-back). Traffic per GPU: one read, then a read and a write at copy speed.
//!   A single-pass scan would wait for the carry before it could write anything, so it would
//!   cost a read *plus* a whole single-pass scan. One rank alone runs the single-pass scan.
//! - **arg-min/arg-max** ([`MultiGpu::arg_reduce`]): each GPU arg-reduces its shard, one
//!   record per rank (shard length, winner's index and value) is all-gathered, and every
//!   process folds the records in rank order on the host with the library's rules: the
//!   single-GPU result over the concatenated shards, bit for bit.
//!
//! Results, for integers and for every min/max (floats included): bit for bit those of the
//! single-GPU kernels over the whole input (the operators are associative and commutative on
//! these values). Float sums group differently than on one GPU; they are deterministic (the
//! same bits on every run and on every GPU for a given sharding) and within the single-GPU
//! bound of the exact sum plus `world` more roundings. `f16`/`bf16` accumulate in `f32` as on
//! one GPU.
//!
//! ```no_run
//! use warpkit::ops::Sum;
//! use warpkit_host::ScanKind;
//! use warpkit_host::multi::MultiGpu;
//!
//! let mut gpus = MultiGpu::new(&[0, 1])?;          // one communicator per GPU (ncclCommInitAll)
//! let data: Vec<u32> = (0..1000).collect();
//! let shards = gpus.scatter(&data)?;               // 500 items on each GPU
//! let total: u32 = gpus.reduce(&shards, Sum)?;     // 499500, computed on both GPUs
//! let mut out = gpus.alloc::<u32>(&MultiGpu::shard_lengths(data.len(), 2))?;
//! gpus.scan(&shards, &mut out, Sum, ScanKind::Inclusive)?;
//! assert_eq!(gpus.gather(&out)?[999], total);
//! # Ok::<(), warpkit_host::Error>(())
//! ```
//!
//! One rank per process (the form that spans hosts): rank 0 makes a [`UniqueId`] and sends
//! its [`UniqueId::as_bytes`] to the others, and every process calls
//! [`MultiGpu::from_rank`] with its rank
//! (<https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitrank>).
//! Every operation is then collective: each process calls it with its own shard.
//!
//! NCCL is found at run time ([`nccl::find_library`]): `$WARPKIT_NCCL_LIB`, the system's
//! library path, the CUDA toolkit, and NVIDIA's wheel (`pip install nvidia-nccl-cu13`) in any
//! Python `site-packages`.
//!
//! **NVLink SHARP.** Where the GPUs support multicast objects, NCCL may use NVLink SHARP
//! (NVLS), which creates them; they can take a shared host's GPUs out of service. So
//! communicators over several such GPUs are refused ([`Error::NvlsUnchosen`]) until the
//! environment says whether NCCL may: `NCCL_NVLS_ENABLE=0` (no multicast objects; what the
//! project's scripts set) or `NCCL_NVLS_ENABLE=1`, set before the program starts. warpkit
//! never sets it itself (`std::env::set_var` while other threads run is undefined behaviour),
//! and never creates multicast objects.

mod arg;
pub mod nccl;

use crate::context::{Warpkit, open_device};
use crate::custom::{CustomKernels, pin_if_captured};
use crate::element::{DeviceOp, Element};
use crate::error::{During as _, Error};
use crate::ops::{Range, Set, check_output};
use crate::queue::{Buffer, Queue, ScanKind, ScanPass, scan_tiles};
use bytemuck::Pod;
use cudarc::driver::{
    CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, SyncOnDrop,
    ValidAsZeroBits,
};
use nccl::Comm;
pub use nccl::{DataType, RedOp, UniqueId};
use std::mem::ManuallyDrop;
use std::sync::Arc;
use warpkit::ops::ReduceOp;

/// One GPU of this process: its rank, queue, communicator and scratch storage.
struct Rank {
    rank: usize,
    queue: Queue,
    /// `world` gathered values, this rank's value, its carry, then the scan's tile values
    /// (each part 16-byte aligned).
    scratch: Option<Buffer<u8>>,
    /// Destroyed with the rank unless a graph captured the rank's work (see `Drop`).
    comm: ManuallyDrop<Comm>,
}

/// The addresses in a rank's scratch storage for values of `bytes` bytes.
#[derive(Clone, Copy)]
struct Slots {
    gathered: u64,
    mine: u64,
    carry: u64,
    /// Room for the tiles the slots were asked for, one value each.
    tiles: u64,
}

impl Drop for Rank {
    /// Once a graph has captured the rank's work, leaks its scratch and its communicator,
    /// which the graph's launches use for as long as it lives (the queue's rule for its own
    /// storage, [`Queue::note_capture`]).
    fn drop(&mut self) {
        self.queue.retire(self.scratch.take());
        if self.queue.captured == 0 {
            // SAFETY: dropped once, here; the field is not used after.
            unsafe { ManuallyDrop::drop(&mut self.comm) };
        }
    }
}

const fn round16(x: usize) -> usize {
    x.div_ceil(16) * 16
}

impl Rank {
    /// The scratch storage's slots, grown first if need be. Under graph capture the scratch is
    /// kept as the queue keeps its own storage ([`Queue::note_capture`]): never allocated
    /// during a capture, and never freed once captured.
    fn slots(&mut self, world: usize, bytes: usize, tiles: usize) -> Result<Slots, Error> {
        let need = round16(world * bytes) + 2 * round16(bytes) + tiles * bytes;
        let capturing = self.queue.capturing()?;
        if self.scratch.as_ref().is_none_or(|b| b.len < need) {
            if capturing {
                return Err(Error::Capturing {
                    op: "multi-GPU reduce or scan",
                    reason: "a GPU needs more scratch storage than it has: run the same call \
                             once outside the capture, with the same shard lengths, before \
                             capturing",
                });
            }
            self.queue.retire(self.scratch.take());
            self.scratch = Some(Buffer::new(&self.queue.stream, need.max(256), false)?);
        }
        self.queue.note_capture(capturing);
        let base = self.scratch.as_ref().expect("just allocated").ptr;
        let mine = base + round16(world * bytes) as u64;
        let carry = mine + round16(bytes) as u64;
        Ok(Slots {
            gathered: base,
            mine,
            carry,
            tiles: carry + round16(bytes) as u64,
        })
    }
}

/// The kernels one rank runs for one operation: the shard's kernels, and those of the value
/// type that fold the gathered values and scan the tile totals.
#[derive(Clone, Copy)]
struct Plan {
    set: Set,
    fold: Set,
}

/// Several GPUs and their NCCL communicators: sharded reduce and scan ([module docs](self)).
/// Operations take one shard per GPU of this process, in the order of [`MultiGpu::ranks`].
pub struct MultiGpu {
    ranks: Vec<Rank>,
    world: usize,
}

impl MultiGpu {
    /// Every GPU of `ordinals` in this process, rank `i` on `ordinals[i]`
    /// (`ncclCommInitAll`). A device may appear once.
    pub fn new(ordinals: &[usize]) -> Result<MultiGpu, Error> {
        check_ordinals(ordinals)?;
        nccl::library()?;
        let mut wks = Vec::new();
        for &o in ordinals {
            wks.push(Warpkit::new(o)?);
        }
        nccl::check_nvls_choice(ordinals.len(), ordinals)?;
        let comms = Comm::init_all(ordinals)?;
        let mut ranks = Vec::new();
        for (rank, (wk, comm)) in wks.iter().zip(comms).enumerate() {
            let stream = wk.new_stream()?;
            ranks.push(Rank {
                rank,
                queue: Queue::new(wk, &stream)?,
                scratch: None,
                comm: ManuallyDrop::new(comm),
            });
        }
        Ok(MultiGpu {
            world: ordinals.len(),
            ranks,
        })
    }

    /// Every GPU the driver reports.
    pub fn all_devices() -> Result<MultiGpu, Error> {
        open_device(0)?;
        let count = cudarc::driver::result::device::get_count().during("count devices")? as usize;
        Self::new(&(0..count).collect::<Vec<_>>())
    }

    /// Rank `rank` of `world` on device `ordinal`, one rank in this process
    /// (`ncclCommInitRank`): every rank's process calls this with the same `id`, and the call
    /// returns when all have joined.
    pub fn from_rank(
        ordinal: usize,
        rank: usize,
        world: usize,
        id: &UniqueId,
    ) -> Result<MultiGpu, Error> {
        if rank >= world {
            return Err(Error::BadShards {
                op: "MultiGpu::from_rank",
                reason: format!("rank {rank} is not below the world size {world}"),
            });
        }
        nccl::library()?;
        let wk = Warpkit::new(ordinal)?;
        nccl::check_nvls_choice(world, &[ordinal])?;
        wk.context().bind_to_thread().during("bind context")?;
        let comm = Comm::init_rank(id, rank, world)?;
        let stream = wk.new_stream()?;
        Ok(MultiGpu {
            ranks: vec![Rank {
                rank,
                queue: Queue::new(&wk, &stream)?,
                scratch: None,
                comm: ManuallyDrop::new(comm),
            }],
            world,
        })
    }

    /// The number of ranks (GPUs) in the communicator, in all processes.
    pub fn world_size(&self) -> usize {
        self.world
    }

    /// The ranks of this process's GPUs, in the order operations take their shards.
    pub fn ranks(&self) -> Vec<usize> {
        self.ranks.iter().map(|r| r.rank).collect()
    }

    /// The kernels of this process's GPU `i` (in [`MultiGpu::ranks`] order).
    pub fn warpkit(&self, i: usize) -> &Warpkit {
        self.ranks[i].queue.warpkit()
    }

    /// The stream operations on GPU `i` are enqueued on.
    pub fn stream(&self, i: usize) -> &Arc<CudaStream> {
        self.ranks[i].queue.stream()
    }

    /// Waits for everything enqueued on every GPU of this process.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.ranks.iter().try_for_each(|r| r.queue.synchronize())
    }

    /// How `len` items are split over `shards`: as evenly as possible, the first
    /// `len % shards` shards one item longer.
    pub fn shard_lengths(len: usize, shards: usize) -> Vec<usize> {
        let shards = shards.max(1);
        (0..shards)
            .map(|i| len / shards + usize::from(i < len % shards))
            .collect()
    }

    /// Copies `data` to this process's GPUs, split by [`MultiGpu::shard_lengths`].
    pub fn scatter<T: DeviceRepr>(&self, data: &[T]) -> Result<Vec<CudaSlice<T>>, Error> {
        let mut start = 0;
        let mut out = Vec::new();
        for (rank, len) in self
            .ranks
            .iter()
            .zip(Self::shard_lengths(data.len(), self.ranks.len()))
        {
            rank.queue.bind()?;
            let stream = rank.queue.stream();
            out.push(
                stream
                    .clone_htod(&data[start..start + len])
                    .during("copy shard")?,
            );
            start += len;
        }
        Ok(out)
    }

    /// Allocates one uninitialised shard of `lengths[i]` items on each GPU `i`.
    pub fn alloc<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        lengths: &[usize],
    ) -> Result<Vec<CudaSlice<T>>, Error> {
        self.check_count("alloc", lengths.len())?;
        let mut out = Vec::new();
        for (rank, &len) in self.ranks.iter().zip(lengths) {
            rank.queue.bind()?;
            out.push(
                rank.queue
                    .stream()
                    .alloc_zeros::<T>(len)
                    .during("allocate")?,
            );
        }
        Ok(out)
    }

    /// Copies the shards back and concatenates them (after the work enqueued on them).
    pub fn gather<T: DeviceRepr + Clone>(&self, shards: &[CudaSlice<T>]) -> Result<Vec<T>, Error> {
        self.check_count("gather", shards.len())?;
        let mut out = Vec::new();
        for (rank, s) in self.ranks.iter().zip(shards) {
            rank.queue.bind()?;
            out.extend(rank.queue.stream().clone_dtoh(s).during("copy shard")?);
        }
        Ok(out)
    }

    fn check_count(&self, op: &'static str, found: usize) -> Result<(), Error> {
        if found == self.ranks.len() {
            Ok(())
        } else {
            Err(Error::LengthMismatch {
                op,
                what: "shards (one per GPU of this process)",
                expected: self.ranks.len(),
                found,
            })
        }
    }

    /// Refuses shards that are not on their GPU's context.
    fn check_contexts<T>(
        &self,
        op: &'static str,
        shards: &[impl DeviceSlice<T>],
    ) -> Result<(), Error> {
        self.check_count(op, shards.len())?;
        for (rank, s) in self.ranks.iter().zip(shards) {
            rank.queue.same_context(op, s)?;
        }
        Ok(())
    }

    fn streams(&self) -> Vec<Arc<CudaStream>> {
        self.ranks
            .iter()
            .map(|r| r.queue.stream().clone())
            .collect()
    }

    /// Enqueues the reduction of all shards (of every process) into `outputs[i][0]` on every
    /// GPU `i`; the same bits on every GPU. Empty shards (or all of them) are allowed.
    pub fn reduce_into<T: Element, O: DeviceOp, S: DevicePtr<T>, D: DevicePtrMut<T::Accum>>(
        &mut self,
        inputs: &[S],
        outputs: &mut [D],
        _op: O,
    ) -> Result<(), Error>
    where
        T::Accum: Element,
    {
        let plans = self.library_plans::<T, O>();
        let identity = crate::element::identity::<T, O>();
        self.reduce_typed(
            "multi reduce_into",
            &plans,
            inputs,
            outputs,
            bytemuck::bytes_of(&identity),
        )
    }

    /// Refuses `op`, which returns its result to the host, while any GPU's stream captures a
    /// graph (as [`Queue::reduce`] does), before it allocates or enqueues anything.
    fn not_capturing(&self, op: &'static str) -> Result<(), Error> {
        for rank in &self.ranks {
            rank.queue.bind()?;
            rank.queue
                .not_capturing(op, "it returns the result to the host; use reduce_into")?;
        }
        Ok(())
    }

    /// The reduction of all shards, on every GPU, returned from this process's first GPU.
    pub fn reduce<T: Element, O: DeviceOp, S: DevicePtr<T>>(
        &mut self,
        inputs: &[S],
        op: O,
    ) -> Result<T, Error>
    where
        T::Accum: Element,
    {
        self.not_capturing("multi reduce")?;
        let mut outs = self.alloc::<T::Accum>(&vec![1; self.ranks.len()])?;
        self.reduce_into(inputs, &mut outs, op)?;
        self.synchronize()?;
        let first = self.ranks[0]
            .queue
            .stream()
            .clone_dtoh(&outs[0])
            .during("copy result")?;
        Ok(T::from_accum(first[0]))
    }

    /// Enqueues the scan of all shards: `outputs[i]` (the length of `inputs[i]`, disjoint
    /// from it or the same range) gets shard `i`'s part of the scan of the whole sequence.
    pub fn scan<T: Element, O: DeviceOp, S: DevicePtr<T>, D: DevicePtrMut<T>>(
        &mut self,
        inputs: &[S],
        outputs: &mut [D],
        _op: O,
        kind: ScanKind,
    ) -> Result<(), Error>
    where
        T::Accum: Element,
    {
        let plans = self.library_plans::<T, O>();
        let identity = crate::element::identity::<T, O>();
        self.scan_typed(
            "multi scan",
            &plans,
            inputs,
            outputs,
            kind,
            bytemuck::bytes_of(&identity),
        )
    }

    /// The operations with custom kernels: `kernels[i]` loaded on GPU `i`
    /// ([`CustomKernels::load`] with [`MultiGpu::warpkit`]`(i)`).
    pub fn custom<'a, T: Pod, Op>(
        &'a mut self,
        kernels: &'a [CustomKernels<T, Op>],
    ) -> Result<MultiCustom<'a, T, Op>, Error> {
        self.check_count("custom", kernels.len())?;
        for (rank, k) in self.ranks.iter().zip(kernels) {
            if k.module.context().cu_ctx() != rank.queue.warpkit().context().cu_ctx() {
                return Err(Error::WrongContext { op: "custom" });
            }
        }
        Ok(MultiCustom {
            gpus: self,
            kernels,
        })
    }

    fn library_plans<T: Element, O: DeviceOp>(&self) -> Vec<Plan>
    where
        T::Accum: Element,
    {
        self.ranks
            .iter()
            .map(|r| Plan {
                set: r.queue.set::<T, O>(),
                fold: r.queue.set::<T::Accum, O>(),
            })
            .collect()
    }

    fn reduce_typed<T, A, S: DevicePtr<T>, D: DevicePtrMut<A>>(
        &mut self,
        op: &'static str,
        plans: &[Plan],
        inputs: &[S],
        outputs: &mut [D],
        identity: &[u8],
    ) -> Result<(), Error> {
        self.check_contexts(op, inputs)?;
        self.check_contexts(op, outputs)?;
        let streams = self.streams();
        let (ins, _gi) = ranges_in(&streams, inputs);
        let (outs, _go) = ranges_out(&streams, outputs);
        check_reduce(op, &outs)?;
        run_reduce(&mut self.ranks, self.world, plans, &ins, &outs, identity)
    }

    #[allow(clippy::too_many_arguments)]
    fn scan_typed<T, S: DevicePtr<T>, D: DevicePtrMut<T>>(
        &mut self,
        op: &'static str,
        plans: &[Plan],
        inputs: &[S],
        outputs: &mut [D],
        kind: ScanKind,
        identity: &[u8],
    ) -> Result<(), Error> {
        self.check_contexts(op, inputs)?;
        self.check_contexts(op, outputs)?;
        let streams = self.streams();
        let (ins, _gi) = ranges_in(&streams, inputs);
        let (outs, _go) = ranges_out(&streams, outputs);
        check_scan(op, &ins, &outs, plans[0].set.item_bytes)?;
        run_scan(
            &mut self.ranks,
            self.world,
            plans,
            &ins,
            &outs,
            kind,
            identity,
        )
    }

    /// NCCL's own `ncclAllReduce` of `buffers[i]` in place on every GPU (for comparisons:
    /// warpkit's reduce does not use it, see the [module docs](self)). `T` is plain data of
    /// `ty`'s size: NCCL writes any bit pattern of `ty` into it (a sum of `bool`s as `Uint8`
    /// would not be a `bool`).
    pub fn nccl_all_reduce<T: DeviceRepr + bytemuck::Pod>(
        &mut self,
        buffers: &mut [CudaSlice<T>],
        ty: DataType,
        op: RedOp,
    ) -> Result<(), Error> {
        self.check_count("nccl_all_reduce", buffers.len())?;
        let item = match ty {
            DataType::Int8 | DataType::Uint8 => 1,
            DataType::Float16 | DataType::Bfloat16 => 2,
            DataType::Int32 | DataType::Uint32 | DataType::Float32 => 4,
            _ => 8,
        };
        if item != std::mem::size_of::<T>() {
            return Err(Error::BadShards {
                op: "nccl_all_reduce",
                reason: format!(
                    "{ty:?} is {item} bytes, the buffers' items {}",
                    std::mem::size_of::<T>()
                ),
            });
        }
        self.check_contexts("nccl_all_reduce", buffers)?;
        // A captured all-reduce keeps the communicators alive (`Rank`'s `Drop`).
        for rank in &mut self.ranks {
            rank.queue.bind()?;
            let capturing = rank.queue.capturing()?;
            rank.queue.note_capture(capturing);
        }
        let streams = self.streams();
        let (outs, _g) = ranges_out(&streams, buffers);
        let ranks = &self.ranks;
        nccl::group(|| {
            for (rank, o) in ranks.iter().zip(&outs) {
                // SAFETY: the buffer is on the rank's GPU with `len` items of `ty`.
                unsafe {
                    rank.comm.all_reduce(
                        o.ptr,
                        o.ptr,
                        o.len,
                        ty,
                        op,
                        rank.queue.stream().cu_stream() as _,
                    )
                }?;
            }
            Ok(())
        })
    }
}

/// The ranges of input shards, with the guards that record their use on each GPU's stream.
fn ranges_in<'a, T, S: DevicePtr<T>>(
    streams: &'a [Arc<CudaStream>],
    shards: &'a [S],
) -> (Vec<Range>, Vec<SyncOnDrop<'a>>) {
    let mut ranges = Vec::new();
    let mut guards = Vec::new();
    for (stream, s) in streams.iter().zip(shards) {
        let (ptr, guard) = s.device_ptr(stream);
        ranges.push(Range { ptr, len: s.len() });
        guards.push(guard);
    }
    (ranges, guards)
}

/// The ranges of output shards, with their guards.
fn ranges_out<'a, T, D: DevicePtrMut<T>>(
    streams: &'a [Arc<CudaStream>],
    shards: &'a mut [D],
) -> (Vec<Range>, Vec<SyncOnDrop<'a>>) {
    let mut ranges = Vec::new();
    let mut guards = Vec::new();
    for (stream, s) in streams.iter().zip(shards.iter_mut()) {
        let len = s.len();
        let (ptr, guard) = s.device_ptr_mut(stream);
        ranges.push(Range { ptr, len });
        guards.push(guard);
    }
    (ranges, guards)
}

/// Refuses an empty or repeated device list.
pub(crate) fn check_ordinals(ordinals: &[usize]) -> Result<(), Error> {
    let op = "MultiGpu::new";
    if ordinals.is_empty() {
        return Err(Error::BadShards {
            op,
            reason: "no devices given".into(),
        });
    }
    for (i, o) in ordinals.iter().enumerate() {
        if ordinals[..i].contains(o) {
            return Err(Error::BadShards {
                op,
                reason: format!("device {o} appears twice (one rank per GPU)"),
            });
        }
    }
    Ok(())
}

/// Every output of a reduce has room for the value.
pub(crate) fn check_reduce(op: &'static str, outputs: &[Range]) -> Result<(), Error> {
    for o in outputs {
        if o.len == 0 {
            return Err(Error::LengthMismatch {
                op,
                what: "output",
                expected: 1,
                found: 0,
            });
        }
    }
    Ok(())
}

/// Every output of a scan fits its shard (same length; disjoint or the same range) and no
/// shard has more tiles than the kernel can index.
pub(crate) fn check_scan(
    op: &'static str,
    inputs: &[Range],
    outputs: &[Range],
    item: usize,
) -> Result<(), Error> {
    for (i, o) in inputs.iter().zip(outputs) {
        check_output(op, *i, *o, item, true)?;
        scan_tiles(i.len, item)?;
    }
    Ok(())
}

/// Each rank's value into its `mine` slot (`value`: the identity for an empty shard, else
/// what the closure enqueues), then the all-gather of those slots into `gathered` on every
/// rank. `prepare` readies a rank's queue for everything the operation enqueues on it
/// ([`Queue::reserve_reduce`], [`Queue::reserve_scan`]) and returns how many tile values its scratch must hold.
fn gather_values(
    ranks: &mut [Rank],
    world: usize,
    plans: &[Plan],
    inputs: &[Range],
    identity: &[u8],
    prepare: impl Fn(&mut Queue, &Plan, Range) -> Result<usize, Error>,
    mut value: impl FnMut(&mut Queue, &Plan, Range, Slots) -> Result<(), Error>,
) -> Result<Vec<Slots>, Error> {
    let bytes = plans[0].fold.value_bytes;
    // Every rank's queue storage and scratch first: a rank that cannot have them (during a
    // capture) refuses the operation before any rank has enqueued work.
    let slots = ranks
        .iter_mut()
        .zip(plans)
        .zip(inputs)
        .map(|((rank, plan), &input)| {
            rank.queue.bind()?;
            let tiles = prepare(&mut rank.queue, plan, input)?;
            rank.slots(world, bytes, tiles)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    for (((rank, plan), &input), &s) in ranks.iter_mut().zip(plans).zip(inputs).zip(&slots) {
        rank.queue.bind()?;
        if input.len == 0 {
            rank.queue.write_bytes(s.mine, identity)?;
        } else {
            value(&mut rank.queue, plan, input, s)?;
        }
    }
    let ranks = &*ranks;
    nccl::group(|| {
        for (rank, s) in ranks.iter().zip(&slots) {
            // SAFETY: `mine` holds `bytes`, `gathered` `world × bytes`, on the rank's GPU, in
            // its scratch storage (freed on its stream after this work).
            unsafe {
                rank.comm.all_gather(
                    s.mine,
                    s.gathered,
                    bytes,
                    rank.queue.stream().cu_stream() as _,
                )
            }?;
        }
        Ok(())
    })?;
    Ok(slots)
}

fn run_reduce(
    ranks: &mut [Rank],
    world: usize,
    plans: &[Plan],
    inputs: &[Range],
    outputs: &[Range],
    identity: &[u8],
) -> Result<(), Error> {
    let reduce_shard = |queue: &mut Queue, plan: &Plan, input: Range, s: Slots| {
        let set = plan.set;
        queue.enqueue_reduce(
            set.reduce,
            input.ptr,
            input.len,
            set.item_bytes,
            set.value_bytes,
            Some(s.mine),
        )
    };
    // The shard's reduce and the fold of the gathered values.
    let prepare = |queue: &mut Queue, plan: &Plan, _: Range| {
        queue.reserve_reduce(plan.set.value_bytes.max(plan.fold.value_bytes))?;
        Ok(0)
    };
    let slots = gather_values(ranks, world, plans, inputs, identity, prepare, reduce_shard)?;
    let bytes = plans[0].fold.value_bytes;
    for (((rank, plan), s), o) in ranks.iter_mut().zip(plans).zip(&slots).zip(outputs) {
        rank.queue.bind()?;
        // The same fold of the same `world` values in rank order on every GPU.
        rank.queue.enqueue_reduce(
            plan.fold.reduce,
            s.gathered,
            world,
            bytes,
            bytes,
            Some(o.ptr),
        )?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_scan(
    ranks: &mut [Rank],
    world: usize,
    plans: &[Plan],
    inputs: &[Range],
    outputs: &[Range],
    kind: ScanKind,
    identity: &[u8],
) -> Result<(), Error> {
    let item = plans[0].set.item_bytes;
    if world == 1 {
        // Nothing comes before the only shard: the single-pass scan.
        let (set, i, o) = (plans[0].set, inputs[0], outputs[0]);
        let queue = &mut ranks[0].queue;
        queue.bind()?;
        let pass = ScanPass::Single { carry: 0 };
        return queue.enqueue_scan(set, i.ptr, o.ptr, i.len, kind, pass);
    }
    let shard_tiles = |input: Range| scan_tiles(input.len, item);
    // The shard's two scan passes, the scan of its tile totals (fewer tiles) and the folds;
    // an empty shard's rank enqueues none of them.
    let prepare = |queue: &mut Queue, plan: &Plan, input: Range| {
        let tiles = shard_tiles(input)?;
        if tiles > 0 {
            let bytes = plan.set.value_bytes.max(plan.fold.value_bytes);
            queue.reserve_reduce(bytes)?;
            queue.reserve_scan(tiles, bytes)?;
        }
        Ok(tiles)
    };
    // The shard's tile totals, then their fold: the shard's total.
    let tile_totals = |queue: &mut Queue, plan: &Plan, input: Range, s: Slots| {
        let (set, fold) = (plan.set, plan.fold);
        let pass = ScanPass::TileTotals { tiles: s.tiles };
        queue.enqueue_scan(set, input.ptr, 0, input.len, kind, pass)?;
        let bytes = fold.value_bytes;
        let tiles = shard_tiles(input)?;
        queue.enqueue_reduce(fold.reduce, s.tiles, tiles, bytes, bytes, Some(s.mine))
    };
    let slots = gather_values(ranks, world, plans, inputs, identity, prepare, tile_totals)?;
    let bytes = plans[0].fold.value_bytes;
    for ((((rank, plan), s), &i), o) in ranks
        .iter_mut()
        .zip(plans)
        .zip(&slots)
        .zip(inputs)
        .zip(outputs)
    {
        if i.len == 0 {
            continue;
        }
        let queue = &mut rank.queue;
        queue.bind()?;
        // The carry of rank r: the totals of ranks 0..r folded by the reduce kernel.
        let carry = if rank.rank == 0 {
            0
        } else {
            let fold = plan.fold.reduce;
            queue.enqueue_reduce(fold, s.gathered, rank.rank, bytes, bytes, Some(s.carry))?;
            s.carry
        };
        // Each tile's prefix: the carry, then the totals of the tiles before it.
        let tiles = shard_tiles(i)?;
        let pass = ScanPass::Single { carry };
        let exclusive = ScanKind::Exclusive;
        queue.enqueue_scan(plan.fold, s.tiles, s.tiles, tiles, exclusive, pass)?;
        let pass = ScanPass::FromTilePrefixes { tiles: s.tiles };
        queue.enqueue_scan(plan.set, i.ptr, o.ptr, i.len, kind, pass)?;
    }
    Ok(())
}

/// [`MultiGpu`]'s operations with custom kernels ([`MultiGpu::custom`]).
pub struct MultiCustom<'a, T, Op> {
    gpus: &'a mut MultiGpu,
    kernels: &'a [CustomKernels<T, Op>],
}

impl<T: Pod, Op: ReduceOp<T>> MultiCustom<'_, T, Op> {
    /// Runs one operation over every GPU with these kernels; if any GPU's queue captured it
    /// into a graph, keeps every GPU's kernels loaded for good ([`pin_if_captured`]).
    fn run<R>(
        &mut self,
        op: impl FnOnce(&mut MultiGpu, &[Plan], &[u8]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let captured = |gpus: &MultiGpu| gpus.ranks.iter().map(|r| r.queue.captured).sum();
        let (plans, identity) = (self.plans(), self.kernels[0].identity);
        let before = captured(self.gpus);
        let result = op(self.gpus, &plans, bytemuck::bytes_of(&identity));
        let modules = self.kernels.iter().map(|k| &k.module);
        pin_if_captured(before, captured(self.gpus), modules);
        result
    }

    fn plans(&self) -> Vec<Plan> {
        self.kernels
            .iter()
            .map(|k| Plan {
                set: k.set,
                fold: k.set,
            })
            .collect()
    }

    /// See [`MultiGpu::reduce_into`].
    pub fn reduce_into<S: DevicePtr<T>, D: DevicePtrMut<T>>(
        &mut self,
        inputs: &[S],
        outputs: &mut [D],
    ) -> Result<(), Error> {
        self.run(|gpus, plans, identity| {
            gpus.reduce_typed("multi custom reduce_into", plans, inputs, outputs, identity)
        })
    }

    /// See [`MultiGpu::reduce`].
    pub fn reduce<S: DevicePtr<T>>(&mut self, inputs: &[S]) -> Result<T, Error>
    where
        T: DeviceRepr + ValidAsZeroBits,
    {
        self.gpus.not_capturing("multi custom reduce")?;
        let mut outs = self.gpus.alloc::<T>(&vec![1; self.gpus.ranks.len()])?;
        self.reduce_into(inputs, &mut outs)?;
        self.gpus.synchronize()?;
        let first = self.gpus.ranks[0]
            .queue
            .stream()
            .clone_dtoh(&outs[0])
            .during("copy result")?;
        Ok(first[0])
    }

    /// See [`MultiGpu::scan`].
    pub fn scan<S: DevicePtr<T>, D: DevicePtrMut<T>>(
        &mut self,
        inputs: &[S],
        outputs: &mut [D],
        kind: ScanKind,
    ) -> Result<(), Error> {
        self.run(|gpus, plans, identity| {
            gpus.scan_typed("multi custom scan", plans, inputs, outputs, kind, identity)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_evenly_first_ones_longer() {
        assert_eq!(MultiGpu::shard_lengths(10, 3), [4, 3, 3]);
        assert_eq!(MultiGpu::shard_lengths(1, 2), [1, 0]);
        assert_eq!(MultiGpu::shard_lengths(0, 2), [0, 0]);
        assert_eq!(MultiGpu::shard_lengths(7, 1), [7]);
    }

    #[test]
    fn device_lists_are_checked() {
        assert!(check_ordinals(&[0, 1]).is_ok());
        let e = check_ordinals(&[0, 1, 0]).unwrap_err().to_string();
        assert_eq!(
            e,
            "MultiGpu::new: device 0 appears twice (one rank per GPU)"
        );
        assert!(check_ordinals(&[]).is_err());
    }

    #[test]
    fn shard_outputs_are_checked_like_one_gpu() {
        let a = Range { ptr: 4096, len: 4 };
        let b = Range {
            ptr: 1 << 20,
            len: 0,
        };
        let out_a = Range { ptr: 8192, len: 4 };
        let out_b = Range {
            ptr: 1 << 21,
            len: 0,
        };
        assert!(
            check_scan("s", &[a, b], &[out_a, out_b], 4).is_ok(),
            "empty shards are fine"
        );
        assert!(check_scan("s", &[a], &[a], 4).is_ok(), "in place");
        let short = Range { ptr: 8192, len: 3 };
        assert_eq!(
            check_scan("multi scan", &[a, b], &[short, out_b], 4)
                .unwrap_err()
                .to_string(),
            "multi scan: output has 3 elements, expected 4"
        );
        let shifted = Range { ptr: 4100, len: 4 };
        assert!(matches!(
            check_scan("s", &[a], &[shifted], 4),
            Err(Error::Overlap { .. })
        ));
        assert_eq!(
            check_reduce("multi reduce_into", &[out_a, out_b])
                .unwrap_err()
                .to_string(),
            "multi reduce_into: output has 0 elements, expected 1"
        );
    }

    #[test]
    fn unique_ids_round_trip_as_bytes() {
        let bytes: Vec<u8> = (0..128).map(|i| i as u8).collect();
        let id = UniqueId::from_bytes(&bytes).unwrap();
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice());
        let e = UniqueId::from_bytes(&bytes[..100]).unwrap_err().to_string();
        assert_eq!(
            e,
            "UniqueId::from_bytes: id bytes has 100 elements, expected 128"
        );
    }

    #[test]
    fn a_missing_nccl_says_what_was_searched_and_what_to_do() {
        let e = Error::NoNccl {
            searched: "libnccl.so.2 in /x".into(),
        }
        .to_string();
        assert!(e.contains("pip install nvidia-nccl-cu13"), "{e}");
        assert!(e.contains("WARPKIT_NCCL_LIB"), "{e}");
        let dirs = nccl::search_dirs();
        assert!(dirs.iter().any(|d| d.ends_with("lib64")), "{dirs:?}");
    }
}
