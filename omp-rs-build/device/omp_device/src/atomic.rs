//! Atomic read-modify-write on raw pointers into device memory (OpenMP `atomic`).
//!
//! All operations are relaxed (OpenMP's default `atomic` ordering). Integers use `core`'s
//! atomics (native `atom`/`global_atomic_*` instructions). Floats:
//! - add / fetch_add: LLVM `atomicrmw fadd` from the IR helper, device (NVIDIA `.gpu`) / agent
//!   (AMD) scope, with the pointer cast to the global address space first (`cvta.to.global` +
//!   `atom.global.add.f64`; ptxas turns an unused result into `red`). On AMD, LLVM picks a
//!   native float atomic only where it is safe for fine-grained memory and a CAS loop otherwise.
//! - add into the team's shared memory ([`crate::team::TeamArena`]): the same on the shared address space
//!   (`atom.shared.add.f32`, AMD `ds_add_f32`).
//! - everything else: a compare-and-swap loop on the bit pattern ([`atomic_update`]).
//!
//! Host `.so`: the same `core` atomics and CAS loops.
//!
//! Pointers given to the float add on GPUs must point to global memory (device allocations,
//! host-pinned buffers); not to the team scratch.

use core::sync::atomic::Ordering::Relaxed;
use core::sync::atomic::{AtomicI32, AtomicI64, AtomicIsize, AtomicU32, AtomicU64, AtomicUsize};

#[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
extern "C" {
    fn __omp_rs_atomic_fadd_f64(p: *mut f64, v: f64) -> f64;
    fn __omp_rs_atomic_fadd_f32(p: *mut f32, v: f32) -> f32;
    fn __omp_rs_atomic_fadd_shared_f64(p: *mut f64, v: f64) -> f64;
    fn __omp_rs_atomic_fadd_shared_f32(p: *mut f32, v: f32) -> f32;
}

mod sealed {
    pub trait Sealed {}
}

/// Types with atomic load, store, compare-and-swap, add, min and max: `i32 u32 i64 u64 isize
/// usize f32 f64`. The methods are plumbing for the free functions of this module.
pub trait AtomicScalar: Copy + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn __load(p: *const Self) -> Self;
    #[doc(hidden)]
    unsafe fn __store(p: *mut Self, v: Self);
    /// Compares bit patterns (so NaN and -0.0 behave).
    #[doc(hidden)]
    unsafe fn __cas(p: *mut Self, current: Self, new: Self) -> Result<Self, Self>;
    #[doc(hidden)]
    unsafe fn __fetch_add(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn __fetch_sub(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn __fetch_min(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn __fetch_max(p: *mut Self, v: Self) -> Self;
    /// `*p += v` on the team's shared memory ([`crate::team::TeamArena`]).
    #[doc(hidden)]
    unsafe fn __team_add(p: *mut Self, v: Self);
    /// `*p -= v` on the team's shared memory.
    #[doc(hidden)]
    unsafe fn __team_sub(p: *mut Self, v: Self);
    /// The identity of `+`.
    #[doc(hidden)]
    fn __zero() -> Self;
    /// Whether adding `self` changes nothing (floats: either zero).
    #[doc(hidden)]
    fn __adds_nothing(self) -> bool;
}

/// Integer types: [`AtomicScalar`] plus `and`, `or`, `xor`.
pub trait AtomicInt: AtomicScalar {
    #[doc(hidden)]
    unsafe fn __fetch_and(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn __fetch_or(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn __fetch_xor(p: *mut Self, v: Self) -> Self;
}

macro_rules! atomic_int {
    ($($t:ty => $a:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicScalar for $t {
            #[inline(always)]
            unsafe fn __load(p: *const Self) -> Self {
                // SAFETY: caller guarantees an aligned, valid pointer.
                unsafe { <$a>::from_ptr(p as *mut $t).load(Relaxed) }
            }
            #[inline(always)]
            unsafe fn __store(p: *mut Self, v: Self) {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).store(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __cas(p: *mut Self, c: Self, n: Self) -> Result<Self, Self> {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).compare_exchange(c, n, Relaxed, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __fetch_add(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_add(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __fetch_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_sub(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __fetch_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_min(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __fetch_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_max(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __team_add(p: *mut Self, v: Self) {
                // SAFETY: as above (core's atomics take generic pointers, which reach shared memory too).
                unsafe { <$a>::from_ptr(p).fetch_add(v, Relaxed) };
            }
            #[inline(always)]
            unsafe fn __team_sub(p: *mut Self, v: Self) {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_sub(v, Relaxed) };
            }
            #[inline(always)]
            fn __zero() -> Self {
                0
            }
            #[inline(always)]
            fn __adds_nothing(self) -> bool {
                self == 0
            }
        }
        impl AtomicInt for $t {
            #[inline(always)]
            unsafe fn __fetch_and(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_and(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __fetch_or(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_or(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn __fetch_xor(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p).fetch_xor(v, Relaxed) }
            }
        }
    )*};
}
atomic_int!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64,
            isize => AtomicIsize, usize => AtomicUsize);

macro_rules! atomic_float {
    ($($t:ty => $bits:ty, $fadd:ident, $fadd_shared:ident);*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicScalar for $t {
            #[inline(always)]
            unsafe fn __load(p: *const Self) -> Self {
                // SAFETY: same size and alignment as the bits type.
                <$t>::from_bits(unsafe { <$bits>::__load(p as *const $bits) })
            }
            #[inline(always)]
            unsafe fn __store(p: *mut Self, v: Self) {
                // SAFETY: as above.
                unsafe { <$bits>::__store(p as *mut $bits, v.to_bits()) }
            }
            #[inline(always)]
            unsafe fn __cas(p: *mut Self, c: Self, n: Self) -> Result<Self, Self> {
                // SAFETY: as above.
                unsafe { <$bits>::__cas(p as *mut $bits, c.to_bits(), n.to_bits()) }
                    .map(<$t>::from_bits)
                    .map_err(<$t>::from_bits)
            }
            #[inline(always)]
            unsafe fn __fetch_add(p: *mut Self, v: Self) -> Self {
                #[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
                // SAFETY: caller guarantees a valid pointer to global memory.
                return unsafe { $fadd(p, v) };
                #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
                // SAFETY: forwarded.
                return unsafe { atomic_update(p, |x| x + v) };
            }
            #[inline(always)]
            unsafe fn __fetch_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: forwarded.
                unsafe { Self::__fetch_add(p, -v) }
            }
            #[inline(always)]
            unsafe fn __fetch_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: forwarded.
                unsafe { atomic_update(p, |x| x.min(v)) }
            }
            #[inline(always)]
            unsafe fn __fetch_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: forwarded.
                unsafe { atomic_update(p, |x| x.max(v)) }
            }
            #[inline(always)]
            unsafe fn __team_add(p: *mut Self, v: Self) {
                #[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
                // SAFETY: caller guarantees a valid pointer to the team's shared memory.
                unsafe { $fadd_shared(p, v) };
                #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
                // SAFETY: forwarded.
                unsafe { atomic_update(p, |x| x + v) };
            }
            #[inline(always)]
            unsafe fn __team_sub(p: *mut Self, v: Self) {
                // SAFETY: forwarded.
                unsafe { Self::__team_add(p, -v) }
            }
            #[inline(always)]
            fn __zero() -> Self {
                0.0
            }
            #[inline(always)]
            fn __adds_nothing(self) -> bool {
                self == 0.0
            }
        }
    )*};
}
atomic_float!(f64 => u64, __omp_rs_atomic_fadd_f64, __omp_rs_atomic_fadd_shared_f64;
              f32 => u32, __omp_rs_atomic_fadd_f32, __omp_rs_atomic_fadd_shared_f32);

/// `*p += v`, atomically.
///
/// # Safety
/// `p` must be aligned and valid for reads and writes, and every concurrent access to `*p` must be
/// atomic. On GPUs, float pointers must point to global memory.
#[inline(always)]
pub unsafe fn atomic_add<T: AtomicScalar>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_add(p, v) };
}

/// `*p += v`, atomically; returns the previous value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_fetch_add<T: AtomicScalar>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_add(p, v) }
}

/// `*p -= v`, atomically.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_sub<T: AtomicScalar>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_sub(p, v) };
}

/// `*p = min(*p, v)`, atomically (floats: a NaN operand is ignored).
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_min<T: AtomicScalar>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_min(p, v) };
}

/// `*p = max(*p, v)`, atomically (floats: a NaN operand is ignored).
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_max<T: AtomicScalar>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_max(p, v) };
}

/// `*p &= v`, atomically.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_and<T: AtomicInt>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_and(p, v) };
}

/// `*p |= v`, atomically.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_or<T: AtomicInt>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_or(p, v) };
}

/// `*p ^= v`, atomically.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_xor<T: AtomicInt>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__fetch_xor(p, v) };
}

/// Atomic load.
///
/// # Safety
/// `p` must be aligned and valid for reads; concurrent writes must be atomic.
#[inline(always)]
pub unsafe fn atomic_load<T: AtomicScalar>(p: *const T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::__load(p) }
}

/// Atomic store.
///
/// # Safety
/// `p` must be aligned and valid for writes; concurrent accesses must be atomic.
#[inline(always)]
pub unsafe fn atomic_store<T: AtomicScalar>(p: *mut T, v: T) {
    // SAFETY: forwarded to the caller.
    unsafe { T::__store(p, v) }
}

/// Atomic compare-and-swap of the bit pattern: `Ok(previous)` if `*p` was `current` and is now
/// `new`, else `Err(actual)`.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_compare_exchange<T: AtomicScalar>(p: *mut T, current: T, new: T) -> Result<T, T> {
    // SAFETY: forwarded to the caller.
    unsafe { T::__cas(p, current, new) }
}

/// `*p = f(*p)` atomically through a compare-and-swap loop; returns the previous value.
/// `f` may run several times.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_update<T: AtomicScalar, F: FnMut(T) -> T>(p: *mut T, mut f: F) -> T {
    // SAFETY: forwarded to the caller.
    let mut old = unsafe { T::__load(p) };
    loop {
        // SAFETY: forwarded to the caller.
        match unsafe { T::__cas(p, old, f(old)) } {
            Ok(prev) => return prev,
            Err(actual) => old = actual,
        }
    }
}
