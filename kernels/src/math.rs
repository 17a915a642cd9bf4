//! Math functions for kernels from NVIDIA's **libdevice** (`libdevice.10.bc`, the bitcode
//! library nvcc itself links; <https://docs.nvidia.com/cuda/libdevice-users-guide/index.html>):
//! each function here calls `__nv_<name>f` (`f32`) or `__nv_<name>` (`f64`), which
//! `warpkit-builder` links in with `llvm-link --only-needed` and inlines. The builder finds
//! libdevice in `WARPKIT_LIBDEVICE`, the CUDA toolkit (`$CUDA_HOME` or `/usr/local/cuda`:
//! `nvvm/libdevice/libdevice.10.bc`) or the `nvidia-cuda-nvcc-cu12` wheel that `cargo xtask
//! setup` unpacks; a kernel that uses one of these functions without libdevice fails to build
//! with an error that names those places.
//!
//! Names are C's: `sinf(x: f32)`, `sin(x: f64)`. Accuracy: the maximum error in ulp stated in
//! the CUDA C++ Programming Guide, appendix "Mathematical Functions", section "Standard
//! Functions", tables "Single-Precision Mathematical Standard Library Functions with Maximum
//! ULP Error" and the double-precision one
//! (<https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#standard-functions>),
//! for the full range unless noted, without `-use_fast_math` and without flush-to-zero (the
//! builder leaves `__CUDA_FTZ` at 0). NVIDIA states these bounds were "generated from extensive
//! but not exhaustive tests", so they are not guarantees; [`ULP_BOUNDS`] lists them and the
//! example app (`examples/user-app`) checks them on random and edge-case inputs against the
//! host's `f64` results. On the host these functions exist for the documentation and panic.

macro_rules! math {
    ($($(#[$doc:meta])* $name:ident / $nv:ident ($($a:ident),*) -> $t:ty, ulp $ulp:literal;)*) => {
        #[cfg(target_arch = "nvptx64")]
        unsafe extern "C" {
            $(fn $nv($($a: $t),*) -> $t;)*
        }
        $(
            $(#[$doc])*
            #[doc = concat!("\n\nlibdevice `", stringify!($nv), "`; maximum error ", stringify!($ulp),
                " ulp (CUDA C++ Programming Guide, \"Standard Functions\").")]
            #[inline(always)]
            pub fn $name($($a: $t),*) -> $t {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: libdevice's functions are pure and defined for every input.
                unsafe { $nv($($a),*) }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let _ = ($($a),*);
                    panic!("warpkit::math runs on an NVIDIA GPU only")
                }
            }
        )*
        /// Every function of this module with its documented maximum ulp error:
        /// (name, arity, bound).
        pub const ULP_BOUNDS: &[(&str, usize, u32)] = &[$((stringify!($name), [$(stringify!($a)),*].len(), $ulp),)*];
    };
}

math! {
    /// Square root (correctly rounded).
    sqrtf / __nv_sqrtf(x) -> f32, ulp 0;
    /// Square root (correctly rounded).
    sqrt / __nv_sqrt(x) -> f64, ulp 0;
    /// Cube root.
    cbrtf / __nv_cbrtf(x) -> f32, ulp 1;
    /// Cube root.
    cbrt / __nv_cbrt(x) -> f64, ulp 1;
    /// `e^x`.
    expf / __nv_expf(x) -> f32, ulp 2;
    /// `e^x`.
    exp / __nv_exp(x) -> f64, ulp 1;
    /// `2^x`.
    exp2f / __nv_exp2f(x) -> f32, ulp 2;
    /// `2^x`.
    exp2 / __nv_exp2(x) -> f64, ulp 1;
    /// `10^x`.
    exp10f / __nv_exp10f(x) -> f32, ulp 2;
    /// `10^x`.
    exp10 / __nv_exp10(x) -> f64, ulp 1;
    /// `e^x - 1`.
    expm1f / __nv_expm1f(x) -> f32, ulp 1;
    /// `e^x - 1`.
    expm1 / __nv_expm1(x) -> f64, ulp 1;
    /// Natural logarithm.
    logf / __nv_logf(x) -> f32, ulp 1;
    /// Natural logarithm.
    log / __nv_log(x) -> f64, ulp 1;
    /// Base-2 logarithm.
    log2f / __nv_log2f(x) -> f32, ulp 1;
    /// Base-2 logarithm.
    log2 / __nv_log2(x) -> f64, ulp 1;
    /// Base-10 logarithm.
    log10f / __nv_log10f(x) -> f32, ulp 2;
    /// Base-10 logarithm.
    log10 / __nv_log10(x) -> f64, ulp 1;
    /// `ln(1 + x)`.
    log1pf / __nv_log1pf(x) -> f32, ulp 1;
    /// `ln(1 + x)`.
    log1p / __nv_log1p(x) -> f64, ulp 1;
    /// Sine.
    sinf / __nv_sinf(x) -> f32, ulp 2;
    /// Sine.
    sin / __nv_sin(x) -> f64, ulp 2;
    /// Cosine.
    cosf / __nv_cosf(x) -> f32, ulp 2;
    /// Cosine.
    cos / __nv_cos(x) -> f64, ulp 2;
    /// Tangent.
    tanf / __nv_tanf(x) -> f32, ulp 4;
    /// Tangent.
    tan / __nv_tan(x) -> f64, ulp 2;
    /// Arc sine.
    asinf / __nv_asinf(x) -> f32, ulp 2;
    /// Arc sine.
    asin / __nv_asin(x) -> f64, ulp 2;
    /// Arc cosine.
    acosf / __nv_acosf(x) -> f32, ulp 2;
    /// Arc cosine.
    acos / __nv_acos(x) -> f64, ulp 2;
    /// Arc tangent.
    atanf / __nv_atanf(x) -> f32, ulp 2;
    /// Arc tangent.
    atan / __nv_atan(x) -> f64, ulp 2;
    /// Hyperbolic sine.
    sinhf / __nv_sinhf(x) -> f32, ulp 3;
    /// Hyperbolic sine.
    sinh / __nv_sinh(x) -> f64, ulp 2;
    /// Hyperbolic cosine.
    coshf / __nv_coshf(x) -> f32, ulp 2;
    /// Hyperbolic cosine.
    cosh / __nv_cosh(x) -> f64, ulp 1;
    /// Hyperbolic tangent.
    tanhf / __nv_tanhf(x) -> f32, ulp 2;
    /// Hyperbolic tangent.
    tanh / __nv_tanh(x) -> f64, ulp 1;
    /// Error function.
    erff / __nv_erff(x) -> f32, ulp 2;
    /// Error function.
    erf / __nv_erf(x) -> f64, ulp 2;
    /// Complementary error function.
    erfcf / __nv_erfcf(x) -> f32, ulp 4;
    /// Complementary error function.
    erfc / __nv_erfc(x) -> f64, ulp 5;
    /// `x^y`.
    powf / __nv_powf(x, y) -> f32, ulp 4;
    /// `x^y`.
    pow / __nv_pow(x, y) -> f64, ulp 2;
    /// The angle of `(x, y)`: `atan(y / x)` in the right quadrant (`atan2f(y, x)`).
    atan2f / __nv_atan2f(y, x) -> f32, ulp 3;
    /// The angle of `(x, y)` (`atan2(y, x)`).
    atan2 / __nv_atan2(y, x) -> f64, ulp 2;
    /// `sqrt(x^2 + y^2)` without undue overflow.
    hypotf / __nv_hypotf(x, y) -> f32, ulp 3;
    /// `sqrt(x^2 + y^2)` without undue overflow.
    hypot / __nv_hypot(x, y) -> f64, ulp 2;
    /// `x * y + z` rounded once.
    fmaf / __nv_fmaf(x, y, z) -> f32, ulp 0;
    /// `x * y + z` rounded once.
    fma / __nv_fma(x, y, z) -> f64, ulp 0;
}
