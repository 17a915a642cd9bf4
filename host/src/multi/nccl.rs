//! NCCL, found and loaded at run time: where to look, the dozen entry points warpkit calls,
//! communicators and unique ids.
//!
//! Why not `cudarc::nccl`: cudarc 0.19.10 (feature `dynamic-loading`) opens NCCL by the names
//! of its `get_lib_name_candidates("nccl")` (`libnccl.so`, `libnccl64_*.so`, `libnccl.so.9` to
//! `.12`, `.so.1`), never `libnccl.so.2`, the only file NVIDIA's wheel `nvidia-nccl-cu13`
//! ships (`site-packages/nvidia/nccl/lib/libnccl.so.2`). glibc hands an already loaded library
//! to a later `dlopen` only when the name asked for equals its path or its SONAME
//! (`libnccl.so.2`), so pre-loading the wheel's file does not make cudarc's `dlopen("libnccl.so")`
//! find it, and `LD_LIBRARY_PATH` is read once, when the process starts. So warpkit opens the
//! file it found by its full path (`RTLD_NOW | RTLD_GLOBAL`) and calls NCCL through it; the
//! signatures are those of `nccl.h` (NCCL 2.x, stable since 2.0):
//! <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api.html>.

use crate::error::Error;
use std::ffi::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `ncclResult_t`.
type NcclResult = c_int;
/// `ncclComm_t`.
type RawComm = *mut c_void;

/// `ncclUniqueId`: 128 opaque bytes, passed by value to `ncclCommInitRank`.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawId {
    internal: [c_char; 128],
}

/// `ncclDataType_t` (nccl.h): the values warpkit uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum DataType {
    Int8 = 0,
    Uint8 = 1,
    Int32 = 2,
    Uint32 = 3,
    Int64 = 4,
    Uint64 = 5,
    Float16 = 6,
    Float32 = 7,
    Float64 = 8,
    Bfloat16 = 9,
}

/// `ncclRedOp_t` (nccl.h): NCCL's built-in reductions. warpkit's own reductions do not use
/// them (see [`crate::multi`]); they are here for comparisons ([`crate::multi::MultiGpu::nccl_all_reduce`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum RedOp {
    Sum = 0,
    Prod = 1,
    Max = 2,
    Min = 3,
}

/// The entry points, resolved once from the library that was found.
struct Api {
    /// Kept open for the life of the process (the function pointers below point into it).
    _lib: libloading::os::unix::Library,
    path: PathBuf,
    get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult,
    get_error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    get_unique_id: unsafe extern "C" fn(*mut RawId) -> NcclResult,
    comm_init_rank: unsafe extern "C" fn(*mut RawComm, c_int, RawId, c_int) -> NcclResult,
    comm_init_all: unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> NcclResult,
    comm_destroy: unsafe extern "C" fn(RawComm) -> NcclResult,
    all_gather: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        RawComm,
        *mut c_void,
    ) -> NcclResult,
    all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        *mut c_void,
    ) -> NcclResult,
    group_start: unsafe extern "C" fn() -> NcclResult,
    group_end: unsafe extern "C" fn() -> NcclResult,
}

/// The library file names tried in each directory, in order.
const NAMES: [&str; 2] = ["libnccl.so.2", "libnccl.so"];

/// The directories searched for NCCL, in order (without `$WARPKIT_NCCL_LIB`, which comes
/// first): the CUDA toolkit's, the system's, and every Python `site-packages`/`dist-packages`
/// that may hold NVIDIA's wheel (`nvidia/nccl/lib`), the interpreter's `sys.path` included.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let env = |k: &str| std::env::var_os(k).map(PathBuf::from);
    if let Some(cuda) = env("CUDA_HOME").or_else(|| env("CUDA_PATH")) {
        dirs.push(cuda.join("lib64"));
        dirs.push(cuda.join("lib"));
    }
    for d in [
        "/usr/local/cuda/lib64",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/local/lib",
    ] {
        dirs.push(d.into());
    }
    let mut packages = Vec::new();
    if let Some(venv) = env("VIRTUAL_ENV") {
        packages.extend(pythons(&venv.join("lib"), "site-packages"));
    }
    if let Some(conda) = env("CONDA_PREFIX") {
        dirs.push(conda.join("lib"));
        packages.extend(pythons(&conda.join("lib"), "site-packages"));
    }
    if let Some(home) = env("HOME") {
        packages.extend(pythons(&home.join(".local/lib"), "site-packages"));
    }
    for prefix in ["/usr/local/lib", "/usr/lib", "/opt/conda/lib", "/usr/lib64"] {
        for kind in ["dist-packages", "site-packages"] {
            packages.extend(pythons(Path::new(prefix), kind));
        }
    }
    packages.extend(python_sys_path());
    for p in packages {
        dirs.push(p.join("nvidia/nccl/lib"));
    }
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}

/// `prefix/python3*/kind` for every `python3*` directory under `prefix`.
fn pythons(prefix: &Path, kind: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(prefix) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path().join(kind))
        .collect();
    found.sort();
    found
}

/// The entries of `python3`'s `sys.path`, if there is a `python3` (empty otherwise).
fn python_sys_path() -> Vec<PathBuf> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys; print('\\n'.join(p for p in sys.path if p))",
        ])
        .stderr(std::process::Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(PathBuf::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// Where NCCL is: `$WARPKIT_NCCL_LIB` if set (it must then exist), else the first
/// `libnccl.so.2` / `libnccl.so` in [`search_dirs`].
pub fn find_library() -> Result<PathBuf, Error> {
    if let Some(path) = std::env::var_os("WARPKIT_NCCL_LIB") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(Error::NoNccl {
                searched: format!(
                    "WARPKIT_NCCL_LIB={} (no such file; it must name libnccl.so.2 itself)",
                    path.display()
                ),
            })
        };
    }
    let dirs = search_dirs();
    for dir in &dirs {
        for name in NAMES {
            let path = dir.join(name);
            if path.is_file() {
                return Ok(path);
            }
        }
    }
    let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(Error::NoNccl {
        searched: format!(
            "{} in the system's library path and in {}",
            NAMES.join(" / "),
            list.join(", ")
        ),
    })
}

static API: OnceLock<Result<Api, String>> = OnceLock::new();

/// The loaded library, loading it on first use.
fn api() -> Result<&'static Api, Error> {
    let loaded = API.get_or_init(|| load().map_err(|e| e.to_string()));
    match loaded {
        Ok(api) => Ok(api),
        Err(searched) => Err(Error::NoNccl {
            searched: searched.clone(),
        }),
    }
}

fn load() -> Result<Api, Error> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // The system's library path first (an installed libnccl2 or LD_LIBRARY_PATH), unless
    // the user named a file.
    let opened = if std::env::var_os("WARPKIT_NCCL_LIB").is_none() {
        // SAFETY: loading NCCL runs its initialisers, which only set up its own state.
        unsafe { Library::open(Some("libnccl.so.2"), RTLD_NOW | RTLD_GLOBAL) }
            .ok()
            .map(|lib| (lib, PathBuf::from("libnccl.so.2 (system library path)")))
    } else {
        None
    };
    let (lib, path) = match opened {
        Some(found) => found,
        None => {
            let path = find_library()?;
            // SAFETY: as above.
            let lib =
                unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| {
                    Error::NoNccl {
                        searched: format!(
                            "{} was found but could not be loaded: {e}",
                            path.display()
                        ),
                    }
                })?;
            (lib, path)
        }
    };
    Ok(Api {
        get_version: symbol(&lib, &path, "ncclGetVersion")?,
        get_error_string: symbol(&lib, &path, "ncclGetErrorString")?,
        get_unique_id: symbol(&lib, &path, "ncclGetUniqueId")?,
        comm_init_rank: symbol(&lib, &path, "ncclCommInitRank")?,
        comm_init_all: symbol(&lib, &path, "ncclCommInitAll")?,
        comm_destroy: symbol(&lib, &path, "ncclCommDestroy")?,
        all_gather: symbol(&lib, &path, "ncclAllGather")?,
        all_reduce: symbol(&lib, &path, "ncclAllReduce")?,
        group_start: symbol(&lib, &path, "ncclGroupStart")?,
        group_end: symbol(&lib, &path, "ncclGroupEnd")?,
        path,
        _lib: lib,
    })
}

/// The function `name` of `lib` as `F`.
fn symbol<F: Copy>(
    lib: &libloading::os::unix::Library,
    path: &Path,
    name: &str,
) -> Result<F, Error> {
    // SAFETY: every caller's `F` is the function's signature in nccl.h.
    let f = unsafe { lib.get::<F>(name) }.map_err(|e| Error::NoNccl {
        searched: format!("{} lacks {name}: {e}", path.display()),
    })?;
    Ok(*f)
}

/// Turns an `ncclResult_t` into a `Result`, with NCCL's message.
fn check(api: &Api, op: &'static str, code: NcclResult) -> Result<(), Error> {
    if code == 0 {
        return Ok(());
    }
    // SAFETY: NCCL returns a static, NUL-terminated string for every code.
    let message = unsafe {
        let s = (api.get_error_string)(code);
        if s.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(s).to_string_lossy().into_owned()
        }
    };
    Err(Error::Nccl { op, code, message })
}

/// The variable that decides whether NCCL may use NVLink SHARP (NVLS), which creates
/// multicast objects (`cuMulticastCreate`); NCCL reads it when it creates a communicator
/// (<https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-nvls-enable>).
pub const NVLS_ENABLE: &str = "NCCL_NVLS_ENABLE";

/// Refuses to create communicators over several GPUs when NCCL could use NVLink SHARP on them
/// (a device of `ordinals` supports multicast objects) and the environment does not say
/// whether it may ([`NVLS_ENABLE`] unset): multicast objects can take a shared host's GPUs out
/// of service, so the choice is the user's. warpkit never sets the variable itself: changing
/// the environment while another thread may read it is undefined behaviour
/// ([`std::env::set_var`]). One rank needs no choice (NVLS joins several GPUs).
pub(crate) fn check_nvls_choice(world: usize, ordinals: &[usize]) -> Result<(), Error> {
    nvls_choice(world, std::env::var_os(NVLS_ENABLE).is_some(), || {
        any_multicast(ordinals)
    })
}

/// [`check_nvls_choice`] over its inputs: `chosen` (the variable is set) and `multicast`
/// (whether a device supports multicast objects, asked only if it matters).
fn nvls_choice(
    world: usize,
    chosen: bool,
    multicast: impl FnOnce() -> Result<bool, Error>,
) -> Result<(), Error> {
    if world < 2 || chosen || !multicast()? {
        Ok(())
    } else {
        Err(Error::NvlsUnchosen)
    }
}

/// Whether a device of `ordinals` supports multicast objects ([`multicast_supported`]).
fn any_multicast(ordinals: &[usize]) -> Result<bool, Error> {
    for &ordinal in ordinals {
        if multicast_supported(ordinal)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether device `ordinal` supports multicast objects, which NVLink SHARP needs
/// (`CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`, attribute 132, since CUDA 12.1:
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html>). warpkit's cudarc
/// bindings are CUDA 11.8's, whose attribute enum lacks it, so `cuDeviceGetAttribute` is
/// called with the number; a driver that does not know it (older than 12.1, which cannot
/// make multicast objects either) answers `CUDA_ERROR_INVALID_VALUE`: `false`.
pub fn multicast_supported(ordinal: usize) -> Result<bool, Error> {
    const MULTICAST_SUPPORTED: c_int = 132;
    const CUDA_ERROR_INVALID_VALUE: c_int = 1;
    type GetAttribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
    let device = crate::context::open_device(ordinal)?.cu_device();
    let failed = |reason: String| Error::BadShards {
        op: "multicast_supported",
        reason,
    };
    // The driver library cudarc loaded (`open_device`): the same handle, no initialiser runs.
    // SAFETY: libcuda's initialisers have run already.
    let lib = unsafe { libloading::Library::new("libcuda.so.1") }
        .map_err(|e| failed(format!("cannot open libcuda.so.1: {e}")))?;
    // SAFETY: `cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)` (cuda.h).
    let get: libloading::Symbol<GetAttribute> = unsafe { lib.get(b"cuDeviceGetAttribute\0") }
        .map_err(|e| failed(format!("libcuda.so.1 lacks cuDeviceGetAttribute: {e}")))?;
    let mut supported: c_int = 0;
    // SAFETY: writes one int; `device` is a handle the driver returned.
    match unsafe { get(&mut supported, MULTICAST_SUPPORTED, device) } {
        0 => Ok(supported != 0),
        CUDA_ERROR_INVALID_VALUE => Ok(false),
        code => Err(failed(format!(
            "cuDeviceGetAttribute(MULTICAST_SUPPORTED) failed: CUresult {code}"
        ))),
    }
}

/// Where NCCL was loaded from and its version (`(2, 27, 3)`), loading it if needed.
pub fn library() -> Result<(PathBuf, (u32, u32, u32)), Error> {
    let api = api()?;
    let mut v: c_int = 0;
    // SAFETY: writes one int.
    check(api, "ncclGetVersion", unsafe { (api.get_version)(&mut v) })?;
    let v = v as u32;
    // Since 2.9: major * 10000 + minor * 100 + patch.
    Ok((api.path.clone(), (v / 10000, v / 100 % 100, v % 100)))
}

/// An NCCL unique id: made by one process ([`UniqueId::new`]), passed to every other as bytes
/// (a file, a socket, MPI...), and given to [`crate::multi::MultiGpu::from_rank`] by each rank.
/// See <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetuniqueid>.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId([u8; 128]);

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueId({:02x?}..)", &self.0[..8])
    }
}

impl UniqueId {
    /// A new id (`ncclGetUniqueId`; NCCL's bootstrap listens on a socket of this host).
    pub fn new() -> Result<UniqueId, Error> {
        let api = api()?;
        let mut raw = RawId { internal: [0; 128] };
        // SAFETY: writes the 128-byte id.
        check(api, "ncclGetUniqueId", unsafe {
            (api.get_unique_id)(&mut raw)
        })?;
        Ok(UniqueId(raw.internal.map(|c| c as u8)))
    }

    /// The id's 128 bytes, to send to the other processes.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }

    /// The id from the bytes another process sent; refuses a length other than 128.
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId, Error> {
        let array: [u8; 128] = bytes.try_into().map_err(|_| Error::LengthMismatch {
            op: "UniqueId::from_bytes",
            what: "id bytes",
            expected: 128,
            found: bytes.len(),
        })?;
        Ok(UniqueId(array))
    }
}

/// One NCCL communicator (one rank on one GPU). Destroyed when dropped.
pub(crate) struct Comm {
    raw: RawComm,
    api: &'static Api,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a time; warpkit only
// uses it through `&mut MultiGpu`.
unsafe impl Send for Comm {}
unsafe impl Sync for Comm {}

impl Drop for Comm {
    fn drop(&mut self) {
        // SAFETY: a communicator made by NCCL, destroyed once. Errors cannot be reported here.
        unsafe { (self.api.comm_destroy)(self.raw) };
    }
}

impl Comm {
    /// One communicator per device of `ordinals`, all in this process (`ncclCommInitAll`).
    pub(crate) fn init_all(ordinals: &[usize]) -> Result<Vec<Comm>, Error> {
        let api = api()?;
        let devices: Vec<c_int> = ordinals.iter().map(|&o| o as c_int).collect();
        let mut raw = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: room for one communicator per device.
        check(api, "ncclCommInitAll", unsafe {
            (api.comm_init_all)(raw.as_mut_ptr(), devices.len() as c_int, devices.as_ptr())
        })?;
        Ok(raw.into_iter().map(|raw| Comm { raw, api }).collect())
    }

    /// Rank `rank` of `world` (`ncclCommInitRank`), on the device whose context is current.
    pub(crate) fn init_rank(id: &UniqueId, rank: usize, world: usize) -> Result<Comm, Error> {
        let api = api()?;
        let mut raw = std::ptr::null_mut();
        let id = RawId {
            internal: id.0.map(|b| b as c_char),
        };
        // SAFETY: writes one communicator; the id is passed by value as nccl.h declares.
        check(api, "ncclCommInitRank", unsafe {
            (api.comm_init_rank)(&mut raw, world as c_int, id, rank as c_int)
        })?;
        Ok(Comm { raw, api })
    }

    /// Enqueues `ncclAllGather` of `bytes` bytes at `send` into `recv` (`world × bytes`).
    ///
    /// # Safety
    /// Both addresses are device memory of this communicator's GPU with that room, valid
    /// until the stream reaches the operation; `stream` is a stream of that GPU.
    pub(crate) unsafe fn all_gather(
        &self,
        send: u64,
        recv: u64,
        bytes: usize,
        stream: *mut c_void,
    ) -> Result<(), Error> {
        // SAFETY: forwarded to the caller.
        check(self.api, "ncclAllGather", unsafe {
            (self.api.all_gather)(
                send as *const c_void,
                recv as *mut c_void,
                bytes,
                DataType::Uint8 as c_int,
                self.raw,
                stream,
            )
        })
    }

    /// Enqueues `ncclAllReduce` of `count` items of `ty` at `send` into `recv`.
    ///
    /// # Safety
    /// As [`Comm::all_gather`], with `count` items of `ty` at both addresses.
    pub(crate) unsafe fn all_reduce(
        &self,
        send: u64,
        recv: u64,
        count: usize,
        ty: DataType,
        op: RedOp,
        stream: *mut c_void,
    ) -> Result<(), Error> {
        // SAFETY: forwarded to the caller.
        check(self.api, "ncclAllReduce", unsafe {
            (self.api.all_reduce)(
                send as *const c_void,
                recv as *mut c_void,
                count,
                ty as c_int,
                op as c_int,
                self.raw,
                stream,
            )
        })
    }
}

/// Runs `f` between `ncclGroupStart` and `ncclGroupEnd`: how one thread issues a collective
/// for several GPUs (<https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/groups.html>).
pub(crate) fn group<R>(f: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    let api = api()?;
    // SAFETY: no arguments.
    check(api, "ncclGroupStart", unsafe { (api.group_start)() })?;
    let r = f();
    // SAFETY: closes the group opened above, also after an error inside it.
    let end = check(api, "ncclGroupEnd", unsafe { (api.group_end)() });
    let r = r?;
    end.map(|()| r)
}

#[cfg(test)]
mod tests {
    use super::nvls_choice;
    use crate::error::Error;

    /// A `multicast` answer that fails the test if asked.
    fn unasked() -> Result<bool, Error> {
        panic!("multicast support asked where it does not matter")
    }

    #[test]
    fn nvls_needs_a_choice_only_over_several_multicast_gpus() {
        // One rank, or a variable the user set: nothing to ask.
        assert!(nvls_choice(1, false, unasked).is_ok());
        assert!(nvls_choice(0, false, unasked).is_ok());
        assert!(nvls_choice(2, true, unasked).is_ok());
        // Several GPUs, no choice made: refused only where NVLS is possible.
        assert!(nvls_choice(2, false, || Ok(false)).is_ok());
        let refused = nvls_choice(4, false, || Ok(true)).unwrap_err();
        assert!(matches!(refused, Error::NvlsUnchosen));
        assert!(
            refused.to_string().contains("NCCL_NVLS_ENABLE=0"),
            "{refused}"
        );
        // A failed query is reported, not taken for an answer.
        let failed = nvls_choice(2, false, || {
            Err(Error::BadShards {
                op: "query",
                reason: "no driver".into(),
            })
        });
        assert!(matches!(failed, Err(Error::BadShards { .. })));
    }
}
