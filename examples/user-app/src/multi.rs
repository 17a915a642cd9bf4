//! The kernel crate's own type over two GPUs (`warpkit_host::multi`, NCCL loaded at run time):
//! sharded reduce and inclusive/exclusive scans of affine maps (not commutative) against the
//! CPU, in one process over ragged and empty shards (`MultiGpu::new`), then with one rank per
//! process (`MultiGpu::from_rank`, the NCCL unique id passed on the command line).
//!
//! `--child multi` runs it; `--child rank <rank> <id hex> <seed>` is one rank's process.
//! With fewer than two GPUs it says so and succeeds, unless `WARPKIT_REQUIRE_GPUS=2`.

use crate::{Error, best_ptx};
use cudarc::driver::{CudaContext, CudaSlice};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::process::Command;
use std::sync::Arc;
use user_kernels::{Affine, Compose};
use warpkit::ops::ReduceOp;
use warpkit_host::multi::{MultiGpu, UniqueId};
use warpkit_host::{CustomKernels, ScanKind};

/// Shard lengths of the one-process checks: ragged, an empty first or last shard, single maps.
const CONFIGURATIONS: &[[usize; 2]] =
    &[[(1 << 20) + 3, 77_777], [0, 100_003], [100_003, 0], [1, 1]];
/// Shard lengths of the one-rank-per-process check.
const RANK_LENGTHS: [usize; 2] = [(1 << 20) + 5, 300_001];

fn random_maps(rng: &mut impl Rng, n: usize) -> Vec<Affine> {
    (0..n)
        .map(|_| Affine {
            a: rng.random::<u32>() | 1,
            b: rng.random(),
        })
        .collect()
}

/// The CPU's inclusive and exclusive prefixes, and the total.
fn reference(maps: &[Affine]) -> (Vec<Affine>, Vec<Affine>, Affine) {
    let mut acc = Compose.identity();
    let (mut inclusive, mut exclusive) = (Vec::new(), Vec::new());
    for &f in maps {
        exclusive.push(acc);
        acc = Compose.combine(acc, f);
        inclusive.push(acc);
    }
    (inclusive, exclusive, acc)
}

fn kernels(
    gpus: &MultiGpu,
    ctx: &Arc<CudaContext>,
) -> Result<Vec<CustomKernels<Affine, Compose>>, Error> {
    let (major, minor) = ctx.compute_capability()?;
    let (_, ptx) = best_ptx(major as u32, minor as u32)?;
    (0..gpus.ranks().len())
        // SAFETY: `ptx` is this example's kernel crate, whose `custom_kernels!` emitted these.
        .map(|i| Ok(unsafe { CustomKernels::load(gpus.warpkit(i), ptx, "user_affine") }?))
        .collect()
}

fn poisoned(gpus: &MultiGpu, lengths: &[usize]) -> Result<Vec<CudaSlice<Affine>>, Error> {
    let poison = Affine {
        a: 0,
        b: 0xDEAD_BEEF,
    };
    (0..lengths.len())
        .map(|i| Ok(gpus.stream(i).clone_htod(&vec![poison; lengths[i]])?))
        .collect()
}

fn compare(what: &str, got: &[Affine], want: &[Affine], offset: usize) -> Result<(), Error> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        Some(i) => {
            Err(format!("{what}, item {}: {:?} vs {:?}", offset + i, got[i], want[i]).into())
        }
        None if got.len() != want.len() => Err(format!("{what}: {} items", got.len()).into()),
        None => Ok(()),
    }
}

/// Sharded reduce and both scans over the two GPUs of this process, every configuration.
pub fn check(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    let count = cudarc::driver::result::device::get_count()? as usize;
    if count < 2 {
        if std::env::var("WARPKIT_REQUIRE_GPUS").is_ok_and(|v| v == "2") {
            return Err(
                format!("WARPKIT_REQUIRE_GPUS=2, but the driver reports {count} GPU").into(),
            );
        }
        println!("skipped: the multi-GPU checks need 2 GPUs, the driver reports {count}");
        return Ok(());
    }
    let mut gpus = MultiGpu::new(&[0, 1])?;
    let kernels = kernels(&gpus, ctx)?;
    let mut rng = rand::rng();
    for lengths in CONFIGURATIONS {
        let maps = random_maps(&mut rng, lengths.iter().sum());
        let (inclusive, exclusive, total) = reference(&maps);
        let inputs = (0..2)
            .map(|i| {
                let start = lengths[..i].iter().sum::<usize>();
                gpus.stream(i).clone_htod(&maps[start..start + lengths[i]])
            })
            .collect::<Result<Vec<_>, _>>()?;
        let got = gpus.custom(&kernels)?.reduce(&inputs)?;
        if got != total {
            return Err(format!("shards {lengths:?}: reduce {got:?} vs {total:?}").into());
        }
        for (kind, want) in [
            (ScanKind::Inclusive, &inclusive),
            (ScanKind::Exclusive, &exclusive),
        ] {
            let mut outputs = poisoned(&gpus, lengths)?;
            gpus.custom(&kernels)?.scan(&inputs, &mut outputs, kind)?;
            let got = gpus.gather(&outputs)?;
            compare(&format!("shards {lengths:?}, {kind:?} scan"), &got, want, 0)?;
        }
    }
    println!(
        "ok: 2 GPUs in one process: affine-map reduce, inclusive and exclusive scans over shards {CONFIGURATIONS:?}"
    );
    drop(gpus);
    check_ranks()
}

/// Two processes, one rank each, joined through one NCCL unique id.
fn check_ranks() -> Result<(), Error> {
    let id = UniqueId::new()?;
    let hex: String = id.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    let seed: u64 = rand::random();
    // Both must be running before either can finish: spawn both, then wait.
    let spawned = (0..2)
        .map(|rank| {
            Command::new(std::env::current_exe()?)
                .args([
                    "--child",
                    "rank",
                    &rank.to_string(),
                    &hex,
                    &seed.to_string(),
                ])
                .stdout(std::process::Stdio::piped())
                .spawn()
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (rank, child) in spawned.into_iter().enumerate() {
        let out = child.wait_with_output()?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        print!("{stdout}");
        if !out.status.success() || !stdout.contains(&format!("rank {rank}: ok")) {
            return Err(format!("rank {rank}'s process failed ({})", out.status).into());
        }
    }
    println!("ok: one rank per process (MultiGpu::from_rank), both ranks checked their shards");
    Ok(())
}

/// One rank's process: the whole input from `seed`, this rank's shard on GPU `rank`.
pub fn rank_process(ctx: &Arc<CudaContext>, args: &[String]) -> Result<(), Error> {
    let [rank, hex, seed] = args else {
        return Err("usage: --child rank <rank> <id hex> <seed>".into());
    };
    let rank: usize = rank.parse()?;
    let seed: u64 = seed.parse()?;
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
        .collect::<Result<Vec<u8>, _>>()?;
    let id = UniqueId::from_bytes(&bytes)?;
    let mut gpus = MultiGpu::from_rank(rank, rank, 2, &id)?;
    let kernels = kernels(&gpus, ctx)?;
    let maps = random_maps(&mut StdRng::seed_from_u64(seed), RANK_LENGTHS.iter().sum());
    let (inclusive, _, total) = reference(&maps);
    let start = RANK_LENGTHS[..rank].iter().sum::<usize>();
    let mine = start..start + RANK_LENGTHS[rank];
    let input = [gpus.stream(0).clone_htod(&maps[mine.clone()])?];
    let got = gpus.custom(&kernels)?.reduce(&input)?;
    if got != total {
        return Err(format!("rank {rank}: reduce {got:?} vs {total:?}").into());
    }
    let mut output = poisoned(&gpus, &[RANK_LENGTHS[rank]])?;
    gpus.custom(&kernels)?
        .scan(&input, &mut output, ScanKind::Inclusive)?;
    let got = gpus.gather(&output)?;
    compare(
        &format!("rank {rank}, inclusive scan"),
        &got,
        &inclusive[mine],
        start,
    )?;
    println!(
        "rank {rank}: ok (reduce of {} maps, inclusive scan of its {} at offset {start})",
        maps.len(),
        RANK_LENGTHS[rank]
    );
    Ok(())
}
