//! Compiles the kernel crate into PTX for every supported target and embeds it.

use warpkit_builder::{PtxBuilder, Target};

fn main() {
    warpkit_builder::run_as_linker_if_requested();
    PtxBuilder::new("../kernels")
        .feature("kernels")
        .targets(Target::DEFAULT)
        .embed("KERNELS_PTX");
}
