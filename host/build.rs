//! Compiles the kernel crate into PTX for every supported target and embeds it.

use warpkit_builder::{PtxBuilder, Target};

fn main() {
    warpkit_builder::run_as_linker_if_requested();
    PtxBuilder::new("../kernels")
        .feature("kernels")
        .targets(Target::DEFAULT)
        .embed("KERNELS_PTX");
    // The deprecated non-.sync shfl exists only below sm_70: built for sm_60, never loaded.
    PtxBuilder::new("../kernels")
        .feature("legacy-shfl")
        .target(Target::SM_60)
        .embed("LEGACY_PTX");
}
