//! Cubins beside the PTX, and where the NVIDIA pieces the build uses are found: `ptxas`
//! (assembles a cubin per target) and libdevice (linked for `__nv_*` math calls).
//!
//! A cubin loads without the driver's JIT compilation, but only on a device of exactly its
//! compute capability (`sm_90` cubin: compute 9.0 only; CUDA C++ Programming Guide, "Binary
//! Compatibility", <https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility>);
//! the PTX stays for every other (newer) device.

use crate::{BuildError, Ptx, Target};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `nvidia-cuda-nvcc-cu12` wheel's layout, as `cargo xtask setup` unpacks it under
/// `target/tools/ptxas/`.
const WHEEL_ROOT: &str = "tools/ptxas/nvidia/cuda_nvcc";

/// Folders that may hold the CUDA toolkit or the wheel's `cuda_nvcc` tree, best first.
fn cuda_roots(target_root: Option<&Path>) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(v) = std::env::var_os(var) {
            roots.push(PathBuf::from(v));
        }
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    // `<target>/warpkit-ptx` is the default nested target dir: the tools are in `<target>/tools`.
    if let Some(t) = target_root {
        for dir in t.ancestors().take(6) {
            roots.push(dir.join(WHEEL_ROOT));
        }
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        roots.push(PathBuf::from(t).join(WHEEL_ROOT));
    }
    roots
}

/// libdevice: `WARPKIT_LIBDEVICE`, else `nvvm/libdevice/libdevice.10.bc` under `$CUDA_HOME`,
/// `$CUDA_PATH`, `/usr/local/cuda`, or the wheel `cargo xtask setup` unpacks into
/// `target/tools/ptxas/` (found from `target_root`, the nested build's target folder).
pub fn find_libdevice(target_root: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WARPKIT_LIBDEVICE") {
        return Some(p.into());
    }
    cuda_roots(Some(target_root))
        .into_iter()
        .map(|r| r.join("nvvm/libdevice/libdevice.10.bc"))
        .find(|p| p.is_file())
}

/// `ptxas`: `WARPKIT_PTXAS`, the toolkit's (`$CUDA_HOME/bin`, `/usr/local/cuda/bin`), one on
/// PATH, or the wheel's under `target/tools/ptxas/` (found from `target_root`).
pub fn find_ptxas(target_root: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WARPKIT_PTXAS") {
        return Some(p.into());
    }
    let mut candidates: Vec<PathBuf> = cuda_roots(None)
        .into_iter()
        .map(|r| r.join("bin/ptxas"))
        .collect();
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("ptxas")));
    }
    candidates.extend(
        cuda_roots(Some(target_root))
            .into_iter()
            .map(|r| r.join("bin/ptxas")),
    );
    candidates.into_iter().find(|p| p.is_file())
}

/// Assembles every PTX file into `<file>.cubin` beside it (in parallel); returns
/// (target, cubin path) per target.
pub(crate) fn assemble_all(
    ptx: &[Ptx],
    ptxas: Option<PathBuf>,
) -> Result<Vec<(Target, PathBuf)>, BuildError> {
    let Some(first) = ptx.first() else {
        return Ok(Vec::new());
    };
    let ptxas = ptxas
        .or_else(|| find_ptxas(first.path.parent().unwrap_or(Path::new("."))))
        .or_else(|| {
            let out = std::env::var_os("OUT_DIR").map(PathBuf::from)?;
            find_ptxas(&out)
        })
        .ok_or_else(|| {
            BuildError::Toolchain(
                "no ptxas found (set WARPKIT_PTXAS, install the CUDA toolkit, or run `cargo xtask \
                 setup`); set WARPKIT_NO_CUBIN=1 to build PTX only"
                    .into(),
            )
        })?;
    std::thread::scope(|s| {
        let jobs: Vec<_> = ptx
            .iter()
            .map(|p| {
                let ptxas = &ptxas;
                s.spawn(move || assemble(ptxas, p))
            })
            .collect();
        jobs.into_iter()
            .map(|j| j.join().expect("ptxas thread"))
            .collect()
    })
}

fn assemble(ptxas: &Path, ptx: &Ptx) -> Result<(Target, PathBuf), BuildError> {
    let cubin = ptx.path.with_extension("cubin");
    let partial = ptx.path.with_extension("cubin.partial");
    let out = Command::new(ptxas)
        .arg(format!("-arch={}", ptx.target.name()))
        .arg(&ptx.path)
        .arg("-o")
        .arg(&partial)
        .output()
        .map_err(|e| BuildError::Toolchain(format!("cannot run {}: {e}", ptxas.display())))?;
    if !out.status.success() {
        return Err(BuildError::Link(format!(
            "ptxas -arch={} {} failed:\n{}",
            ptx.target.name(),
            ptx.path.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    std::fs::rename(&partial, &cubin).map_err(|e| BuildError::io(&cubin, e))?;
    Ok((ptx.target, cubin))
}
