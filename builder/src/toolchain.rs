//! Finds the pinned nightly and the LLVM tools that rustup ships with it.

use crate::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The nightly that warpkit is built and tested with (also pinned in `rust-toolchain.toml`).
pub const PINNED_TOOLCHAIN: &str = "nightly-2026-05-20";

/// The parts of a rustup toolchain the build needs.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The rustup toolchain name, passed on as `RUSTUP_TOOLCHAIN`.
    pub name: String,
    /// `rustc --print sysroot`.
    pub sysroot: PathBuf,
    /// Folder holding `llvm-link`, `opt`, `llc` and `llvm-ar` from the `llvm-tools` component.
    pub llvm_bin: PathBuf,
}

impl Toolchain {
    /// Locates toolchain `name` and checks that `rust-src` and `llvm-tools` are installed.
    pub fn locate(name: &str) -> Result<Toolchain, BuildError> {
        let install = format!(
            "rustup toolchain install {name} --profile minimal -c rust-src -c llvm-tools -c rustfmt -c clippy"
        );
        let output = Command::new("rustc")
            .env("RUSTUP_TOOLCHAIN", name)
            .args(["--print", "sysroot"])
            .output()
            .map_err(|e| {
                BuildError::Toolchain(format!(
                    "cannot run rustc ({e}); install rustup, then: {install}"
                ))
            })?;
        if !output.status.success() {
            return Err(BuildError::Toolchain(format!(
                "toolchain {name} is not installed ({}); run: {install}",
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        if !sysroot.join("lib/rustlib/src/rust/library/core").is_dir() {
            return Err(BuildError::Toolchain(format!(
                "component rust-src is missing from {name} (core is built from source for nvptx64); run: \
                 rustup component add rust-src --toolchain {name}"
            )));
        }
        let llvm_bin = sysroot
            .join("lib/rustlib")
            .join(host_triple(name)?)
            .join("bin");
        if !llvm_bin.join("llc").is_file() {
            return Err(BuildError::Toolchain(format!(
                "component llvm-tools is missing from {name} (llvm-link, opt and llc do the PTX link); run: \
                 rustup component add llvm-tools --toolchain {name}"
            )));
        }
        Ok(Toolchain {
            name: name.to_owned(),
            sysroot,
            llvm_bin,
        })
    }

    /// Path of one of the LLVM tools.
    pub fn tool(&self, name: &str) -> PathBuf {
        self.llvm_bin.join(name)
    }
}

fn host_triple(toolchain: &str) -> Result<String, BuildError> {
    let output = Command::new("rustc")
        .env("RUSTUP_TOOLCHAIN", toolchain)
        .arg("-vV")
        .output()
        .map_err(|e| BuildError::Toolchain(format!("cannot run rustc -vV: {e}")))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .ok_or_else(|| BuildError::Toolchain("rustc -vV printed no host triple".into()))
}

/// Finds the llvm-tools folder from the linker's own environment (rustup sets `RUSTUP_TOOLCHAIN`).
pub(crate) fn llvm_bin_for_linker() -> Result<PathBuf, BuildError> {
    if let Some(dir) = std::env::var_os(crate::link::LLVM_BIN_ENV) {
        return Ok(PathBuf::from(dir));
    }
    let name = std::env::var("RUSTUP_TOOLCHAIN").unwrap_or_else(|_| PINNED_TOOLCHAIN.into());
    Toolchain::locate(&name).map(|t| t.llvm_bin)
}

/// Whether `path` lies inside the toolchain (its sources never change, so no rerun trigger).
pub(crate) fn is_inside(sysroot: &Path, path: &Path) -> bool {
    path.starts_with(sysroot)
}
