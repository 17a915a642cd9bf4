//! Device set-up: the CUDA context, the loaded module, its kernel table and device facts.

use crate::error::{During as _, Error};
use crate::kernels::Table;
use crate::module::{Image, Module};
use crate::ptx;
use cudarc::driver::{CudaContext, CudaStream, result, sys};
use std::sync::Arc;
use warpkit_builder::Target;

/// warpkit's kernels loaded on one device. Cheap to clone (one `Arc`); `Send + Sync`: share
/// it between threads freely (every call binds its context to the calling thread). Dropping
/// the last clone waits for the whole context (every stream, other libraries' too) before it
/// unloads the kernels, whose work may still be pending on any stream.
///
/// ```no_run
/// use warpkit_host::Warpkit;
/// let wk = Warpkit::new(0)?; // device 0, its primary context
/// println!("{}", wk.describe());
/// # Ok::<(), warpkit_host::Error>(())
/// ```
#[derive(Clone)]
pub struct Warpkit {
    inner: Arc<Inner>,
}

struct Inner {
    // Field order: the table's kernels are handles into the module, dropped before it.
    table: Table,
    /// Held only to keep the table's kernels loaded.
    _module: Module,
    ctx: Arc<CudaContext>,
    target: &'static str,
    /// Loaded from the target's cubin (no JIT) rather than its PTX.
    cubin: bool,
    name: String,
    multiprocessors: u32,
    compute: (u32, u32),
    /// The library's kernels are launched as programmatic dependents ([`dependent_launch`]).
    dependent_launch: bool,
}

/// Loads the driver and opens device `ordinal`'s primary context, telling "no driver
/// library" and "no such device" apart from every other failure.
pub fn open_device(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    // SAFETY: only tries to load the library; without this check cudarc panics on first use.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::NoDriver);
    }
    match result::init() {
        Ok(()) => {}
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE => {
            return Err(Error::NoDevice { ordinal, count: 0 });
        }
        Err(source) => {
            return Err(Error::Driver {
                op: "cuInit",
                source,
            });
        }
    }
    let count = result::device::get_count().during("count devices")? as usize;
    if ordinal >= count {
        return Err(Error::NoDevice { ordinal, count });
    }
    CudaContext::new(ordinal).during("create context")
}

/// Whether the library's kernels of `target` are launched as programmatic dependents: their
/// PTX waits for the kernels before them (sm_90 and newer, and so a device that runs it), and
/// the driver (of version `driver`) captures such launches into graphs.
fn dependent_launch(target: &str, driver: u32) -> bool {
    Target::parse(target).is_some_and(|t| t.compute >= 90)
        && crate::module::launches_dependents(driver)
}

impl Warpkit {
    /// Opens device `ordinal` (its primary context, shared with cudarc, candle, cust...) and
    /// loads the newest embedded target that runs on it: its cubin when the device is exactly
    /// that target (no JIT compilation), else its PTX.
    pub fn new(ordinal: usize) -> Result<Warpkit, Error> {
        Self::on(&open_device(ordinal)?)
    }

    /// Loads the newest embedded target that runs on `ctx`'s device into `ctx` (its cubin
    /// when there is one for exactly this device, else its PTX).
    pub fn on(ctx: &Arc<CudaContext>) -> Result<Warpkit, Error> {
        Self::load(ctx, None, true)
    }

    /// Like [`Warpkit::on`], from the PTX even where a cubin fits: the driver JIT-compiles it
    /// at load (to compare load times, or to run the PTX path on purpose).
    pub fn from_ptx(ctx: &Arc<CudaContext>) -> Result<Warpkit, Error> {
        Self::load(ctx, None, false)
    }

    /// Like [`Warpkit::on`], but loads the PTX built for `target` (e.g. `sm_70` on a newer
    /// device, which the driver compiles for it: how the shuffle fallbacks run on new GPUs).
    /// [`Error::UnknownTarget`] names the embedded targets where `target` is not one of them,
    /// and [`Error::TargetCannotRun`] those this device and driver run where it is not.
    pub fn with_target(ctx: &Arc<CudaContext>, target: &str) -> Result<Warpkit, Error> {
        Self::load(ctx, Some(target), true)
    }

    fn load(
        ctx: &Arc<CudaContext>,
        target: Option<&str>,
        prefer_cubin: bool,
    ) -> Result<Warpkit, Error> {
        ctx.bind_to_thread().during("bind context")?;
        let (major, minor) = ctx.compute_capability().during("device attribute")?;
        let compute = (major as u32, minor as u32);
        let available = || ptx::targets().join(", ");
        let driver = crate::module::driver_version()?;
        let (target, text) = match target {
            Some(name) => {
                let found = ptx::KERNELS_PTX.iter().find(|(t, _)| *t == name);
                let (target, text) =
                    *found.ok_or_else(|| Error::UnknownTarget(name.into(), available()))?;
                if let Some(reason) = cannot_run(target, text, compute, driver) {
                    let runnable = ptx::KERNELS_PTX
                        .iter()
                        .filter(|(t, text)| cannot_run(t, text, compute, driver).is_none())
                        .map(|(t, _)| *t)
                        .collect::<Vec<_>>();
                    let runnable = match runnable.join(", ") {
                        none if none.is_empty() => "none: update the NVIDIA driver".into(),
                        some => some,
                    };
                    return Err(Error::TargetCannotRun {
                        target: target.into(),
                        reason,
                        runnable,
                    });
                }
                (target, text)
            }
            None => ptx::best_for(compute.0, compute.1, driver).ok_or_else(|| {
                Error::NoPtxForDevice {
                    major: compute.0,
                    minor: compute.1,
                    driver,
                    available: available(),
                }
            })?,
        };
        // The cubin of the exact device, when the build embedded one (no JIT at load).
        let cubin = ptx::cubin_for(target).filter(|_| {
            prefer_cubin
                && Target::parse(target).is_some_and(|t| t.compute == compute.0 * 10 + compute.1)
        });
        let module = match cubin {
            Some(cubin) => Module::load(ctx, Image::Cubin(cubin))?,
            None => Module::load(ctx, Image::Ptx(text))?,
        };
        let dependent_launch = dependent_launch(target, driver);
        let table = Table::load(&module, target, dependent_launch)?;
        let multiprocessors = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .during("device attribute")? as u32;
        Ok(Warpkit {
            inner: Arc::new(Inner {
                table,
                _module: module,
                ctx: ctx.clone(),
                target,
                cubin: cubin.is_some(),
                name: ctx.name().during("device name")?,
                multiprocessors,
                compute,
                dependent_launch,
            }),
        })
    }

    /// The context the kernels are loaded in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    /// A new non-blocking stream in this context (it does not wait for the legacy default
    /// stream, nor it for this one).
    pub fn new_stream(&self) -> Result<Arc<CudaStream>, Error> {
        self.inner.ctx.new_stream().during("create stream")
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.inner.ctx.ordinal()
    }

    /// The PTX target that was loaded (`sm_90`).
    pub fn target(&self) -> &'static str {
        self.inner.target
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.inner.name
    }

    /// The device's compute capability.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.compute
    }

    /// The device's multiprocessor count.
    pub fn multiprocessors(&self) -> u32 {
        self.inner.multiprocessors
    }

    /// One line saying what was loaded, for logs.
    pub fn describe(&self) -> String {
        let i = &self.inner;
        format!(
            "{} (device {}, compute {}.{}, {} SMs), {} {}{}",
            i.name,
            i.ctx.ordinal(),
            i.compute.0,
            i.compute.1,
            i.multiprocessors,
            if i.cubin { "cubin" } else { "PTX" },
            i.target,
            if i.dependent_launch {
                ", programmatic dependent launch"
            } else {
                ""
            }
        )
    }

    pub(crate) fn table(&self) -> &Table {
        &self.inner.table
    }
}

/// Why the embedded `target` (PTX `text`) cannot run on a device of compute capability
/// `compute` under driver version `driver`, if it cannot: the driver refuses such a module
/// with a bare error code.
fn cannot_run(target: &str, text: &str, compute: (u32, u32), driver: u32) -> Option<String> {
    let (major, minor) = compute;
    if !Target::parse(target).is_some_and(|t| t.runs_on(major, minor)) {
        return Some(format!(
            "it does not run on compute capability {major}.{minor}"
        ));
    }
    match warpkit_builder::driver_for_ptx(text) {
        Some(needed) if needed <= driver => None,
        Some(needed) => Some(format!(
            "its PTX needs driver version {needed} or newer, and the driver is {driver}: update the NVIDIA driver"
        )),
        None => Some("its PTX has no `.version` directive".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::cannot_run;

    #[test]
    fn named_targets_are_checked_against_the_device_and_driver() {
        let sm_90 = ".version 8.1\n.target sm_90\n";
        let sm_100a = ".version 8.6\n.target sm_100a\n";
        assert_eq!(cannot_run("sm_90", sm_90, (9, 0), 12010), None);
        assert_eq!(cannot_run("sm_90", sm_90, (10, 0), 12090), None);
        let older_driver = cannot_run("sm_90", sm_90, (9, 0), 12000).expect("refused");
        assert!(older_driver.contains("12010"), "{older_driver}");
        let other_device = cannot_run("sm_100a", sm_100a, (9, 0), 13000).expect("refused");
        assert!(other_device.contains("9.0"), "{other_device}");
        assert!(cannot_run("sm_100a", sm_100a, (10, 3), 13000).is_some());
        assert!(cannot_run("sm_90", ".target sm_90\n", (9, 0), 13000).is_some());
    }
}
