//! Builds a `no_std` Rust kernel crate into PTX, one file per NVIDIA target: warpkit's
//! equivalent of Rust-CUDA's `cuda_builder`, on rustc's own `nvptx64-nvidia-cuda` target.
//!
//! A host crate's `build.rs` embeds the kernels of a kernel crate like this:
//!
//! ```no_run
//! use warpkit_builder::{PtxBuilder, Target};
//!
//! fn main() {
//!     // rustc runs this same build script as the PTX linker: let it do that first.
//!     warpkit_builder::run_as_linker_if_requested();
//!     PtxBuilder::new("../my-kernels")
//!         .targets(Target::DEFAULT)
//!         .embed("MY_KERNELS_PTX");
//! }
//! ```
//!
//! and the host crate includes the result:
//!
//! ```ignore
//! include!(concat!(env!("OUT_DIR"), "/my_kernels_ptx.rs"));
//! // MY_KERNELS_PTX: &[(&str, &str)] = &[("sm_70", "<ptx>"), ...]
//! ```
//!
//! How it works: for each target the builder runs the pinned nightly's
//! `cargo rustc --crate-type cdylib --target nvptx64-nvidia-cuda -Zbuild-std=core` with
//! `-C target-cpu=sm_XX`, and names the running executable as rustc's linker. rustc starts
//! it again with the bitcode objects and archives; [`run_as_linker_if_requested`] notices that,
//! links them with `llvm-link`, internalizes all but the kernels, optimizes with `opt` and
//! writes PTX with `llc`, all from rustup's `llvm-tools` component (see `link.rs`).
//! Nothing half-built is kept: a PTX file appears only once its link has succeeded.

mod cubin;
mod link;
pub mod ptxas;
mod target;
mod toolchain;

pub use cubin::{find_libdevice, find_ptxas};
pub use link::run_as_linker_if_requested;
pub use target::{Target, driver_for_ptx};
pub use toolchain::{PINNED_TOOLCHAIN, Toolchain};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The Rust toolchain or one of its components is missing; the message names the fix.
    #[error("{0}")]
    Toolchain(String),
    /// cargo or rustc failed; rustc's own diagnostics were already printed above.
    #[error("building {crate_dir} for {target} failed (rustc's errors are above)")]
    Compile { crate_dir: PathBuf, target: Target },
    /// The link step failed.
    #[error("PTX link failed: {0}")]
    Link(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl BuildError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> BuildError {
        BuildError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// One built PTX module.
#[derive(Clone, Debug)]
pub struct Ptx {
    pub target: Target,
    pub path: PathBuf,
}

/// Builds a kernel crate into PTX for a list of targets.
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    crate_dir: PathBuf,
    targets: Vec<Target>,
    features: Vec<String>,
    toolchain: String,
    target_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    libdevice: Option<PathBuf>,
    ptxas: Option<PathBuf>,
    cubins: bool,
}

impl PtxBuilder {
    /// A builder for the kernel crate in `crate_dir` (relative paths are taken from the
    /// current directory, which in a `build.rs` is the host crate's folder).
    pub fn new(crate_dir: impl AsRef<Path>) -> PtxBuilder {
        let dir = crate_dir.as_ref();
        let crate_dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
        PtxBuilder {
            crate_dir,
            targets: Vec::new(),
            features: Vec::new(),
            toolchain: std::env::var("WARPKIT_TOOLCHAIN")
                .unwrap_or_else(|_| PINNED_TOOLCHAIN.into()),
            target_dir: None,
            out_dir: None,
            libdevice: None,
            ptxas: None,
            cubins: std::env::var_os("WARPKIT_NO_CUBIN").is_none(),
        }
    }

    /// libdevice (`libdevice.10.bc`) to link for `warpkit::math`-style `__nv_*` calls
    /// (default: found by [`find_libdevice`]).
    pub fn libdevice(mut self, path: impl Into<PathBuf>) -> Self {
        self.libdevice = Some(path.into());
        self
    }

    /// The `ptxas` that assembles the cubins (default: found by [`find_ptxas`]).
    pub fn ptxas(mut self, path: impl Into<PathBuf>) -> Self {
        self.ptxas = Some(path.into());
        self
    }

    /// Whether [`PtxBuilder::embed`] also assembles a cubin per target with `ptxas` (default:
    /// yes, unless `WARPKIT_NO_CUBIN` is set; without a `ptxas` it warns and embeds none).
    pub fn cubins(mut self, on: bool) -> Self {
        self.cubins = on;
        self
    }

    /// Adds one target.
    pub fn target(mut self, target: Target) -> Self {
        self.targets.push(target);
        self
    }

    /// Adds several targets.
    pub fn targets(mut self, targets: impl IntoIterator<Item = Target>) -> Self {
        self.targets.extend(targets);
        self
    }

    /// Enables a cargo feature of the kernel crate.
    pub fn feature(mut self, feature: &str) -> Self {
        self.features.push(feature.to_owned());
        self
    }

    /// The rustup toolchain to build with (default: [`PINNED_TOOLCHAIN`], or `WARPKIT_TOOLCHAIN`).
    pub fn toolchain(mut self, name: &str) -> Self {
        self.toolchain = name.to_owned();
        self
    }

    /// Where cargo keeps its nvptx build (default: beside the calling build's `target/`).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Where the PTX files go (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Builds every target; returns the PTX files, named `<crate>.<target>.ptx`, and the
    /// source files the build read (for `rerun-if-changed`).
    pub fn build(&self) -> Result<(Vec<Ptx>, Vec<PathBuf>), BuildError> {
        run_as_linker_if_requested();
        let toolchain = Toolchain::locate(&self.toolchain)?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or_else(|| {
                BuildError::Toolchain(
                    "no out_dir given and OUT_DIR is not set (not in a build script)".into(),
                )
            })?),
        };
        std::fs::create_dir_all(&out_dir).map_err(|e| BuildError::io(&out_dir, e))?;
        let target_root = self
            .target_dir
            .clone()
            .unwrap_or_else(|| default_target_dir(&out_dir));
        let mut this = self.clone();
        if this.libdevice.is_none() {
            this.libdevice = find_libdevice(&target_root);
        }
        let this = &this;
        let linker =
            std::env::current_exe().map_err(|e| BuildError::io(Path::new("current_exe"), e))?;

        let mut built = Vec::new();
        let mut sources = Vec::new();
        for &target in &self.targets {
            let (artifact, deps) = this.build_one(
                &toolchain,
                target,
                &target_root.join(target.name()),
                &linker,
            )?;
            let stem = artifact
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let dest = out_dir.join(format!("{stem}.{target}.ptx"));
            let partial = dest.with_extension("ptx.partial");
            std::fs::copy(&artifact, &partial).map_err(|e| BuildError::io(&artifact, e))?;
            std::fs::rename(&partial, &dest).map_err(|e| BuildError::io(&dest, e))?;
            built.push(Ptx { target, path: dest });
            sources.extend(
                deps.into_iter()
                    .filter(|p| !toolchain::is_inside(&toolchain.sysroot, p)),
            );
        }
        sources.sort();
        sources.dedup();
        Ok((built, sources))
    }

    /// For `build.rs`: builds, writes `$OUT_DIR/<name in lower case>.rs` defining
    /// `pub static <NAME>: &[(&str, &str)]` (target name, PTX text), and tells cargo to rerun
    /// when a kernel source changes. On failure prints the reason and exits.
    pub fn embed(&self, name: &str) {
        match self.build() {
            Ok((ptx, sources)) => {
                for s in &sources {
                    println!("cargo:rerun-if-changed={}", s.display());
                }
                println!(
                    "cargo:rerun-if-changed={}",
                    self.crate_dir.join("Cargo.toml").display()
                );
                println!("cargo:rerun-if-env-changed=WARPKIT_TOOLCHAIN");
                println!("cargo:rerun-if-env-changed=WARPKIT_NO_CUBIN");
                let mut code = format!("pub static {name}: &[(&str, &str)] = &[\n");
                for p in &ptx {
                    code += &format!("    ({:?}, include_str!({:?})),\n", p.target.name(), p.path);
                }
                code += "];\n";
                let cubins = if self.cubins {
                    match cubin::assemble_all(&ptx, self.ptxas.clone()) {
                        Ok(c) => c,
                        Err(e) => {
                            println!("cargo:warning=warpkit-builder: no cubins embedded: {e}");
                            Vec::new()
                        }
                    }
                } else {
                    Vec::new()
                };
                code += &format!(
                    "/// Cubins assembled by ptxas for the targets above (target name, ELF image);\n\
                     /// load one only on a device of exactly that compute capability.\n\
                     pub static {name}_CUBIN: &[(&str, &[u8])] = &[\n"
                );
                for (target, path) in &cubins {
                    code += &format!("    ({:?}, include_bytes!({:?})),\n", target.name(), path);
                }
                code += "];\n";
                let out = PathBuf::from(
                    std::env::var_os("OUT_DIR").expect("embed runs in a build script"),
                );
                let file = out.join(format!("{}.rs", name.to_lowercase()));
                if let Err(e) = std::fs::write(&file, code) {
                    eprintln!("error: {}: {e}", file.display());
                    std::process::exit(1);
                }
            }
            Err(e) => {
                eprintln!("error: warpkit-builder: {e}");
                std::process::exit(1);
            }
        }
    }

    fn build_one(
        &self,
        toolchain: &Toolchain,
        target: Target,
        target_dir: &Path,
        linker: &Path,
    ) -> Result<(PathBuf, Vec<PathBuf>), BuildError> {
        let mut cmd = Command::new("cargo");
        clean_cargo_env(&mut cmd);
        let mut flags = target.rustc_flags();
        // MIR jump threading can duplicate a block that ends in `bar.sync` into the arms of a
        // divergent branch (rust-lang/rust#137086): a barrier some threads never reach.
        flags.push("-Zmir-enable-passes=-JumpThreading".into());
        cmd.env("RUSTUP_TOOLCHAIN", &toolchain.name)
            .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
            .env("CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER", linker)
            .env(link::LLVM_BIN_ENV, &toolchain.llvm_bin)
            .env(link::CPU_ENV, target.name())
            .env(
                link::LIBDEVICE_ENV,
                self.libdevice.clone().unwrap_or_default(),
            )
            .arg("rustc")
            .arg("--manifest-path")
            .arg(self.crate_dir.join("Cargo.toml"))
            .args([
                "--release",
                "--target",
                "nvptx64-nvidia-cuda",
                "-Zbuild-std=core",
            ])
            .args([
                "--crate-type",
                "cdylib",
                "--message-format",
                "json-render-diagnostics",
            ])
            .arg("--target-dir")
            .arg(target_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if !self.features.is_empty() {
            cmd.arg("--features").arg(self.features.join(","));
        }
        let output = cmd
            .output()
            .map_err(|e| BuildError::Toolchain(format!("cannot run cargo: {e}")))?;
        let failed = || BuildError::Compile {
            crate_dir: self.crate_dir.clone(),
            target,
        };
        if !output.status.success() {
            return Err(failed());
        }
        let artifact =
            last_ptx_artifact(&String::from_utf8_lossy(&output.stdout)).ok_or_else(failed)?;
        let deps = read_dep_info(&artifact.with_extension("d"));
        Ok((artifact, deps))
    }
}

/// The last `.ptx` among the `compiler-artifact` messages: the kernel crate's own.
fn last_ptx_artifact(json_lines: &str) -> Option<PathBuf> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .rfind(|p| p.extension().is_some_and(|e| e == "ptx"))
}

/// The source files listed in a Makefile-style dep-info file (`out: dep dep ...`).
fn read_dep_info(path: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let Some((_, deps)) = text.lines().next().and_then(|l| l.split_once(": ")) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let mut current = String::new();
    let mut chars = deps.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.extend(chars.next()),
            ' ' => files
                .extend((!current.is_empty()).then(|| PathBuf::from(std::mem::take(&mut current)))),
            _ => current.push(c),
        }
    }
    files.extend((!current.is_empty()).then(|| PathBuf::from(current)));
    files
}

/// `<target>/warpkit-ptx`, found from `OUT_DIR` (`<target>/<profile>/build/<pkg>/out`).
fn default_target_dir(out_dir: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| out_dir.ancestors().nth(4).map(Path::to_owned))
        .unwrap_or_else(|| out_dir.to_owned())
        .join("warpkit-ptx")
}

/// Removes what an outer cargo sets for its build script, so the nested build is its own.
fn clean_cargo_env(cmd: &mut Command) {
    const KEEP: [&str; 4] = [
        "CARGO_HOME",
        "CARGO_MAKEFLAGS",
        "CARGO_NET_OFFLINE",
        "CARGO_REGISTRIES_CRATES_IO_PROTOCOL",
    ];
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        let outer = (key.starts_with("CARGO") && !KEEP.contains(&key.as_ref()))
            || key.starts_with("RUSTC")
            || key.starts_with("RUSTDOC")
            || matches!(
                key.as_ref(),
                "RUSTFLAGS"
                    | "TARGET"
                    | "HOST"
                    | "OUT_DIR"
                    | "PROFILE"
                    | "OPT_LEVEL"
                    | "DEBUG"
                    | "NUM_JOBS"
            );
        if outer {
            cmd.env_remove(key.as_ref());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_crates_ptx_among_cargo_messages() {
        let json = r#"{"reason":"compiler-artifact","filenames":["/t/libcore.rlib","/t/libcore.rmeta"]}
{"reason":"compiler-message","message":{}}
{"reason":"compiler-artifact","filenames":["/t/release/warpkit.ptx"]}
{"reason":"build-finished","success":true}"#;
        assert_eq!(
            last_ptx_artifact(json),
            Some(PathBuf::from("/t/release/warpkit.ptx"))
        );
        assert_eq!(last_ptx_artifact("{\"reason\":\"build-finished\"}"), None);
    }

    #[test]
    fn reads_dep_info_with_escaped_spaces() {
        let dir = std::env::temp_dir().join(format!("warpkit-depinfo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("x.d");
        std::fs::write(
            &file,
            "/t/x.ptx: /src/a.rs /src/my\\ dir/b.rs\n\n/src/a.rs:\n",
        )
        .unwrap();
        assert_eq!(
            read_dep_info(&file),
            [
                PathBuf::from("/src/a.rs"),
                PathBuf::from("/src/my dir/b.rs")
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_toolchain_names_the_rustup_command() {
        let err = Toolchain::locate("nightly-1999-01-01")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("rustup toolchain install nightly-1999-01-01"),
            "{err}"
        );
    }
}
