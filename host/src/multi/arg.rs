//! Arg-min and arg-max over the shards of every process.
//!
//! Each GPU arg-reduces its shard with warpkit's kernel; NCCL all-gathers one record per rank
//! (its shard's length, the winner's index in the shard and its value); every process then
//! folds the records in rank order on the host with the library's own rules (the model in
//! [`crate::reference`]): a strictly better value wins, a tie keeps the earlier rank, which
//! holds the lower global index, NaN never beats a number, and all-NaN input gives the
//! canonical NaN at the lowest index. So the result is the single-GPU result over the
//! concatenated shards, bit for bit, on every rank.

use super::{MultiGpu, nccl, ranges_in, ranges_out};
use crate::element::{ArgElement, ArgOp};
use crate::error::{During as _, Error};
use crate::reference::{self, Model};
use cudarc::driver::DevicePtr;

/// One rank's record: its shard's length, the winner's index in the shard (`u64::MAX`:
/// empty shard) and its value's bytes (zero-padded to 8).
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Record {
    len: u64,
    index: u64,
    value: [u8; 8],
}

const NO_ELEMENT: u64 = u64::MAX;

impl Record {
    fn new<T: ArgElement>(len: usize, found: Option<(T, usize)>) -> Record {
        let mut value = [0; 8];
        let index = match found {
            Some((v, i)) => {
                value[..size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&v));
                i as u64
            }
            None => NO_ELEMENT,
        };
        Record {
            len: len as u64,
            index,
            value,
        }
    }

    fn value<T: ArgElement>(&self) -> T {
        bytemuck::pod_read_unaligned(&self.value[..size_of::<T>()])
    }
}

/// The winner over all ranks' records, in rank order: (value, global index).
fn fold<T: ArgElement, O: ArgOp>(records: &[Record]) -> Option<(T, usize)>
where
    T::Accum: Model,
{
    let mut offset = 0;
    let mut candidates = Vec::new();
    for r in records {
        if r.index != NO_ELEMENT {
            candidates.push((r.value::<T>(), offset + r.index as usize));
        }
        offset += r.len as usize;
    }
    let values: Vec<T> = candidates.iter().map(|c| c.0).collect();
    let (_, at) = reference::arg_reduce::<T, O>(&values)?;
    Some(candidates[at])
}

impl MultiGpu {
    /// Arg-min or arg-max of the shards of every process, as if they were one array in rank
    /// order: `(value, index)` with the index into that array, the same on every rank, and
    /// `None` when every shard is empty. Shards may be uneven or empty. Synchronizes this
    /// process's streams (each shard's result comes to the host, as for one GPU's
    /// [`Queue::arg_reduce`](crate::Queue::arg_reduce)).
    pub fn arg_reduce<T: ArgElement, O: ArgOp, S: DevicePtr<T>>(
        &mut self,
        inputs: &[S],
        op: O,
    ) -> Result<Option<(T, usize)>, Error>
    where
        T::Accum: Model,
    {
        self.check_contexts("multi arg_reduce", inputs)?;
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        for (rank, input) in self.ranks.iter_mut().zip(inputs) {
            let record = Record::new(input.len(), rank.queue.arg_reduce(input, op)?);
            let stream = rank.queue.stream();
            sends.push(
                stream
                    .clone_htod(bytemuck::bytes_of(&record))
                    .during("upload arg record")?,
            );
            recvs.push(
                stream
                    .alloc_zeros::<u8>(self.world * size_of::<Record>())
                    .during("alloc arg records")?,
            );
        }
        let streams = self.streams();
        {
            let (sent, _gs) = ranges_in(&streams, &sends);
            let (received, _gr) = ranges_out(&streams, &mut recvs);
            let ranks = &self.ranks;
            nccl::group(|| {
                for ((rank, s), r) in ranks.iter().zip(&sent).zip(&received) {
                    // SAFETY: `s` holds one record and `r` room for `world` of them, both on
                    // the rank's GPU and alive until the streams are synchronized below.
                    unsafe {
                        rank.comm.all_gather(
                            s.ptr,
                            r.ptr,
                            size_of::<Record>(),
                            rank.queue.stream().cu_stream() as _,
                        )
                    }?;
                }
                Ok(())
            })?;
        }
        let bytes = streams[0]
            .clone_dtoh(&recvs[0])
            .during("copy arg records")?;
        let records: Vec<Record> = bytes
            .chunks_exact(size_of::<Record>())
            .map(bytemuck::pod_read_unaligned)
            .collect();
        self.synchronize()?;
        Ok(fold::<T, O>(&records))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpkit::ops::{ArgMax, ArgMin};

    fn records<T: ArgElement>(shards: &[&[T]]) -> Vec<Record>
    where
        T::Accum: Model,
    {
        shards
            .iter()
            .map(|s| {
                // What a GPU reports: the model's value (the canonical NaN for all-NaN input).
                let found =
                    reference::arg_reduce::<T, ArgMin>(s).map(|(v, i)| (T::from_accum(v), i));
                Record::new(s.len(), found)
            })
            .collect()
    }

    #[test]
    fn shard_winners_fold_to_the_whole_arrays_winner() {
        let nan = f32::NAN;
        let cases: [&[&[f32]]; 6] = [
            &[&[3.0, 1.0], &[1.0, 0.5]],
            &[&[2.0, 1.0], &[], &[1.0, 7.0]],
            &[&[], &[]],
            &[&[nan, nan], &[nan]],
            &[&[nan], &[0.0, -0.0], &[-0.0]],
            &[&[], &[5.0], &[nan, 4.0]],
        ];
        for shards in cases {
            let whole: Vec<f32> = shards.concat();
            let want = reference::arg_reduce::<f32, ArgMin>(&whole).map(|(v, i)| (v.to_bits(), i));
            let got = fold::<f32, ArgMin>(&records(shards)).map(|(v, i)| (v.to_bits(), i));
            assert_eq!(got, want, "{shards:?}");
        }
    }

    #[test]
    fn arg_max_ties_keep_the_lowest_global_index() {
        let shards: [&[i64]; 3] = [&[1, 9], &[9, 9], &[]];
        let recs: Vec<Record> = shards
            .iter()
            .map(|s| {
                let found = reference::arg_reduce::<i64, ArgMax>(s);
                Record::new(s.len(), found)
            })
            .collect();
        assert_eq!(fold::<i64, ArgMax>(&recs), Some((9, 1)));
    }
}
