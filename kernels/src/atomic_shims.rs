//! Instruction checks of [`crate::atomic`]: one shim kernel per checked wrapper, calling it
//! once on the thread's 4 words of `io` (as `entry.rs`'s shims do), and the instruction its
//! PTX must contain, written out by hand (not derived from the wrapper's name). The host test
//! `host/tests/authoring.rs` checks them like `instr::SHIMS`.
//!
//! Merge note: the layout change moves shims to the test-kernels crate; this list goes with
//! them (one `shims!` list per instruction family there).

macro_rules! atomic_shims {
    ($($f:ident: $kind:ident => $instr:literal;)*) => {
        /// (shim kernel, instruction it must contain once).
        pub const SHIMS: &[(&str, &str)] = &[$((concat!("warpkit_instr_", stringify!($f)), $instr),)*];

        #[cfg(all(target_arch = "nvptx64", feature = "kernels"))]
        mod kernels {
            use crate::atomic::*;
            $(atomic_shims!(@kernel $f $kind);)*
        }
    };
    (@kernel $f:ident $kind:ident) => {
        crate::kernels! {
            pub unsafe fn ${concat(warpkit_instr_, $f)}(io: *mut u32) {
                // SAFETY: io holds 4 words per thread, 16-byte aligned per thread.
                unsafe {
                    let io = io.add(4 * crate::thread::thread_idx_x() as usize);
                    atomic_shims!(@body $f $kind io);
                }
            }
        }
    };
    (@body $f:ident u32 $io:ident) => { *$io.add(1) = $f($io.add(3), *$io) };
    (@body $f:ident cas32 $io:ident) => { *$io.add(1) = $f($io.add(3), *$io, *$io.add(1)) };
    (@body $f:ident f32 $io:ident) => {
        *$io.add(1) = $f($io.add(3).cast::<f32>(), f32::from_bits(*$io)).to_bits()
    };
    (@body $f:ident u64 $io:ident) => {
        *$io = $f($io.add(2).cast::<u64>(), *$io as u64 | (*$io.add(1) as u64) << 32) as u32
    };
    (@body $f:ident cas64 $io:ident) => {
        *$io = $f($io.add(2).cast::<u64>(), *$io as u64, *$io.add(1) as u64) as u32
    };
    (@body $f:ident f64 $io:ident) => {
        *$io = $f($io.add(2).cast::<f64>(), f64::from_bits(*$io as u64)).to_bits() as u32
    };
}

atomic_shims! {
    atom_add_relaxed_cta_u32: u32 => "atom.relaxed.cta.add.u32";
    atom_add_relaxed_gpu_u32: u32 => "atom.relaxed.gpu.add.u32";
    atom_add_relaxed_sys_u32: u32 => "atom.relaxed.sys.add.u32";
    atom_add_acquire_cta_u32: u32 => "atom.acquire.cta.add.u32";
    atom_add_acquire_gpu_u32: u32 => "atom.acquire.gpu.add.u32";
    atom_add_acquire_sys_u32: u32 => "atom.acquire.sys.add.u32";
    atom_add_release_cta_u32: u32 => "atom.release.cta.add.u32";
    atom_add_release_gpu_u32: u32 => "atom.release.gpu.add.u32";
    atom_add_release_sys_u32: u32 => "atom.release.sys.add.u32";
    atom_add_acq_rel_cta_u32: u32 => "atom.acq_rel.cta.add.u32";
    atom_add_acq_rel_gpu_u32: u32 => "atom.acq_rel.gpu.add.u32";
    atom_add_acq_rel_sys_u32: u32 => "atom.acq_rel.sys.add.u32";
    atom_add_relaxed_gpu_u64: u64 => "atom.relaxed.gpu.add.u64";
    atom_add_relaxed_gpu_f32: f32 => "atom.relaxed.gpu.add.f32";
    atom_add_relaxed_gpu_f64: f64 => "atom.relaxed.gpu.add.f64";
    atom_min_relaxed_gpu_u32: u32 => "atom.relaxed.gpu.min.u32";
    atom_min_relaxed_gpu_u64: u64 => "atom.relaxed.gpu.min.u64";
    atom_max_relaxed_gpu_u32: u32 => "atom.relaxed.gpu.max.u32";
    atom_max_relaxed_gpu_u64: u64 => "atom.relaxed.gpu.max.u64";
    atom_exch_relaxed_gpu_b32: u32 => "atom.relaxed.gpu.exch.b32";
    atom_exch_relaxed_gpu_b64: u64 => "atom.relaxed.gpu.exch.b64";
    atom_cas_acq_rel_gpu_b32: cas32 => "atom.acq_rel.gpu.cas.b32";
    atom_cas_acq_rel_gpu_b64: cas64 => "atom.acq_rel.gpu.cas.b64";
    atom_and_relaxed_gpu_b32: u32 => "atom.relaxed.gpu.and.b32";
    atom_and_relaxed_gpu_b64: u64 => "atom.relaxed.gpu.and.b64";
    atom_or_relaxed_gpu_b32: u32 => "atom.relaxed.gpu.or.b32";
    atom_or_relaxed_gpu_b64: u64 => "atom.relaxed.gpu.or.b64";
    atom_xor_relaxed_gpu_b32: u32 => "atom.relaxed.gpu.xor.b32";
    atom_xor_relaxed_gpu_b64: u64 => "atom.relaxed.gpu.xor.b64";
}
