//! Reads of a read-only array at an affine index of a sequential loop's variable, checked once per loop instead of
//! once per element: `for k in lo..hi { s += a[c0 + k * c1] }` becomes a [`Window`] of `a` built before the loop and
//! `window.read(k, a, c0 + k * c1)` in it (device lowering, `omp-rs-codegen/src/lower/affine.rs`).
//!
//! Soundness does not depend on the code generator's analysis: [`Window::new`] verifies that `c0 + k * c1` is in
//! bounds for every `k` in `lo..hi` (without overflow), and [`Window::read`] reads without a bounds check only when
//! the window verified, `k` is in `lo..hi`, the index it was given equals `c0 + k * c1` and the slice is the one the
//! window was built on; otherwise it indexes the slice as the original code did (same panic). When the generator's
//! reading of the loop is right, these comparisons are loop invariants or follow from the loop's range and LLVM
//! removes them, which leaves the loop free of checks and free to unroll; when it is wrong, they fail and the read
//! is an ordinary `a[i]`.

use core::borrow::Borrow;

/// A verified affine window of a slice (see the module docs).
#[derive(Clone, Copy)]
pub struct Window<T> {
    ptr: *const T,
    len: usize,
    c0: usize,
    c1: usize,
    lo: usize,
    hi: usize,
    verified: bool,
}

impl<T: Copy> Window<T> {
    /// The window of `s` at `c0 + k * c1` for `k` in `lo..hi`.
    #[inline(always)]
    pub fn new(s: &[T], c0: usize, c1: usize, lo: usize, hi: usize) -> Window<T> {
        // The largest index is the last k's (c1 >= 0); an empty range reads nothing.
        let last = if lo < hi { (hi - 1).checked_mul(c1).and_then(|m| m.checked_add(c0)) } else { None };
        let verified = matches!(last, Some(i) if i < s.len());
        Window { ptr: s.as_ptr(), len: s.len(), c0, c1, lo, hi, verified }
    }

    /// Whether every index of the window is in bounds. The generated code has the loop twice, under
    /// `if !window.verified() { loop } else { loop }`: in the second copy LLVM knows the answer and drops the checks.
    #[inline(always)]
    pub fn verified(&self) -> bool {
        self.verified
    }

    /// `s[i]`, where the generator expects `i == c0 + k * c1`.
    #[inline(always)]
    #[track_caller]
    pub fn read(&self, k: usize, s: &[T], i: usize) -> T {
        if self.verified
            && k >= self.lo
            && k < self.hi
            && i == self.c0.wrapping_add(k.wrapping_mul(self.c1))
            && core::ptr::eq(s.as_ptr(), self.ptr)
            && s.len() == self.len
        {
            // SAFETY: `new` verified `c0 + k * c1 < len` (no overflow) for every `k` in `lo..hi`, `s` is the slice of
            // that length it was built on, and `i` is that index for this `k`.
            unsafe { *s.get_unchecked(i) }
        } else {
            s[i]
        }
    }
}

/// `a + b`, wrapping (the window's bounds come from these; they never panic, the original expression still does).
#[inline(always)]
pub fn wadd(a: impl Borrow<usize>, b: impl Borrow<usize>) -> usize {
    a.borrow().wrapping_add(*b.borrow())
}

/// `a - b`, wrapping.
#[inline(always)]
pub fn wsub(a: impl Borrow<usize>, b: impl Borrow<usize>) -> usize {
    a.borrow().wrapping_sub(*b.borrow())
}

/// `a * b`, wrapping.
#[inline(always)]
pub fn wmul(a: impl Borrow<usize>, b: impl Borrow<usize>) -> usize {
    a.borrow().wrapping_mul(*b.borrow())
}
