//! Device set-up: the CUDA context, the loaded module and device facts.

use crate::error::{Context as _, Error};
use crate::ptx;
use cust::context::Context;
use cust::device::{Device, DeviceAttribute};
use cust::module::Module;
use std::ffi::c_void;

/// A loaded warpkit module on device 0. Everything else borrows it.
pub struct Warpkit {
    module: Module,
    target: &'static str,
    name: String,
    multiprocessors: u32,
    compute: (u32, u32),
    _context: Context,
}

impl Warpkit {
    /// Initializes CUDA on device 0 and loads the newest embedded PTX that runs on it.
    pub fn new() -> Result<Warpkit, Error> {
        Self::load(None)
    }

    /// Like [`Warpkit::new`], but loads the PTX built for `target` (e.g. `sm_70` on a newer
    /// device, which the driver compiles for it: how the shuffle fallbacks are run on new GPUs).
    pub fn with_target(target: &str) -> Result<Warpkit, Error> {
        Self::load(Some(target))
    }

    fn load(target: Option<&str>) -> Result<Warpkit, Error> {
        let context = cust::quick_init().map_err(Error::NoDevice)?;
        let device = Device::get_device(0).during("get device")?;
        let attribute = |a| {
            device
                .get_attribute(a)
                .map(|v| v as u32)
                .during("device attribute")
        };
        let compute = (
            attribute(DeviceAttribute::ComputeCapabilityMajor)?,
            attribute(DeviceAttribute::ComputeCapabilityMinor)?,
        );
        let available = || ptx::targets().join(", ");
        let (target, text) = match target {
            Some(name) => {
                let text = ptx::for_target(name)
                    .ok_or_else(|| Error::UnknownTarget(name.into(), available()))?;
                (
                    ptx::targets()
                        .into_iter()
                        .find(|t| *t == name)
                        .unwrap_or("?"),
                    text,
                )
            }
            None => ptx::best_for(compute.0, compute.1).ok_or_else(|| Error::NoPtxForDevice {
                major: compute.0,
                minor: compute.1,
                available: available(),
            })?,
        };
        let module = Module::from_ptx(text, &[]).during("load PTX module")?;
        Ok(Warpkit {
            module,
            target,
            name: device.name().during("device name")?,
            multiprocessors: attribute(DeviceAttribute::MultiprocessorCount)?,
            compute,
            _context: context,
        })
    }

    /// The PTX target that was loaded (`sm_90`).
    pub fn target(&self) -> &'static str {
        self.target
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.name
    }

    /// The device's compute capability.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.compute
    }

    /// The device's multiprocessor count.
    pub fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    /// One line saying what was loaded, for logs.
    pub fn describe(&self) -> String {
        format!(
            "{} (compute {}.{}, {} SMs), PTX {}",
            self.name, self.compute.0, self.compute.1, self.multiprocessors, self.target
        )
    }

    /// Launches kernel `name` on `stream`. Each argument is a pointer to the argument value.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters in number, order and type, and every
    /// buffer it touches must be valid for what the kernel does with it.
    pub unsafe fn launch(
        &self,
        stream: &cust::stream::Stream,
        name: &str,
        grid: u32,
        block: u32,
        args: &[*mut c_void],
    ) -> Result<(), Error> {
        let function = self.module.get_function(name).during("find kernel")?;
        // SAFETY: forwarded to the caller.
        unsafe { stream.launch(&function, grid, block, 0, args) }.during("launch")
    }
}

/// A pointer to a kernel argument, for [`Warpkit::launch`].
pub fn arg<T>(value: &T) -> *mut c_void {
    value as *const T as *mut c_void
}
