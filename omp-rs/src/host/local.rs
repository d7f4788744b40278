//! Read-only arrays inside a parallel loop, rebound as local slices.
//!
//! A closure captures its environment by reference, so the body would reach an array through two loads
//! (`&&[T]`), and LLVM cannot hoist them past the stores to written arrays (they might alias the stack slot).
//! Rebinding the array as a local `&[T]` keeps pointer and length in registers and lets the loop vectorise.
//! `(&Probe(&x)).local()` picks the slice when the type is slice-like (autoref specialisation) and otherwise
//! yields `&x` unchanged, so any indexable type still works. Scalars that index arrays (`n` in `a[i * n + j]`)
//! get the same treatment with `(&Probe(&n)).value()`: a copy when `Copy`.

use super::storage::SliceStorage;

/// Wraps a captured variable for [`SliceLocal::local`] / [`RefLocal::local`].
#[derive(Debug)]
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// Preferred: the variable as a local slice.
pub trait SliceLocal<'a, E> {
    /// The slice.
    fn local(&self) -> &'a [E];
}

impl<'a, T: ?Sized + SliceStorage> SliceLocal<'a, T::Elem> for Probe<'a, T> {
    #[inline(always)]
    fn local(&self) -> &'a [T::Elem] {
        self.0.storage()
    }
}

/// Fallback for other indexable types: the reference itself.
pub trait RefLocal<'a, T: ?Sized> {
    /// The reference.
    fn local(&self) -> &'a T;
}

impl<'a, T: ?Sized> RefLocal<'a, T> for &Probe<'a, T> {
    #[inline(always)]
    fn local(&self) -> &'a T {
        self.0
    }
}

/// Preferred for scalars used in index arithmetic (`n` in `a[i * n + j]`): a local copy, so the index computation
/// is not reloaded after every store.
pub trait CopyValue<T> {
    /// The copy.
    fn value(&self) -> T;
}

impl<T: Copy> CopyValue<T> for Probe<'_, T> {
    #[inline(always)]
    fn value(&self) -> T {
        *self.0
    }
}

/// Fallback for types that are not `Copy`: the reference itself.
pub trait RefValue<'a, T: ?Sized> {
    /// The reference.
    fn value(&self) -> &'a T;
}

impl<'a, T: ?Sized> RefValue<'a, T> for &Probe<'a, T> {
    #[inline(always)]
    fn value(&self) -> &'a T {
        self.0
    }
}
