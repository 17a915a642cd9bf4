//! Checks of the embedded PTX that need no GPU: every module (the library's, the test
//! kernels', the legacy sm_60 one) assembles with `ptxas` for its target with no stack frame
//! and no spills, and every wrapper's shim kernel contains the one instruction it promises,
//! with no call and no branch (stdarch's `assert_instr`, on PTX): one test per family.

use warpkit::abi::layout;
use warpkit::device::tuning::REDUCE_UNROLL;
use warpkit_builder::{
    Target,
    ptxas::{FunctionUsage, parse_verbose},
};
use warpkit_test_kernels::shims::{self, Shim};
use warpkit_tests::ptx::{LEGACY_PTX, LIBRARY_PTX, TEST_KERNELS_PTX};
use warpkit_tests::{assemble, count_instruction, kernel_body, ptxas};

#[test]
fn every_module_assembles_without_stack_or_spills() {
    let Some(ptxas) = ptxas() else { return };
    for (label, modules, at_least) in [
        ("library", LIBRARY_PTX, 60),
        ("test kernels", TEST_KERNELS_PTX, 60),
        ("legacy", LEGACY_PTX, 1),
    ] {
        for &(arch, ptx) in modules {
            assert!(
                ptx.contains(&format!(".target {arch}")),
                "{label} {arch}: wrong .target"
            );
            let functions = parse_verbose(&assemble(&ptxas, arch, ptx));
            for f in &functions {
                // `custom_kernels!` over a 12-byte value (`AddU32x3`) is built to prove that
                // such a user type compiles; its scan keeps a stack frame (96 bytes on sm_70),
                // which is reported, not refused.
                if f.name.starts_with("warpkit_test_u32x3_") {
                    println!(
                        "{label} {arch} {}: stack frame {}, spill stores {}, spill loads {} (12-byte value)",
                        f.name, f.stack_frame, f.spill_stores, f.spill_loads
                    );
                    continue;
                }
                assert_eq!(
                    (f.stack_frame, f.spill_stores, f.spill_loads),
                    (0, 0, 0),
                    "{label} {arch} {}: stack frame, spill stores, spill loads",
                    f.name
                );
            }
            if label == "library" {
                check_launch_bounds(arch, ptx, &functions);
            }
            let kernels = functions.iter().filter(|f| f.entry).count();
            assert_eq!(
                kernels,
                ptx.matches(".entry ").count(),
                "{label} {arch}: every kernel reported"
            );
            assert!(
                kernels >= at_least,
                "{label} {arch}: only {kernels} kernels"
            );
            println!("{label} {arch}: {kernels} kernels, no stack, no spills");
        }
    }
}

/// The library's launch bounds reach the PTX: the reduce and row kernels carry the block
/// size the host launches them with (`.maxntid`), each scan its `scan_launch_bounds` and each
/// reduce its `reduce_min_blocks_per_sm` (the `f32` sum its
/// `reduce_f32_sum_min_blocks_per_sm`, the `f64` min and max on sm_80+ none), which ptxas
/// honours: the kernel's registers let that many blocks share a multiprocessor's 64K
/// registers (allocated per warp, in 8s).
fn check_launch_bounds(arch: &str, ptx: &str, functions: &[FunctionUsage]) {
    use warpkit::device::tuning::{
        REDUCE_BLOCKS_PER_SM, REDUCE_F64_FOLD_MIN_BLOCKS_PER_SM, REDUCE_THREADS, SCAN_THREADS,
        reduce_f32_sum_min_blocks_per_sm, reduce_half_arg_min_blocks_per_sm,
        reduce_min_blocks_per_sm, scan_launch_bounds,
    };
    let compute = Target::parse(arch).expect("an embedded target").compute;
    let sm90 = compute >= 90;
    // (item, accumulator) bytes of a library kernel's type; arg-min/max carry an index.
    let sizes = |ty: &str, indexed: bool| {
        let item = match ty {
            "u64" | "i64" | "f64" => 8,
            "f16" | "bf16" => 2,
            _ => 4,
        };
        let accumulator = match ty {
            "f16" | "bf16" if indexed => 8, // ranked as f32, beside a u32 index
            "f16" | "bf16" => 4,            // accumulated as f32
            _ if indexed => 2 * item,
            _ => item,
        };
        (item, accumulator)
    };
    let (mut scans, mut bounded_scans, mut bounded_reduces) = (0, 0, 0);
    for f in functions.iter().filter(|f| f.entry) {
        let body = kernel_body(ptx, &f.name);
        let header = &body[..body.find('{').unwrap()];
        let scan_rest = f.name.strip_prefix("warpkit_scan_");
        let scan = scan_rest.is_some();
        let (max, min) = if let Some(rest) = scan_rest {
            scans += 1;
            let (item, accumulator) = sizes(rest.split('_').nth(1).unwrap(), false);
            scan_launch_bounds(item, accumulator, sm90)
        } else if let Some(rest) = f.name.strip_prefix("warpkit_reduce_") {
            let (op, ty) = rest.split_once('_').unwrap();
            let (item, accumulator) = sizes(ty, op.starts_with("arg"));
            if compute >= 80 && matches!(rest, "min_f64" | "max_f64") {
                // The `f64` fold: no bound, and still room for every block the grid puts on
                // a multiprocessor.
                let registers = f.registers.expect("ptxas reports registers");
                assert!(
                    65536 / (registers.div_ceil(8) * 8 * REDUCE_THREADS) >= REDUCE_BLOCKS_PER_SM,
                    "{arch} {}: {registers} registers",
                    f.name
                );
                (REDUCE_THREADS, REDUCE_F64_FOLD_MIN_BLOCKS_PER_SM)
            } else if rest == "sum_f32" {
                (REDUCE_THREADS, reduce_f32_sum_min_blocks_per_sm(sm90))
            } else if matches!(
                rest,
                "argmin_f16" | "argmax_f16" | "argmin_bf16" | "argmax_bf16"
            ) {
                (REDUCE_THREADS, reduce_half_arg_min_blocks_per_sm(sm90))
            } else {
                (
                    REDUCE_THREADS,
                    reduce_min_blocks_per_sm(item, accumulator, sm90),
                )
            }
        } else {
            (0, 0)
        };
        if max == 0 || min == 0 {
            // Unbounded scans have no `.maxntid`; every other kernel has one.
            assert_eq!(
                header.contains(".maxntid "),
                max != 0 || !scan,
                "{arch} {}: {header}",
                f.name
            );
            if max != 0 {
                assert!(
                    header.contains(&format!(".maxntid {max}, 1, 1")),
                    "{arch} {}: {header}",
                    f.name
                );
            }
            assert!(
                !header.contains(".minnctapersm"),
                "{arch} {}: {header}",
                f.name
            );
            continue;
        }
        assert!(
            header.contains(&format!(".maxntid {max}, 1, 1\n.minnctapersm {min}")),
            "{arch} {}: {header}",
            f.name
        );
        let registers = f.registers.expect("ptxas reports registers");
        let blocks = 65536 / (registers.div_ceil(8) * 8 * max);
        assert!(
            blocks >= min,
            "{arch} {}: {registers} registers leave room for {blocks} blocks",
            f.name
        );
        if scan {
            assert_eq!(max, SCAN_THREADS);
            bounded_scans += 1;
        } else {
            bounded_reduces += 1;
        }
    }
    assert!(scans >= 24, "{arch}: {scans} scans");
    assert_eq!(
        bounded_scans,
        if sm90 { scans } else { 0 },
        "{arch}: every scan from sm_90"
    );
    // The u64, i64 and f64 sums, the u64 and i64 minima and maxima (the f64 ones fold), the
    // six arg-reduces of 8-byte items, the f32 sum and the four f16/bf16 arg-reduces.
    assert_eq!(
        bounded_reduces,
        if sm90 { 18 } else { 0 },
        "{arch}: 8-byte reduces and arg-reduces, the f32 sum and the half arg-reduces from sm_90"
    );
}

/// `warpkit-host` launches the library's kernels as programmatic dependents on sm_90 and newer
/// (`Table::load`), so each may start while the kernel before it still runs: it must execute
/// `griddepcontrol.wait` before any branch and any access to memory but its parameters. Below
/// sm_90 (launched plainly) no kernel has the instruction.
#[test]
fn library_kernels_wait_for_the_kernels_before_them_first() {
    let touches_memory_or_branches = |line: &str| {
        let op = line.split_whitespace().next().unwrap_or("");
        !op.starts_with("ld.param")
            && [
                "ld", "st", "atom", "red", "cp", "prefetch", "bra", "bar", "call", "@",
            ]
            .iter()
            .any(|p| op.starts_with(p))
    };
    for &(arch, ptx) in LIBRARY_PTX {
        let target = Target::parse(arch).unwrap();
        let kernels: Vec<&str> = ptx
            .lines()
            .filter_map(|l| l.split(".entry ").nth(1))
            .map(|rest| rest.split('(').next().unwrap())
            .collect();
        assert!(kernels.len() >= 60, "{arch}: {} kernels", kernels.len());
        for name in kernels {
            let body = kernel_body(ptx, name);
            if target.compute < 90 {
                assert!(!body.contains("griddepcontrol"), "{arch} {name}");
                continue;
            }
            let wait = body
                .find("griddepcontrol.wait")
                .unwrap_or_else(|| panic!("{arch} {name}: no griddepcontrol.wait"));
            let early = body[..wait]
                .lines()
                .map(str::trim)
                .find(|l| touches_memory_or_branches(l));
            assert_eq!(early, None, "{arch} {name}: before griddepcontrol.wait");
        }
    }
}

/// What a family's shims are on targets older than their instruction.
#[derive(Clone, Copy, PartialEq)]
enum Below {
    /// The wrapper exists and shuffles instead (`redux.sync`).
    Shuffles,
    /// The wrapper does not exist there (`cp.async`): nor does its shim.
    Absent,
}

/// Checks one family's shims on every target.
fn check_family(family: &[Shim]) {
    check_family_below(family, Below::Shuffles)
}

fn check_family_below(family: &[Shim], below: Below) {
    let mut checked = 0;
    for &(arch, ptx) in TEST_KERNELS_PTX {
        let target = Target::parse(arch).unwrap();
        for shim in family {
            let since = Target::parse(shim.since).expect("since names a target");
            let native =
                target.compute >= since.compute && (!since.arch_specific || target.arch_specific);
            if !native && below == Below::Absent {
                assert!(
                    !ptx.contains(&format!(".entry {}(", shim.kernel)),
                    "{arch}: {} exists below {}",
                    shim.kernel,
                    shim.since
                );
                checked += 1;
                continue;
            }
            let body = kernel_body(ptx, shim.kernel);
            let count = count_instruction(body, shim.instruction);
            assert!(
                !body.contains("call"),
                "{arch} {}: calls a function:\n{body}",
                shim.kernel
            );
            if native {
                assert_eq!(
                    count, shim.count,
                    "{arch} {}: expected {} × `{}`:\n{body}",
                    shim.kernel, shim.count, shim.instruction
                );
                assert!(
                    !body.contains("bra"),
                    "{arch} {}: branches around `{}`:\n{body}",
                    shim.kernel,
                    shim.instruction
                );
            } else {
                assert_eq!(
                    count, 0,
                    "{arch} {}: `{}` is not on this target",
                    shim.kernel, shim.instruction
                );
                assert!(
                    body.contains("shfl.sync"),
                    "{arch} {}: the fallback shuffles",
                    shim.kernel
                );
                // A `redux.sync` wrapper's, like the instruction, reduces over the lanes of the
                // mask that have not exited (`Tile` algorithms need every lane).
                if shim.kernel.starts_with("warpkit_instr_redux_sync") {
                    assert_eq!(
                        count_instruction(body, "vote.sync.ballot.b32"),
                        1,
                        "{arch} {}: the fallback ballots the lanes present first:\n{body}",
                        shim.kernel
                    );
                }
            }
            checked += 1;
        }
    }
    println!("{checked} wrapper/target pairs checked");
}

#[test]
fn shfl_wrappers_emit_their_instruction() {
    check_family(shims::SHFL);
}

#[test]
fn vote_wrappers_emit_their_instruction() {
    check_family(shims::VOTE);
}

#[test]
fn match_wrappers_emit_their_instruction() {
    check_family(shims::MATCH);
}

#[test]
fn redux_wrappers_emit_their_instruction_or_shuffle_below_it() {
    check_family(shims::REDUX);
}

#[test]
fn special_register_and_activemask_wrappers_emit_their_instruction() {
    check_family(shims::SREG);
}

/// `activemask` in both arms of a branch stays in both (`warpkit_test_lanes`): LLVM merged two
/// `asm!` copies into one before the branch, which read the lanes that reached the branch.
#[test]
fn activemask_stays_in_each_arm_of_a_branch() {
    let mut checked = 0;
    for &(arch, ptx) in TEST_KERNELS_PTX {
        if !ptx.contains(".entry warpkit_test_lanes(") {
            continue;
        }
        let body = kernel_body(ptx, "warpkit_test_lanes");
        assert_eq!(
            count_instruction(body, "activemask.b32"),
            2,
            "{arch}:\n{body}"
        );
        assert_eq!(
            count_instruction(body, "bar.warp.sync"),
            2,
            "{arch}:\n{body}"
        );
        checked += 1;
    }
    assert!(checked >= 4, "{checked} targets");
}

#[test]
fn barrier_wrappers_emit_their_instruction() {
    check_family(shims::BARRIER);
}

#[test]
fn memory_wrappers_emit_their_instruction() {
    check_family(shims::MEMORY);
}

#[test]
fn async_copy_wrappers_emit_their_instruction_from_sm80() {
    check_family_below(shims::ASYNC_COPY, Below::Absent);
}

#[test]
fn l2_hint_wrappers_emit_their_instruction_from_sm87() {
    check_family_below(shims::L2_HINTS, Below::Absent);
}

#[test]
fn bulk_prefetch_wrappers_emit_their_instruction_from_sm90() {
    check_family_below(shims::BULK_PREFETCH, Below::Absent);
}

#[test]
fn grid_dependency_wrappers_emit_their_instruction_from_sm90() {
    check_family_below(shims::GRIDDEPCONTROL, Below::Absent);
}

#[test]
fn cluster_wrappers_emit_their_instruction_from_sm90() {
    check_family_below(shims::CLUSTER, Below::Absent);
}

#[test]
fn permute_wrappers_emit_their_instruction() {
    check_family(shims::PERMUTE);
}

#[test]
fn simd_wrappers_emit_their_instruction_from_sm90() {
    check_family_below(shims::SIMD, Below::Absent);
}

#[test]
fn half_simd_wrappers_emit_their_instruction_from_sm80() {
    check_family_below(shims::HALF_SIMD, Below::Absent);
}

#[test]
fn mbarrier_wrappers_emit_their_instruction_from_sm80() {
    check_family_below(shims::MBARRIER, Below::Absent);
}

#[test]
fn mbarrier_transaction_wrappers_emit_their_instruction_from_sm90() {
    check_family_below(shims::MBARRIER_TX, Below::Absent);
}

#[test]
fn every_shim_kernel_is_in_a_family() {
    let listed: Vec<&str> = shims::FAMILIES
        .iter()
        .flat_map(|(_, f)| f.iter().map(|s| s.kernel))
        .collect();
    for &(arch, ptx) in TEST_KERNELS_PTX {
        for line in ptx.lines() {
            if let Some(rest) = line.split(".entry warpkit_instr_").nth(1) {
                let name = format!("warpkit_instr_{}", rest.split('(').next().unwrap());
                assert!(
                    listed.contains(&name.as_str()),
                    "{arch}: {name} is unchecked"
                );
            }
        }
    }
}

#[test]
fn the_library_ptx_holds_no_test_kernels() {
    for &(arch, ptx) in LIBRARY_PTX {
        for prefix in [
            "warpkit_test_",
            "warpkit_instr_",
            "warpkit_bandwidth_",
            "warpkit_legacy_",
        ] {
            assert!(
                !ptx.contains(&format!(".entry {prefix}")),
                "{arch}: the library's PTX has a {prefix}* kernel"
            );
        }
    }
}

#[test]
fn legacy_shfl_exists_only_below_sm70() {
    let (arch, ptx) = LEGACY_PTX[0];
    assert_eq!(arch, "sm_60");
    let body = kernel_body(ptx, "warpkit_legacy_shfl");
    for mode in ["up", "down", "bfly", "idx"] {
        assert!(
            body.contains(&format!("shfl.{mode}.b32")),
            "sm_60: shfl.{mode}.b32 missing"
        );
    }
    assert!(!body.contains("shfl.sync"));
    for &(arch, ptx) in TEST_KERNELS_PTX.iter().chain(LIBRARY_PTX) {
        assert!(
            !ptx.contains("warpkit_legacy_shfl"),
            "{arch} carries the legacy kernel"
        );
    }
}

#[test]
fn redux_is_used_by_warp_reductions_where_the_target_has_it() {
    for &(arch, ptx) in LIBRARY_PTX {
        let has_redux = Target::parse(arch).unwrap().compute >= 80;
        let body = kernel_body(ptx, "warpkit_rows_reduce_sum_u32");
        assert_eq!(body.contains("redux.sync.add.u32"), has_redux, "{arch}");
    }
}

/// From sm_80 every device reduce but the float sums reduces its warps with `redux.sync`
/// alone (one for 32-bit values, two or three for 64-bit ones, four for the 8-byte
/// arg-reduces' candidates): no shuffle is left in its kernel. The float sums, which `redux`
/// cannot add, and every reduce below sm_80 shuffle.
#[test]
fn device_reduces_take_redux_for_every_warp_but_the_float_sums() {
    let mut checked = 0;
    for &(arch, ptx) in LIBRARY_PTX {
        let has_redux = Target::parse(arch).unwrap().compute >= 80;
        for name in entries_named(ptx, "warpkit_reduce_") {
            let body = kernel_body(ptx, name);
            let float_sum = ["f16", "bf16", "f32", "f64"]
                .iter()
                .any(|ty| name == format!("warpkit_reduce_sum_{ty}"));
            let redux = has_redux && !float_sum;
            assert_eq!(body.contains("redux.sync"), redux, "{arch} {name}");
            assert_eq!(body.contains("shfl.sync"), !redux, "{arch} {name}");
            checked += 1;
        }
    }
    assert!(
        checked >= 36 * LIBRARY_PTX.len(),
        "{checked} reduce kernels"
    );
}

/// Every library scan kernel (`warpkit::library_kernels!`'s list) with its item size:
/// `vec![(name, size_of::<T>()), ..]`.
macro_rules! scan_kernels {
    (
        types: [$(($t:ident, $index:ident)),* $(,)?],
        half_types: [$($h:ident),* $(,)?],
        ops: $ops:tt,
        arg_ops: $args:tt $(,)?
    ) => {
        [$(scan_kernels!(@type $t, $t, $ops),)* $(scan_kernels!(@type $h, half::$h, $ops),)*]
            .concat()
    };
    (@type $name:ident, $t:ty, [$(($o:ident, $on:ident)),* $(,)?]) => {
        vec![$((warpkit::kernel_name!(scan, $on, $name), size_of::<$t>())),*]
    };
}

/// From sm_90 every device scan kernel has the cluster copies of its tile (`scan_pass::CLUSTER`;
/// one for tiles of up to 4 stripes, and one for 8 where its items' clusters have such tiles or
/// its flat launches run in the small launches' copies, `tuning::scan_flat_copy`):
/// its mbarrier initialised by lane 0 of warp 0, the warp synchronised, lane 0's arrival on
/// it, and the init fenced before its relaxed arrival at the cluster barrier's one phase (once
/// per staging path), its sends into later tiles' shared memory (`mapa`,
/// `st.async` completing on their mbarriers), the wait on its own mbarrier at cluster scope,
/// and no plain `st.shared::cluster`; below sm_90 none of it.
#[test]
fn device_scans_run_small_inputs_as_one_cluster_from_sm90() {
    let scan_kernels = warpkit::library_kernels!(scan_kernels);
    let mut checked = 0;
    for &(arch, ptx) in LIBRARY_PTX {
        let clusters = Target::parse(arch).unwrap().compute >= 90;
        for &(name, item_bytes) in &scan_kernels {
            let body = kernel_body(ptx, name);
            let count = |instr: &str| count_instruction(body, instr);
            let copies = if layout::scan_cluster_stripes(item_bytes)
                > layout::SCAN_CLUSTER_NARROW_STRIPES
                || warpkit::device::tuning::scan_flat_copy(item_bytes)
            {
                2
            } else {
                1
            };
            let expected = |n: usize| if clusters { n * copies } else { 0 };
            // The setup (init, expect_tx, fence, arrival) is inlined once per staging path of
            // each cluster copy of the tile, each in that order; the waits once per copy.
            let setup = count("barrier.cluster.arrive.relaxed");
            assert_eq!(setup, expected(2), "{arch} {name}: the cluster arrivals");
            for instr in [
                "mbarrier.init.shared.b64",
                "mbarrier.arrive.expect_tx.shared.b64",
                "fence.mbarrier_init.release.cluster",
            ] {
                assert_eq!(count(instr), setup, "{arch} {name}: {instr}");
            }
            for instr in [
                "barrier.cluster.wait",
                "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64",
            ] {
                assert_eq!(count(instr), expected(1), "{arch} {name}: {instr}");
            }
            // Lane 0's init, the warp's barrier (without it `ptxas` may issue the init for the
            // whole warp on the uniform datapath, which racecheck reported as a hazard with
            // the arrive), lane 0's arrive, its fence, then the cluster arrival.
            let setup_steps = [
                "mbarrier.init",
                "bar.warp.sync",
                "mbarrier.arrive.expect_tx",
                "fence.mbarrier_init",
                "barrier.cluster.arrive",
            ];
            let order: Vec<&str> = body
                .lines()
                .filter_map(|line| {
                    setup_steps
                        .into_iter()
                        .find(|instr| line.trim_start().starts_with(instr))
                })
                .collect();
            let inits: Vec<usize> = (0..order.len())
                .filter(|&i| order[i] == "mbarrier.init")
                .collect();
            assert_eq!(inits.len(), setup, "{arch} {name}: the inits");
            assert!(
                inits
                    .iter()
                    .all(|&i| order.get(i..i + setup_steps.len()) == Some(&setup_steps[..])),
                "{arch} {name}: each mbarrier init is followed by the warp barrier, the arrive, \
                 the fence and the cluster arrival: {order:?}"
            );
            assert_eq!(
                count("mapa.shared::cluster.u64") > 0,
                clusters,
                "{arch} {name}"
            );
            assert_eq!(
                count("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32") > 0,
                clusters,
                "{arch} {name}"
            );
            assert!(!body.contains("st.shared::cluster"), "{arch} {name}");
            checked += 1;
        }
    }
    assert!(checked >= 24 * LIBRARY_PTX.len(), "{checked} scan kernels");
}

/// The names of the `.entry` kernels of `ptx` that start with `prefix`.
fn entries_named<'a>(ptx: &'a str, prefix: &'a str) -> impl Iterator<Item = &'a str> {
    ptx.split(".entry ")
        .skip(1)
        .filter_map(|entry| entry.split('(').next())
        .filter(move |name| name.starts_with(prefix))
}

/// The `f16`/`bf16` arg-reduces fold each vector of eight halves with `min.u16x2` from sm_90
/// (`HalfArgLoad`) and rank each item below it.
#[test]
fn half_arg_reduces_fold_vectors_with_min_u16x2_from_sm90() {
    let mut checked = 0;
    for &(arch, ptx) in LIBRARY_PTX {
        let folds = Target::parse(arch).unwrap().compute >= 90;
        for name in ["argmin_f16", "argmax_f16", "argmin_bf16", "argmax_bf16"] {
            let body = kernel_body(ptx, &format!("warpkit_reduce_{name}"));
            assert_eq!(body.contains("min.u16x2"), folds, "{arch} {name}");
            checked += 1;
        }
    }
    assert!(checked >= 4 * 3, "{checked}");
}

/// The `f16`/`bf16` min and max reduces fold each vector of eight halves with four packed
/// `min`/`max` (`.f16x2`/`.bf16x2`, `HalfMinMaxLoad`) from sm_80 and widen each item below it:
/// four per vector of the even share's step and four per grid-strided vector after it.
#[test]
fn half_min_max_reduces_fold_vectors_with_packed_instructions_from_sm80() {
    let mut checked = 0;
    for &(arch, ptx) in LIBRARY_PTX {
        let folds = Target::parse(arch).unwrap().compute >= 80;
        for ty in ["f16", "bf16"] {
            for op in ["min", "max"] {
                let body = kernel_body(ptx, &format!("warpkit_reduce_{op}_{ty}"));
                let count = count_instruction(body, &format!("{op}.{ty}x2"));
                let want = if folds { 4 * (REDUCE_UNROLL + 1) } else { 0 };
                assert_eq!(count, want, "{arch} {op} {ty}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 4 * 3, "{checked}");
}

/// The `f64` min and max reduce fold with `min.f64`/`max.f64` from sm_80 and rank below it.
#[test]
fn f64_min_max_reduce_fold_with_the_float_instruction_from_sm80() {
    for &(arch, ptx) in LIBRARY_PTX {
        let folds = Target::parse(arch).unwrap().compute >= 80;
        for op in ["min", "max"] {
            let body = kernel_body(ptx, &format!("warpkit_reduce_{op}_f64"));
            assert_eq!(body.contains(&format!("{op}.f64")), folds, "{arch} {op}");
        }
    }
}

#[test]
fn every_default_target_is_embedded() {
    let names = |m: &[(&str, &str)]| m.iter().map(|(t, _)| t.to_string()).collect::<Vec<_>>();
    let default: Vec<String> = Target::DEFAULT.iter().map(Target::name).collect();
    assert_eq!(names(TEST_KERNELS_PTX), default);
    assert_eq!(names(LIBRARY_PTX), default);
    assert_eq!(names(LEGACY_PTX), ["sm_60"]);
}
