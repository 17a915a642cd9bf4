//! CUB's figures: `cub/cub_bench.cu` built with `nvcc` when there is one.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A built CUB benchmark program.
pub struct Cub {
    exe: PathBuf,
    pub version: String,
}

impl Cub {
    /// Builds the program for the device's architecture; `Err` says why not (no nvcc, ...).
    pub fn build(source: &Path, out_dir: &Path, compute: (u32, u32)) -> Result<Cub, String> {
        let nvcc = ["nvcc", "/usr/local/cuda/bin/nvcc"]
            .into_iter()
            .find(|n| {
                Command::new(n)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .ok_or("nvcc not found: the CUB column stays empty")?;
        std::fs::create_dir_all(out_dir).map_err(|e| e.to_string())?;
        let exe = out_dir.join("cub_bench");
        let arch = format!("-arch=sm_{}{}", compute.0, compute.1);
        let out = Command::new(nvcc)
            .args(["-O3", "-std=c++17", &arch, "-o"])
            .arg(&exe)
            .arg(source)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "nvcc failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let version = Command::new(&exe)
            .arg("--version")
            .output()
            .map_err(|e| e.to_string())?;
        Ok(Cub {
            exe,
            version: String::from_utf8_lossy(&version.stdout).trim().to_owned(),
        })
    }

    /// CUB's median time in seconds for `algo` on `n` items of `ty`.
    pub fn time(&self, algo: &str, ty: &str, n: usize) -> Option<f64> {
        let out = Command::new(&self.exe)
            .args([algo, ty, &n.to_string()])
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "cub_bench {algo} {ty} {n}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse::<f64>()
            .ok()
            .map(|ms| ms / 1e3)
    }
}
