//! The link step: what rustc's `llvm-bitcode-linker` would do for `nvptx64-nvidia-cuda`.
//!
//! rustc calls the linker with the crate's bitcode objects, the `.rlib`s of its dependencies
//! (archives of bitcode), `--export-symbol` for every kernel, `--target-cpu`, `--target-feature`
//! and `-o`. We link the crate's objects, pull in only what they need from the archives,
//! internalize everything but the kernels, optimize, and let `llc` write PTX.

use crate::BuildError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set (to the llvm-tools folder) on the nested cargo: a process that finds it in its
/// environment was started by rustc as the linker.
pub(crate) const LLVM_BIN_ENV: &str = "WARPKIT_BUILDER_LINKER_LLVM_BIN";

/// Set when `llc` must emit for another target than rustc compiled for (below sm_70).
pub(crate) const CPU_ENV: &str = "WARPKIT_BUILDER_LINKER_CPU";

/// libdevice's path (empty: not found), linked last with `--only-needed`.
pub(crate) const LIBDEVICE_ENV: &str = "WARPKIT_BUILDER_LINKER_LIBDEVICE";

/// If rustc started this process as the PTX linker, performs the link and exits.
///
/// [`crate::PtxBuilder`] passes the running executable (normally a `build.rs`) to rustc as
/// the linker, so every program that drives a [`crate::PtxBuilder`] must call this (or
/// `build`, which calls it) before doing anything else.
pub fn run_as_linker_if_requested() {
    if std::env::var_os(LLVM_BIN_ENV).is_none() {
        return;
    }
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match LinkArgs::parse(&args).and_then(|a| a.link()) {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("warpkit PTX linker: {e}");
            std::process::exit(1);
        }
    }
}

#[derive(Debug, Default)]
struct LinkArgs {
    objects: Vec<PathBuf>,
    archives: Vec<PathBuf>,
    exports: Vec<String>,
    output: PathBuf,
    cpu: String,
    features: Vec<String>,
    opt_level: String,
}

impl LinkArgs {
    fn parse(args: &[OsString]) -> Result<LinkArgs, BuildError> {
        let mut parsed = LinkArgs {
            opt_level: "3".into(),
            ..Default::default()
        };
        let mut it = args.iter().map(|a| a.to_string_lossy().into_owned());
        while let Some(arg) = it.next() {
            let mut value = |flag: &str| {
                it.next()
                    .ok_or_else(|| BuildError::Link(format!("{flag} needs a value")))
            };
            match arg.as_str() {
                "--export-symbol" => parsed.exports.push(value("--export-symbol")?),
                "-o" => parsed.output = PathBuf::from(value("-o")?),
                "--target-cpu" => parsed.cpu = value("--target-cpu")?,
                "--target-feature" => parsed.features.push(value("--target-feature")?),
                "-L" | "--target" => {
                    value(&arg)?;
                }
                "--debug" => {}
                _ if arg.starts_with("--target-feature=") => parsed
                    .features
                    .push(arg["--target-feature=".len()..].to_owned()),
                _ if arg.starts_with("-O") => parsed.opt_level = arg[2..].to_owned(),
                _ if arg.ends_with(".rlib") => parsed.archives.push(arg.into()),
                _ if arg.ends_with(".o") => parsed.objects.push(arg.into()),
                _ => {
                    return Err(BuildError::Link(format!(
                        "unexpected linker argument `{arg}`"
                    )));
                }
            }
        }
        if parsed.output.as_os_str().is_empty() || parsed.cpu.is_empty() {
            return Err(BuildError::Link(
                "rustc passed no -o or --target-cpu".into(),
            ));
        }
        Ok(parsed)
    }

    fn link(&self) -> Result<(), BuildError> {
        let llvm = crate::toolchain::llvm_bin_for_linker()?;
        let work = self.output.with_extension("link-tmp");
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).map_err(|e| BuildError::io(&work, e))?;

        let mut members = Vec::new();
        for (i, archive) in self.archives.iter().enumerate() {
            let dir = work.join(format!("lib{i}"));
            std::fs::create_dir_all(&dir).map_err(|e| BuildError::io(&dir, e))?;
            run(Command::new(llvm.join("llvm-ar"))
                .arg("x")
                .arg(archive)
                .current_dir(&dir))?;
            for entry in std::fs::read_dir(&dir).map_err(|e| BuildError::io(&dir, e))? {
                let path = entry.map_err(|e| BuildError::io(&dir, e))?.path();
                if path.extension().is_some_and(|e| e == "o") {
                    members.push(path);
                }
            }
        }
        members.sort();

        let crate_bc = work.join("crate.bc");
        run(Command::new(llvm.join("llvm-link"))
            .args(&self.objects)
            .arg("-o")
            .arg(&crate_bc))?;
        let linked = work.join("linked.bc");
        // libdevice last, so that the `__nv_*` calls of every member are known by then; only
        // the functions called are linked (its triple and data layout differ from ours, which
        // llvm-link accepts with a warning: it is the library nvcc links the same way).
        let libdevice = std::env::var_os(LIBDEVICE_ENV)
            .map(PathBuf::from)
            .filter(|p| p.is_file());
        run(Command::new(llvm.join("llvm-link"))
            .arg(&crate_bc)
            .arg("--only-needed")
            .args(&members)
            .args(libdevice.as_ref())
            .arg("-o")
            .arg(&linked))?;
        // `--only-needed` takes from each file what is needed *when that file comes*: a symbol
        // an earlier archive defines but a later one first needs (the panic handler, which
        // warpkit defines and core's formatting calls) stays undefined. Link again until
        // nothing more resolves.
        let mut undefined = undefined_symbols(&llvm, &linked)?;
        for pass in 0..4 {
            if undefined.is_empty() {
                break;
            }
            let next = work.join(format!("linked{pass}.bc"));
            run(Command::new(llvm.join("llvm-link"))
                .arg(&linked)
                .arg("--only-needed")
                .args(&members)
                .args(libdevice.as_ref())
                .arg("-o")
                .arg(&next))?;
            let now = undefined_symbols(&llvm, &next)?;
            std::fs::rename(&next, &linked).map_err(|e| BuildError::io(&linked, e))?;
            if now == undefined {
                break;
            }
            undefined = now;
        }

        let optimized = work.join("optimized.bc");
        let level = match self.opt_level.as_str() {
            "0" | "1" | "2" | "3" | "s" | "z" => self.opt_level.as_str(),
            _ => "3",
        };
        run(Command::new(llvm.join("opt"))
            .arg(format!("-passes=internalize,default<O{level}>"))
            // Fully unroll constant-trip loops over register arrays, as nvcc does: a loop left
            // rolled indexes its array at run time and moves it to local memory.
            .arg("-unroll-threshold=1000")
            .arg(format!(
                "--internalize-public-api-list={}",
                self.exports.join(",")
            ))
            .arg(&linked)
            .arg("-o")
            .arg(&optimized))?;

        let partial = work.join("out.ptx");
        let mut llc = Command::new(llvm.join("llc"));
        let cpu = std::env::var(CPU_ENV).unwrap_or_else(|_| self.cpu.clone());
        llc.arg(format!("-mcpu={cpu}")).arg("-O3");
        let features: Vec<&str> = self
            .features
            .iter()
            .flat_map(|f| f.split(','))
            .filter(|f| !f.is_empty())
            .collect();
        if !features.is_empty() {
            llc.arg(format!("-mattr={}", features.join(",")));
        }
        run(llc.arg(&optimized).arg("-o").arg(&partial))?;
        let ptx = std::fs::read_to_string(&partial).map_err(|e| BuildError::io(&partial, e))?;
        check_externs(&ptx, libdevice.is_some())?;
        // Each link pass appends the members' module-level `global_asm!` again: keep one copy.
        let deduped = dedupe_module_asm(&ptx);
        let bounded = apply_launch_bounds(&deduped)?;
        if bounded != ptx {
            std::fs::write(&partial, bounded).map_err(|e| BuildError::io(&partial, e))?;
        }
        std::fs::rename(&partial, &self.output).map_err(|e| BuildError::io(&self.output, e))?;
        std::fs::remove_dir_all(&work).map_err(|e| BuildError::io(&work, e))
    }
}

/// Drops repeated module-level `.shared`/`.extern .shared` declarations (the text of
/// `global_asm!`, which every `llvm-link` pass appends again), keeping the first of each.
fn dedupe_module_asm(ptx: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut out = String::with_capacity(ptx.len());
    let mut depth = 0usize;
    for line in ptx.split_inclusive('\n') {
        let t = line.trim();
        let module_level = depth == 0
            && (t.starts_with(".shared ") || t.starts_with(".extern .shared "))
            && t.ends_with(';');
        if !(module_level && !seen.insert(t.to_owned())) {
            out.push_str(line);
        }
        depth += line.matches('{').count();
        depth = depth.saturating_sub(line.matches('}').count());
    }
    out
}

/// The comment `#[kernel(max_threads = N, min_blocks_per_sm = M)]` leaves in the PTX (module
/// `global_asm!`): `// warpkit.launch_bounds <entry> <N> <M>`.
const LAUNCH_BOUNDS: &str = "// warpkit.launch_bounds ";

/// Turns each launch-bounds comment into the entry's `.maxntid N, 1, 1` (and
/// `.minnctapersm M` when `M > 0`; nothing when `N = 0`) directives, placed after its parameter list (PTX ISA
/// "Performance-Tuning Directives",
/// <https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#performance-tuning-directives>),
/// and drops the comments. A comment naming no entry, or two different bounds for one, fails.
fn apply_launch_bounds(ptx: &str) -> Result<String, BuildError> {
    let mut bounds = std::collections::BTreeMap::new();
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let Some(rest) = line.trim().strip_prefix(LAUNCH_BOUNDS) else {
            out.push_str(line);
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let parsed = match fields.as_slice() {
            [name, max, min] => max
                .parse::<u32>()
                .ok()
                .zip(min.parse::<u32>().ok())
                .map(|b| (*name, b)),
            _ => None,
        };
        let Some((name, b)) = parsed else {
            return Err(BuildError::Link(format!(
                "unreadable launch bounds `{}`",
                line.trim()
            )));
        };
        if bounds.insert(name, b).is_some_and(|old| old != b) {
            return Err(BuildError::Link(format!(
                "two different launch bounds for `{name}`"
            )));
        }
    }
    for (name, (max, min)) in bounds {
        let head = [".entry ", name, "("].concat();
        let at = out.find(&head).ok_or_else(|| {
            BuildError::Link(format!(
                "launch bounds for `{name}`, which is no kernel of this module"
            ))
        })?;
        if max == 0 {
            continue; // `max_threads = 0`: no bound
        }
        let close = at
            + out[at..]
                .find(')')
                .expect("a PTX entry's parameter list is closed")
            + 1;
        let mut directives = format!("\n.maxntid {max}, 1, 1");
        if min > 0 {
            directives += &format!("\n.minnctapersm {min}");
        }
        out.insert_str(close, &directives);
    }
    Ok(out)
}

/// The names `llvm-nm --undefined-only` lists for a bitcode file.
fn undefined_symbols(llvm: &Path, file: &Path) -> Result<Vec<String>, BuildError> {
    let out = Command::new(llvm.join("llvm-nm"))
        .args(["--undefined-only", "--format=just-symbols"])
        .arg(file)
        .output()
        .map_err(|e| BuildError::Link(format!("cannot run llvm-nm: {e}")))?;
    if !out.status.success() {
        return Err(BuildError::Link(format!(
            "llvm-nm failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty() && !l.starts_with("llvm."))
        .collect();
    names.sort();
    Ok(names)
}

/// The PTX may call only functions the driver provides at load time (`vprintf`, `malloc`,
/// `free`, `__assertfail`); an `__nv_*` function left undefined means libdevice was missing.
fn check_externs(ptx: &str, have_libdevice: bool) -> Result<(), BuildError> {
    const DRIVER: [&str; 4] = ["vprintf", "malloc", "free", "__assertfail"];
    let mut missing = Vec::new();
    for line in ptx
        .lines()
        .filter(|l| l.trim_start().starts_with(".extern .func"))
    {
        let rest = line.trim_start()[".extern .func".len()..].trim_start();
        // An optional `(.param ... func_retval0)` return, then the name.
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(')').map_or("", |(_, after)| after),
            None => rest,
        };
        let name = rest
            .split(|c: char| c.is_whitespace() || c == '(')
            .find(|w| !w.is_empty())
            .unwrap_or("");
        if !DRIVER.contains(&name) {
            missing.push(name.to_owned());
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let nv: Vec<&str> = missing
        .iter()
        .map(String::as_str)
        .filter(|n| n.starts_with("__nv_"))
        .collect();
    if !nv.is_empty() && !have_libdevice {
        return Err(BuildError::Link(format!(
            "the kernels call libdevice function(s) {} (warpkit::math) but libdevice.10.bc was not \
             found: set WARPKIT_LIBDEVICE=/path/to/libdevice.10.bc, install the CUDA toolkit \
             (/usr/local/cuda/nvvm/libdevice/libdevice.10.bc, or set CUDA_HOME), or run \
             `cargo xtask setup`, which unpacks it from the nvidia-cuda-nvcc-cu12 wheel into \
             target/tools/ptxas/",
            nv.join(", ")
        )));
    }
    Err(BuildError::Link(format!(
        "the PTX calls undefined function(s) {}: only {} are provided by the CUDA driver",
        missing.join(", "),
        DRIVER.join(", ")
    )))
}

fn run(cmd: &mut Command) -> Result<(), BuildError> {
    let output = cmd
        .output()
        .map_err(|e| BuildError::Link(format!("cannot run {:?}: {e}", cmd.get_program())))?;
    if output.status.success() {
        return Ok(());
    }
    Err(BuildError::Link(format!(
        "{} failed:\n{}",
        Path::new(cmd.get_program()).display(),
        String::from_utf8_lossy(&output.stderr)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_what_rustc_passes() {
        let a = LinkArgs::parse(&args(&[
            "--export-symbol",
            "k1",
            "--export-symbol",
            "k2",
            "/t/deps/crate.cgu.0.rcgu.o",
            "/t/deps/libcore-1.rlib",
            "-L",
            "/t/raw-dylibs",
            "--target",
            "nvptx64-nvidia-cuda",
            "--target-cpu",
            "sm_100a",
            "--target-feature=+ptx86",
            "-o",
            "/t/deps/warpkit.ptx",
            "-O3",
            "--debug",
        ]))
        .unwrap();
        assert_eq!(a.exports, ["k1", "k2"]);
        assert_eq!(a.objects, [PathBuf::from("/t/deps/crate.cgu.0.rcgu.o")]);
        assert_eq!(a.archives, [PathBuf::from("/t/deps/libcore-1.rlib")]);
        assert_eq!(a.cpu, "sm_100a");
        assert_eq!(a.features, ["+ptx86"]);
        assert_eq!(a.output, PathBuf::from("/t/deps/warpkit.ptx"));
    }

    #[test]
    fn launch_bounds_become_directives_of_their_entry() {
        let ptx = "// warpkit.launch_bounds b 256 3\n\
                   .visible .entry a(\n\t.param .u32 a_param_0\n)\n{\n\tret;\n}\n\
                   .visible .entry b(\n\t.param .align 8 .b8 b_param_0[56]\n)\n{\n\tret;\n}\n\
                   // warpkit.launch_bounds b 256 3\n\
                   // warpkit.launch_bounds a 128 0\n\
                   // warpkit.launch_bounds c 0 0\n.entry c()\n{\n}\n";
        let out = apply_launch_bounds(ptx).unwrap();
        assert!(out.contains("a_param_0\n)\n.maxntid 128, 1, 1\n{"), "{out}");
        assert!(
            out.contains("b_param_0[56]\n)\n.maxntid 256, 1, 1\n.minnctapersm 3\n{"),
            "{out}"
        );
        assert!(!out.contains("warpkit.launch_bounds"), "{out}");
        assert_eq!(out.matches(".maxntid").count(), 2);
        let err = |p: &str| apply_launch_bounds(p).unwrap_err().to_string();
        assert!(err("// warpkit.launch_bounds c 32 0\n.entry a()\n{\n}\n").contains("no kernel"));
        assert!(
            err("// warpkit.launch_bounds a 32 0\n// warpkit.launch_bounds a 64 0\n.entry a()\n{\n}\n")
                .contains("two different")
        );
        assert!(err("// warpkit.launch_bounds a x 0\n").contains("unreadable"));
    }

    #[test]
    fn repeated_module_asm_is_kept_once() {
        let ptx = ".extern .shared .align 16 .b8 d[];\n.extern .shared .align 16 .b8 d[];\n.shared .align 16 .b8 S[64];\n.entry k()\n{\n.shared .align 4 .b8 x[4];\n.shared .align 4 .b8 x[4];\n}\n.shared .align 16 .b8 S[64];\n";
        assert_eq!(
            dedupe_module_asm(ptx),
            ".extern .shared .align 16 .b8 d[];\n.shared .align 16 .b8 S[64];\n.entry k()\n{\n.shared .align 4 .b8 x[4];\n.shared .align 4 .b8 x[4];\n}\n"
        );
    }

    #[test]
    fn undefined_functions_other_than_the_drivers_are_refused() {
        let vprintf = ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0\n)\n;";
        assert!(check_externs(vprintf, false).is_ok());
        let sin = ".extern .func  (.param .b32 func_retval0) __nv_sinf\n(\n\t.param .b32 __nv_sinf_param_0\n)\n;";
        let e = check_externs(sin, false).unwrap_err().to_string();
        assert!(
            e.contains("__nv_sinf") && e.contains("WARPKIT_LIBDEVICE"),
            "{e}"
        );
        let e = check_externs(".extern .func foo\n(\n)\n;", true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("foo"), "{e}");
    }

    #[test]
    fn rejects_unknown_arguments_and_missing_output() {
        assert!(LinkArgs::parse(&args(&["--whatever"])).is_err());
        assert!(LinkArgs::parse(&args(&["--target-cpu", "sm_90"])).is_err());
        assert!(LinkArgs::parse(&args(&["-o"])).is_err());
    }
}
