//! `cargo xtask <command>`: everything that is more than one cargo command.

mod tools;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use warpkit_builder::{PtxBuilder, Target};

#[derive(Parser)]
#[command(about = "warpkit's task runner")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Installs the pinned toolchain and fetches ptxas.
    Setup,
    /// The full test run: fmt, clippy (host, and the kernel crates for nvptx64), every test (PTX
    /// checks included), the docs with warnings denied; passes without a GPU.
    Test,
    /// Writes the PTX of every target to target/ptx/ and prints ptxas -v figures per kernel.
    Ptx {
        /// Targets to build (default: sm_70 sm_80 sm_90 sm_100a).
        #[arg(long = "arch", num_args = 1..)]
        arch: Vec<String>,
    },
    /// Scan/reduce throughput against the bandwidth limit and CUB (needs a GPU).
    Bench {
        /// Fewer sizes and shorter measurements.
        #[arg(long)]
        quick: bool,
        /// The multi-GPU benchmark instead (sharded reduce/scan on 2 GPUs vs one, NCCL).
        #[arg(long)]
        multi_gpu: bool,
    },
    /// Builds the test and bench executables into .device/ for a machine without cargo.
    GpuPack,
}

fn main() -> ExitCode {
    // The PTX builder runs this executable as rustc's linker.
    warpkit_builder::run_as_linker_if_requested();
    let result = match Cli::parse().command {
        Task::Setup => setup().map(|_| ()),
        Task::Test => test(),
        Task::Ptx { arch } => ptx(&arch),
        Task::Bench { quick, multi_gpu } => bench(quick, multi_gpu),
        Task::GpuPack => gpu_pack(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What the tests and builds need in their environment. Nothing CUDA: warpkit-host loads
/// the driver at run time (cudarc).
struct Env {
    ptxas: PathBuf,
}

impl Env {
    fn apply(&self, cmd: &mut Command) {
        cmd.env("WARPKIT_PTXAS", &self.ptxas)
            .env("WARPKIT_REQUIRE_PTXAS", "1");
    }
}

fn setup() -> Result<Env, String> {
    tools::ensure_toolchain()?;
    let ptxas = tools::ptxas()?;
    Ok(Env { ptxas })
}

fn cargo(args: &[&str], env: &Env) -> Result<(), String> {
    cargo_with(args, &[], env)
}

/// `cargo args` with extra environment variables.
fn cargo_with(args: &[&str], vars: &[(&str, &str)], env: &Env) -> Result<(), String> {
    let mut cmd = Command::new("cargo");
    cmd.args(args).current_dir(tools::root());
    env.apply(&mut cmd);
    cmd.envs(vars.iter().copied());
    let shown: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v:?} ")).collect();
    eprintln!("+ {}cargo {}", shown.concat(), args.join(" "));
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed", args.join(" ")))
    }
}

fn test() -> Result<(), String> {
    let env = setup()?;
    cargo(&["fmt", "--all", "--", "--check"], &env)?;
    cargo(
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &env,
    )?;
    // The kernel crates as they are built into PTX: for nvptx64, with core from source.
    let nvptx_dir = tools::root().join("target/nvptx-clippy");
    let nvptx_dir = nvptx_dir.to_string_lossy();
    for (package, features, rustflags) in [
        (
            "warpkit",
            "kernels",
            "-Ctarget-cpu=sm_90 -Ctarget-feature=+ptx81",
        ),
        (
            "warpkit-test-kernels",
            "",
            "-Ctarget-cpu=sm_90 -Ctarget-feature=+ptx81",
        ),
        (
            "warpkit-test-kernels",
            "legacy-shfl",
            "-Ctarget-cpu=sm_70 --cfg=warpkit_target_below_sm70",
        ),
    ] {
        let mut args = vec![
            "clippy",
            "-p",
            package,
            "--target",
            "nvptx64-nvidia-cuda",
            "-Zbuild-std=core",
            "--target-dir",
            &nvptx_dir,
        ];
        if !features.is_empty() {
            args.extend(["--features", features]);
        }
        args.extend(["--", "-D", "warnings"]);
        cargo_with(&args, &[("RUSTFLAGS", rustflags)], &env)?;
    }
    // The `cust` adapter: cust_raw's build script wants a `<dir>/lib64` to name as a link
    // path even when nothing is linked (clippy), so give it an empty one. Linking (its tests)
    // needs a real libcuda: only where a CUDA toolkit is installed.
    let cust_check = tools::tools_dir().join("cust-check");
    std::fs::create_dir_all(cust_check.join("lib64")).map_err(|e| e.to_string())?;
    let clippy_cust = [
        "clippy",
        "-p",
        "warpkit-host",
        "--all-targets",
        "--features",
        "cust",
        "--",
        "-D",
        "warnings",
    ];
    cargo_with(
        &clippy_cust,
        &[("CUDA_LIBRARY_PATH", &cust_check.to_string_lossy())],
        &env,
    )?;
    // --show-output: the GPU tests say why they skipped on a machine without a GPU.
    cargo(&["test", "--workspace", "--", "--show-output"], &env)?;
    outside_user()?;
    // The whole device API is documented on the host, and every intra-doc link resolves, in
    // the kernels', the host's and the builder's docs.
    cargo_with(
        &[
            "doc",
            "-p",
            "warpkit",
            "-p",
            "warpkit-host",
            "-p",
            "warpkit-builder",
            "--no-deps",
        ],
        &[("RUSTDOCFLAGS", "-D warnings")],
        &env,
    )?;
    if tools::cuda_toolkit() {
        cargo(
            &[
                "test",
                "-p",
                "warpkit-host",
                "--features",
                "cust",
                "--",
                "--show-output",
            ],
            &env,
        )
    } else {
        eprintln!(
            "skipped: `cargo test -p warpkit-host --features cust` (links libcuda; no CUDA toolkit in /usr/local/cuda)"
        );
        Ok(())
    }
}

/// A user crate outside the workspace (`examples/outside-user`) builds, links and runs with
/// no CUDA in its environment: nothing CUDA is needed before run time.
fn outside_user() -> Result<(), String> {
    let args = [
        "run",
        "--quiet",
        "--manifest-path",
        "examples/outside-user/Cargo.toml",
        "--target-dir",
        "target",
    ];
    eprintln!("+ cargo {} (no CUDA variables)", args.join(" "));
    let status = Command::new("cargo")
        .args(args)
        .current_dir(tools::root())
        .env_remove("CUDA_LIBRARY_PATH")
        .env_remove("CUDA_PATH")
        .env_remove("CUDA_ROOT")
        .env_remove("CUDA_TOOLKIT_ROOT_DIR")
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("the crate outside the workspace failed to build or run".into())
    }
}

fn ptx(arch: &[String]) -> Result<(), String> {
    let env = setup()?;
    let targets: Vec<Target> = if arch.is_empty() {
        Target::DEFAULT.to_vec()
    } else {
        arch.iter()
            .map(|a| {
                Target::parse(a).ok_or(format!("unknown target {a}: expected sm_XX or sm_XXa"))
            })
            .collect::<Result<_, _>>()?
    };
    let out = tools::root().join("target/ptx");
    let (built, _) = PtxBuilder::new(tools::root().join("kernels"))
        .feature("kernels")
        .targets(targets)
        .target_dir(tools::root().join("target/warpkit-ptx"))
        .out_dir(&out)
        .build()
        .map_err(|e| e.to_string())?;
    for p in built {
        println!("{}", p.path.display());
        let report = Command::new(&env.ptxas)
            .arg(format!("-arch={}", p.target))
            .arg("-v")
            .arg(&p.path)
            .args(["-o", "/dev/null"])
            .output()
            .map_err(|e| format!("cannot run ptxas: {e}"))?;
        if !report.status.success() {
            return Err(format!(
                "ptxas rejected {}:\n{}",
                p.path.display(),
                String::from_utf8_lossy(&report.stderr)
            ));
        }
        print_ptxas_table(&String::from_utf8_lossy(&report.stderr));
    }
    Ok(())
}

/// One line per kernel: registers, stack frame, spills (stores + loads).
fn print_ptxas_table(report: &str) {
    println!(
        "  {:<44} {:>5} {:>6} {:>7}",
        "kernel", "regs", "stack", "spills"
    );
    for f in warpkit_builder::ptxas::parse_verbose(report) {
        let regs = f.registers.map_or("?".to_owned(), |r| r.to_string());
        println!(
            "  {:<44} {:>5} {:>6} {:>7}",
            f.name,
            regs,
            f.stack_frame,
            f.spill_stores + f.spill_loads
        );
    }
}

/// Whether an NVIDIA GPU is there: `nvidia-smi -L` lists one (device files alone can exist
/// in containers without a GPU).
fn gpu_present() -> bool {
    Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GPU"))
}

fn bench(quick: bool, multi_gpu: bool) -> Result<(), String> {
    if !gpu_present() {
        return Err("no NVIDIA GPU on this machine (`nvidia-smi -L` lists none): `cargo xtask bench` measures \
                    GPU throughput. Run it on a GPU machine, or build it with `cargo xtask gpu-pack` and run \
                    `bash scripts/device-run.sh bench` there (README: 'On a GPU machine without cargo')."
            .into());
    }
    let env = setup()?;
    let mut args = vec![
        "bench",
        "-p",
        "warpkit-benches",
        "--bench",
        if multi_gpu { "multi" } else { "throughput" },
        "--",
    ];
    if quick {
        args.push("--quick");
    }
    cargo(&args, &env)
}

/// What `scripts/device-run.sh` runs on the GPU machine.
const DEVICE_EXECUTABLES: [&str; 12] = [
    "test-conformance",
    "test-algorithms",
    "test-defects",
    "test-determinism",
    "test-multi",
    "test-cust",
    "bin-outside-user",
    "bench-throughput",
    "bench-pairs",
    "bench-multi",
    "bin-warpkit",
    "bin-user-app",
];

/// Builds every test and bench executable and copies them into `.device/bin`.
fn gpu_pack() -> Result<(), String> {
    let env = setup()?;
    // The PTX: the library's, and the test kernels' for scripts/sass-compare.sh.
    for (dir, feature) in [("kernels", Some("kernels")), ("tests/kernels", None)] {
        let mut builder = PtxBuilder::new(tools::root().join(dir));
        if let Some(f) = feature {
            builder = builder.feature(f);
        }
        builder
            .targets(Target::DEFAULT)
            .target_dir(tools::root().join("target/warpkit-ptx"))
            .out_dir(tools::root().join(".device/ptx"))
            .build()
            .map_err(|e| e.to_string())?;
    }
    let dir = tools::root().join(".device/bin");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    // The cust adapter's GPU test links libcuda: a stub with its symbols stands in here (the
    // GPU machine's own libcuda.so.1 is loaded at run time).
    let cust_libs = tools::libcuda_link_stub()?;
    let cust_libs = cust_libs.to_string_lossy().into_owned();
    // (cargo arguments, name prefix, environment)
    type Build<'a> = (Vec<&'a str>, &'a str, Vec<(&'a str, &'a str)>);
    let builds: [Build; 6] = [
        (
            vec!["test", "--release", "--workspace", "--no-run"],
            "test",
            vec![],
        ),
        (
            vec!["bench", "-p", "warpkit-benches", "--no-run"],
            "bench",
            vec![],
        ),
        (
            vec![
                "build",
                "--release",
                "-p",
                "warpkit-cli",
                "--bin",
                "warpkit",
            ],
            "bin",
            vec![],
        ),
        (vec!["build", "--release", "-p", "user-app"], "bin", vec![]),
        (
            vec![
                "test",
                "--release",
                "-p",
                "warpkit-host",
                "--features",
                "cust",
                "--test",
                "cust",
                "--no-run",
            ],
            "test",
            vec![("CUDA_LIBRARY_PATH", cust_libs.as_str())],
        ),
        (
            vec![
                "build",
                "--release",
                "--manifest-path",
                "examples/outside-user/Cargo.toml",
                "--target-dir",
                "target",
            ],
            "bin",
            vec![],
        ),
    ];
    for (mut args, label, vars) in builds {
        args.push("--message-format=json");
        let mut cmd = Command::new("cargo");
        cmd.args(&args).current_dir(tools::root());
        env.apply(&mut cmd);
        cmd.envs(vars);
        let out = cmd.output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "cargo {} failed:\n{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some(exe) = line
                .split("\"executable\":\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
            else {
                continue;
            };
            let src = Path::new(exe);
            let stem = src.file_name().unwrap_or_default().to_string_lossy();
            let name = match stem.rsplit_once('-') {
                Some((base, hash)) if hash.len() == 16 => format!("{label}-{base}"),
                _ => format!("{label}-{stem}"),
            };
            // The device machine needs the GPU tests, the benchmark, the CLI and the example.
            if !DEVICE_EXECUTABLES.contains(&name.as_str()) {
                continue;
            }
            let dest = dir.join(&name);
            std::fs::copy(src, &dest).map_err(|e| format!("{exe}: {e}"))?;
            let _ = Command::new("strip").arg(&dest).status();
            println!("{}", dest.display());
        }
    }
    // One archive to carry (the executables embed PTX and cubins: ~20 MB each, a tenth
    // compressed); scripts/device-run.sh unpacks it.
    let archive = tools::root().join(".device/pack.tar.xz");
    tools::run(
        Command::new("tar")
            .args(["-C", ".device", "-cJf"])
            .arg(&archive)
            .args(["bin", "ptx"])
            .env("XZ_OPT", "-T0 -6")
            .current_dir(tools::root()),
        "tar (the device archive)",
    )?;
    println!(
        "{} ({} MB): carry it, run `bash scripts/device-run.sh ...` there",
        archive.display(),
        std::fs::metadata(&archive)
            .map_err(|e| e.to_string())?
            .len()
            / 1_000_000
    );
    Ok(())
}
