//! The bandwidth probes `warpkit-benches` measures its limits with: a streaming copy and a
//! streaming read, 16 bytes per access, four accesses in flight per thread.

use warpkit::kernel::{global_index, grid_threads, thread_idx_x};

/// Four `u32`s that a thread loads or stores with one 16-byte access.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Vector(pub [u32; 4]);

/// Device-to-device copy with 16-byte accesses, four in flight per thread: the
/// copy-bandwidth probe.
#[warpkit::kernel]
pub unsafe fn warpkit_bandwidth_copy(src: *const Vector, dst: *mut Vector, vectors: u64) {
    let stride = grid_threads();
    let n = vectors as usize;
    let mut i = global_index();
    // SAFETY: every index is below `vectors`, the buffers' length.
    unsafe {
        while i + 3 * stride < n {
            // Scalars, not struct copies: a struct copy is a memcpy that must wait in local
            // memory, as dst may alias the source words still to be read.
            let Vector(a) = *src.add(i);
            let Vector(b) = *src.add(i + stride);
            let Vector(c) = *src.add(i + 2 * stride);
            let Vector(d) = *src.add(i + 3 * stride);
            *dst.add(i) = Vector([a[0], a[1], a[2], a[3]]);
            *dst.add(i + stride) = Vector([b[0], b[1], b[2], b[3]]);
            *dst.add(i + 2 * stride) = Vector([c[0], c[1], c[2], c[3]]);
            *dst.add(i + 3 * stride) = Vector([d[0], d[1], d[2], d[3]]);
            i += 4 * stride;
        }
        while i < n {
            *dst.add(i) = *src.add(i);
            i += stride;
        }
    }
}

/// Reads every 16 bytes once, four loads in flight per thread, and writes only if an
/// impossible value turns up: the read-bandwidth probe.
#[warpkit::kernel]
pub unsafe fn warpkit_bandwidth_read(src: *const Vector, vectors: u64, sink: *mut u32) {
    let stride = grid_threads();
    let n = vectors as usize;
    let mut i = global_index();
    let mut acc = 0u32;
    let fold = |v: Vector| v.0[0] ^ v.0[1] ^ v.0[2] ^ v.0[3];
    // SAFETY: every index is below `vectors`, the buffer's length.
    unsafe {
        while i + 3 * stride < n {
            let a = *src.add(i);
            let b = *src.add(i + stride);
            let c = *src.add(i + 2 * stride);
            let d = *src.add(i + 3 * stride);
            acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
            i += 4 * stride;
        }
        while i < n {
            acc ^= fold(*src.add(i));
            i += stride;
        }
        if acc == 0x9e37_79b9 && thread_idx_x() == 1023 {
            *sink = acc;
        }
    }
}
