//! The kernels `warpkit-host` launches: device reduce and scan, row-wise (batched) reduce and
//! scan, bandwidth probes, the GPU conformance kernels and the instruction shims.

use crate::device::Vector;
use crate::lane::{self, LaneMask};
use crate::ops::Sum;
use crate::redux::*;
use crate::shfl::*;
use crate::thread;
use crate::tile::{Flags, Tile};
use crate::vote::*;
use crate::{kernels as kernel, matching};

kernel! {
    /// Device-to-device copy with 16-byte accesses, four in flight per thread: the
    /// copy-bandwidth probe.
    pub unsafe fn warpkit_bandwidth_copy(src: *const Vector<u32, 4>, dst: *mut Vector<u32, 4>, vectors: u64) {
        let stride = thread::grid_threads();
        let n = vectors as usize;
        let mut i = thread::global_index();
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
    pub unsafe fn warpkit_bandwidth_read(src: *const Vector<u32, 4>, vectors: u64, sink: *mut u32) {
        let stride = thread::grid_threads();
        let n = vectors as usize;
        let mut i = thread::global_index();
        let mut acc = 0u32;
        let fold = |v: Vector<u32, 4>| v.0[0] ^ v.0[1] ^ v.0[2] ^ v.0[3];
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
            if acc == 0x9e37_79b9 && thread::thread_idx_x() == 1023 {
                *sink = acc;
            }
        }
    }
}

kernel! {
    /// `shfl.sync` conformance: warp `w` runs `mode` with `b = w % 64`, `c = clamp | segmask << 8`
    /// (clamp `w / 64 % 32`, segmask `w / 2048 % 32`) and `mask`. Per lane: the value, the
    /// predicate and the value of the form without predicate; lanes outside `mask` write
    /// `0xdeadbeef` and predicate 2 on their own branch.
    pub unsafe fn warpkit_test_shfl(mode: u32, mask: u32, values: *const u32, out: *mut u32, pred: *mut u32, plain: *mut u32) {
        let w = thread::global_index() / 32;
        let slot = thread::global_index();
        let b = (w % 64) as u32;
        let c = ((w / 64) % 32) as u32 | ((((w / 2048) % 32) as u32) << 8);
        // SAFETY: the host sizes every array at 32 words per warp.
        unsafe {
            let a = *values.add(slot);
            match LaneMask::new(mask) {
                Some(m) => {
                    let ((d, p), q) = match mode {
                        0 => (shfl_sync_up_b32_pred(a, b, c, m), shfl_sync_up_b32(a, b, c, m)),
                        1 => (shfl_sync_down_b32_pred(a, b, c, m), shfl_sync_down_b32(a, b, c, m)),
                        2 => (shfl_sync_bfly_b32_pred(a, b, c, m), shfl_sync_bfly_b32(a, b, c, m)),
                        _ => (shfl_sync_idx_b32_pred(a, b, c, m), shfl_sync_idx_b32(a, b, c, m)),
                    };
                    *out.add(slot) = d;
                    *pred.add(slot) = p as u32;
                    *plain.add(slot) = q;
                }
                None => {
                    *out.add(slot) = 0xdead_beef;
                    *pred.add(slot) = 2;
                    *plain.add(slot) = 0xdead_beef;
                }
            }
        }
    }

    /// `vote.sync` conformance: per lane, bits all|any|uni|none|not_all, then the ballot.
    pub unsafe fn warpkit_test_vote(masks: *const u32, preds: *const u32, out: *mut u32, ballots: *mut u32) {
        let slot = thread::global_index();
        // SAFETY: the host sizes the arrays (masks: one per warp).
        unsafe {
            let p = *preds.add(slot) != 0;
            if let Some(m) = LaneMask::new(*masks.add(slot / 32)) {
                *out.add(slot) = vote_all(m, p) as u32 | (vote_any(m, p) as u32) << 1 | (vote_uni(m, p) as u32) << 2
                    | (vote_none(m, p) as u32) << 3 | (vote_not_all(m, p) as u32) << 4;
                *ballots.add(slot) = ballot(m, p);
            }
        }
    }

    /// `match.sync` conformance: per lane any-mask, all-mask and all-predicate, for the low
    /// 32 bits (`.b32`) and the whole 64 (`.b64`).
    pub unsafe fn warpkit_test_match(masks: *const u32, values: *const u64, out: *mut u32) {
        let slot = thread::global_index();
        // SAFETY: the host sizes the arrays: out has 6 words per lane.
        unsafe {
            let v = *values.add(slot);
            if let Some(m) = LaneMask::new(*masks.add(slot / 32)) {
                let o = out.add(slot * 6);
                *o = matching::match_any_sync(m, v as u32).bits();
                let (all, p) = matching::match_all_sync(m, v as u32);
                *o.add(1) = all;
                *o.add(2) = p as u32;
                *o.add(3) = matching::match_any_sync(m, v).bits();
                let (all, p) = matching::match_all_sync(m, f64::from_bits(v));
                *o.add(4) = all;
                *o.add(5) = p as u32;
            }
        }
    }

    /// `redux.sync` conformance: per lane the 9 integer results, then the 8 `f32` results in
    /// `FloatRedux::ALL` order.
    pub unsafe fn warpkit_test_redux(masks: *const u32, values: *const u32, out: *mut u32) {
        let slot = thread::global_index();
        // SAFETY: the host sizes the arrays: out has 17 words per lane.
        unsafe {
            let v = *values.add(slot);
            let f = f32::from_bits(v);
            if let Some(m) = LaneMask::new(*masks.add(slot / 32)) {
                let r = [
                    redux_sync_add_u32(m, v), redux_sync_min_u32(m, v), redux_sync_max_u32(m, v),
                    redux_sync_add_i32(m, v as i32) as u32, redux_sync_min_i32(m, v as i32) as u32,
                    redux_sync_max_i32(m, v as i32) as u32, redux_sync_and_b32(m, v), redux_sync_or_b32(m, v),
                    redux_sync_xor_b32(m, v),
                    redux_sync_min_f32(m, f).to_bits(), redux_sync_max_f32(m, f).to_bits(),
                    redux_sync_min_abs_f32(m, f).to_bits(), redux_sync_max_abs_f32(m, f).to_bits(),
                    redux_sync_min_nan_f32(m, f).to_bits(), redux_sync_max_nan_f32(m, f).to_bits(),
                    redux_sync_min_abs_nan_f32(m, f).to_bits(), redux_sync_max_abs_nan_f32(m, f).to_bits(),
                ];
                for (k, x) in r.iter().enumerate() {
                    *out.add(slot * 17 + k) = *x;
                }
            }
        }
    }

    /// Lane registers: per lane laneid, lanemask eq/lt/le/gt/ge, and `activemask` inside a
    /// branch that only lanes whose bit is set in `branch` take (others write 0).
    pub unsafe fn warpkit_test_lanes(branch: u32, out: *mut u32) {
        let slot = thread::global_index();
        // SAFETY: out has 7 words per lane.
        unsafe {
            let o = out.add(slot * 7);
            *o = lane::lane_id();
            *o.add(1) = lane::lanemask_eq();
            *o.add(2) = lane::lanemask_lt();
            *o.add(3) = lane::lanemask_le();
            *o.add(4) = lane::lanemask_gt();
            *o.add(5) = lane::lanemask_ge();
            *o.add(6) = if branch & lane::lanemask_eq() != 0 {
                let m = lane::activemask();
                lane::warp_sync(m);
                m.bits()
            } else {
                0
            };
        }
    }
}

macro_rules! tile_test {
    ($($name:ident: $w:literal;)*) => {$(
        kernel! {
            /// Warp algorithms on `Tile<W>` with wrapping `u32` sums and an associative but
            /// not commutative operator (composing affine maps `x -> a*x + b` on `[a, b]`):
            /// per lane reduce, inclusive, exclusive, reverse inclusive, reverse exclusive,
            /// segmented inclusive (head flags), segmented reduce (tail flags), then the
            /// inclusive scan and the reduce of the maps (two words each).
            pub unsafe fn $name(values: *const u32, flags: *const u32, out: *mut u32) {
                let slot = thread::global_index();
                let t = Tile::<$w>::full();
                let op = crate::ops::FnOp {
                    identity: [1u32, 0],
                    combine: |f: [u32; 2], g: [u32; 2]| [g[0].wrapping_mul(f[0]), g[0].wrapping_mul(f[1]).wrapping_add(g[1])],
                };
                // SAFETY: out has 11 words per lane.
                unsafe {
                    let v = *values.add(slot);
                    let f = *flags.add(slot) != 0;
                    let map = [v | 1, v.rotate_left(16)];
                    let (scan, total) = (t.inclusive_scan(map, op), t.reduce(map, op));
                    let r = [
                        t.reduce(v, Sum), t.inclusive_scan(v, Sum), t.exclusive_scan(v, Sum),
                        t.reverse_inclusive_scan(v, Sum), t.reverse_exclusive_scan(v, Sum),
                        t.segmented_inclusive_scan(v, f, Flags::Head, Sum), t.segmented_reduce(v, f, Flags::Tail, Sum),
                        scan[0], scan[1], total[0], total[1],
                    ];
                    for (k, x) in r.iter().enumerate() {
                        *out.add(slot * 11 + k) = *x;
                    }
                }
            }
        }
    )*};
}

tile_test! {
    warpkit_test_tile_1: 1; warpkit_test_tile_2: 2; warpkit_test_tile_4: 4;
    warpkit_test_tile_8: 8; warpkit_test_tile_16: 16; warpkit_test_tile_32: 32;
}

/// One shim per wrapper: loads its operands from the thread's 4 words of `io`, calls the
/// wrapper once, stores the result. `crate::instr::SHIMS` lists the instruction each must contain.
macro_rules! shims {
    ($($name:ident(|$a:ident, $b:ident, $c:ident| $e:expr);)*) => {$(
        kernel! {
            pub unsafe fn $name(io: *mut u32) {
                // SAFETY: io holds 4 words per thread. Per-lane data: a warp-uniform value
                // would let ptxas prove a shuffle is the identity and drop it.
                unsafe {
                    let io = io.add(4 * thread::thread_idx_x() as usize);
                    let ($a, $b, $c) = (*io, *io.add(1), *io.add(2));
                    let r: u32 = $e;
                    *io.add(3) = r;
                }
            }
        }
    )*};
}

const M: LaneMask = LaneMask::FULL;

shims! {
    warpkit_instr_shfl_up(|a, b, c| shfl_sync_up_b32(a, b, c, M));
    warpkit_instr_shfl_down(|a, b, c| shfl_sync_down_b32(a, b, c, M));
    warpkit_instr_shfl_bfly(|a, b, c| shfl_sync_bfly_b32(a, b, c, M));
    warpkit_instr_shfl_idx(|a, b, c| shfl_sync_idx_b32(a, b, c, M));
    warpkit_instr_shfl_up_pred(|a, b, c| { let (d, p) = shfl_sync_up_b32_pred(a, b, c, M); d ^ p as u32 });
    warpkit_instr_shfl_down_pred(|a, b, c| { let (d, p) = shfl_sync_down_b32_pred(a, b, c, M); d ^ p as u32 });
    warpkit_instr_shfl_bfly_pred(|a, b, c| { let (d, p) = shfl_sync_bfly_b32_pred(a, b, c, M); d ^ p as u32 });
    warpkit_instr_shfl_idx_pred(|a, b, c| { let (d, p) = shfl_sync_idx_b32_pred(a, b, c, M); d ^ p as u32 });
    warpkit_instr_shfl_f64(|a, b, _c| { let x = f64::from_bits((a as u64) << 32 | b as u64); shfl_sync(M, x, a, 32).to_bits() as u32 });
    warpkit_instr_shfl_u8(|a, b, _c| shfl_down_sync(M, a as u8, b, 16) as u32);
    warpkit_instr_shfl_12_bytes(|a, b, c| { let x = shfl_xor_sync(M, [a, b, c], b, 32); x[0] ^ x[1] ^ x[2] });
    warpkit_instr_vote_all(|a, _b, _c| vote_all(M, a != 0) as u32);
    warpkit_instr_vote_any(|a, _b, _c| vote_any(M, a != 0) as u32);
    warpkit_instr_vote_uni(|a, _b, _c| vote_uni(M, a != 0) as u32);
    warpkit_instr_vote_none(|a, _b, _c| vote_none(M, a != 0) as u32);
    warpkit_instr_vote_not_all(|a, _b, _c| vote_not_all(M, a != 0) as u32);
    warpkit_instr_ballot(|a, _b, _c| ballot(M, a != 0));
    warpkit_instr_match_any_b32(|a, _b, _c| matching::match_any_sync(M, a).bits());
    warpkit_instr_match_any_b64(|a, b, _c| matching::match_any_sync(M, (a as u64) << 32 | b as u64).bits());
    warpkit_instr_match_all_b32(|a, _b, _c| { let (m, p) = matching::match_all_sync(M, a); m ^ p as u32 });
    warpkit_instr_match_all_b64(|a, b, _c| { let (m, p) = matching::match_all_sync(M, (a as i64) << 32 | b as i64); m ^ p as u32 });
    warpkit_instr_activemask(|_a, _b, _c| lane::activemask().bits());
    warpkit_instr_warp_sync(|a, _b, _c| { lane::warp_sync(M); a });
    warpkit_instr_lane_id(|_a, _b, _c| lane::lane_id());
    warpkit_instr_lanemask_lt(|_a, _b, _c| lane::lanemask_lt());
    warpkit_instr_redux_add_u32(|a, _b, _c| redux_sync_add_u32(M, a));
    warpkit_instr_redux_min_u32(|a, _b, _c| redux_sync_min_u32(M, a));
    warpkit_instr_redux_max_u32(|a, _b, _c| redux_sync_max_u32(M, a));
    warpkit_instr_redux_add_i32(|a, _b, _c| redux_sync_add_i32(M, a as i32) as u32);
    warpkit_instr_redux_min_i32(|a, _b, _c| redux_sync_min_i32(M, a as i32) as u32);
    warpkit_instr_redux_max_i32(|a, _b, _c| redux_sync_max_i32(M, a as i32) as u32);
    warpkit_instr_redux_and(|a, _b, _c| redux_sync_and_b32(M, a));
    warpkit_instr_redux_or(|a, _b, _c| redux_sync_or_b32(M, a));
    warpkit_instr_redux_xor(|a, _b, _c| redux_sync_xor_b32(M, a));
    warpkit_instr_redux_min_f32(|a, _b, _c| redux_sync_min_f32(M, f32::from_bits(a)).to_bits());
    warpkit_instr_redux_max_abs_nan_f32(|a, _b, _c| redux_sync_max_abs_nan_f32(M, f32::from_bits(a)).to_bits());
    warpkit_instr_warp_sum_u32(|a, _b, _c| Tile::<32>::full().reduce(a, Sum));
}
