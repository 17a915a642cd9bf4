//! The PTX that `build.rs` compiled from `kernels/` and embedded, one module per target.

include!(concat!(env!("OUT_DIR"), "/kernels_ptx.rs"));

use warpkit_builder::Target;

/// The target names the kernels were built for.
pub fn targets() -> Vec<&'static str> {
    KERNELS_PTX.iter().map(|(t, _)| *t).collect()
}

/// The PTX for a target name (`sm_90`).
pub fn for_target(name: &str) -> Option<&'static str> {
    KERNELS_PTX
        .iter()
        .find(|(t, _)| *t == name)
        .map(|(_, p)| *p)
}

/// The cubin `ptxas` assembled for a target name, if the build had `ptxas` (see
/// `warpkit_builder::find_ptxas`) and `WARPKIT_NO_CUBIN` was not set.
pub fn cubin_for(name: &str) -> Option<&'static [u8]> {
    KERNELS_PTX_CUBIN
        .iter()
        .find(|(t, _)| *t == name)
        .map(|(_, c)| *c)
}

/// The newest embedded target that runs on compute capability `major.minor` and whose PTX a
/// driver of version `driver` (as `cuDriverGetVersion` gives it: 12010 for CUDA 12.1) can
/// compile ([`Target::best_for_driver`]): an arch-specific target (`sm_100a`) only on its own
/// device, others on any newer one. On an sm_90 device under a CUDA 12.0 driver that is
/// `sm_80`, whose PTX (7.0) it compiles, where the `sm_90` PTX (8.1) would not load.
pub fn best_for(major: u32, minor: u32, driver: u32) -> Option<(&'static str, &'static str)> {
    Target::best_for_driver(KERNELS_PTX, major, minor, driver)
}

/// The kernel names a PTX text defines: every `.entry NAME(` (with or without `.visible`).
pub fn entries(ptx: &str) -> impl Iterator<Item = &str> {
    ptx.lines().filter_map(|line| {
        let rest = line.trim_start();
        let rest = rest.strip_prefix(".visible ").unwrap_or(rest).trim_start();
        let rest = rest.strip_prefix(".entry ")?.trim_start();
        let end = rest.find(|c: char| c == '(' || c.is_whitespace())?;
        Some(&rest[..end])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_parsed_with_and_without_visible() {
        let ptx = ".version 8.0\n.visible .entry first(\n\t.param .u64 p\n)\n.entry second (\n// .entry not_code\n.func helper(\n";
        assert_eq!(entries(ptx).collect::<Vec<_>>(), ["first", "second"]);
    }

    #[test]
    fn picks_the_newest_target_that_runs() {
        let cuda_13 = 13000;
        assert_eq!(best_for(9, 0, cuda_13).map(|p| p.0), Some("sm_90"));
        assert_eq!(best_for(8, 6, cuda_13).map(|p| p.0), Some("sm_80"));
        assert_eq!(best_for(10, 0, cuda_13).map(|p| p.0), Some("sm_100a"));
        assert_eq!(best_for(12, 0, cuda_13).map(|p| p.0), Some("sm_90"));
        assert_eq!(best_for(6, 1, cuda_13), None);
    }

    #[test]
    fn picks_only_ptx_the_driver_compiles() {
        // sm_90's PTX is 8.1 (CUDA 12.1), sm_100a's 8.6 (CUDA 12.7), the others' 7.0.
        assert_eq!(best_for(9, 0, 12010).map(|p| p.0), Some("sm_90"));
        assert_eq!(best_for(9, 0, 12000).map(|p| p.0), Some("sm_80"));
        assert_eq!(best_for(10, 0, 12060).map(|p| p.0), Some("sm_90"));
        assert_eq!(best_for(10, 0, 12070).map(|p| p.0), Some("sm_100a"));
        assert_eq!(best_for(9, 0, 11000).map(|p| p.0), Some("sm_80"));
        assert_eq!(best_for(9, 0, 10020), None);
    }

    #[test]
    fn every_embedded_module_says_which_driver_it_needs() {
        for (target, ptx) in KERNELS_PTX {
            assert!(
                warpkit_builder::driver_for_ptx(ptx).is_some(),
                "{target} has a .version"
            );
        }
    }

    #[test]
    fn every_default_target_is_embedded() {
        assert_eq!(targets(), ["sm_70", "sm_80", "sm_90", "sm_100a"]);
    }
}
