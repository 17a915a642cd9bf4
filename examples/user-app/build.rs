use warpkit_builder::{PtxBuilder, Target};

fn main() {
    // rustc runs this build script again as the PTX linker: let it do that first.
    warpkit_builder::run_as_linker_if_requested();
    // PTX for every target, and a cubin for each (`USER_KERNELS_PTX_CUBIN`).
    PtxBuilder::new("../user-kernels")
        .targets(Target::DEFAULT)
        .embed("USER_KERNELS_PTX");
}
