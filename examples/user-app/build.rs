use warpkit_builder::{PtxBuilder, Target};

fn main() {
    // rustc runs this build script again as the PTX linker: let it do that first.
    warpkit_builder::run_as_linker_if_requested();
    let mut builder = PtxBuilder::new("../user-kernels");
    if std::env::var_os("CARGO_FEATURE_CUSTOM").is_some() {
        builder = builder.feature("custom");
    }
    builder.targets(Target::DEFAULT).embed("USER_KERNELS_PTX");
}
