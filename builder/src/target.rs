//! The NVIDIA targets a kernel crate is compiled for.

use std::fmt;

/// One PTX target: a `.target sm_XX[a]` and the PTX ISA version it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// Compute capability times ten: 70 for `sm_70`, 100 for `sm_100a`.
    pub compute: u32,
    /// Arch-specific target (`sm_100a`): runs only on that exact compute capability.
    pub arch_specific: bool,
    /// PTX ISA version times ten (`86` for 8.6); `None` keeps LLVM's default.
    pub ptx_version: Option<u32>,
}

impl Target {
    /// `sm_60`: the oldest target the crate builds for (only the deprecated `shfl` there).
    pub const SM_60: Target = Target::new(60);
    /// `sm_70` (Volta): independent thread scheduling, `match.sync`.
    pub const SM_70: Target = Target::new(70);
    /// `sm_80` (Ampere): integer and bitwise `redux.sync`.
    pub const SM_80: Target = Target::new(80);
    /// `sm_90` (Hopper: H100, H200) with PTX 8.1: `st.async` and the cluster-scoped `mbarrier`
    /// waits (the device scan's one-cluster path) need it; a driver of CUDA 12.1 or newer loads it.
    pub const SM_90: Target = Target::new(90);
    /// `sm_100a` (Blackwell, arch-specific) with PTX 8.6: `redux.sync` on `f32`.
    pub const SM_100A: Target = Target::arch_specific(100);
    /// The targets the library ships PTX for.
    pub const DEFAULT: [Target; 4] = [Self::SM_70, Self::SM_80, Self::SM_90, Self::SM_100A];

    /// A plain (not arch-specific) target: PTX 8.1 for sm_90 to sm_99 ([`Target::SM_90`]),
    /// LLVM's default PTX version otherwise (7.0 to 7.8 below sm_90, 8.6 and newer above).
    pub const fn new(compute: u32) -> Target {
        Target {
            compute,
            arch_specific: false,
            ptx_version: if compute >= 90 && compute < 100 {
                Some(81)
            } else {
                None
            },
        }
    }

    /// An arch-specific target (`sm_100a` for 100): PTX 8.6, as the `f32` `redux.sync` of
    /// `sm_100a` needs.
    pub const fn arch_specific(compute: u32) -> Target {
        Target {
            compute,
            arch_specific: true,
            ptx_version: Some(86),
        }
    }

    /// The name rustc and ptxas use: `sm_90`, `sm_100a`.
    pub fn name(&self) -> String {
        self.to_string()
    }

    /// Parses `sm_90` or `sm_100a`: a plain target as [`Target::new`] makes it, an
    /// arch-specific one as [`Target::arch_specific`].
    pub fn parse(name: &str) -> Option<Target> {
        let digits = name.strip_prefix("sm_")?;
        let (digits, arch_specific) = match digits.strip_suffix('a') {
            Some(d) => (d, true),
            None => (digits, false),
        };
        let compute: u32 = digits.parse().ok()?;
        if compute < 30 {
            return None;
        }
        Some(if arch_specific {
            Target::arch_specific(compute)
        } else {
            Target::new(compute)
        })
    }

    /// Whether PTX for this target can be loaded on a device of compute capability
    /// `major.minor`: plain targets run on any newer device (the driver compiles the PTX),
    /// arch-specific ones only on their own.
    pub fn runs_on(&self, major: u32, minor: u32) -> bool {
        let device = major * 10 + minor;
        if self.arch_specific {
            device == self.compute
        } else {
            device >= self.compute
        }
    }

    /// The module of `list` (`(target name, PTX)`, as [`PtxBuilder::embed`](crate::PtxBuilder::embed)
    /// writes it) to load on a device of compute capability `major.minor`: the newest target
    /// that [runs on it](Target::runs_on), an arch-specific one (`sm_100a`) only on its own
    /// device, others on any newer one. `None` if none runs there.
    pub fn best_for<'a>(
        list: &[(&'a str, &'a str)],
        major: u32,
        minor: u32,
    ) -> Option<(&'a str, &'a str)> {
        list.iter()
            .filter_map(|&(name, ptx)| Target::parse(name).map(|t| (t, name, ptx)))
            .filter(|(t, _, _)| t.runs_on(major, minor))
            .max_by_key(|(t, _, _)| (t.compute, t.arch_specific))
            .map(|(_, name, ptx)| (name, ptx))
    }

    /// As [`Target::best_for`], among the modules whose PTX a driver of version `driver` (as
    /// `cuDriverGetVersion` gives it: 12010 for CUDA 12.1) compiles ([`driver_for_ptx`]). On
    /// an sm_90 device under a CUDA 12.0 driver that is `sm_80` (PTX 7.0), where the `sm_90`
    /// PTX (8.1) would not load.
    ///
    /// ```
    /// use warpkit_builder::Target;
    /// let modules = [
    ///     ("sm_80", ".version 7.0\n.target sm_80\n"),
    ///     ("sm_90", ".version 8.1\n.target sm_90\n"),
    /// ];
    /// assert_eq!(Target::best_for_driver(&modules, 9, 0, 12010).unwrap().0, "sm_90");
    /// assert_eq!(Target::best_for_driver(&modules, 9, 0, 12000).unwrap().0, "sm_80");
    /// ```
    pub fn best_for_driver<'a>(
        list: &[(&'a str, &'a str)],
        major: u32,
        minor: u32,
        driver: u32,
    ) -> Option<(&'a str, &'a str)> {
        let loadable: Vec<_> = list
            .iter()
            .copied()
            .filter(|(_, ptx)| driver_for_ptx(ptx).is_some_and(|needed| needed <= driver))
            .collect();
        Target::best_for(&loadable, major, minor)
    }

    /// The oldest target rustc's nvptx64 backend accepts as `-C target-cpu`.
    pub const RUSTC_MINIMUM: Target = Target::SM_70;

    /// rustc flags that select this target. rustc accepts sm_70 and later only: an older
    /// target is compiled as sm_70 with `--cfg warpkit_target_below_sm70` (so code can offer
    /// what exists only there), and the linker's `llc` then emits PTX for the real target.
    pub(crate) fn rustc_flags(&self) -> Vec<String> {
        let cpu = if *self < Self::RUSTC_MINIMUM {
            Self::RUSTC_MINIMUM
        } else {
            *self
        };
        let mut flags = vec![format!("-Ctarget-cpu={cpu}")];
        if *self < Self::RUSTC_MINIMUM {
            flags.push("--cfg=warpkit_target_below_sm70".into());
        }
        if let Some(v) = self.ptx_version {
            flags.push(format!("-Ctarget-feature=+ptx{v}"));
        }
        flags
    }
}

/// The oldest driver that compiles `ptx`, as `cuDriverGetVersion` numbers it, from the PTX
/// ISA version of its `.version` directive: ISA 7.x came with CUDA 11.x, 8.0-8.5 with CUDA
/// 12.0-12.5, 8.6, 8.7 and 8.8 with CUDA 12.7, 12.8 and 12.9, 9.x with CUDA 13.x. `None`
/// without a `.version` directive, or for an ISA version older than 7.0.
///
/// PTX ISA: [PTX ISA release history](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#release-notes).
pub fn driver_for_ptx(ptx: &str) -> Option<u32> {
    let version = ptx
        .lines()
        .find_map(|line| line.trim().strip_prefix(".version "))?;
    let (major, minor) = version.trim().split_once('.')?;
    let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
    match (major, minor) {
        (7, m) => Some(11000 + 10 * m),
        (8, m @ 0..=5) => Some(12000 + 10 * m),
        (8, m) => Some(12010 + 10 * m),
        (m, n) if m >= 9 => Some(1000 * (m + 4) + 10 * n),
        _ => None,
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = if self.arch_specific { "a" } else { "" };
        write!(f, "sm_{}{}", self.compute, suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in [Target::SM_60, Target::SM_70, Target::SM_90, Target::SM_100A] {
            assert_eq!(Target::parse(&t.name()), Some(t));
        }
        assert_eq!(Target::parse("sm_9x"), None);
        assert_eq!(Target::parse("compute_90"), None);
        assert_eq!(Target::parse("sm_20"), None);
    }

    #[test]
    fn best_for_picks_the_newest_target_that_runs() {
        let list = [
            ("sm_70", "a"),
            ("sm_80", "b"),
            ("sm_90", "c"),
            ("sm_100a", "d"),
        ];
        let best = |major, minor| Target::best_for(&list, major, minor).map(|p| p.0);
        assert_eq!(best(9, 0), Some("sm_90"));
        assert_eq!(best(8, 6), Some("sm_80"));
        assert_eq!(best(10, 0), Some("sm_100a"));
        assert_eq!(best(12, 0), Some("sm_90"));
        assert_eq!(best(6, 1), None);
        assert_eq!(Target::best_for(&list, 9, 0), Some(("sm_90", "c")));
    }

    #[test]
    fn best_for_driver_picks_only_ptx_the_driver_compiles() {
        let list = [
            ("sm_70", ".version 7.0\n"),
            ("sm_80", ".version 7.0\n"),
            ("sm_90", ".version 8.1\n"),
            ("sm_100a", ".version 8.6\n"),
        ];
        let best = |major, minor, driver| {
            Target::best_for_driver(&list, major, minor, driver).map(|p| p.0)
        };
        assert_eq!(best(9, 0, 12010), Some("sm_90"));
        assert_eq!(best(9, 0, 12000), Some("sm_80"));
        assert_eq!(best(10, 0, 12060), Some("sm_90"));
        assert_eq!(best(10, 0, 12070), Some("sm_100a"));
        assert_eq!(best(9, 0, 11000), Some("sm_80"));
        assert_eq!(best(9, 0, 10020), None);
        assert_eq!(best(6, 1, 13000), None);
    }

    #[test]
    fn driver_versions_follow_the_ptx_isa_release_history() {
        let needs = |v: &str| driver_for_ptx(&format!("//\n.version {v}\n.target sm_90\n"));
        assert_eq!(needs("7.0"), Some(11000));
        assert_eq!(needs("7.8"), Some(11080));
        assert_eq!(needs("8.0"), Some(12000));
        assert_eq!(needs("8.1"), Some(12010));
        assert_eq!(needs("8.5"), Some(12050));
        assert_eq!(needs("8.6"), Some(12070));
        assert_eq!(needs("8.8"), Some(12090));
        assert_eq!(needs("9.0"), Some(13000));
        assert_eq!(needs("6.5"), None);
        assert_eq!(driver_for_ptx(".target sm_90\n"), None);
    }

    #[test]
    fn arch_specific_targets_run_only_on_their_own_device() {
        assert!(Target::SM_100A.runs_on(10, 0));
        assert!(!Target::SM_100A.runs_on(10, 3));
        assert!(!Target::SM_100A.runs_on(9, 0));
        assert!(Target::SM_70.runs_on(9, 0));
        assert!(!Target::SM_90.runs_on(8, 9));
    }
}
