fn main() {
    // rustc runs this build script again as the PTX linker: let it do that first.
    warpkit_builder::run_as_linker_if_requested();
    warpkit_builder::PtxBuilder::new("kernels")
        .targets(warpkit_builder::Target::DEFAULT)
        .embed("MY_KERNELS_PTX");
}
