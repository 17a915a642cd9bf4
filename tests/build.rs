//! Builds the test kernels (`kernels/`, crate `warpkit-test-kernels`) and the library's own
//! kernels into PTX for every supported target and embeds them.

use warpkit_builder::{PtxBuilder, Target};

fn main() {
    // rustc runs this build script again as the PTX linker: let it do that first.
    warpkit_builder::run_as_linker_if_requested();
    PtxBuilder::new("kernels")
        .targets(Target::DEFAULT)
        .embed("TEST_KERNELS_PTX");
    // The deprecated non-.sync shfl exists only below sm_70: built for sm_60, never loaded.
    PtxBuilder::new("kernels")
        .feature("legacy-shfl")
        .target(Target::SM_60)
        .embed("LEGACY_PTX");
    // The library built below sm_70, where it must offer no warp `.sync` instruction.
    PtxBuilder::new("../kernels")
        .feature("kernels")
        .target(Target::SM_60)
        .cubins(false)
        .embed("LIBRARY_SM60_PTX");
    // The library's PTX, as warpkit-host embeds it (same flags: cargo's cache serves both).
    PtxBuilder::new("../kernels")
        .feature("kernels")
        .targets(Target::DEFAULT)
        .embed("LIBRARY_PTX");
}
