pub mod ptx {
    include!(concat!(env!("OUT_DIR"), "/kernels_ptx.rs"));
    include!(concat!(env!("OUT_DIR"), "/legacy_ptx.rs"));
}
