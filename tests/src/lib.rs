//! What warpkit's tests share: the embedded PTX ([`ptx`]), a random seed that is printed
//! ([`seed`]), `ptxas` ([`ptxas`], [`assemble`], [`kernel_body`]) and the GPU, driven directly
//! with cudarc ([`Gpu`]), which a test skips without unless `WARPKIT_REQUIRE_GPU=1` says to fail.

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr};
use cudarc::driver::{LaunchConfig, ValidAsZeroBits};
use rand::{SeedableRng, rngs::StdRng};
use std::process::Command;
use std::sync::Arc;
use warpkit_builder::Target;

/// The PTX that `build.rs` built, one `(target, text)` per target.
pub mod ptx {
    include!(concat!(env!("OUT_DIR"), "/test_kernels_ptx.rs"));
    include!(concat!(env!("OUT_DIR"), "/legacy_ptx.rs"));
    include!(concat!(env!("OUT_DIR"), "/library_ptx.rs"));
    include!(concat!(env!("OUT_DIR"), "/library_sm60_ptx.rs"));
}

/// A random generator from a fresh seed, printed so a failure can be replayed
/// (`WARPKIT_SEED=<seed>` replays it).
pub fn seed() -> StdRng {
    let s: u64 = std::env::var("WARPKIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("seed {s} (WARPKIT_SEED={s} replays it)");
    StdRng::seed_from_u64(s)
}

/// `ptxas` from `WARPKIT_PTXAS` or PATH; `None` (and the reason printed) when absent, unless
/// `WARPKIT_REQUIRE_PTXAS` is set, as `cargo xtask test` does.
pub fn ptxas() -> Option<String> {
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

/// Assembles `ptx` for `arch`; returns ptxas's `-v` report (parse it with
/// [`warpkit_builder::ptxas::parse_verbose`]).
pub fn assemble(ptxas: &str, arch: &str, ptx: &str) -> String {
    let dir = std::env::temp_dir().join(format!(
        "warpkit-ptx-{}-{arch}-{:x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("module.{arch}.ptx"));
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

/// The body of `.entry name` in `ptx`.
pub fn kernel_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("kernel {name} missing"));
    let body = &ptx[start..];
    &body[..body
        .find("// -- End function")
        .expect("LLVM marks the end of each function")]
}

/// How many times `instruction` appears in `body` as a whole instruction or operand (followed
/// by white space, `,` or `;`).
pub fn count_instruction(body: &str, instruction: &str) -> usize {
    body.match_indices(instruction)
        .filter(|(i, _)| {
            body[i + instruction.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_whitespace() || c == ',' || c == ';')
        })
        .count()
}

/// The GPU, for the conformance tests: a context and a stream on device 0.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    /// Compute capability.
    pub major: u32,
    pub minor: u32,
}

/// The GPU, or `None` with the reason printed when there is none. With
/// `WARPKIT_REQUIRE_GPU=1` (the GPU machine's runs) a missing GPU fails the test instead.
pub fn gpu() -> Option<Gpu> {
    let skip = |why: String| -> Option<Gpu> {
        assert!(
            std::env::var("WARPKIT_REQUIRE_GPU").as_deref() != Ok("1"),
            "WARPKIT_REQUIRE_GPU=1 but {why}"
        );
        eprintln!("skipped: {why}; this test runs on the GPU machine");
        None
    };
    // SAFETY: only tries to open the library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return skip("no CUDA driver library (libcuda) on this machine".into());
    }
    let ctx = match CudaContext::new(0) {
        Ok(c) => c,
        Err(e) => return skip(format!("no CUDA device ({e})")),
    };
    let (major, minor) = ctx.compute_capability().expect("compute capability");
    let gpu = Gpu {
        stream: ctx.default_stream(),
        ctx,
        major: major as u32,
        minor: minor as u32,
    };
    eprintln!("device: {}", gpu.describe());
    Some(gpu)
}

impl Gpu {
    /// E.g. `NVIDIA H200 (compute 9.0)`.
    pub fn describe(&self) -> String {
        let name = self.ctx.name().unwrap_or_else(|e| format!("<{e}>"));
        format!("{name} (compute {}.{})", self.major, self.minor)
    }

    /// The modules of `list` that run on this device: the newest, and older ones, which hold
    /// the shuffle fallbacks (the driver compiles their PTX for the device).
    pub fn runnable(
        &self,
        list: &[(&'static str, &'static str)],
    ) -> Vec<(&'static str, &'static str)> {
        list.iter()
            .copied()
            .filter(|(t, _)| Target::parse(t).is_some_and(|t| t.runs_on(self.major, self.minor)))
            .collect()
    }

    /// Loads a PTX module.
    pub fn load(&self, ptx: &str) -> Arc<CudaModule> {
        self.ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .expect("the driver loads the PTX")
    }

    /// A kernel of `module`.
    pub fn function(&self, module: &Arc<CudaModule>, name: &str) -> CudaFunction {
        module
            .load_function(name)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> CudaSlice<T> {
        self.stream.clone_htod(data).unwrap()
    }

    /// A device buffer of `len` elements, every byte 0xA5 (so unwritten elements show).
    pub fn poisoned<T: DeviceRepr + bytemuck::Pod>(&self, len: usize) -> CudaSlice<T> {
        let mut host = vec![T::zeroed(); len];
        bytemuck::cast_slice_mut::<T, u8>(&mut host).fill(0xA5);
        self.upload(&host)
    }

    pub fn zeroed<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> CudaSlice<T> {
        self.stream.alloc_zeros(len).unwrap()
    }

    pub fn download<T: DeviceRepr>(&self, b: &CudaSlice<T>) -> Vec<T> {
        self.stream.clone_dtoh(b).unwrap()
    }

    /// Waits for the stream; a kernel's failure names the kernel.
    pub fn sync(&self, what: &str) {
        self.stream
            .synchronize()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

/// 256-thread blocks over `threads` threads.
pub fn config(threads: usize) -> LaunchConfig {
    let block = threads.min(256) as u32;
    LaunchConfig {
        grid_dim: (threads.div_ceil(block as usize) as u32, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}
