//! What the project needs installed, fetched by the project itself into `target/tools/`:
//! `ptxas` from NVIDIA's PyPI wheel, and a `libcuda` from Debian's non-free component.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `ptxas` comes from this wheel (CUDA 12.9; assembles sm_50 to sm_120a).
const PTXAS_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_owned()
}

pub fn tools_dir() -> PathBuf {
    root().join("target/tools")
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("{what}: cannot run {:?}: {e}", cmd.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// Installs the pinned toolchain and its components (quick when already there).
pub fn ensure_toolchain() -> Result<(), String> {
    let name = warpkit_builder::PINNED_TOOLCHAIN;
    if warpkit_builder::Toolchain::locate(name).is_ok() {
        return Ok(());
    }
    eprintln!("installing toolchain {name} with rust-src, llvm-tools, rustfmt, clippy");
    run(
        Command::new("rustup")
            .args(["toolchain", "install", name, "--profile", "minimal"])
            .args([
                "-c",
                "rust-src",
                "-c",
                "llvm-tools",
                "-c",
                "rustfmt",
                "-c",
                "clippy",
            ]),
        "rustup toolchain install",
    )?;
    warpkit_builder::Toolchain::locate(name)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A `ptxas`: `WARPKIT_PTXAS`, the CUDA toolkit's, one on PATH, or the wheel's (fetched).
pub fn ptxas() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("WARPKIT_PTXAS") {
        return Ok(p.into());
    }
    for p in ["/usr/local/cuda/bin/ptxas"] {
        if Path::new(p).is_file() {
            return Ok(p.into());
        }
    }
    if let Ok(out) = Command::new("sh").args(["-c", "command -v ptxas"]).output()
        && out.status.success()
    {
        return Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    }
    let dir = tools_dir().join("ptxas");
    let bin = dir.join("nvidia/cuda_nvcc/bin/ptxas");
    // libdevice (for warpkit::math) comes from the same wheel; older set-ups lack it.
    let libdevice = dir.join("nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc");
    if bin.is_file() && libdevice.is_file() {
        return Ok(bin);
    }
    eprintln!(
        "fetching ptxas and libdevice ({PTXAS_WHEEL}) into {}",
        dir.display()
    );
    let wheels = tools_dir().join("wheels");
    let have_wheel = std::fs::read_dir(&wheels).is_ok_and(|mut d| {
        d.any(|e| {
            e.is_ok_and(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("nvidia_cuda_nvcc_cu12-")
            })
        })
    });
    if !have_wheel {
        run(
            Command::new("python3")
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--only-binary=:all:",
                    "-d",
                ])
                .arg(&wheels)
                .arg(PTXAS_WHEEL),
            "pip download of the ptxas wheel (needs python3 with pip and access to PyPI; or set WARPKIT_PTXAS)",
        )?;
    }
    let unzip = "import sys, zipfile, glob, os\n\
        w = glob.glob(os.path.join(sys.argv[1], 'nvidia_cuda_nvcc_cu12-*.whl'))[0]\n\
        z = zipfile.ZipFile(w)\n\
        z.extract('nvidia/cuda_nvcc/bin/ptxas', sys.argv[2])\n\
        z.extract('nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc', sys.argv[2])\n";
    run(
        Command::new("python3")
            .args(["-c", unzip])
            .arg(&wheels)
            .arg(&dir),
        "unpacking ptxas",
    )?;
    make_executable(&bin)?;
    Ok(bin)
}

fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether the system already has a CUDA driver library (a GPU machine, or a toolkit).
pub fn system_libcuda() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "/usr/local/nvidia/lib64/libcuda.so.1",
        "/usr/lib64/libcuda.so.1",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
}

/// The folder holding `libcuda.so` to link `cust` against (`<dir>/lib64`, as cust_raw
/// searches `CUDA_LIBRARY_PATH` entries): fetched when neither a toolkit nor one is there.
pub fn ensure_libcuda() -> Result<PathBuf, String> {
    let dir = tools_dir().join("cuda");
    let lib64 = dir.join("lib64");
    if lib64.join("libcuda.so").exists() || Path::new("/usr/local/cuda/lib64").is_dir() {
        return Ok(lib64);
    }
    eprintln!(
        "fetching libcuda1 from Debian's non-free component into {}",
        dir.display()
    );
    let (uri, suite) = debian_mirror()?;
    let apt = tools_dir().join("apt");
    std::fs::create_dir_all(apt.join("lists/partial")).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(apt.join("archives/partial")).map_err(|e| e.to_string())?;
    let list = apt.join("sources.list");
    std::fs::write(&list, format!("deb {uri} {suite} main contrib non-free\n"))
        .map_err(|e| e.to_string())?;
    let opts = [
        format!("-oDir::Etc::SourceList={}", list.display()),
        "-oDir::Etc::SourceParts=/dev/null".into(),
        format!("-oDir::State::Lists={}", apt.join("lists").display()),
        format!("-oDir::Cache={}", apt.display()),
        "-oAPT::Sandbox::User=root".into(),
    ];
    run(
        Command::new("apt-get").args(&opts).args(["-q", "update"]),
        "apt-get update (custom lists)",
    )?;
    run(
        Command::new("apt-get")
            .args(&opts)
            .args(["download", "libcuda1"])
            .current_dir(&apt),
        "apt-get download libcuda1",
    )?;
    let deb = std::fs::read_dir(&apt)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .ok_or("apt-get download left no .deb")?;
    let unpacked = apt.join("unpacked");
    run(
        Command::new("dpkg").arg("-x").arg(&deb).arg(&unpacked),
        "dpkg -x libcuda1",
    )?;
    let src = unpacked.join("usr/lib/x86_64-linux-gnu/nvidia/current");
    std::fs::create_dir_all(&lib64).map_err(|e| e.to_string())?;
    for entry in std::fs::read_dir(&src).map_err(|e| format!("{}: {e}", src.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        if name.starts_with("libcuda.so") {
            let _ = std::fs::remove_file(lib64.join(&name));
            run(
                Command::new("cp")
                    .arg("-a")
                    .arg(&path)
                    .arg(lib64.join(&name)),
                "copy libcuda",
            )?;
        }
    }
    if !lib64.join("libcuda.so").exists() {
        return Err(format!("no libcuda.so in {}", src.display()));
    }
    Ok(lib64)
}

/// The machine's own Debian mirror and suite, read from its apt sources.
fn debian_mirror() -> Result<(String, String), String> {
    let mut text = String::new();
    for file in [
        "/etc/apt/sources.list.d/debian.sources",
        "/etc/apt/sources.list",
    ] {
        text += &std::fs::read_to_string(file).unwrap_or_default();
        text.push('\n');
    }
    let field = |name: &str| {
        text.lines()
            .filter_map(|l| l.strip_prefix(name))
            .flat_map(|v| v.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .find(|v| !v.contains("security"))
    };
    let deb_line = text
        .lines()
        .find(|l| l.starts_with("deb ") && !l.contains("security"));
    let from_list = deb_line.and_then(|l| {
        let parts: Vec<&str> = l.split_whitespace().collect();
        Some((parts.get(1)?.to_string(), parts.get(2)?.to_string()))
    });
    match (field("URIs:"), field("Suites:")) {
        (Some(u), Some(s)) => Ok((u, s)),
        _ => from_list.ok_or_else(|| {
            "found no Debian mirror in /etc/apt; without one, install the CUDA toolkit \
             (or put libcuda.so in target/tools/cuda/lib64)"
                .into()
        }),
    }
}
