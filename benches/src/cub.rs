//! CUB in the benchmark's process: `cub/cub_lib.cu` built by `nvcc` into
//! `libwarpkit_cub.so` (a C interface, see the comment at its top), loaded with `libloading`,
//! and called on the caller's stream and buffers.

use crate::mem::DeviceMem;
use crate::pairs::Enqueue;
use cudarc::driver::{CudaStream, sys};
use libloading::Library;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// The element types every entry point exists for.
pub const TYPES: [&str; 6] = ["u32", "i32", "u64", "i64", "f32", "f64"];
/// Whole-array operations: `warpkit_cub_<algo>_<type>(in, out, n, temp, temp_bytes, stream)`.
pub const DEVICE_ALGOS: [&str; 9] = [
    "reduce_sum",
    "reduce_min",
    "reduce_max",
    "scan_inclusive_sum",
    "scan_exclusive_sum",
    "scan_inclusive_min",
    "scan_inclusive_max",
    "scan_exclusive_min",
    "scan_exclusive_max",
];
/// Uniform rows: `warpkit_cub_<algo>_<type>(in, out, rows, width, temp, temp_bytes, stream)`.
/// `rows_reduce_sum` is `DeviceSegmentedReduce::Sum`; `rows_scan_sum` (inclusive) is
/// `DeviceScan::InclusiveSumByKey` with computed row keys (CUB 3.0 has no segmented scan);
/// `rows_warp_*` are one warp per row with `cub::WarpReduce`/`cub::WarpScan` in a plain
/// kernel (what warpkit's rows operations do; the README's earlier rows figures).
pub const ROW_ALGOS: [&str; 4] = [
    "rows_reduce_sum",
    "rows_scan_sum",
    "rows_warp_reduce_sum",
    "rows_warp_scan_sum",
];
/// Whole-array operations outside the type × algorithm grid, called like `DEVICE_ALGOS`:
/// `reduce_sum_f16` (one `f32` out: an f32 accumulator, as warpkit's), `reduce_min_f16` and
/// `reduce_max_f16` (the `f16` extreme in bytes 0-1 of the output), `scan_inclusive_sum_f16`
/// (f32 accumulator, `f16` out), `arg_min_f32` and `arg_min_f64` (out: the value, then the
/// index as an unsigned integer of the value's width: warpkit's layout), `arg_min_f16` (the
/// value in bytes 0-1, bytes 2-3 left as they were, the index as a `u32` at byte 4), and the
/// same five for `bf16` (`__nv_bfloat16`).
pub const EXTRA_OPS: [(&str, &str); 12] = [
    ("reduce_sum", "f16"),
    ("reduce_min", "f16"),
    ("reduce_max", "f16"),
    ("scan_inclusive_sum", "f16"),
    ("reduce_sum", "bf16"),
    ("reduce_min", "bf16"),
    ("reduce_max", "bf16"),
    ("scan_inclusive_sum", "bf16"),
    ("arg_min", "bf16"),
    ("arg_min", "f32"),
    ("arg_min", "f64"),
    ("arg_min", "f16"),
];
/// Entry points besides the operations.
pub const EXTRA_SYMBOLS: [&str; 2] = ["warpkit_cub_version", "warpkit_cub_error_string"];

type DeviceFn = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    u64,
    *mut c_void,
    *mut usize,
    sys::CUstream,
) -> c_int;
type RowsFn = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    u64,
    u64,
    *mut c_void,
    *mut usize,
    sys::CUstream,
) -> c_int;
type VersionFn = unsafe extern "C" fn() -> c_int;
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;

/// The C name of `algo` on `ty`.
pub fn symbol(algo: &str, ty: &str) -> String {
    format!("warpkit_cub_{algo}_{ty}")
}

/// Every name the loader resolves.
pub fn symbols() -> Vec<String> {
    let ops = DEVICE_ALGOS.iter().chain(&ROW_ALGOS);
    ops.flat_map(|a| TYPES.iter().map(move |t| symbol(a, t)))
        .chain(EXTRA_OPS.iter().map(|(a, t)| symbol(a, t)))
        .chain(EXTRA_SYMBOLS.iter().map(|s| s.to_string()))
        .collect()
}

/// `cub/cub_lib.cu`: next to this crate's manifest, or under `benches/` from the repository
/// root (on the GPU machine, where the executables run from a packed copy).
pub fn source() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cub/cub_lib.cu");
    if here.is_file() {
        here
    } else {
        PathBuf::from("benches/cub/cub_lib.cu")
    }
}

/// `nvcc` on PATH, else the toolkit's.
fn nvcc() -> Option<&'static str> {
    ["nvcc", "/usr/local/cuda/bin/nvcc"].into_iter().find(|n| {
        Command::new(n)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The loaded library.
pub struct CubLib {
    lib: Library,
    pub path: PathBuf,
    /// CUB's version, `major.minor.patch`.
    pub version: String,
}

impl CubLib {
    /// Builds `source` for compute capability `compute` and loads it: one `nvcc -O3
    /// -std=c++17 -arch=sm_XY -Xcompiler -fPIC -c` per type, in parallel, then `nvcc -shared`.
    /// The library lands in `dir` as `libwarpkit_cub-sm_XY-<key>.so`, the key a hash of the
    /// source and nvcc's version: a later run with the same ones loads it without building.
    pub fn build(source: &Path, dir: &Path, compute: (u32, u32)) -> Result<CubLib, String> {
        let nvcc = nvcc().ok_or("nvcc not found (PATH, /usr/local/cuda/bin)")?;
        let text = std::fs::read(source).map_err(|e| format!("{}: {e}", source.display()))?;
        let nvcc_version = Command::new(nvcc)
            .arg("--version")
            .output()
            .map_err(|e| e.to_string())?
            .stdout;
        let sm = format!("sm_{}{}", compute.0, compute.1);
        let key = fnv1a(&[&text, sm.as_bytes(), &nvcc_version]);
        let path = dir.join(format!("libwarpkit_cub-{sm}-{key:016x}.so"));
        if path.is_file()
            && let Ok(lib) = CubLib::load(&path)
        {
            return Ok(lib);
        }
        let work = dir.join(format!("build-{sm}-{key:016x}"));
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let arch = format!("-arch={sm}");
        let mut objects = Vec::new();
        let mut children = Vec::new();
        for (i, ty) in TYPES.iter().enumerate() {
            let object = work.join(format!("{ty}.o"));
            let mut cmd = Command::new(nvcc);
            cmd.args(["-O3", "-std=c++17", &arch, "-Xcompiler", "-fPIC", "-c"])
                .args(unit_defines(i))
                .arg("-o")
                .arg(&object)
                .arg(source)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            children.push((*ty, cmd.spawn().map_err(|e| e.to_string())?));
            objects.push(object);
        }
        let mut errors = String::new();
        for (ty, child) in children {
            let out = child.wait_with_output().map_err(|e| e.to_string())?;
            if !out.status.success() {
                errors += &format!("nvcc ({ty}):\n{}", String::from_utf8_lossy(&out.stderr));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let linked = work.join("libwarpkit_cub.so");
        let out = Command::new(nvcc)
            .args([arch.as_str(), "-shared", "-o"])
            .arg(&linked)
            .args(&objects)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "nvcc -shared failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        std::fs::rename(&linked, &path).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_dir_all(&work);
        CubLib::load(&path)
    }

    /// Loads a built library and checks that every entry point is there.
    pub fn load(path: &Path) -> Result<CubLib, String> {
        let lib = unsafe { Library::new(path) }.map_err(|e| format!("{}: {e}", path.display()))?;
        for name in symbols() {
            unsafe { lib.get::<*const c_void>(name.as_bytes()) }
                .map_err(|e| format!("{}: no {name}: {e}", path.display()))?;
        }
        let version = unsafe { lib.get::<VersionFn>(b"warpkit_cub_version") }
            .map(|f| version_string(unsafe { f() }))
            .map_err(|e| e.to_string())?;
        Ok(CubLib {
            lib,
            path: path.to_owned(),
            version,
        })
    }

    /// CUDA's text for an error code the library returned.
    pub fn error_string(&self, code: c_int) -> String {
        match unsafe { self.lib.get::<ErrorStringFn>(b"warpkit_cub_error_string") } {
            Ok(f) => {
                let s = unsafe { f(code) };
                if s.is_null() {
                    format!("cudaError {code}")
                } else {
                    format!(
                        "{} ({code})",
                        unsafe { CStr::from_ptr(s) }.to_string_lossy()
                    )
                }
            }
            Err(_) => format!("cudaError {code}"),
        }
    }

    fn entry(&self, algo: &str, ty: &str) -> Result<Entry, String> {
        let name = symbol(algo, ty);
        let get_err = |e: libloading::Error| format!("{name}: {e}");
        if !TYPES.contains(&ty) && !EXTRA_OPS.contains(&(algo, ty)) {
            return Err(format!("no CUB operation {algo} on {ty}"));
        }
        if DEVICE_ALGOS.contains(&algo) || EXTRA_OPS.contains(&(algo, ty)) {
            let f = unsafe { self.lib.get::<DeviceFn>(name.as_bytes()) }.map_err(get_err)?;
            Ok(Entry::Device(*f))
        } else if ROW_ALGOS.contains(&algo) {
            let f = unsafe { self.lib.get::<RowsFn>(name.as_bytes()) }.map_err(get_err)?;
            Ok(Entry::Rows(*f))
        } else {
            Err(format!("no CUB operation {algo}"))
        }
    }
}

/// Where the benchmarks build the library: `$WARPKIT_CUB_DIR`, else `target/warpkit-cub`
/// (on the GPU machine an ignored folder of the repository copy, kept between runs).
pub fn build_dir() -> PathBuf {
    std::env::var_os("WARPKIT_CUB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/warpkit-cub"))
}

/// The `-D` flags of compile unit `i`: only type `TYPES[i]`, and the common entry points in
/// the first unit.
pub fn unit_defines(i: usize) -> Vec<String> {
    let mut defs: Vec<String> = TYPES
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != i)
        .map(|(_, t)| format!("-DWK_SKIP_{}", t.to_uppercase()))
        .collect();
    if i > 0 {
        defs.push("-DWK_SKIP_COMMON".into());
    }
    defs
}

/// 64-bit FNV-1a over the parts (a stable hash, for the build cache's key).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(&[0xff]) {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// `CUB_VERSION` (major × 100000 + minor × 100 + patch) as `major.minor.patch`.
pub fn version_string(v: c_int) -> String {
    format!("{}.{}.{}", v / 100_000, v / 100 % 1000, v % 100)
}

#[derive(Clone, Copy)]
enum Entry {
    Device(DeviceFn),
    Rows(RowsFn),
}

/// One CUB operation bound to its buffers: an [`Enqueue`] for [`crate::pairs::Sampler`]. Run
/// `i` reads `inputs[i % inputs.len()]` and uses temporary storage `i % inputs.len()`: one
/// allocation per input buffer, made once, so that the storage rotates with the inputs and no
/// one placement of it (which can move a cold 2^20 run by up to 10%) decides the figure.
pub struct CubCase<'a> {
    lib: &'a CubLib,
    entry: Entry,
    name: String,
    inputs: Vec<sys::CUdeviceptr>,
    out: sys::CUdeviceptr,
    /// Items (whole-array) or rows (rows).
    n: u64,
    width: u64,
    temps: Vec<DeviceMem>,
    temp_bytes: usize,
}

impl<'a> CubCase<'a> {
    /// A whole-array operation (`DEVICE_ALGOS`) on `n` items of `ty`.
    pub fn device(
        lib: &'a CubLib,
        algo: &str,
        ty: &str,
        inputs: &[sys::CUdeviceptr],
        out: sys::CUdeviceptr,
        n: usize,
        stream: &Arc<CudaStream>,
    ) -> Result<CubCase<'a>, String> {
        Self::new(lib, algo, ty, inputs, out, n as u64, 0, stream)
    }

    /// A rows operation (`ROW_ALGOS`): `rows` rows of `width` items of `ty`.
    #[allow(clippy::too_many_arguments)]
    pub fn rows(
        lib: &'a CubLib,
        algo: &str,
        ty: &str,
        inputs: &[sys::CUdeviceptr],
        out: sys::CUdeviceptr,
        rows: usize,
        width: usize,
        stream: &Arc<CudaStream>,
    ) -> Result<CubCase<'a>, String> {
        if width == 0 {
            return Err("rows of width 0".into());
        }
        Self::new(
            lib,
            algo,
            ty,
            inputs,
            out,
            rows as u64,
            width as u64,
            stream,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn new(
        lib: &'a CubLib,
        algo: &str,
        ty: &str,
        inputs: &[sys::CUdeviceptr],
        out: sys::CUdeviceptr,
        n: u64,
        width: u64,
        stream: &Arc<CudaStream>,
    ) -> Result<CubCase<'a>, String> {
        if inputs.is_empty() {
            return Err("no input buffer".into());
        }
        let entry = lib.entry(algo, ty)?;
        let name = symbol(algo, ty);
        let ctx = stream.context();
        ctx.bind_to_thread()
            .map_err(|e| format!("{name}: bind the stream's context to this thread: {e}"))?;
        let mut case = CubCase {
            lib,
            entry,
            name: name.clone(),
            inputs: inputs.to_vec(),
            out,
            n,
            width,
            temps: Vec::new(),
            temp_bytes: 0,
        };
        // Query mode (temp = NULL), then the storage, once per input buffer.
        let mut bytes = 0usize;
        case.call(std::ptr::null_mut(), &mut bytes, stream.cu_stream(), 0)
            .map_err(|e| format!("temporary storage query: {e}"))?;
        case.temps = (0..inputs.len())
            .map(|_| DeviceMem::new(ctx, bytes))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{name}: allocate {bytes} bytes of temporary storage: {e}"))?;
        case.temp_bytes = bytes;
        Ok(case)
    }

    /// Enqueues run `run` on `stream`.
    pub fn launch(&mut self, stream: sys::CUstream, run: u64) -> Result<(), String> {
        let mut bytes = self.temp_bytes;
        let temp = self.temps[(run % self.temps.len() as u64) as usize].ptr() as *mut c_void;
        self.call(temp, &mut bytes, stream, run)
    }

    fn call(
        &self,
        temp: *mut c_void,
        bytes: &mut usize,
        stream: sys::CUstream,
        run: u64,
    ) -> Result<(), String> {
        let input = self.inputs[(run % self.inputs.len() as u64) as usize] as *const c_void;
        let out = self.out as *mut c_void;
        let code = unsafe {
            match self.entry {
                Entry::Device(f) => f(input, out, self.n, temp, bytes, stream),
                Entry::Rows(f) => f(input, out, self.n, self.width, temp, bytes, stream),
            }
        };
        if code == 0 {
            Ok(())
        } else {
            Err(format!(
                "{} (run {run}, n {}): {}",
                self.name,
                self.n,
                self.lib.error_string(code)
            ))
        }
    }

    /// Bytes of temporary storage CUB asked for (each of the rotated allocations).
    pub fn temp_bytes(&self) -> usize {
        self.temp_bytes
    }
}

impl Enqueue for CubCase<'_> {
    fn enqueue(&mut self, stream: sys::CUstream, run: u64) -> Result<(), String> {
        self.launch(stream, run)
    }
}

/// The `extern "C"` function names a CUDA source defines (`extern "C" <type> name(`).
pub fn extern_c_names(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("extern \"C\""))
        .filter_map(|rest| {
            let head = rest.split('(').next()?;
            let name = head.split_whitespace().last()?.trim_start_matches('*');
            Some(name.to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lib_source() -> String {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cub/cub_lib.cu");
        std::fs::read_to_string(path).expect("read cub_lib.cu")
    }

    #[test]
    fn loader_names_match_the_library_source() {
        let mut defined = extern_c_names(&lib_source());
        let mut expected = symbols();
        assert_eq!(expected.len(), 6 * 13 + EXTRA_OPS.len() + 2);
        let before = defined.len();
        defined.sort();
        defined.dedup();
        assert_eq!(defined.len(), before, "a name is defined twice");
        expected.sort();
        let missing: Vec<_> = expected.iter().filter(|n| !defined.contains(n)).collect();
        let extra: Vec<_> = defined.iter().filter(|n| !expected.contains(n)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "cub_lib.cu lacks {missing:?}; the loader does not know {extra:?}"
        );
    }

    #[test]
    fn row_entry_points_take_a_width() {
        // The loader calls ROW_ALGOS with (in, out, rows, width, ...) and the rest with
        // (in, out, n, ...): the source must declare them the same way.
        for line in lib_source()
            .lines()
            .filter(|l| l.starts_with("extern \"C\" int"))
        {
            let name = extern_c_names(line).remove(0);
            if EXTRA_SYMBOLS.contains(&name.as_str()) {
                continue;
            }
            let rows = ROW_ALGOS.iter().any(|a| name.starts_with(&symbol(a, "")));
            let args = if rows { "(WK_ROW_ARGS)" } else { "(WK_ARGS)" };
            assert!(line.contains(args), "{name} should take {args}: {line}");
        }
        let source = lib_source();
        assert!(source.contains(
            "#define WK_ROW_ARGS const void *in, void *out, uint64_t rows, uint64_t width, void *temp, size_t *temp_bytes, cudaStream_t stream"
        ));
        assert!(source.contains(
            "#define WK_ARGS const void *in, void *out, uint64_t n, void *temp, size_t *temp_bytes, cudaStream_t stream"
        ));
    }

    #[test]
    fn each_compile_unit_defines_its_share_once() {
        // Simulate the preprocessor over the #ifndef WK_SKIP_* guards for every unit: each
        // name must come from exactly one unit.
        let source = lib_source();
        let mut all = Vec::new();
        for i in 0..TYPES.len() {
            let defs: Vec<String> = unit_defines(i)
                .iter()
                .map(|d| d.trim_start_matches("-D").to_owned())
                .collect();
            let mut skipping = false;
            for line in source.lines() {
                if let Some(guard) = line.strip_prefix("#ifndef ") {
                    skipping = defs.iter().any(|d| d == guard.trim());
                } else if line.starts_with("#endif") {
                    skipping = false;
                } else if !skipping {
                    all.extend(extern_c_names(line));
                }
            }
        }
        let total = all.len();
        all.sort();
        all.dedup();
        assert_eq!(total, all.len(), "a name is compiled in two units");
        let mut expected = symbols();
        expected.sort();
        assert_eq!(all, expected);
    }

    #[test]
    fn fnv1a_separates_parts() {
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
        assert_eq!(fnv1a(&[b"x"]), fnv1a(&[b"x"]));
    }

    #[test]
    fn extern_c_names_parse() {
        let src = "extern \"C\" int a_b(WK_ARGS) { }\n  extern \"C\" const char* err(int e);\n\
                   // extern \"C\" int commented(\nint not_c(void);\n";
        assert_eq!(extern_c_names(src), ["a_b", "err"]);
    }

    /// Host-side entry points only (symbols, version, error text): no GPU needed, but a
    /// library built by nvcc (`WARPKIT_CUB_LIB=path/libwarpkit_cub.so cargo test -- --ignored`).
    #[test]
    #[ignore = "needs a libwarpkit_cub.so built by nvcc, named by WARPKIT_CUB_LIB"]
    fn loads_a_built_library() {
        let path = std::env::var("WARPKIT_CUB_LIB").expect("WARPKIT_CUB_LIB");
        let lib = CubLib::load(Path::new(&path)).expect("load");
        let parts: Vec<u32> = lib.version.split('.').map(|p| p.parse().unwrap()).collect();
        assert!(parts.len() == 3 && parts[0] >= 2, "{}", lib.version);
        // cudaErrorMemoryAllocation = 2.
        assert!(
            lib.error_string(2).contains("out of memory"),
            "{}",
            lib.error_string(2)
        );
    }

    /// The parallel build and the cache (nvcc needed, no GPU): `cargo test -- --ignored`.
    #[test]
    #[ignore = "needs nvcc"]
    fn builds_and_then_finds_the_library() {
        let dir = std::env::temp_dir().join(format!("warpkit-cub-test-{}", std::process::id()));
        let built = CubLib::build(&source(), &dir, (9, 0)).expect("build");
        assert!(built.path.starts_with(&dir) && built.version.starts_with('3'));
        let modified = std::fs::metadata(&built.path).unwrap().modified().unwrap();
        let again = CubLib::build(&source(), &dir, (9, 0)).expect("cached");
        assert_eq!(again.path, built.path);
        assert_eq!(
            std::fs::metadata(&again.path).unwrap().modified().unwrap(),
            modified
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn versions_read_like_cub() {
        assert_eq!(version_string(300001), "3.0.1");
        assert_eq!(version_string(201400), "2.14.0");
    }
}
