//! Floating-point math for kernels under std's method names.
//!
//! `core` has no `sin`/`exp`/…, and `llvm.sin.f64`-style intrinsics cannot be lowered for GPUs
//! (see docs/device-toolchain.md), so [`Float`] routes every function to the vendor library:
//! libdevice `__nv_*` on NVIDIA, ocml `__ocml_*_f64/_f32` on AMD (both linked as bitcode and
//! inlined), and std on the host `.so`.
//!
//! Method resolution (checked with rustc 1.96): `core_float_math` adds no inherent methods in
//! 1.96, only unstable free functions (`core::f64::math::sqrt`), so on GPUs (`no_std`) `x.sqrt()`
//! finds only [`Float::sqrt`]; on the host std's inherent methods win and behave the same. `abs`,
//! `min`, `max` are stable inherent methods of `core` and win everywhere (`llvm.fabs`/`minnum`/
//! `maxnum`, fine on GPUs). When a trait method collides with an *unstable* inherent one (tried
//! with `f64::clamp_magnitude`), rustc calls the trait method and emits the future-compat lint
//! `unstable_name_collisions`; generated crates allow it, so a later `core` that gains inherent
//! `sqrt` keeps compiling without warnings.

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// std's float methods for `f32` and `f64` in `no_std` kernel code (`use omp_device::prelude::*`).
pub trait Float: Copy + sealed::Sealed {
    /// Square root.
    fn sqrt(self) -> Self;
    /// e^self.
    fn exp(self) -> Self;
    /// 2^self.
    fn exp2(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// Sine (radians).
    fn sin(self) -> Self;
    /// Cosine (radians).
    fn cos(self) -> Self;
    /// Tangent (radians).
    fn tan(self) -> Self;
    /// Arcsine.
    fn asin(self) -> Self;
    /// Arccosine.
    fn acos(self) -> Self;
    /// Arctangent.
    fn atan(self) -> Self;
    /// Four-quadrant arctangent of `self` (y) and `other` (x).
    fn atan2(self, other: Self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// self^n (float exponent).
    fn powf(self, n: Self) -> Self;
    /// Same as [`Float::powf`] (C's `pow`).
    fn pow(self, n: Self) -> Self;
    /// self^n (integer exponent).
    fn powi(self, n: i32) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Largest integer ≤ self.
    fn floor(self) -> Self;
    /// Smallest integer ≥ self.
    fn ceil(self) -> Self;
    /// Nearest integer, ties away from zero.
    fn round(self) -> Self;
    /// Integer part.
    fn trunc(self) -> Self;
    /// self * a + b with one rounding.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Same as [`Float::mul_add`] (C's `fma`).
    fn fma(self, a: Self, b: Self) -> Self;
    /// Minimum (a NaN operand is ignored).
    fn min(self, other: Self) -> Self;
    /// Maximum (a NaN operand is ignored).
    fn max(self, other: Self) -> Self;
    /// sqrt(self² + other²) without undue overflow.
    fn hypot(self, other: Self) -> Self;
    /// Cube root.
    fn cbrt(self) -> Self;
    /// e^self - 1, accurate near zero.
    fn exp_m1(self) -> Self;
    /// ln(1 + self), accurate near zero.
    fn ln_1p(self) -> Self;
    /// Inverse hyperbolic sine.
    fn asinh(self) -> Self;
    /// Inverse hyperbolic cosine.
    fn acosh(self) -> Self;
    /// Inverse hyperbolic tangent.
    fn atanh(self) -> Self;
    /// Nearest integer, ties to even.
    fn round_ties_even(self) -> Self;
    /// The least non-negative remainder of `self / rhs` (std's definition over the exact `%`).
    fn rem_euclid(self, rhs: Self) -> Self;
    /// The quotient of Euclidean division (std's definition).
    fn div_euclid(self, rhs: Self) -> Self;
    /// `self - self.trunc()`.
    fn fract(self) -> Self;
}

// One table, three back ends: (method, libdevice name, ocml name, std method).
macro_rules! float_impl {
    ($t:ty, $int:ty;
     unary: [$($u:ident $unv:ident $uamd:ident $ustd:ident;)*]
     binary: [$($b:ident $bnv:ident $bamd:ident $bstd:ident;)*]
     powi: $pnv:ident $pamd:ident;
     fma: $fnv:ident $famd:ident;
    ) => {
        #[cfg(target_arch = "nvptx64")]
        extern "C" {
            $(#[unsafe(ffi_const)] fn $unv(x: $t) -> $t;)*
            $(#[unsafe(ffi_const)] fn $bnv(x: $t, y: $t) -> $t;)*
            #[unsafe(ffi_const)] fn $pnv(x: $t, n: $int) -> $t;
            #[unsafe(ffi_const)] fn $fnv(x: $t, y: $t, z: $t) -> $t;
        }
        #[cfg(target_arch = "amdgpu")]
        extern "C" {
            $(#[unsafe(ffi_const)] fn $uamd(x: $t) -> $t;)*
            $(#[unsafe(ffi_const)] fn $bamd(x: $t, y: $t) -> $t;)*
            #[unsafe(ffi_const)] fn $pamd(x: $t, n: $int) -> $t;
            #[unsafe(ffi_const)] fn $famd(x: $t, y: $t, z: $t) -> $t;
        }
        impl Float for $t {
            $(
                #[inline(always)]
                fn $u(self) -> $t {
                    #[cfg(target_arch = "nvptx64")]
                    // SAFETY: pure libdevice function.
                    return unsafe { $unv(self) };
                    #[cfg(target_arch = "amdgpu")]
                    // SAFETY: pure ocml function.
                    return unsafe { $uamd(self) };
                    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
                    return <$t>::$ustd(self);
                }
            )*
            $(
                #[inline(always)]
                fn $b(self, o: $t) -> $t {
                    #[cfg(target_arch = "nvptx64")]
                    // SAFETY: pure libdevice function.
                    return unsafe { $bnv(self, o) };
                    #[cfg(target_arch = "amdgpu")]
                    // SAFETY: pure ocml function.
                    return unsafe { $bamd(self, o) };
                    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
                    return <$t>::$bstd(self, o);
                }
            )*
            #[inline(always)]
            fn pow(self, n: $t) -> $t {
                Float::powf(self, n)
            }
            #[inline(always)]
            fn powi(self, n: i32) -> $t {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: pure libdevice function.
                return unsafe { $pnv(self, n) };
                #[cfg(target_arch = "amdgpu")]
                // SAFETY: pure ocml function.
                return unsafe { $pamd(self, n) };
                #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
                return <$t>::powi(self, n);
            }
            #[inline(always)]
            fn mul_add(self, a: $t, b: $t) -> $t {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: pure libdevice function.
                return unsafe { $fnv(self, a, b) };
                #[cfg(target_arch = "amdgpu")]
                // SAFETY: pure ocml function.
                return unsafe { $famd(self, a, b) };
                #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
                return <$t>::mul_add(self, a, b);
            }
            #[inline(always)]
            fn fma(self, a: $t, b: $t) -> $t {
                Float::mul_add(self, a, b)
            }
            // std's own definitions, over `%` (exact in kernels: the device build calls the library's `fmod`) and
            // `trunc`, so that they give the host's bits.
            #[inline(always)]
            fn rem_euclid(self, rhs: $t) -> $t {
                let r = self % rhs;
                if r < 0.0 {
                    r + <$t>::abs(rhs)
                } else {
                    r
                }
            }
            #[inline(always)]
            fn div_euclid(self, rhs: $t) -> $t {
                let q = Float::trunc(self / rhs);
                if self % rhs < 0.0 {
                    return if rhs > 0.0 { q - 1.0 } else { q + 1.0 };
                }
                q
            }
            #[inline(always)]
            fn fract(self) -> $t {
                self - Float::trunc(self)
            }
            // Inherent in core on every target (llvm.fabs / llvm.minnum / llvm.maxnum).
            #[inline(always)]
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn min(self, o: $t) -> $t {
                <$t>::min(self, o)
            }
            #[inline(always)]
            fn max(self, o: $t) -> $t {
                <$t>::max(self, o)
            }
        }
    };
}

float_impl!(f64, i32;
    unary: [
        sqrt __nv_sqrt __ocml_sqrt_f64 sqrt;
        exp __nv_exp __ocml_exp_f64 exp;
        exp2 __nv_exp2 __ocml_exp2_f64 exp2;
        ln __nv_log __ocml_log_f64 ln;
        log2 __nv_log2 __ocml_log2_f64 log2;
        log10 __nv_log10 __ocml_log10_f64 log10;
        sin __nv_sin __ocml_sin_f64 sin;
        cos __nv_cos __ocml_cos_f64 cos;
        tan __nv_tan __ocml_tan_f64 tan;
        asin __nv_asin __ocml_asin_f64 asin;
        acos __nv_acos __ocml_acos_f64 acos;
        atan __nv_atan __ocml_atan_f64 atan;
        sinh __nv_sinh __ocml_sinh_f64 sinh;
        cosh __nv_cosh __ocml_cosh_f64 cosh;
        tanh __nv_tanh __ocml_tanh_f64 tanh;
        floor __nv_floor __ocml_floor_f64 floor;
        ceil __nv_ceil __ocml_ceil_f64 ceil;
        round __nv_round __ocml_round_f64 round;
        trunc __nv_trunc __ocml_trunc_f64 trunc;
        cbrt __nv_cbrt __ocml_cbrt_f64 cbrt;
        exp_m1 __nv_expm1 __ocml_expm1_f64 exp_m1;
        ln_1p __nv_log1p __ocml_log1p_f64 ln_1p;
        asinh __nv_asinh __ocml_asinh_f64 asinh;
        acosh __nv_acosh __ocml_acosh_f64 acosh;
        atanh __nv_atanh __ocml_atanh_f64 atanh;
        round_ties_even __nv_rint __ocml_rint_f64 round_ties_even;
    ]
    binary: [
        atan2 __nv_atan2 __ocml_atan2_f64 atan2;
        powf __nv_pow __ocml_pow_f64 powf;
        hypot __nv_hypot __ocml_hypot_f64 hypot;
    ]
    powi: __nv_powi __ocml_pown_f64;
    fma: __nv_fma __ocml_fma_f64;
);

float_impl!(f32, i32;
    unary: [
        sqrt __nv_sqrtf __ocml_sqrt_f32 sqrt;
        exp __nv_expf __ocml_exp_f32 exp;
        exp2 __nv_exp2f __ocml_exp2_f32 exp2;
        ln __nv_logf __ocml_log_f32 ln;
        log2 __nv_log2f __ocml_log2_f32 log2;
        log10 __nv_log10f __ocml_log10_f32 log10;
        sin __nv_sinf __ocml_sin_f32 sin;
        cos __nv_cosf __ocml_cos_f32 cos;
        tan __nv_tanf __ocml_tan_f32 tan;
        asin __nv_asinf __ocml_asin_f32 asin;
        acos __nv_acosf __ocml_acos_f32 acos;
        atan __nv_atanf __ocml_atan_f32 atan;
        sinh __nv_sinhf __ocml_sinh_f32 sinh;
        cosh __nv_coshf __ocml_cosh_f32 cosh;
        tanh __nv_tanhf __ocml_tanh_f32 tanh;
        floor __nv_floorf __ocml_floor_f32 floor;
        ceil __nv_ceilf __ocml_ceil_f32 ceil;
        round __nv_roundf __ocml_round_f32 round;
        trunc __nv_truncf __ocml_trunc_f32 trunc;
        cbrt __nv_cbrtf __ocml_cbrt_f32 cbrt;
        exp_m1 __nv_expm1f __ocml_expm1_f32 exp_m1;
        ln_1p __nv_log1pf __ocml_log1p_f32 ln_1p;
        asinh __nv_asinhf __ocml_asinh_f32 asinh;
        acosh __nv_acoshf __ocml_acosh_f32 acosh;
        atanh __nv_atanhf __ocml_atanh_f32 atanh;
        round_ties_even __nv_rintf __ocml_rint_f32 round_ties_even;
    ]
    binary: [
        atan2 __nv_atan2f __ocml_atan2_f32 atan2;
        powf __nv_powf __ocml_pow_f32 powf;
        hypot __nv_hypotf __ocml_hypot_f32 hypot;
    ]
    powi: __nv_powif __ocml_pown_f32;
    fma: __nv_fmaf __ocml_fma_f32;
);
