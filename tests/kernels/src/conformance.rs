//! The GPU conformance kernels: every instruction wrapper and the `Tile` algorithms run on
//! data that `warpkit-tests` checks against `warpkit::model` and CPU references.

use crate::{special_f32, special_f64};
use warpkit::LaneMask;
use warpkit::instr::{activemask::activemask_b32, barrier::bar_warp_sync, matching::*};
use warpkit::instr::{redux::*, shfl::*, sreg, vote::*};
use warpkit::kernel::global_index;
use warpkit::ops::ranked::{LowestRank, Ranked};
use warpkit::ops::{Max, MaxNumF64, Min, MinNumF64, Sum, canonical_nan};
use warpkit::warp::{Flags, Tile};

/// `shfl.sync` conformance: warp `w` runs `mode` with `b = w % 64`, `c = clamp | segmask << 8`
/// (clamp `w / 64 % 32`, segmask `w / 2048 % 32`) and `mask`. Per lane: the value, the
/// predicate and the value of the form without predicate; lanes outside `mask` write
/// `0xdeadbeef` and predicate 2 on their own branch.
#[warpkit::kernel]
pub unsafe fn warpkit_test_shfl(
    mode: u32,
    mask: u32,
    values: *const u32,
    out: *mut u32,
    pred: *mut u32,
    plain: *mut u32,
) {
    let w = global_index() / 32;
    let slot = global_index();
    let b = (w % 64) as u32;
    let c = ((w / 64) % 32) as u32 | ((((w / 2048) % 32) as u32) << 8);
    // SAFETY: the host sizes every array at 32 words per warp.
    unsafe {
        let a = *values.add(slot);
        match LaneMask::new(mask) {
            Some(m) => {
                let ((d, p), q) = match mode {
                    0 => (
                        shfl_sync_up_b32_pred(a, b, c, m),
                        shfl_sync_up_b32(a, b, c, m),
                    ),
                    1 => (
                        shfl_sync_down_b32_pred(a, b, c, m),
                        shfl_sync_down_b32(a, b, c, m),
                    ),
                    2 => (
                        shfl_sync_bfly_b32_pred(a, b, c, m),
                        shfl_sync_bfly_b32(a, b, c, m),
                    ),
                    _ => (
                        shfl_sync_idx_b32_pred(a, b, c, m),
                        shfl_sync_idx_b32(a, b, c, m),
                    ),
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
#[warpkit::kernel]
pub unsafe fn warpkit_test_vote(
    masks: *const u32,
    preds: *const u32,
    out: *mut u32,
    ballots: *mut u32,
) {
    let slot = global_index();
    // SAFETY: the host sizes the arrays (masks: one per warp).
    unsafe {
        let p = *preds.add(slot) != 0;
        if let Some(m) = LaneMask::new(*masks.add(slot / 32)) {
            *out.add(slot) = vote_sync_all_pred(m, p) as u32
                | (vote_sync_any_pred(m, p) as u32) << 1
                | (vote_sync_uni_pred(m, p) as u32) << 2
                | (vote_sync_all_pred_not(m, p) as u32) << 3
                | (vote_sync_any_pred_not(m, p) as u32) << 4;
            *ballots.add(slot) = vote_sync_ballot_b32(m, p);
        }
    }
}

/// `match.sync` conformance: per lane any-mask, all-mask and all-predicate, for the low
/// 32 bits (`.b32`) and the whole 64 (`.b64`).
#[warpkit::kernel]
pub unsafe fn warpkit_test_match(masks: *const u32, values: *const u64, out: *mut u32) {
    let slot = global_index();
    // SAFETY: the host sizes the arrays: out has 6 words per lane.
    unsafe {
        let v = *values.add(slot);
        if let Some(m) = LaneMask::new(*masks.add(slot / 32)) {
            let o = out.add(slot * 6);
            *o = match_any_sync_b32(m, v as u32).bits();
            let (all, p) = match_all_sync_b32(m, v as u32);
            *o.add(1) = all;
            *o.add(2) = p as u32;
            *o.add(3) = match_any_sync_b64(m, v).bits();
            let (all, p) = warpkit::warp::matching::match_all_sync(m, f64::from_bits(v));
            *o.add(4) = all;
            *o.add(5) = p as u32;
        }
    }
}

/// Words per lane of the `redux.sync` kernels' output: [`redux_all`]'s.
const REDUX_WORDS: usize = 17;

/// Every `redux.sync` wrapper over `m`: the 9 integer results, then the 8 `f32` results in
/// `FloatRedux::ALL` order.
#[inline(always)]
fn redux_all(m: LaneMask, v: u32) -> [u32; REDUX_WORDS] {
    let f = f32::from_bits(v);
    [
        redux_sync_add_u32(m, v),
        redux_sync_min_u32(m, v),
        redux_sync_max_u32(m, v),
        redux_sync_add_i32(m, v as i32) as u32,
        redux_sync_min_i32(m, v as i32) as u32,
        redux_sync_max_i32(m, v as i32) as u32,
        redux_sync_and_b32(m, v),
        redux_sync_or_b32(m, v),
        redux_sync_xor_b32(m, v),
        redux_sync_min_f32(m, f).to_bits(),
        redux_sync_max_f32(m, f).to_bits(),
        redux_sync_min_abs_f32(m, f).to_bits(),
        redux_sync_max_abs_f32(m, f).to_bits(),
        redux_sync_min_nan_f32(m, f).to_bits(),
        redux_sync_max_nan_f32(m, f).to_bits(),
        redux_sync_min_abs_nan_f32(m, f).to_bits(),
        redux_sync_max_abs_nan_f32(m, f).to_bits(),
    ]
}

/// `redux.sync` conformance: the lanes whose bit of `exits[warp]` is set return first; the
/// others of `masks[warp]` write [`redux_all`]'s 17 words, which must cover the lanes still
/// present only.
#[warpkit::kernel]
pub unsafe fn warpkit_test_redux(
    masks: *const u32,
    exits: *const u32,
    values: *const u32,
    out: *mut u32,
) {
    let slot = global_index();
    // SAFETY: the host sizes the arrays: one word per warp, out 17 words per lane.
    unsafe {
        if *exits.add(slot / 32) & sreg::lanemask_eq() != 0 {
            return;
        }
        if let Some(m) = LaneMask::new(*masks.add(slot / 32)) {
            let r = redux_all(m, *values.add(slot));
            out.add(slot * REDUX_WORDS)
                .cast::<[u32; REDUX_WORDS]>()
                .write(r);
        }
    }
}

/// Lane registers: per lane laneid, lanemask eq/lt/le/gt/ge, and `activemask` in both arms of
/// a branch that only lanes whose bit is set in `branch` take: those write it, the others its
/// complement, so every lane writes `branch` (where `branch` takes every lane, the else arm's
/// lanes are none). If the compiler merged the two `activemask`s into one before the branch,
/// the lanes would write all ones and zeros instead.
#[warpkit::kernel]
pub unsafe fn warpkit_test_lanes(branch: u32, out: *mut u32) {
    let slot = global_index();
    // SAFETY: out has 7 words per lane.
    unsafe {
        let o = out.add(slot * 7);
        *o = sreg::laneid();
        *o.add(1) = sreg::lanemask_eq();
        *o.add(2) = sreg::lanemask_lt();
        *o.add(3) = sreg::lanemask_le();
        *o.add(4) = sreg::lanemask_gt();
        *o.add(5) = sreg::lanemask_ge();
        *o.add(6) = if branch & sreg::lanemask_eq() != 0 {
            let m = activemask_b32();
            bar_warp_sync(m);
            m.bits()
        } else {
            let m = activemask_b32();
            bar_warp_sync(m);
            !m.bits()
        };
    }
}

macro_rules! tile_test {
    ($($name:ident: $w:literal;)*) => {$(
        /// Warp algorithms on `Tile<W>` with wrapping `u32` sums and an associative but
        /// not commutative operator (composing affine maps `x -> a*x + b` on `[a, b]`):
        /// per lane reduce, inclusive, exclusive, reverse inclusive, reverse exclusive,
        /// segmented inclusive (head flags), segmented reduce (tail flags), then the
        /// inclusive scan and the reduce of the maps (two words each); then, low word first,
        /// the reduces that take two `redux.sync` on sm_80 and newer, on values whose high
        /// words often tie: the `u64` minimum and maximum, the `i64` minimum and maximum and
        /// the lowest `Ranked<u32, u32>` (rank, then index); the wrapping `u64` sum; the
        /// `f32` and `f64` minimum and maximum of values with NaNs, infinities and zeros of
        /// both signs among them ([`crate::special_f32`], [`crate::special_f64`]), `f64` also by `min.f64`/`max.f64`;
        /// last the lowest `Ranked<u64, u64>` (four `redux.sync`), whose ranks tie often and
        /// whose indices' high words do.
        #[warpkit::kernel]
        pub unsafe fn $name(values: *const u32, flags: *const u32, out: *mut u32) {
            let slot = global_index();
            let t = Tile::<$w>::full();
            let op = warpkit::ops::FnOp {
                identity: [1u32, 0],
                combine: |f: [u32; 2], g: [u32; 2]| [g[0].wrapping_mul(f[0]), g[0].wrapping_mul(f[1]).wrapping_add(g[1])],
            };
            // SAFETY: out has 37 words per lane.
            unsafe {
                let v = *values.add(slot);
                let f = *flags.add(slot) != 0;
                let map = [v | 1, v.rotate_left(16)];
                let (scan, total) = (t.inclusive_scan(map, op), t.reduce(map, op));
                let wide = (v as u64 >> 30) << 32 | v.rotate_left(7) as u64;
                let signed = ((v >> 29) as i64 - 4) << 32 | v.rotate_left(13) as i64;
                let ranked = Ranked { rank: v >> 30, index: v.rotate_left(3) };
                let (min, max) = (t.reduce(wide, Min), t.reduce(wide, Max));
                let (smin, smax) = (t.reduce(signed, Min) as u64, t.reduce(signed, Max) as u64);
                let lowest = t.reduce(ranked, LowestRank);
                let ranked_wide = Ranked {
                    rank: ((v >> 30) as u64) << 32 | (v >> 28 & 3) as u64,
                    index: ((v >> 26 & 1) as u64) << 32 | v.rotate_left(5) as u64,
                };
                let lowest_wide = t.reduce(ranked_wide, LowestRank);
                let sum = t.reduce(wide.wrapping_mul(0x9e37_79b9_7f4a_7c15), Sum);
                let single = special_f32(v, f32::from_bits(v));
                let double = special_f64(v, f64::from_bits((v as u64) << 32 | v.rotate_left(9) as u64));
                let (fmin, fmax) = (t.reduce(single, Min).to_bits(), t.reduce(single, Max).to_bits());
                let (dmin, dmax) = (t.reduce(double, Min).to_bits(), t.reduce(double, Max).to_bits());
                let (nmin, nmax) = (t.reduce(double, MinNumF64), t.reduce(double, MaxNumF64));
                let (nmin, nmax) = (canonical_nan(nmin).to_bits(), canonical_nan(nmax).to_bits());
                let r = [
                    t.reduce(v, Sum), t.inclusive_scan(v, Sum), t.exclusive_scan(v, Sum),
                    t.reverse_inclusive_scan(v, Sum), t.reverse_exclusive_scan(v, Sum),
                    t.segmented_inclusive_scan(v, f, Flags::Head, Sum), t.segmented_reduce(v, f, Flags::Tail, Sum),
                    scan[0], scan[1], total[0], total[1],
                    min as u32, (min >> 32) as u32, max as u32, (max >> 32) as u32,
                    smin as u32, (smin >> 32) as u32, smax as u32, (smax >> 32) as u32,
                    lowest.rank, lowest.index,
                    sum as u32, (sum >> 32) as u32, fmin, fmax,
                    dmin as u32, (dmin >> 32) as u32, dmax as u32, (dmax >> 32) as u32,
                    nmin as u32, (nmin >> 32) as u32, nmax as u32, (nmax >> 32) as u32,
                    lowest_wide.rank as u32, (lowest_wide.rank >> 32) as u32,
                    lowest_wide.index as u32, (lowest_wide.index >> 32) as u32,
                ];
                for (k, x) in r.iter().enumerate() {
                    *out.add(slot * 37 + k) = *x;
                }
            }
        }
    )*};
}

tile_test! {
    warpkit_test_tile_1: 1; warpkit_test_tile_2: 2; warpkit_test_tile_4: 4;
    warpkit_test_tile_8: 8; warpkit_test_tile_16: 16; warpkit_test_tile_32: 32;
}
