//! Determinism shown, not asserted (issue 10): the same `f32` and `f64` values, scanned and
//! reduced
//!
//! - at element offsets 0..=3 from a 256-byte-aligned allocation (so vector and scalar loads),
//! - from every module the device can run: the embedded cubin, and the PTX of every target
//!   that runs on it (the driver compiles `sm_70` PTX for an H100 differently from `sm_90`),
//!
//! - with the reduce's grid forced smaller and larger than the default
//!   (`Queue::set_reduce_grid`: one block, a few, one block per tile),
//!
//! give one hash per (type, operation). Tiles are a function of the length alone
//! (`warpkit::abi::layout`): the scan launches one block per tile, and which block reduces a
//! tile does not change how its items combine. The hashes are printed with the seed: with
//! `WARPKIT_SEED=<n>` two machines (an H100 and an H200) draw the same values, and their
//! printed hashes must be equal too.
//!
//! Also: several scans and reduces in flight at once on different streams, each correct, the
//! scans with grids that cannot all be resident at once.

mod common;

use common::*;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::num::NonZeroU32;
use warpkit::abi::layout;
use warpkit::ops::{Max, Min, Sum};
use warpkit_builder::Target;
use warpkit_host::cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use warpkit_host::{Element, Queue, ScanKind, Warpkit, open_device, reference};

fn seeded() -> (u64, StdRng) {
    let seed = std::env::var("WARPKIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    (seed, StdRng::seed_from_u64(seed))
}

/// Values whose float sums depend on the order: magnitudes over 60 binades, both signs.
trait Spread: Element + DeviceRepr + ValidAsZeroBits + bytemuck::Pod {
    fn draw(rng: &mut StdRng) -> Self;
    /// `|x|` (`max`: `-|x|`), or a signed zero or a NaN where `k % 61` picks one: inputs whose
    /// min (max) is a zero of both signs among NaNs, where the NaN and signed-zero rules decide.
    fn zero_extreme(x: Self, k: usize, max: bool) -> Self;
}
macro_rules! zero_extreme {
    ($t:ty) => {
        fn zero_extreme(x: $t, k: usize, max: bool) -> $t {
            match k % 61 {
                0 => -0.0,
                1 => 0.0,
                2 => <$t>::NAN,
                3 => -<$t>::NAN,
                _ if max => -x.abs(),
                _ => x.abs(),
            }
        }
    };
}
impl Spread for f32 {
    zero_extreme!(f32);
    fn draw(rng: &mut StdRng) -> f32 {
        rng.random_range(-1.0f32..1.0) * 2f32.powi(rng.random_range(-30..30))
    }
}
impl Spread for f64 {
    zero_extreme!(f64);
    fn draw(rng: &mut StdRng) -> f64 {
        rng.random_range(-1.0f64..1.0) * 2f64.powi(rng.random_range(-30..30))
    }
}

fn hash_bits<T: bytemuck::Pod>(values: &[T]) -> u64 {
    let mut h = DefaultHasher::new();
    bytemuck::cast_slice::<T, u8>(values).hash(&mut h);
    h.finish()
}

/// The largest grid a tiled reduce launches over `n` items of `T`: one block per tile.
fn block_per_tile<T>(n: usize) -> Option<NonZeroU32> {
    NonZeroU32::new(warpkit::abi::layout::reduce_tiles(n as u64, size_of::<T>()) as u32)
}

/// (reduce, inclusive scan, exclusive scan) hashes of `data` at element `offset`, the reduce
/// launched with `grid` blocks (`None`: the default). The reduce's hash covers the sum, and
/// the min and the max of `data` turned by [`Spread::zero_extreme`].
fn hashes<T: Spread>(
    wk: &Warpkit,
    data: &[T],
    offset: usize,
    grid: Option<NonZeroU32>,
) -> [u64; 3] {
    let stream = wk.new_stream().unwrap();
    let mut q = Queue::new(wk, &stream).unwrap();
    q.set_reduce_grid(grid);
    let n = data.len();
    let mut padded = vec![T::zeroed(); n + 3];
    padded[offset..offset + n].copy_from_slice(data);
    let input: CudaSlice<T> = stream.clone_htod(&padded).unwrap();
    let mut out: CudaSlice<T> = stream.alloc_zeros(n + 3).unwrap();
    let view = input.slice(offset..offset + n);
    let total = q.reduce(&view, Sum).unwrap();
    let mut extreme = |max: bool| {
        let mut turned = padded.clone();
        for (k, x) in turned[offset..offset + n].iter_mut().enumerate() {
            *x = T::zero_extreme(*x, k, max);
        }
        let turned: CudaSlice<T> = stream.clone_htod(&turned).unwrap();
        let view = turned.slice(offset..offset + n);
        if max {
            q.reduce(&view, Max)
        } else {
            q.reduce(&view, Min)
        }
        .unwrap()
    };
    let (min, max) = (extreme(false), extreme(true));
    // Min keeps -0.0, max +0.0, NaNs skipped.
    let (negative_zero, positive_zero) = (
        T::zero_extreme(min, 0, false),
        T::zero_extreme(min, 1, true),
    );
    assert_eq!(
        bytemuck::bytes_of(&min),
        bytemuck::bytes_of(&negative_zero),
        "min"
    );
    assert_eq!(
        bytemuck::bytes_of(&max),
        bytemuck::bytes_of(&positive_zero),
        "max"
    );
    let mut result = [hash_bits(&[total, min, max]), 0, 0];
    for (k, kind) in [ScanKind::Inclusive, ScanKind::Exclusive]
        .into_iter()
        .enumerate()
    {
        let mut dst = out.slice_mut(offset..offset + n);
        q.scan(&view, &mut dst, Sum, kind).unwrap();
        let got = stream.clone_dtoh(&out).unwrap();
        result[k + 1] = hash_bits(&got[offset..offset + n]);
    }
    result
}

fn same_bits_everywhere<T: Spread>(name: &str, n: usize) {
    let Some(wk) = device(None) else { return };
    let (major, minor) = wk.compute_capability();
    let (seed, mut rng) = seeded();
    let data: Vec<T> = (0..n).map(|_| T::draw(&mut rng)).collect();
    let ctx = wk.context().clone();
    let mut modules = vec![(format!("{} (default)", wk.describe()), wk)];
    modules.push((
        "PTX of the same target (JIT)".into(),
        Warpkit::from_ptx(&ctx).unwrap(),
    ));
    for target in warpkit_host::ptx::targets() {
        let t = Target::parse(target).unwrap();
        if t.runs_on(major, minor) {
            modules.push((
                format!("PTX {target}"),
                Warpkit::with_target(&ctx, target).unwrap(),
            ));
        }
    }
    assert!(modules.len() >= 3, "at least one PTX target runs here");
    let mut first: Option<[u64; 3]> = None;
    let mut runs = Vec::new();
    for (label, wk) in &modules {
        for offset in 0..=3 {
            runs.push((label.clone(), wk, offset, None));
        }
    }
    // The default module again, the reduce on grids of 1, 5 and 131 blocks and of one block
    // per tile (the largest it launches; its default is what the device holds at once).
    for grid in [1, 5, 131]
        .map(NonZeroU32::new)
        .into_iter()
        .chain([block_per_tile::<T>(n)])
    {
        let label = format!("{} on {} blocks", modules[0].0, grid.unwrap());
        runs.push((label, &modules[0].1, 1, grid));
    }
    for (label, wk, offset, grid) in runs {
        let h = hashes(wk, &data, offset, grid);
        eprintln!(
            "{name} {label}, offset {offset}: reduce {:016x} inclusive {:016x} exclusive {:016x}",
            h[0], h[1], h[2]
        );
        match first {
            None => first = Some(h),
            Some(f) => assert_eq!(h, f, "{name}: {label} at offset {offset} differs"),
        }
    }
    let f = first.unwrap();
    println!(
        "determinism {name} n={n} seed={seed} on {major}.{minor}: reduce {:016x} inclusive {:016x} exclusive {:016x} ({} modules x 4 offsets, 4 forced grids)",
        f[0],
        f[1],
        f[2],
        modules.len()
    );
}

#[test]
fn f32_sums_have_the_same_bits_at_every_offset_and_from_every_module() {
    same_bits_everywhere::<f32>("f32", (1 << 22) + 12_345);
}

#[test]
fn f64_sums_have_the_same_bits_at_every_offset_and_from_every_module() {
    same_bits_everywhere::<f64>("f64", (1 << 22) + 12_345);
}

/// Inputs of at most 16 scan tiles, which sm_90 and newer scan as one thread block cluster
/// and older targets through the look-back: the same bits from both (16 tiles of 4096 `f32`
/// and of 8192, which the wide cluster copy runs; 16 of 2048 `f64`).
#[test]
fn small_sums_have_the_same_bits_with_and_without_clusters() {
    same_bits_everywhere::<f32>("f32", (1 << 16) - 3);
    same_bits_everywhere::<f32>("f32", (1 << 17) - 7);
    same_bits_everywhere::<f64>("f64", (1 << 15) - 5);
}

/// A single-pass scan of at most `SCAN_FLAT_TILES` tiles looks back flat (each tile reads
/// every older tile's aggregate), a longer one over groups of tiles: the same bits. Inputs of
/// `SCAN_FLAT_TILES` tiles of the largest size (flat; the last tile holding one item, or all
/// but 77) are scanned alone and as the first items of an input of 300 such tiles (groups);
/// from every module the device runs, each output equals the long scan's first items bit for
/// bit. (Shorter inputs take smaller tiles: `layout::SCAN_FLAT_MIN_STRIPES`.)
#[test]
fn flat_and_group_look_backs_give_the_same_bits() {
    flat_matches_groups::<f32>("f32");
    flat_matches_groups::<f64>("f64");
}

fn flat_matches_groups<T: Spread>(name: &str) {
    let Some(wk) = device(None) else { return };
    let (major, minor) = wk.compute_capability();
    let (seed, mut rng) = seeded();
    let tile_items = |n: usize| layout::scan_tile_items(n as u64, size_of::<T>()) as usize;
    let flat = layout::SCAN_FLAT_TILES as usize;
    let tile = tile_items(usize::MAX >> 8); // the largest tile
    let long = 300 * tile + 5;
    let shorts = [(flat - 1) * tile + 1, flat * tile - 77];
    for n in shorts.into_iter().chain([long]) {
        assert_eq!(
            tile_items(n),
            tile,
            "{name}: {n} items take the largest tiles"
        );
    }
    assert!(shorts.iter().all(|n| n.div_ceil(tile) <= flat) && long.div_ceil(tile) > flat);
    let data: Vec<T> = (0..long).map(|_| T::draw(&mut rng)).collect();
    let ctx = wk.context().clone();
    let mut modules = vec![(wk.describe(), wk.clone())];
    for target in runnable_targets(&wk) {
        modules.push((
            format!("PTX {target}"),
            Warpkit::with_target(&ctx, target).unwrap(),
        ));
    }
    let mut poison = vec![T::zeroed(); long];
    bytemuck::cast_slice_mut::<T, u8>(&mut poison).fill(0xA5);
    let mut reference: Vec<Option<Vec<T>>> = vec![None, None];
    for (label, wk) in &modules {
        let stream = wk.new_stream().unwrap();
        let mut q = Queue::new(wk, &stream).unwrap();
        let input: CudaSlice<T> = stream.clone_htod(&data).unwrap();
        for (k, kind) in [ScanKind::Inclusive, ScanKind::Exclusive]
            .into_iter()
            .enumerate()
        {
            let scan = |q: &mut Queue, n: usize| {
                let mut out: CudaSlice<T> = stream.clone_htod(&poison[..n]).unwrap();
                q.scan(&input.slice(..n), &mut out, Sum, kind).unwrap();
                stream.clone_dtoh(&out).unwrap()
            };
            let groups = scan(&mut q, long);
            let want = reference[k].get_or_insert_with(|| groups.clone());
            for n in shorts.into_iter().chain([long]) {
                let got = if n == long {
                    groups.clone()
                } else {
                    scan(&mut q, n)
                };
                let bits = |x: &T| bytemuck::bytes_of(x).to_vec();
                if let Some(i) = (0..n).find(|&i| bits(&got[i]) != bits(&want[i])) {
                    panic!(
                        "{name} {kind:?} {label}: {n} items ({} tiles) differ from the scan of \
                         {long} ({} tiles) at item {i} (tile {}), seed {seed}",
                        n.div_ceil(tile),
                        long.div_ceil(tile),
                        i / tile
                    );
                }
            }
        }
    }
    println!(
        "flat look-back {name}: {shorts:?} items in tiles of {tile} equal the first items of \
         {long}, inclusive and exclusive, from {} modules on {major}.{minor}, seed {seed}",
        modules.len()
    );
}

/// Eight queues on eight streams, each with a scan and a reduce in flight at the same time
/// (enqueued round-robin before any is waited for), on different data: each result correct.
/// Six scans have more tiles (blocks) than the device holds at once, so each grid finds the
/// others' blocks on the multiprocessors; every other queue's reduce launches one block per
/// tile, the largest grid of a tiled reduce. Two queues reduce small inputs, whose block 0
/// waits for the others' partials while the big grids hold the multiprocessors.
#[test]
fn concurrent_scans_on_different_streams() {
    let Some(wk) = device(None) else { return };
    let (_, mut rng) = seeded();
    let ctx = open_device(0).unwrap();
    let lanes: Vec<_> = (0..8)
        .map(|k| {
            let n = (if k % 4 == 2 { 1 << 16 } else { 1 << 23 }) + 977 * k;
            let data: Vec<u32> = (0..n).map(|_| rng.random_range(0..1 << 20)).collect();
            let stream = ctx.new_stream().unwrap();
            let mut q = Queue::new(&wk, &stream).unwrap();
            if k % 2 == 1 {
                q.set_reduce_grid(block_per_tile::<u32>(n));
            }
            let input = stream.clone_htod(&data).unwrap();
            let output = stream.clone_htod(&vec![0xA5A5_A5A5u32; n]).unwrap();
            let total = stream.alloc_zeros::<u32>(1).unwrap();
            (data, q, input, output, total)
        })
        .collect::<Vec<_>>();
    let mut lanes = lanes;
    for round in 0..3 {
        for (_, q, input, output, total) in lanes.iter_mut() {
            q.scan(input, output, Max, ScanKind::Inclusive).unwrap();
            q.reduce_into(input, total, Sum).unwrap();
        }
        for (k, (data, q, _, output, total)) in lanes.iter_mut().enumerate() {
            q.synchronize().unwrap();
            let s = q.stream().clone();
            assert_eq!(
                s.clone_dtoh(output).unwrap(),
                reference::scan::<u32, Max>(data, false),
                "stream {k}, round {round}: running max"
            );
            assert_eq!(
                s.clone_dtoh(total).unwrap()[0],
                reference::reduce::<u32, Sum>(data),
                "stream {k}, round {round}: sum"
            );
        }
    }
}
