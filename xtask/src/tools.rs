//! What the project needs installed, fetched by the project itself into `target/tools/`:
//! `ptxas` from NVIDIA's PyPI wheel. Nothing else: the host crate loads the CUDA driver at
//! run time.

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

pub fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
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

/// Whether a CUDA toolkit is installed (its `lib64` has a libcuda to link cust against).
pub fn cuda_toolkit() -> bool {
    Path::new("/usr/local/cuda/lib64").is_dir()
}

/// A directory with `lib64/libcuda.so` to link the `cust` adapter's test against: the CUDA
/// toolkit's where one is installed, else a stub built here with `cc` that defines every
/// driver function cust_raw declares (soname `libcuda.so.1`, so the executable loads the real
/// driver on the GPU machine). Only `gpu-pack` needs it.
pub fn libcuda_link_stub() -> Result<PathBuf, String> {
    if cuda_toolkit() {
        return Ok(PathBuf::from("/usr/local/cuda"));
    }
    let dir = tools_dir().join("libcuda-stub");
    let lib = dir.join("lib64/libcuda.so");
    if lib.is_file() {
        return Ok(dir);
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let find_bindings = || {
        std::fs::read_dir(cargo_home.join("registry/src"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|index| std::fs::read_dir(index.path()).ok())
            .flatten()
            .flatten()
            .filter(|p| p.file_name().to_string_lossy().starts_with("cust_raw-"))
            .map(|p| p.path().join("src/cuda.rs"))
            .find(|p| p.is_file())
    };
    // On a fresh machine nothing has unpacked cust_raw yet: `cargo fetch` does.
    let bindings = match find_bindings() {
        Some(path) => path,
        None => {
            run(
                Command::new("cargo").arg("fetch").current_dir(root()),
                "cargo fetch (for cust_raw's driver bindings)",
            )?;
            find_bindings().ok_or("cargo fetch did not unpack cust_raw's src/cuda.rs")?
        }
    };
    let text = std::fs::read_to_string(&bindings).map_err(|e| e.to_string())?;
    let mut stub = String::from("/* Link-time stand-in for libcuda (warpkit xtask). */\n");
    for name in text
        .split("pub fn ")
        .skip(1)
        .filter_map(|rest| rest.split('(').next())
        .filter(|name| name.starts_with("cu"))
    {
        stub += &format!("void {name}(void) {{}}\n");
    }
    std::fs::create_dir_all(dir.join("lib64")).map_err(|e| e.to_string())?;
    let source = dir.join("stub.c");
    std::fs::write(&source, stub).map_err(|e| e.to_string())?;
    run(
        Command::new("cc")
            .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
            .arg(&lib)
            .arg(&source),
        "cc (the libcuda link stub)",
    )?;
    Ok(dir)
}
