//! Checks of the embedded PTX that need no GPU: every module assembles with `ptxas` for its
//! target with no stack frame and no spills, and every wrapper's shim kernel contains the one
//! instruction it promises, with no call and no branch (stdarch's `assert_instr`, on PTX).

use std::process::Command;
use warpkit::instr::SHIMS;
use warpkit_builder::Target;
use warpkit_host::ptx::{KERNELS_PTX, LEGACY_PTX};

/// `ptxas` from `WARPKIT_PTXAS` or PATH; `None` (and the reason printed) when absent, unless
/// `WARPKIT_REQUIRE_PTXAS` is set, as `cargo xtask test` does.
fn ptxas() -> Option<String> {
    if let Ok(p) = std::env::var("WARPKIT_PTXAS") {
        return Some(p);
    }
    if Command::new("ptxas")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some("ptxas".into());
    }
    assert!(
        std::env::var_os("WARPKIT_REQUIRE_PTXAS").is_none(),
        "WARPKIT_REQUIRE_PTXAS is set but no ptxas was found"
    );
    eprintln!("skipped: no ptxas (set WARPKIT_PTXAS, or run `cargo xtask test`, which fetches it)");
    None
}

/// Assembles `ptx` for `arch`; returns ptxas's `-v` report.
fn assemble(ptxas: &str, arch: &str, ptx: &str) -> String {
    let dir = std::env::temp_dir().join(format!("warpkit-ptx-{}-{arch}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("warpkit.{arch}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&file)
        .args(["-o", "/dev/null"])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "ptxas rejected {}:\n{report}",
        file.display()
    );
    std::fs::remove_dir_all(&dir).unwrap();
    report
}

#[test]
fn every_module_assembles_without_stack_or_spills() {
    let Some(ptxas) = ptxas() else { return };
    let mut kernels = 0;
    for &(arch, ptx) in KERNELS_PTX.iter().chain(LEGACY_PTX) {
        assert!(
            ptx.contains(&format!(".target {arch}")),
            "{arch}: wrong .target"
        );
        let report = assemble(&ptxas, arch, ptx);
        let mut current = "";
        for line in report.lines() {
            if let Some(rest) = line.split("Compiling entry function '").nth(1) {
                current = rest.split('\'').next().unwrap();
                kernels += 1;
            }
            if line.contains("bytes stack frame") {
                assert!(
                    line.trim_start().starts_with(
                        "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
                    ),
                    "{arch} {current}: {line}"
                );
            }
        }
    }
    assert!(kernels > 100, "only {kernels} kernels assembled");
    println!(
        "{kernels} kernels assembled across {} targets",
        KERNELS_PTX.len() + LEGACY_PTX.len()
    );
}

/// The body of `.entry name` in `ptx`.
fn kernel_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("kernel {name} missing"));
    let body = &ptx[start..];
    &body[..body
        .find("// -- End function")
        .expect("LLVM marks the end of each function")]
}

#[test]
fn every_wrapper_emits_its_instruction() {
    let mut checked = 0;
    for &(arch, ptx) in KERNELS_PTX {
        let target = Target::parse(arch).unwrap();
        for shim in SHIMS {
            let body = kernel_body(ptx, shim.kernel);
            let native =
                target.compute >= shim.since && (!shim.arch_specific || target.arch_specific);
            let count = body.matches(&format!("{} ", shim.instruction)).count()
                + body.matches(&format!("{},", shim.instruction)).count()
                + body.matches(&format!("{};", shim.instruction)).count();
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
            }
            checked += 1;
        }
    }
    println!("{checked} wrapper/target pairs checked");
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
    for &(arch, ptx) in KERNELS_PTX {
        assert!(
            !ptx.contains("warpkit_legacy_shfl"),
            "{arch} carries the legacy kernel"
        );
    }
}

#[test]
fn redux_is_used_by_warp_reductions_where_the_target_has_it() {
    for &(arch, ptx) in KERNELS_PTX {
        let has_redux = Target::parse(arch).unwrap().compute >= 80;
        let body = kernel_body(ptx, "warpkit_rows_reduce_sum_u32");
        assert_eq!(body.contains("redux.sync.add.u32"), has_redux, "{arch}");
    }
}
