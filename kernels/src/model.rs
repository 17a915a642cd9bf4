//! The CPU reference model: each warp instruction over the 32 lanes of a warp, written from
//! the *Semantics* pseudo-code of the PTX ISA's sections
//! [`shfl.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-shfl-sync),
//! [`vote.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-vote-sync),
//! [`match.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-match-sync),
//! [`redux.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-redux-sync)
//! and the special registers
//! ([`%lanemask_eq` and friends](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#special-registers-lanemask-eq)),
//! and from CUDA's width semantics (CUDA C++ Programming Guide,
//! [Warp Shuffle Functions](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#warp-shuffle-functions)).
//! Host only.
//!
//! A lane that does not execute the instruction (outside `membermask`) has no result
//! (`None`); a value read from such a lane is undefined, which the model also says (`None`).

use crate::instr::shfl::ShflMode;
use crate::warp::redux::FloatRedux;

/// Lanes in a warp.
pub const WARP: usize = 32;

/// The source lane `j` and predicate `pval` that `shfl.sync` computes in lane `lane`,
/// exactly as the pseudo-code: `bval = b[4:0]`, `cval = c[4:0]`, `segmask = c[12:8]`.
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = (lane & 0x1f) as i32;
    let bval = (b & 0x1f) as i32;
    let cval = (c & 0x1f) as i32;
    let segmask = ((c >> 8) & 0x1f) as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane - bval;
            (j, j >= max_lane)
        }
        ShflMode::Down => {
            let j = lane + bval;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    let j = if pval { j } else { lane };
    (j as u32, pval)
}

/// One lane's result of `shfl.sync`: the value (`None` when read from a lane outside the
/// mask: undefined) and the predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShflLane {
    pub value: Option<u32>,
    pub in_range: bool,
}

/// `shfl.sync` over a warp: `None` for lanes outside `membermask`.
pub fn shfl_sync(
    mode: ShflMode,
    values: &[u32; WARP],
    b: u32,
    c: u32,
    membermask: u32,
) -> [Option<ShflLane>; WARP] {
    core::array::from_fn(|lane| {
        let lane = lane as u32;
        in_mask(membermask, lane).then(|| {
            let (j, in_range) = shfl_source(mode, lane, b, c);
            let value = in_mask(membermask, j).then(|| values[j as usize]);
            ShflLane { value, in_range }
        })
    })
}

/// Whether bit `lane` of `mask` is set.
pub fn in_mask(mask: u32, lane: u32) -> bool {
    lane < 32 && mask & (1 << lane) != 0
}

/// The predicates of the lanes in `mask`.
fn voters(mask: u32, preds: &[bool; WARP]) -> impl Iterator<Item = bool> + '_ {
    (0..WARP as u32)
        .filter(move |&l| in_mask(mask, l))
        .map(|l| preds[l as usize])
}

/// `vote.sync.all`
pub fn vote_all(mask: u32, preds: &[bool; WARP]) -> bool {
    voters(mask, preds).all(|p| p)
}

/// `vote.sync.any`
pub fn vote_any(mask: u32, preds: &[bool; WARP]) -> bool {
    voters(mask, preds).any(|p| p)
}

/// `vote.sync.uni`
pub fn vote_uni(mask: u32, preds: &[bool; WARP]) -> bool {
    vote_all(mask, preds) || !vote_any(mask, preds)
}

/// `vote.sync.ballot.b32`: lanes outside `mask` contribute 0.
pub fn ballot(mask: u32, preds: &[bool; WARP]) -> u32 {
    (0..WARP)
        .filter(|&l| in_mask(mask, l as u32) && preds[l])
        .fold(0, |acc, l| acc | 1 << l)
}

/// `match.any.sync`: the lanes of `mask` holding the value of `lane`, compared bit for bit as
/// the instruction does (`-0.0` and `+0.0` differ, a NaN matches its own bits).
pub fn match_any<T: bytemuck::NoUninit>(mask: u32, values: &[T; WARP], lane: usize) -> u32 {
    let bits = |l: usize| bytemuck::bytes_of(&values[l]);
    (0..WARP)
        .filter(|&l| in_mask(mask, l as u32) && bits(l) == bits(lane))
        .fold(0, |acc, l| acc | 1 << l)
}

/// `match.all.sync`: (`mask`, true) if every lane of `mask` holds the same value (bit for
/// bit), else (0, false).
pub fn match_all<T: bytemuck::NoUninit>(mask: u32, values: &[T; WARP], lane: usize) -> (u32, bool) {
    if match_any(mask, values, lane) == mask {
        (mask, true)
    } else {
        (0, false)
    }
}

/// The integer and bitwise `redux.sync` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntRedux {
    AddU32,
    MinU32,
    MaxU32,
    AddS32,
    MinS32,
    MaxS32,
    And,
    Or,
    Xor,
}

impl IntRedux {
    /// In the order of the conformance kernel's output.
    pub const ALL: [IntRedux; 9] = [
        IntRedux::AddU32,
        IntRedux::MinU32,
        IntRedux::MaxU32,
        IntRedux::AddS32,
        IntRedux::MinS32,
        IntRedux::MaxS32,
        IntRedux::And,
        IntRedux::Or,
        IntRedux::Xor,
    ];

    fn combine(self, a: u32, b: u32) -> u32 {
        let (sa, sb) = (a as i32, b as i32);
        match self {
            IntRedux::AddU32 | IntRedux::AddS32 => a.wrapping_add(b),
            IntRedux::MinU32 => a.min(b),
            IntRedux::MaxU32 => a.max(b),
            IntRedux::MinS32 => sa.min(sb) as u32,
            IntRedux::MaxS32 => sa.max(sb) as u32,
            IntRedux::And => a & b,
            IntRedux::Or => a | b,
            IntRedux::Xor => a ^ b,
        }
    }
}

/// `redux.sync` on integers over the lanes of `mask` (non-empty).
pub fn redux_int(op: IntRedux, mask: u32, values: &[u32; WARP]) -> u32 {
    (0..WARP)
        .filter(|&l| in_mask(mask, l as u32))
        .map(|l| values[l])
        .reduce(|a, b| op.combine(a, b))
        .expect("membermask names at least the calling lane")
}

/// `f32` bit patterns the `redux.sync` checks draw often: both zeros, both infinities, a quiet
/// NaN, a negative NaN with a payload, a signalling NaN, the smallest subnormal.
pub const F32_SPECIAL_BITS: [u32; 8] = [
    0,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_1234,
    0x7f80_0001,
    1,
];

/// `redux.sync.{min,max}{.abs}{.NaN}.f32` over the lanes of `mask` (non-empty), from the PTX
/// ISA's text rather than [`FloatRedux`]'s combine (which the fallback uses): with `.abs` the
/// absolute values; with `.NaN` any NaN input gives the canonical NaN, without it NaNs are
/// skipped and only an all-NaN input gives it; `-0.0 < +0.0`.
pub fn redux_f32(op: FloatRedux, mask: u32, values: &[f32; WARP]) -> f32 {
    let canonical = f32::from_bits(crate::warp::redux::CANONICAL_NAN);
    let inputs = || {
        (0..WARP).filter(|&l| in_mask(mask, l as u32)).map(|l| {
            let x = values[l];
            if op.abs {
                f32::from_bits(x.to_bits() & 0x7fff_ffff)
            } else {
                x
            }
        })
    };
    assert!(
        inputs().next().is_some(),
        "membermask names at least the calling lane"
    );
    if op.nan && inputs().any(f32::is_nan) {
        return canonical;
    }
    // `b` replaces `a` if it is smaller (larger), or the same zero with the sign that wins.
    let replaces = |a: f32, b: f32| {
        let negative_wins = !op.max;
        if a == b {
            b.is_sign_negative() == negative_wins && a.is_sign_negative() != negative_wins
        } else if op.max {
            b > a
        } else {
            b < a
        }
    };
    inputs()
        .filter(|x| !x.is_nan())
        .reduce(|a, b| if replaces(a, b) { b } else { a })
        .unwrap_or(canonical)
}

/// `min.u16x2`: the smaller of `a`'s and `b`'s lanes, bits 0-15 and 16-31 each on their own
/// (PTX ISA, [Integer Arithmetic Instructions: `min`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#integer-arithmetic-instructions-min)).
pub fn min_u16x2(a: u32, b: u32) -> u32 {
    let lane = |x: u32, k: u32| (x >> (16 * k)) as u16;
    (0..2).fold(0, |d, k| {
        d | (lane(a, k).min(lane(b, k)) as u32) << (16 * k)
    })
}

/// `min`/`max` on two 16-bit float lanes, as the ISA's pseudo-code: per lane, a NaN gives way
/// to the other operand, two NaNs give the canonical NaN `0x7fff`, and `-0.0 < +0.0`
/// (PTX ISA, [Half Precision Floating Point Instructions: `min`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#half-precision-floating-point-instructions-min),
/// [`max`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#half-precision-floating-point-instructions-max)).
/// `widen` is the lane's exact `f32`.
fn packed_half_minmax(a: u32, b: u32, widen: fn(u16) -> f32, max: bool) -> u32 {
    let lane = |x: u32, k: u32| (x >> (16 * k)) as u16;
    // Numbers by value, then zeros by sign: -0.0 before +0.0.
    let less = |p: u16, q: u16| (widen(p), p >> 15 == 0) < (widen(q), q >> 15 == 0);
    (0..2).fold(0, |d, k| {
        let (x, y) = (lane(a, k), lane(b, k));
        let r = match (widen(x).is_nan(), widen(y).is_nan()) {
            (true, true) => 0x7fff,
            (true, false) => y,
            (false, true) => x,
            _ if max == less(x, y) => y,
            _ => x,
        };
        d | (r as u32) << (16 * k)
    })
}

/// `min.f16x2` (see `packed_half_minmax`'s rules).
pub fn min_f16x2(a: u32, b: u32) -> u32 {
    packed_half_minmax(a, b, |h| half::f16::from_bits(h).to_f32(), false)
}

/// `max.f16x2` (see `packed_half_minmax`'s rules).
pub fn max_f16x2(a: u32, b: u32) -> u32 {
    packed_half_minmax(a, b, |h| half::f16::from_bits(h).to_f32(), true)
}

/// `min.bf16x2` (see `packed_half_minmax`'s rules).
pub fn min_bf16x2(a: u32, b: u32) -> u32 {
    packed_half_minmax(a, b, |h| half::bf16::from_bits(h).to_f32(), false)
}

/// `max.bf16x2` (see `packed_half_minmax`'s rules).
pub fn max_bf16x2(a: u32, b: u32) -> u32 {
    packed_half_minmax(a, b, |h| half::bf16::from_bits(h).to_f32(), true)
}

/// `prmt.b32 d, a, b, c`, the default mode, as the ISA's pseudo-code: byte `i` of `d` is byte
/// `c[4i+2:4i]` of `b:a`, or that byte's sign copied to all its bits when `c[4i+3]` is set
/// (PTX ISA, [`prmt`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-prmt)).
pub fn prmt_b32(a: u32, b: u32, c: u32) -> u32 {
    let source = (b as u64) << 32 | a as u64;
    (0..4).fold(0, |d, i| {
        let select = (c >> (4 * i)) & 0xf;
        let byte = (source >> (8 * (select & 7))) as u8;
        let byte = if select & 8 != 0 {
            ((byte as i8) >> 7) as u8
        } else {
            byte
        };
        d | (byte as u32) << (8 * i)
    })
}

/// `%lanemask_eq`, `_lt`, `_le`, `_gt`, `_ge` of `lane`.
pub fn lanemasks(lane: u32) -> [u32; 5] {
    let eq = 1u32 << lane;
    let lt = eq - 1;
    [eq, lt, lt | eq, !(lt | eq), !lt]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::shfl::ShflControl;

    /// Every meaningful `c`: 32 clamps × 32 segment masks.
    fn every_c() -> impl Iterator<Item = u32> {
        (0..32u32).flat_map(|seg| (0..32u32).map(move |clamp| ShflControl::new(clamp, seg).bits()))
    }

    #[test]
    fn shfl_source_stays_in_the_warp_and_owns_lane_when_out_of_range() {
        for mode in ShflMode::ALL {
            for b in 0..64 {
                for c in every_c() {
                    for lane in 0..32 {
                        let (j, p) = shfl_source(mode, lane, b, c);
                        assert!(j < 32);
                        if !p {
                            assert_eq!(j, lane, "{mode:?} b={b} c={c:#x} lane={lane}");
                        }
                        // Only b[4:0] matters: b and b+32 agree.
                        assert_eq!((j, p), shfl_source(mode, lane, b ^ 32, c));
                        // Bits of c outside [4:0] and [12:8] are ignored.
                        assert_eq!((j, p), shfl_source(mode, lane, b, c | 0xffff_e0e0));
                    }
                }
            }
        }
    }

    #[test]
    fn width_controls_follow_cuda_shuffle_semantics() {
        // __shfl_*_sync with `width` (cuda-warp-shuffle-intrinsics.md), for every b in 0..64.
        for width in [1u32, 2, 4, 8, 16, 32] {
            for b in 0..64u32 {
                for lane in 0..32u32 {
                    let base = lane & !(width - 1);
                    let rank = lane - base;
                    let c = |mode| ShflControl::for_width(mode, width).bits();
                    // idx: srcLane modulo width within the segment; always in range.
                    let idx = shfl_source(ShflMode::Idx, lane, b, c(ShflMode::Idx));
                    assert_eq!(
                        idx,
                        (base + (b & 31) % width, true),
                        "idx w={width} b={b} lane={lane}"
                    );
                    // up: no wrap-around; the lowest delta lanes keep their own value.
                    let up = shfl_source(ShflMode::Up, lane, b, c(ShflMode::Up));
                    let delta = b & 31;
                    let want = if rank >= delta {
                        (lane - delta, true)
                    } else {
                        (lane, false)
                    };
                    assert_eq!(up, want, "up w={width} b={b} lane={lane}");
                    // down: no wrap-around; the highest delta lanes keep their own.
                    let down = shfl_source(ShflMode::Down, lane, b, c(ShflMode::Down));
                    let want = if rank + delta < width {
                        (lane + delta, true)
                    } else {
                        (lane, false)
                    };
                    assert_eq!(down, want, "down w={width} b={b} lane={lane}");
                    // xor: earlier (or own) segments are read, later ones return own value.
                    let x = shfl_source(ShflMode::Bfly, lane, b, c(ShflMode::Bfly));
                    let j = lane ^ delta;
                    let want = if j < base + width {
                        (j, true)
                    } else {
                        (lane, false)
                    };
                    assert_eq!(x, want, "xor w={width} b={b} lane={lane}");
                }
            }
        }
    }

    #[test]
    fn known_wrapper_bugs_are_visible_in_the_model() {
        // shfl.up with clamp 0x1f (a shipped bug) returns every lane's own value at width 32.
        for lane in 1..32 {
            assert_eq!(shfl_source(ShflMode::Up, lane, 1, 0x1f), (lane, false));
            assert_eq!(shfl_source(ShflMode::Up, lane, 1, 0), (lane - 1, true));
        }
        // The predicate means "in range", not "source active": lane 0 of up is out of range.
        assert!(!shfl_source(ShflMode::Up, 0, 1, 0).1);
    }

    #[test]
    fn shfl_values_from_lanes_outside_the_mask_are_undefined() {
        let values: [u32; 32] = core::array::from_fn(|l| 100 + l as u32);
        let out = shfl_sync(ShflMode::Idx, &values, 3, 0x1f, 0x0000_fff0);
        assert_eq!(out[0], None);
        assert_eq!(
            out[4],
            Some(ShflLane {
                value: None,
                in_range: true
            })
        );
        let out = shfl_sync(ShflMode::Idx, &values, 5, 0x1f, 0x0000_fff0);
        assert_eq!(
            out[9],
            Some(ShflLane {
                value: Some(105),
                in_range: true
            })
        );
    }

    #[test]
    fn votes_and_ballot() {
        let mut preds = [false; 32];
        preds[3] = true;
        preds[40 % 32] = true;
        assert_eq!(ballot(u32::MAX, &preds), (1 << 3) | (1 << 8));
        assert_eq!(ballot(0xf, &preds), 1 << 3);
        assert!(vote_any(0xf, &preds));
        assert!(!vote_all(0xf, &preds));
        assert!(vote_all(0x8, &preds));
        assert!(vote_uni(0x7, &preds));
        assert!(!vote_uni(0xf, &preds));
    }

    #[test]
    fn match_and_redux() {
        let values: [u32; 32] = core::array::from_fn(|l| (l % 3) as u32);
        assert_eq!(match_any(u32::MAX, &values, 0), 0x4924_9249);
        assert_eq!(match_all(0x9, &values, 0), (0x9, true));
        assert_eq!(match_all(0x3, &values, 0), (0, false));
        let v: [u32; 32] = core::array::from_fn(|l| l as u32 * 7 + 1);
        assert_eq!(
            redux_int(IntRedux::AddU32, u32::MAX, &v),
            (0..32).map(|l| l * 7 + 1).sum::<u32>()
        );
        assert_eq!(redux_int(IntRedux::MaxS32, 0b110, &v), 15);
        let f: [f32; 32] = core::array::from_fn(|l| l as f32 - 20.0);
        let max_abs = FloatRedux {
            max: true,
            abs: true,
            nan: false,
        };
        assert_eq!(redux_f32(max_abs, u32::MAX, &f), 20.0);
        // One lane's NaN is the canonical NaN too, with or without `.NaN`; zeros by sign.
        let mut g = f;
        g[3] = f32::from_bits(0xffc0_1234);
        g[4] = -0.0;
        g[5] = 0.0;
        for op in FloatRedux::ALL {
            assert_eq!(redux_f32(op, 1 << 3, &g).to_bits(), 0x7fff_ffff, "{op:?}");
            let zero = redux_f32(op, 0b11_0000, &g);
            assert_eq!(
                zero == 0.0 && zero.is_sign_negative(),
                !op.max && !op.abs,
                "{op:?}"
            );
        }
        let min = FloatRedux {
            max: false,
            abs: false,
            nan: false,
        };
        assert_eq!(redux_f32(min, 0b1_1000, &g), -0.0);
        assert_eq!(redux_f32(min, 0b1_1000, &g).to_bits(), 0x8000_0000);
    }

    /// The fallback's rules (`FloatRedux::combine` in lane order, then `finish`) give the
    /// bits of the model written from the ISA's text, on random masks and on values that are
    /// often NaNs, infinities or zeros of either sign.
    #[test]
    fn float_redux_rules_agree_with_the_isa_model() {
        use rand::{Rng, SeedableRng};
        let seed: u64 = rand::random();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let specials = F32_SPECIAL_BITS;
        for _ in 0..20_000 {
            let values: [f32; WARP] = core::array::from_fn(|_| {
                f32::from_bits(if rng.random_bool(0.3) {
                    specials[rng.random_range(0..specials.len())]
                } else {
                    rng.random()
                })
            });
            let mask = match rng.random_range(0..3) {
                0 => 1 << rng.random_range(0..32),
                1 => rng.random::<u32>() & rng.random::<u32>(),
                _ => rng.random::<u32>(),
            }
            .max(1);
            for op in FloatRedux::ALL {
                let rules = (0..WARP)
                    .filter(|&l| in_mask(mask, l as u32))
                    .map(|l| op.prepare(values[l]))
                    .reduce(|a, b| op.combine(a, b))
                    .map(|x| op.finish(x))
                    .unwrap();
                assert_eq!(
                    rules.to_bits(),
                    redux_f32(op, mask, &values).to_bits(),
                    "seed {seed} {op:?} mask {mask:#x} values {values:?}"
                );
            }
        }
    }

    #[test]
    fn lanemasks_partition_the_warp() {
        for lane in 0..32 {
            let [eq, lt, le, gt, ge] = lanemasks(lane);
            assert_eq!(lt | eq | gt, u32::MAX);
            assert_eq!(lt & gt, 0);
            assert_eq!(le, lt | eq);
            assert_eq!(ge, gt | eq);
            assert_eq!(lt.count_ones(), lane);
        }
    }

    /// The packed half min/max models agree with the library's own `Min`/`Max` on halves
    /// (widened to `f32`, `crate::ops`' rules) on every pair of lanes from the edges (zeros
    /// and NaNs of both signs, infinities, subnormals) and on random words.
    #[test]
    fn packed_half_minmax_follow_the_half_ops() {
        use crate::ops::{Max, Min, ReduceOp};
        use half::{bf16, f16};
        fn check<T: Copy>(
            packed: fn(u32, u32) -> u32,
            op: impl ReduceOp<T>,
            from_bits: fn(u16) -> T,
            to_bits: fn(T) -> u16,
            lanes: &[u16],
        ) {
            use rand::{Rng, SeedableRng};
            let seed: u64 = rand::random();
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let random_pairs = (0..20_000).map(move |_| (rng.random::<u16>(), rng.random::<u16>()));
            let edge_pairs = lanes
                .iter()
                .flat_map(|&x| lanes.iter().map(move |&y| (x, y)));
            for (x, y) in edge_pairs.chain(random_pairs) {
                let want = to_bits(op.combine(from_bits(x), from_bits(y)));
                let word = packed(x as u32 | (y as u32) << 16, y as u32 | (x as u32) << 16);
                assert_eq!(word as u16, want, "seed {seed}: {x:#06x}, {y:#06x}");
                assert_eq!((word >> 16) as u16, want, "seed {seed}: {y:#06x}, {x:#06x}");
            }
        }
        let common = [0u16, 0x8000, 1, 0x8001, 0x7fff, 0xffff, 0x3c00, 0xbc00];
        let f16_lanes = [
            &common[..],
            &[0x7c00, 0xfc00, 0x7c01, 0xfe00, 0x7bff, 0xfbff],
        ]
        .concat();
        let bf16_lanes = [
            &common[..],
            &[0x7f80, 0xff80, 0x7f81, 0xffc0, 0x7f7f, 0xff7f],
        ]
        .concat();
        let (f16_of, f16_bits) = (
            f16::from_bits as fn(u16) -> f16,
            f16::to_bits as fn(f16) -> u16,
        );
        let (bf16_of, bf16_bits) = (
            bf16::from_bits as fn(u16) -> bf16,
            bf16::to_bits as fn(bf16) -> u16,
        );
        check(min_f16x2, Min, f16_of, f16_bits, &f16_lanes);
        check(max_f16x2, Max, f16_of, f16_bits, &f16_lanes);
        check(min_bf16x2, Min, bf16_of, bf16_bits, &bf16_lanes);
        check(max_bf16x2, Max, bf16_of, bf16_bits, &bf16_lanes);
    }
}
