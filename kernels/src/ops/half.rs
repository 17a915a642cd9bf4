//! [`Sum`], [`Min`] and [`Max`] on `half::f16` and `half::bf16`, for the warp, tile and block
//! algorithms (`Tile::<W>::reduce(x, Sum)` on an `f16`, ...).
//!
//! Choice: every combine widens both operands to `f32` (exact), operates in `f32`, and rounds
//! the result back once, to nearest even. For `Min`/`Max` the result is one of the operands,
//! so nothing is rounded, and the rules are those of `f32` ([`crate::ops`]: NaN skipped,
//! `-0.0 < +0.0`, the canonical NaN `0x7fff` only when both are NaN, which is the identity).
//! For `Sum` the rounding is per combine, like a native half add: since `f32` has at least
//! `2p + 2` significand bits for `f16` (p = 11) and `bf16` (p = 8), the `f32` add followed by
//! one rounding is the correctly rounded half add (Figueroa, "When is double rounding
//! innocuous?", SIGNUM 1995), except for `bf16` results in the subnormal range, where `f32`
//! itself loses bits. A warp sum of halves therefore rounds 5 times (a tree of 32) and
//! carries a half's relative error per level; accumulate in `f32` yourself
//! (`reduce(x.to_f32(), Sum)`) when that is too coarse. The device reduce of `warpkit-host`
//! does that (`device::entry` widens with [`Half16::widen`] and narrows once at the end).
//!
//! Conversions: `cvt.f32.f16` / `cvt.rn.f16.f32` on the GPU (PTX ISA 9.7.9.21 "cvt",
//! <https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cvt>);
//! `bf16` widens by a shift and narrows with `cvt.rn.bf16.f32` on sm_80+, in software below.
//! On the host, the `half` crate's conversions (same rounding).
//!
use crate::ops::{ArgValue, Max, Min, ReduceOp, Sum, float_minmax};
use half::{bf16, f16};

/// A 16-bit float that widens to `f32` exactly and narrows with round-to-nearest-even.
pub trait Half16: Copy {
    /// The canonical NaN (`0x7fff`), identity of `Min`/`Max`.
    const CANONICAL_NAN: Self;
    /// `-0.0`, identity of `Sum`.
    const NEG_ZERO: Self;
    /// The bits of `+inf`: a value whose bits without the sign are above these is a NaN.
    const INFINITY_BITS: u16;
    /// Exact conversion to `f32`.
    fn widen(self) -> f32;
    /// `f32` to this type, rounding to nearest even; NaN gives a quiet NaN.
    fn narrow(x: f32) -> Self;
}

impl Half16 for f16 {
    const CANONICAL_NAN: f16 = f16::from_bits(0x7fff);
    const NEG_ZERO: f16 = f16::NEG_ZERO;
    const INFINITY_BITS: u16 = 0x7c00;
    #[inline(always)]
    fn widen(self) -> f32 {
        #[cfg(target_arch = "nvptx64")]
        {
            let r: f32;
            // SAFETY: a conversion has no precondition.
            unsafe {
                core::arch::asm!("cvt.f32.f16 {r}, {x};", r = out(reg32) r, x = in(reg16) self.to_bits(),
                    options(pure, nomem, nostack, preserves_flags))
            };
            r
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.to_f32()
    }
    #[inline(always)]
    fn narrow(x: f32) -> f16 {
        #[cfg(target_arch = "nvptx64")]
        {
            let r: u16;
            // SAFETY: a conversion has no precondition.
            unsafe {
                core::arch::asm!("cvt.rn.f16.f32 {r}, {x};", r = out(reg16) r, x = in(reg32) x,
                    options(pure, nomem, nostack, preserves_flags))
            };
            f16::from_bits(r)
        }
        #[cfg(not(target_arch = "nvptx64"))]
        f16::from_f32(x)
    }
}

impl Half16 for bf16 {
    const CANONICAL_NAN: bf16 = bf16::from_bits(0x7fff);
    const NEG_ZERO: bf16 = bf16::NEG_ZERO;
    const INFINITY_BITS: u16 = 0x7f80;
    #[inline(always)]
    fn widen(self) -> f32 {
        f32::from_bits((self.to_bits() as u32) << 16)
    }
    #[inline(always)]
    fn narrow(x: f32) -> bf16 {
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        {
            let r: u16;
            // SAFETY: a conversion has no precondition.
            unsafe {
                core::arch::asm!("cvt.rn.bf16.f32 {r}, {x};", r = out(reg16) r, x = in(reg32) x,
                    options(pure, nomem, nostack, preserves_flags))
            };
            bf16::from_bits(r)
        }
        #[cfg(not(all(target_arch = "nvptx64", target_feature = "sm_80")))]
        {
            let bits = x.to_bits();
            let rounded = (bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) >> 16) as u16;
            let quiet_nan = (bits >> 16) as u16 | 0x40;
            bf16::from_bits(if x.is_nan() { quiet_nan } else { rounded })
        }
    }
}

macro_rules! half_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum {
            #[inline(always)]
            fn identity(self) -> $t {
                <$t as Half16>::NEG_ZERO
            }
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t {
                <$t as Half16>::narrow(a.widen() + b.widen())
            }
            const COMMUTATIVE: bool = true;
        }
        impl ReduceOp<$t> for Min {
            #[inline(always)]
            fn identity(self) -> $t {
                <$t as Half16>::CANONICAL_NAN
            }
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t {
                <$t as Half16>::narrow(float_minmax(a.widen(), b.widen(), false))
            }
            const ORDER_INDEPENDENT: bool = true;
        }
        impl ReduceOp<$t> for Max {
            #[inline(always)]
            fn identity(self) -> $t {
                <$t as Half16>::CANONICAL_NAN
            }
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t {
                <$t as Half16>::narrow(float_minmax(a.widen(), b.widen(), true))
            }
            const ORDER_INDEPENDENT: bool = true;
        }
    )*};
}

half_ops!(f16, bf16);

macro_rules! half_arg_value {
    ($($t:ty),*) => {$(
        /// By the value widened to `f32` (exact, order and sign kept): `f32`'s rules.
        impl ArgValue for $t {
            #[inline(always)]
            fn none(_: bool) -> $t {
                <$t as Half16>::CANONICAL_NAN
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                self.widen().is_nan()
            }
            #[inline(always)]
            fn beats(a: $t, b: $t, max: bool) -> bool {
                f32::beats(a.widen(), b.widen(), max)
            }
        }
    )*};
}

half_arg_value!(f16, bf16);

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn check<T: Half16 + PartialEq + core::fmt::Debug>(
        from_bits: fn(u16) -> T,
        bits: fn(T) -> u16,
        from_f64: fn(f64) -> T,
    ) where
        Sum: ReduceOp<T>,
        Min: ReduceOp<T>,
        Max: ReduceOp<T>,
    {
        let mut rng = rand::rng();
        let specials = [0u16, 0x8000, 0x7fff, 0xffff, 0x3c00, 0xbc00, 0x0001, 0x8001];
        for _ in 0..100_000 {
            let pick = |rng: &mut rand::rngs::ThreadRng| {
                if rng.random_ratio(1, 8) {
                    specials[rng.random_range(0..specials.len())]
                } else {
                    rng.random::<u16>()
                }
            };
            let (a, b) = (from_bits(pick(&mut rng)), from_bits(pick(&mut rng)));
            let (fa, fb) = (a.widen() as f64, b.widen() as f64);
            // Sum: the f64 sum (exact for f16; for bf16 rounded at 53 bits, which keeps the
            // nearest half value) rounded to the nearest half, ties to even: the correctly
            // rounded half add. (The `half` crate's `from_f64` is only a starting guess: it
            // rounds -928.250244 to -928 in f16.) Overflow to infinity is not checked here.
            let s = Sum.combine(a, b);
            let x = fa + fb;
            let guess = from_f64(x);
            if x.is_nan() {
                assert!(s.widen().is_nan(), "{fa} + {fb}");
            } else if guess.widen().is_finite() {
                let want = [
                    bits(guess).wrapping_sub(1),
                    bits(guess),
                    bits(guess).wrapping_add(1),
                ]
                .into_iter()
                .map(from_bits)
                .filter(|c| c.widen().is_finite())
                .min_by(|c, d| {
                    let (ec, ed) = ((c.widen() as f64 - x).abs(), (d.widen() as f64 - x).abs());
                    ec.partial_cmp(&ed)
                        .unwrap()
                        .then((bits(*c) & 1).cmp(&(bits(*d) & 1)))
                })
                .unwrap();
                // Zero results: the sign is IEEE's (-0 only for -0 + -0), compare values.
                if x == 0.0 {
                    assert_eq!(s.widen(), 0.0, "{fa} + {fb}");
                } else {
                    assert_eq!(bits(s), bits(want), "{fa} + {fb}");
                }
            }
            // Min/Max: one of the operands (or the canonical NaN when both are NaN).
            let (lo, hi) = (Min.combine(a, b), Max.combine(a, b));
            match (fa.is_nan(), fb.is_nan()) {
                (true, true) => {
                    assert_eq!(bits(lo), 0x7fff);
                    assert_eq!(bits(hi), 0x7fff);
                }
                (true, false) => assert_eq!((bits(lo), bits(hi)), (bits(b), bits(b))),
                (false, true) => assert_eq!((bits(lo), bits(hi)), (bits(a), bits(a))),
                _ => {
                    assert!(lo.widen() <= hi.widen());
                    assert!(bits(lo) == bits(a) || bits(lo) == bits(b));
                    assert!(bits(hi) == bits(a) || bits(hi) == bits(b));
                    if fa == 0.0 && fb == 0.0 {
                        assert_eq!(
                            bits(lo) & 0x8000 != 0,
                            bits(a) & 0x8000 != 0 || bits(b) & 0x8000 != 0
                        );
                        assert_eq!(
                            bits(hi) & 0x8000 != 0,
                            bits(a) & 0x8000 != 0 && bits(b) & 0x8000 != 0
                        );
                    }
                }
            }
        }
        // Identities.
        let x = from_bits(0x3c00);
        assert_eq!(
            bits(Sum.combine(<Sum as ReduceOp<T>>::identity(Sum), x)),
            0x3c00
        );
        assert_eq!(
            bits(Sum.combine(<Sum as ReduceOp<T>>::identity(Sum), from_bits(0x8000))),
            0x8000
        );
        assert_eq!(
            bits(Min.combine(<Min as ReduceOp<T>>::identity(Min), x)),
            0x3c00
        );
        assert_eq!(
            bits(Max.combine(x, <Max as ReduceOp<T>>::identity(Max))),
            0x3c00
        );
    }

    #[test]
    fn f16_ops_round_once_and_follow_the_float_rules() {
        check::<f16>(f16::from_bits, f16::to_bits, f16::from_f64);
    }

    #[test]
    fn bf16_ops_round_once_and_follow_the_float_rules() {
        check::<bf16>(bf16::from_bits, bf16::to_bits, bf16::from_f64);
    }
}
