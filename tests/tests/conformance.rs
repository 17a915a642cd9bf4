//! GPU conformance: the hardware against the CPU reference model, bit for bit, for every
//! warp instruction, on every PTX target the device runs (older targets carry the shuffle
//! fallbacks of `redux.sync`). Skips, saying so, where there is no GPU (fails instead with
//! `WARPKIT_REQUIRE_GPU=1`). Drives the GPU directly with cudarc.

use cudarc::driver::PushKernelArg;
use rand::{Rng, rngs::StdRng};
use warpkit::instr::shfl::ShflMode;
use warpkit::model;
use warpkit::ops::{Max, MaxNumF64, Min, MinNumF64, ReduceOp, canonical_nan};
use warpkit::warp::redux::FloatRedux;
use warpkit_builder::Target;
use warpkit_test_kernels::{special_f32, special_f64};
use warpkit_tests::{config, gpu, ptx::TEST_KERNELS_PTX, seed};

/// Membermasks: full, halves, alternating, sparse, single lanes, random.
fn masks(rng: &mut StdRng) -> Vec<u32> {
    vec![
        u32::MAX,
        0x0000_ffff,
        0xffff_0000,
        0x5555_5555,
        0xaaaa_aaaa,
        0x8000_0001,
        0x0010_0000,
        rng.random::<u32>() | 1,
    ]
}

fn random_mask(rng: &mut StdRng) -> u32 {
    match rng.random_range(0..4) {
        0 => u32::MAX,
        1 => rng.random::<u32>(),
        2 => rng.random::<u32>() & rng.random::<u32>(),
        _ => 1 << rng.random_range(0..32),
    }
    .max(1)
}

#[test]
fn shfl_sync_matches_the_model_for_every_b_c_and_mask() {
    let Some(gpu) = gpu() else { return };
    let mut rng = seed();
    let warps = 64 * 32 * 32; // b in 0..64, clamp in 0..32, segmask in 0..32
    let mut cases = 0u64;
    for (target, ptx) in gpu.runnable(TEST_KERNELS_PTX) {
        let module = gpu.load(ptx);
        let kernel = gpu.function(&module, "warpkit_test_shfl");
        for (mode_id, mode) in ShflMode::ALL.iter().enumerate() {
            for mask in masks(&mut rng) {
                let values: Vec<u32> = (0..warps * 32).map(|_| rng.random()).collect();
                let input = gpu.upload(&values);
                let (mut out, mut pred, mut plain) = (
                    gpu.poisoned::<u32>(values.len()),
                    gpu.poisoned::<u32>(values.len()),
                    gpu.poisoned::<u32>(values.len()),
                );
                let (m, mi) = (mask, mode_id as u32);
                let mut launch = gpu.stream.launch_builder(&kernel);
                launch.arg(&mi).arg(&m).arg(&input);
                launch.arg(&mut out).arg(&mut pred).arg(&mut plain);
                // SAFETY: the kernel's parameters, each array 32 words per warp.
                unsafe { launch.launch(config(warps * 32)) }.unwrap();
                gpu.sync("warpkit_test_shfl");
                let (out, pred, plain) = (
                    gpu.download(&out),
                    gpu.download(&pred),
                    gpu.download(&plain),
                );
                for w in 0..warps {
                    let b = (w % 64) as u32;
                    let c = ((w / 64) % 32) as u32 | ((((w / 2048) % 32) as u32) << 8);
                    let lanes: &[u32; 32] = values[w * 32..][..32].try_into().unwrap();
                    let model = model::shfl_sync(*mode, lanes, b, c, mask);
                    for (lane, lane_model) in model.iter().enumerate() {
                        let k = w * 32 + lane;
                        let case = || {
                            format!(
                                "{target} {mode:?} b={b} c={c:#06x} mask={mask:#010x} lane={lane}"
                            )
                        };
                        match *lane_model {
                            None => assert_eq!(
                                (out[k], pred[k]),
                                (0xdead_beef, 2),
                                "{}: lane outside the mask",
                                case()
                            ),
                            Some(m) => {
                                assert_eq!(pred[k], m.in_range as u32, "{}: predicate", case());
                                if let Some(v) = m.value {
                                    assert_eq!(out[k], v, "{}: value", case());
                                    assert_eq!(plain[k], v, "{}: value without predicate", case());
                                }
                                cases += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    println!("shfl.sync: {cases} lane-cases checked, none different");
}

#[test]
fn vote_match_redux_and_lanes_match_the_model() {
    let Some(gpu) = gpu() else { return };
    let mut rng = seed();
    let warps = 4096;
    let mut cases = 0u64;
    for (target, ptx) in gpu.runnable(TEST_KERNELS_PTX) {
        let module = gpu.load(ptx);
        let mask_list: Vec<u32> = (0..warps).map(|_| random_mask(&mut rng)).collect();
        let masks_d = gpu.upload(&mask_list);

        // vote
        let preds: Vec<u32> = (0..warps * 32)
            .map(|i| rng.random_bool(if i % 64 < 32 { 0.5 } else { 0.97 }) as u32)
            .collect();
        let preds_d = gpu.upload(&preds);
        let (mut out, mut ballots) = (
            gpu.poisoned::<u32>(warps * 32),
            gpu.poisoned::<u32>(warps * 32),
        );
        let kernel = gpu.function(&module, "warpkit_test_vote");
        let mut launch = gpu.stream.launch_builder(&kernel);
        launch
            .arg(&masks_d)
            .arg(&preds_d)
            .arg(&mut out)
            .arg(&mut ballots);
        // SAFETY: the kernel's parameters, sized as it reads and writes them.
        unsafe { launch.launch(config(warps * 32)) }.unwrap();
        gpu.sync("warpkit_test_vote");
        let (out, ballots) = (gpu.download(&out), gpu.download(&ballots));
        for w in 0..warps {
            let mask = mask_list[w];
            let p: [bool; 32] = core::array::from_fn(|l| preds[w * 32 + l] != 0);
            for lane in (0..32).filter(|&l| model::in_mask(mask, l as u32)) {
                let want = model::vote_all(mask, &p) as u32
                    | (model::vote_any(mask, &p) as u32) << 1
                    | (model::vote_uni(mask, &p) as u32) << 2
                    | (model::vote_all(mask, &p.map(|x| !x)) as u32) << 3
                    | (model::vote_any(mask, &p.map(|x| !x)) as u32) << 4;
                assert_eq!(
                    out[w * 32 + lane],
                    want,
                    "{target} vote mask={mask:#x} lane={lane}"
                );
                assert_eq!(
                    ballots[w * 32 + lane],
                    model::ballot(mask, &p),
                    "{target} ballot mask={mask:#x}"
                );
                cases += 1;
            }
        }

        // match: few distinct values; some differ only in the high 32 bits.
        let pool: Vec<u64> = (0..4).map(|_| rng.random::<u64>()).collect();
        let values: Vec<u64> = (0..warps * 32)
            .map(|i| {
                if i % 128 < 32 {
                    pool[0]
                } else {
                    pool[rng.random_range(0..4)] ^ ((rng.random_range(0..2) as u64) << 40)
                }
            })
            .collect();
        let values_d = gpu.upload(&values);
        let mut out = gpu.poisoned::<u32>(warps * 32 * 6);
        let kernel = gpu.function(&module, "warpkit_test_match");
        let mut launch = gpu.stream.launch_builder(&kernel);
        launch.arg(&masks_d).arg(&values_d).arg(&mut out);
        // SAFETY: the kernel's parameters, sized as it reads and writes them.
        unsafe { launch.launch(config(warps * 32)) }.unwrap();
        gpu.sync("warpkit_test_match");
        let out = gpu.download(&out);
        for w in 0..warps {
            let mask = mask_list[w];
            let v64: [u64; 32] = core::array::from_fn(|l| values[w * 32 + l]);
            let v32: [u32; 32] = v64.map(|v| v as u32);
            for lane in (0..32).filter(|&l| model::in_mask(mask, l as u32)) {
                let got = &out[(w * 32 + lane) * 6..][..6];
                let (all32, p32) = model::match_all(mask, &v32, lane);
                let (all64, p64) = model::match_all(mask, &v64, lane);
                let want = [
                    model::match_any(mask, &v32, lane),
                    all32,
                    p32 as u32,
                    model::match_any(mask, &v64, lane),
                    all64,
                    p64 as u32,
                ];
                assert_eq!(got, want, "{target} match mask={mask:#x} lane={lane}");
                cases += 1;
            }
        }

        // redux: random ints whose f32 views include NaNs, infinities and both zeros.
        let specials = model::F32_SPECIAL_BITS;
        let values: Vec<u32> = (0..warps * 32)
            .map(|_| {
                if rng.random_bool(0.1) {
                    specials[rng.random_range(0..specials.len())]
                } else {
                    rng.random()
                }
            })
            .collect();
        let values_d = gpu.upload(&values);
        // Once with every lane present, once with lanes of the mask exited: the instruction
        // (and the fallback) reduce over the lanes still present. Half the warps of the second
        // run under the full mask.
        let exits: Vec<u32> = (0..warps)
            .map(|_| rng.random::<u32>() & rng.random::<u32>())
            .collect();
        let exit_masks: Vec<u32> = (0..warps)
            .map(|w| {
                if w % 2 == 0 {
                    u32::MAX
                } else {
                    random_mask(&mut rng) | exits[w]
                }
            })
            .collect();
        let none = vec![0u32; warps];
        for (masks, exits) in [(&mask_list, &none), (&exit_masks, &exits)] {
            let (masks_d, exits_d) = (gpu.upload(masks), gpu.upload(exits));
            let mut out = gpu.poisoned::<u32>(warps * 32 * 17);
            let kernel = gpu.function(&module, "warpkit_test_redux");
            let mut launch = gpu.stream.launch_builder(&kernel);
            launch
                .arg(&masks_d)
                .arg(&exits_d)
                .arg(&values_d)
                .arg(&mut out);
            // SAFETY: the kernel's parameters, sized as it reads and writes them.
            unsafe { launch.launch(config(warps * 32)) }.unwrap();
            gpu.sync("warpkit_test_redux");
            let out = gpu.download(&out);
            let poison = u32::from_ne_bytes([0xA5; 4]);
            for w in 0..warps {
                let (mask, exited) = (masks[w], exits[w]);
                let present = mask & !exited;
                let v: [u32; 32] = core::array::from_fn(|l| values[w * 32 + l]);
                let f = v.map(f32::from_bits);
                for lane in 0..32 {
                    let got = &out[(w * 32 + lane) * 17..][..17];
                    if !model::in_mask(present, lane as u32) {
                        assert!(
                            got.iter().all(|&x| x == poison),
                            "{target} redux mask={mask:#x} exited={exited:#x}: lane {lane} wrote"
                        );
                        continue;
                    }
                    let ints = model::IntRedux::ALL
                        .iter()
                        .map(|op| model::redux_int(*op, present, &v));
                    let floats = FloatRedux::ALL
                        .iter()
                        .map(|op| model::redux_f32(*op, present, &f).to_bits());
                    let want: Vec<u32> = ints.chain(floats).collect();
                    assert_eq!(
                        got, want,
                        "{target} redux mask={mask:#x} exited={exited:#x} lane={lane} \
                         inputs={v:08x?}"
                    );
                    cases += 17;
                }
            }
        }

        // lanes and activemask in both arms of a branch that some lanes take.
        let branch: u32 = (rng.random::<u32>() | 1) & !(1 << 31);
        let mut out = gpu.poisoned::<u32>(32 * 7);
        let kernel = gpu.function(&module, "warpkit_test_lanes");
        let mut launch = gpu.stream.launch_builder(&kernel);
        launch.arg(&branch).arg(&mut out);
        // SAFETY: the kernel's parameters, 7 words per lane.
        unsafe { launch.launch(config(32)) }.unwrap();
        gpu.sync("warpkit_test_lanes");
        let out = gpu.download(&out);
        for lane in 0..32u32 {
            let got = &out[lane as usize * 7..][..7];
            let [eq, lt, le, gt, ge] = model::lanemasks(lane);
            // The then arm's lanes write its active lanes (`branch`), the else arm's the
            // complement of theirs (`!branch`).
            assert_eq!(
                got,
                [lane, eq, lt, le, gt, ge, branch],
                "{target} lanes lane={lane}"
            );
        }
    }
    println!("vote/match/redux: {cases} lane-cases checked, none different");
}

/// Words per lane of the `Tile<W>` kernels' output.
const TILE_WORDS: usize = 37;

/// The reference for `Tile<W>` algorithms, computed per segment on the CPU.
fn tile_reference(w: usize, v: &[u32], f: &[bool]) -> Vec<[u32; TILE_WORDS]> {
    // Affine maps x -> a*x + b as [a, b], composed left to right: associative, not commutative.
    let compose = |f: [u32; 2], g: [u32; 2]| {
        [
            g[0].wrapping_mul(f[0]),
            g[0].wrapping_mul(f[1]).wrapping_add(g[1]),
        ]
    };
    let map = |x: u32| [x | 1, x.rotate_left(16)];
    // The 64-bit and ranked operands, built as the kernel builds them.
    let wide = |x: u32| (x as u64 >> 30) << 32 | x.rotate_left(7) as u64;
    let signed = |x: u32| ((x >> 29) as i64 - 4) << 32 | x.rotate_left(13) as i64;
    let ranked = |x: u32| (x >> 30, x.rotate_left(3));
    let ranked_wide = |x: u32| {
        let rank = ((x >> 30) as u64) << 32 | (x >> 28 & 3) as u64;
        (rank, ((x >> 26 & 1) as u64) << 32 | x.rotate_left(5) as u64)
    };
    let words = |x: u64| [x as u32, (x >> 32) as u32];
    let single = |x: u32| special_f32(x, f32::from_bits(x));
    let double = |x: u32| {
        let bits = (x as u64) << 32 | x.rotate_left(9) as u64;
        special_f64(x, f64::from_bits(bits))
    };
    // The operators' CPU definitions folded over a segment in rank order: one lane's value
    // uncombined, as `Tile<1>` gives it.
    fn fold<T: Copy, Op: ReduceOp<T>>(op: Op, values: impl Iterator<Item = T>) -> T {
        values.reduce(|acc, x| op.combine(acc, x)).unwrap()
    }
    let mut out = vec![[0u32; TILE_WORDS]; v.len()];
    for seg in (0..v.len()).step_by(w) {
        let s = &v[seg..seg + w];
        let (min, max) = (
            s.iter().map(|&x| wide(x)).min().unwrap(),
            s.iter().map(|&x| wide(x)).max().unwrap(),
        );
        let (smin, smax) = (
            s.iter().map(|&x| signed(x)).min().unwrap() as u64,
            s.iter().map(|&x| signed(x)).max().unwrap() as u64,
        );
        let lowest = s.iter().map(|&x| ranked(x)).min().unwrap();
        let lowest_wide = s.iter().map(|&x| ranked_wide(x)).min().unwrap();
        let sum = s.iter().fold(0u64, |a, &x| {
            a.wrapping_add(wide(x).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        });
        let floats = |op_max: bool| {
            let singles = s.iter().map(|&x| single(x));
            let doubles = s.iter().map(|&x| double(x));
            let num = |x: f64| canonical_nan(x).to_bits();
            if op_max {
                (
                    fold(Max, singles).to_bits(),
                    fold(Max, doubles.clone()).to_bits(),
                    num(fold(MaxNumF64, doubles)),
                )
            } else {
                (
                    fold(Min, singles).to_bits(),
                    fold(Min, doubles.clone()).to_bits(),
                    num(fold(MinNumF64, doubles)),
                )
            }
        };
        let ((fmin, dmin, nmin), (fmax, dmax, nmax)) = (floats(false), floats(true));
        let wide_words = [
            words(min),
            words(max),
            words(smin),
            words(smax),
            [lowest.0, lowest.1],
            words(sum),
            [fmin, fmax],
            words(dmin),
            words(dmax),
            words(nmin),
            words(nmax),
            words(lowest_wide.0),
            words(lowest_wide.1),
        ]
        .concat();
        let total = s.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        let map_total = s.iter().fold([1u32, 0], |a, &b| compose(a, map(b)));
        for r in 0..w {
            let incl = s[..=r].iter().fold(0u32, |a, &b| a.wrapping_add(b));
            let suffix = s[r..].iter().fold(0u32, |a, &b| a.wrapping_add(b));
            let head = (0..=r).rev().find(|&k| k == 0 || f[seg + k]).unwrap();
            let seg_incl = s[head..=r].iter().fold(0u32, |a, &b| a.wrapping_add(b));
            // Tail flags: a segment ends at a flagged rank (or the tile's end).
            let start = (0..r).rev().find(|&k| f[seg + k]).map_or(0, |k| k + 1);
            let end = (r..w).find(|&k| f[seg + k]).unwrap_or(w - 1);
            let seg_total = s[start..=end].iter().fold(0u32, |a, &b| a.wrapping_add(b));
            let mut lane = [0u32; TILE_WORDS];
            lane[..11].copy_from_slice(&[
                total,
                incl,
                incl.wrapping_sub(s[r]),
                suffix,
                suffix.wrapping_sub(s[r]),
                seg_incl,
                seg_total,
                0,
                0,
                map_total[0],
                map_total[1],
            ]);
            lane[11..].copy_from_slice(&wide_words);
            out[seg + r] = lane;
            let scan = s[..=r].iter().fold([1u32, 0], |a, &b| compose(a, map(b)));
            out[seg + r][7] = scan[0];
            out[seg + r][8] = scan[1];
        }
    }
    out
}

#[test]
fn tile_algorithms_match_a_cpu_reference_for_every_width() {
    let Some(gpu) = gpu() else { return };
    let mut rng = seed();
    let lanes = 1024 * 32;
    for (target, ptx) in gpu.runnable(TEST_KERNELS_PTX) {
        let module = gpu.load(ptx);
        for w in [1usize, 2, 4, 8, 16, 32] {
            let values: Vec<u32> = (0..lanes).map(|_| rng.random()).collect();
            let flags: Vec<u32> = (0..lanes).map(|_| rng.random_bool(0.2) as u32).collect();
            let (vd, fd, mut out) = (
                gpu.upload(&values),
                gpu.upload(&flags),
                gpu.poisoned::<u32>(lanes * TILE_WORDS),
            );
            let name = format!("warpkit_test_tile_{w}");
            let kernel = gpu.function(&module, &name);
            let mut launch = gpu.stream.launch_builder(&kernel);
            launch.arg(&vd).arg(&fd).arg(&mut out);
            // SAFETY: the kernel's parameters, TILE_WORDS output words per lane.
            unsafe { launch.launch(config(lanes)) }.unwrap();
            gpu.sync(&name);
            let out = gpu.download(&out);
            let f: Vec<bool> = flags.iter().map(|&x| x != 0).collect();
            let want = tile_reference(w, &values, &f);
            for (i, want) in want.iter().enumerate() {
                assert_eq!(
                    &out[i * TILE_WORDS..][..TILE_WORDS],
                    want,
                    "{target} Tile<{w}> lane {i}"
                );
            }
        }
        println!(
            "{target}: Tile<1..=32> reduce/scans/segmented and 64-bit, ranked and float reduces checked on {lanes} lanes each"
        );
    }
}

/// Runs shim kernel `name` (4 words of `io` per thread: operands `a`, `b`, `c`, result) in
/// one block per 256 threads' words (a shim indexes `io` by `%tid.x`), on the operands
/// `operands` draws, word 3 poisoned; checks every result against `model`. The number of
/// cases.
fn shim_matches_the_model(
    gpu: &warpkit_tests::Gpu,
    module: &std::sync::Arc<cudarc::driver::CudaModule>,
    name: &str,
    target: &str,
    rng: &mut StdRng,
    operands: impl Fn(&mut StdRng) -> [u32; 3],
    model: impl Fn(u32, u32, u32) -> u32,
) -> u64 {
    let kernel = gpu.function(module, name);
    let threads = 256;
    let mut cases = 0;
    for _ in 0..256 {
        let mut io = vec![0xa5a5_a5a5u32; 4 * threads];
        for t in 0..threads {
            io[4 * t..4 * t + 3].copy_from_slice(&operands(rng));
        }
        let mut io_d = gpu.upload(&io);
        let mut launch = gpu.stream.launch_builder(&kernel);
        launch.arg(&mut io_d);
        // SAFETY: one block; the shim reads and writes its thread's 4 words of `io`.
        unsafe { launch.launch(config(threads)) }.unwrap();
        gpu.sync(name);
        let out = gpu.download(&io_d);
        for t in 0..threads {
            let [a, b, c] = [io[4 * t], io[4 * t + 1], io[4 * t + 2]];
            assert_eq!(
                out[4 * t + 3],
                model(a, b, c),
                "{target} {name}({a:#010x}, {b:#010x}, {c:#010x})"
            );
            cases += 1;
        }
    }
    cases
}

/// `prmt.b32` on every target, `min`/`max` on `.f16x2` and `.bf16x2` on every target from
/// sm_80 and `min.u16x2` on every target from sm_90 the device runs, against the model: random words whose 16-bit lanes come often from the edges (0, 1,
/// 0x7fff, 0x8000, 0xffff) or repeat, `prmt`'s selectors random (sign-copying nibbles
/// included) or the one the half arg-reduce uses (`0xbb99`).
#[test]
fn packed_lane_instructions_match_the_model() {
    let Some(gpu) = gpu() else { return };
    let mut rng = seed();
    let edges = [0u16, 1, 0x7fff, 0x8000, 0xffff];
    let lane = |rng: &mut StdRng| -> u32 {
        if rng.random_ratio(1, 3) {
            edges[rng.random_range(0..edges.len())] as u32
        } else {
            rng.random::<u16>() as u32
        }
    };
    let word = |rng: &mut StdRng| lane(rng) | lane(rng) << 16;
    let (mut prmt, mut min, mut half) = (0, 0, 0);
    for (target, ptx) in gpu.runnable(TEST_KERNELS_PTX) {
        let module = gpu.load(ptx);
        let selector = |rng: &mut StdRng| {
            if rng.random_ratio(1, 4) {
                0xbb99
            } else {
                rng.random::<u32>()
            }
        };
        prmt += shim_matches_the_model(
            &gpu,
            &module,
            "warpkit_instr_prmt_b32",
            target,
            &mut rng,
            |rng| [word(rng), word(rng), selector(rng)],
            model::prmt_b32,
        );
        if Target::parse(target).unwrap().compute >= 80 {
            half += half_minmax_match_the_model(&gpu, &module, target, &mut rng);
        }
        if Target::parse(target).unwrap().compute >= 90 {
            min += shim_matches_the_model(
                &gpu,
                &module,
                "warpkit_instr_min_u16x2",
                target,
                &mut rng,
                |rng| {
                    let a = word(rng);
                    [a, if rng.random_ratio(1, 8) { a } else { word(rng) }, 0]
                },
                |a, b, _| model::min_u16x2(a, b),
            );
        }
    }
    assert!(prmt > 0, "{}", gpu.describe());
    assert_eq!(min > 0, gpu.major >= 9, "{}", gpu.describe());
    assert_eq!(half > 0, gpu.major >= 8, "{}", gpu.describe());
    println!(
        "prmt.b32: {prmt} cases, min.u16x2: {min} cases, min/max .f16x2/.bf16x2: {half} cases checked, none different"
    );
}

/// `min`/`max` on `.f16x2` and `.bf16x2` against the model, on words whose lanes come often
/// from the edges of either format (zeros, NaNs and infinities of both signs, subnormals, the
/// largest finite numbers) and as often pair a lane with its own negation (`±0.0` against
/// each other) or its own bits. The number of cases.
fn half_minmax_match_the_model(
    gpu: &warpkit_tests::Gpu,
    module: &std::sync::Arc<cudarc::driver::CudaModule>,
    target: &str,
    rng: &mut StdRng,
) -> u64 {
    let edges: [u16; 14] = [
        0, 1, 0x3c00, 0x7bff, 0x7c00, 0x7c01, 0x7e00, 0x7f7f, 0x7f80, 0x7f81, 0x7fc0, 0x7fff,
        0x0400, 0x0080,
    ];
    let lane = |rng: &mut StdRng| -> u16 {
        let x = if rng.random_ratio(1, 2) {
            edges[rng.random_range(0..edges.len())]
        } else {
            rng.random()
        };
        x | if rng.random() { 0x8000 } else { 0 }
    };
    let partner = |rng: &mut StdRng, x: u16| match rng.random_range(0..4) {
        0 => x ^ 0x8000,
        1 => x,
        _ => lane(rng),
    };
    let operands = |rng: &mut StdRng| {
        let (a0, a1) = (lane(rng), lane(rng));
        let (b0, b1) = (partner(rng, a0), partner(rng, a1));
        [
            a0 as u32 | (a1 as u32) << 16,
            b0 as u32 | (b1 as u32) << 16,
            0,
        ]
    };
    type Model = fn(u32, u32) -> u32;
    let ops: [(&str, Model); 4] = [
        ("warpkit_instr_min_f16x2", model::min_f16x2),
        ("warpkit_instr_max_f16x2", model::max_f16x2),
        ("warpkit_instr_min_bf16x2", model::min_bf16x2),
        ("warpkit_instr_max_bf16x2", model::max_bf16x2),
    ];
    ops.iter()
        .map(|&(name, model)| {
            shim_matches_the_model(gpu, module, name, target, rng, operands, |a, b, _| {
                model(a, b)
            })
        })
        .sum()
}
