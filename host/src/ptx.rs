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

/// The newest embedded target that runs on compute capability `major.minor`: an
/// arch-specific target (`sm_100a`) only on its own device, others on any newer one.
pub fn best_for(major: u32, minor: u32) -> Option<(&'static str, &'static str)> {
    Target::best_for(KERNELS_PTX, major, minor)
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
        assert_eq!(best_for(9, 0).map(|p| p.0), Some("sm_90"));
        assert_eq!(best_for(8, 6).map(|p| p.0), Some("sm_80"));
        assert_eq!(best_for(10, 0).map(|p| p.0), Some("sm_100a"));
        assert_eq!(best_for(12, 0).map(|p| p.0), Some("sm_90"));
        assert_eq!(best_for(6, 1), None);
    }

    #[test]
    fn every_default_target_is_embedded() {
        assert_eq!(targets(), ["sm_70", "sm_80", "sm_90", "sm_100a"]);
    }
}
