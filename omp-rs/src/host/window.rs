//! Row windows: the safe replacement of hoisted bounds checks for arrays a parallel loop only reads.
//!
//! Before a loop over a row (the innermost parallel dimension, or a sequential `for` of the body), the expansion
//! computes, for each affine access `a[idx]` of the row, where the row's indices start (`lo`) and how many
//! elements they span (`len`), and asks for a [`RowWindow`]: the sub-slice `a[lo..lo + len]`. Inside the row, the
//! access becomes `Pick(&a, &w).__omp_pick(idx)`, which reads the sub-slice at `idx - lo` when `a` is still that
//! slice and the index is in range, and `a[idx]` otherwise. Both name the same element, so the rewrite can never
//! change what the program reads, whatever the analysis got wrong (a shadowed `a`, a misread index): it only
//! decides whether LLVM sees an index it can prove in range (`idx - lo` over a row is `0, 1, 2, …`, against a
//! length it knows) and so drop the check and vectorise the loop. A loop nest that reads `a[i + j]` gets a
//! [`RowsWindow`] before the loop over `i`, which hands each loop over `j` its `RowWindow`.

use std::ops::Index;

use super::local::Probe;
use super::storage::SliceStorage;

/// One window of an array for the current row (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct RowWindow<'a, T> {
    full: &'a [T],
    row: &'a [T],
    lo: usize,
}

/// What an expansion gets for a variable that is not a plain slice: never made (the request answers `None`),
/// it only keeps the rewritten row type-correct.
#[derive(Debug, Clone, Copy)]
pub struct NotSlice;

/// An access `a[idx]` of the row, with the window made for it: `Pick(&a, &window)`. `a` is whatever the name
/// means where the access is written (the body may have rebound it).
#[derive(Debug)]
pub struct Pick<'r, S: ?Sized, W>(pub &'r S, pub &'r W);

/// Preferred: `a` is a slice. When it is the very slice the window was made from (same address and length) and
/// the window holds `idx`, the element comes from the window; otherwise `a[idx]`.
pub trait PickSlice<'r, T> {
    /// The element.
    fn __omp_pick(&self, idx: usize) -> &'r T;
}

impl<'r, 'a: 'r, T> PickSlice<'r, T> for Pick<'r, &'a [T], RowWindow<'a, T>> {
    #[inline(always)]
    #[track_caller]
    fn __omp_pick(&self, idx: usize) -> &'r T {
        let (a, w) = (*self.0, self.1);
        let j = idx.wrapping_sub(w.lo);
        if std::ptr::eq(a, w.full) && j < w.row.len() {
            &w.row[j]
        } else {
            &a[idx]
        }
    }
}

/// Fallback for anything else (a rebound name, a type with its own `Index`): `a[idx]`.
pub trait PickAny<'r, S: ?Sized + Index<I>, I> {
    /// The element.
    fn __omp_pick(&self, idx: I) -> &'r S::Output;
}

impl<'r, S: ?Sized + Index<I>, W, I> PickAny<'r, S, I> for &Pick<'r, S, W> {
    #[inline(always)]
    #[track_caller]
    fn __omp_pick(&self, idx: I) -> &'r S::Output {
        &self.0[idx]
    }
}

/// Preferred: a window `[lo, lo + len)` of a slice-like variable (`None` when it lies outside the array). One
/// `Some` construction, so that on the fast path LLVM sees the window's exact bounds.
pub trait SliceRows<'a, E> {
    /// The window.
    fn __omp_row(&self, lo: usize, len: usize) -> Option<RowWindow<'a, E>>;
    /// The rows of a loop nest (`None` when the last row would end outside the array).
    fn __omp_rows(&self, first: usize, starts: usize, len: usize) -> Option<RowsWindow<'a, E>>;
}

impl<'a, S: ?Sized + SliceStorage> SliceRows<'a, S::Elem> for Probe<'a, S> {
    #[inline(always)]
    fn __omp_row(&self, lo: usize, len: usize) -> Option<RowWindow<'a, S::Elem>> {
        let full = self.0.storage();
        if lo <= full.len() && len <= full.len() - lo {
            Some(RowWindow { full, row: &full[lo..lo + len], lo })
        } else {
            None
        }
    }

    #[inline(always)]
    fn __omp_rows(&self, first: usize, starts: usize, len: usize) -> Option<RowsWindow<'a, S::Elem>> {
        let full = self.0.storage();
        let end = first.checked_add(starts.saturating_sub(1))?.checked_add(len)?;
        (end <= full.len()).then_some(RowsWindow { full, first, starts, len })
    }
}

/// Fallback for other types: no window.
pub trait RefRows<'a, T: ?Sized> {
    /// Always `None`.
    fn __omp_row(&self, lo: usize, len: usize) -> Option<NotSlice>;
    /// Always `None`.
    fn __omp_rows(&self, first: usize, starts: usize, len: usize) -> Option<NotSlice>;
}

impl<'a, T: ?Sized> RefRows<'a, T> for &Probe<'a, T> {
    #[inline(always)]
    fn __omp_row(&self, _: usize, _: usize) -> Option<NotSlice> {
        None
    }
    #[inline(always)]
    fn __omp_rows(&self, _: usize, _: usize, _: usize) -> Option<NotSlice> {
        None
    }
}

impl NotSlice {
    /// Never a window.
    #[inline(always)]
    pub fn __omp_row(&self, _: usize, _: usize) -> Option<NotSlice> {
        None
    }
}

/// The rows an inner loop reads, one per value of the loop around it (`x[i + j]`, `j` in a short range, inside a
/// loop over `i`): each row starts in `[first, first + starts)` and spans at most `len` elements, all inside the
/// array (checked once, when made). Each instance of the inner loop asks it for its [`RowWindow`]; against the
/// outer loop's counter that check is one LLVM can prove, so the outer loop stays free of branches and can
/// vectorise across rows.
#[derive(Debug, Clone, Copy)]
pub struct RowsWindow<'a, T> {
    full: &'a [T],
    first: usize,
    starts: usize,
    len: usize,
}

impl<'a, T> RowsWindow<'a, T> {
    /// The window `[lo, lo + len)`, when it is one of the rows (`None` otherwise: the loop then runs unwindowed).
    #[inline(always)]
    pub fn __omp_row(&self, lo: usize, len: usize) -> Option<RowWindow<'a, T>> {
        let k = lo.wrapping_sub(self.first);
        if k < self.starts && len <= self.len {
            // In bounds: `first + starts - 1 + self.len <= full.len()` was checked when the rows were made.
            Some(RowWindow { full: self.full, row: &self.full[lo..lo + len], lo })
        } else {
            None
        }
    }
}

/// The number of elements a row of `count` iterations spans when the index moves by `stride` (> 1) per
/// iteration: `stride·(count - 1) + 1`, wrapping (a wrapped span only makes the window miss, never wrong).
#[inline(always)]
pub fn row_span(count: usize, stride: usize) -> usize {
    count.wrapping_sub(1).wrapping_mul(stride).wrapping_add(1)
}

/// Integer types a windowed loop counts over.
pub trait WindowIndex: Copy + PartialOrd {
    /// `end - self` values (0 when empty), saturated at `usize::MAX`.
    fn distance_to(self, end: Self) -> usize;
    /// `self + k`, wrapping (only asked for `k` below the count).
    fn plus(self, k: usize) -> Self;
}

// Written as the loop's own trip count (`end - start` when non-empty) so LLVM sees that they are equal.
macro_rules! window_index {
    ($($t:ty => $u:ty),*) => {$(
        impl WindowIndex for $t {
            #[inline(always)]
            fn distance_to(self, end: Self) -> usize {
                if self < end { usize::try_from((end as $u).wrapping_sub(self as $u)).unwrap_or(usize::MAX) } else { 0 }
            }
            #[inline(always)]
            fn plus(self, k: usize) -> Self {
                self.wrapping_add(k as $t)
            }
        }
    )*};
}
window_index!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => usize, i8 => u8, i16 => u16, i32 => u32, i64 => u64,
              isize => usize);

/// The number of values of a windowed loop's `a..b`.
#[inline(always)]
pub fn range_count<T: WindowIndex>(r: &std::ops::Range<T>) -> usize {
    r.start.distance_to(r.end)
}

/// The `k`-th value of a windowed loop's `a..b` (`k` below its count).
#[inline(always)]
pub fn range_nth<T: WindowIndex>(r: &std::ops::Range<T>, k: usize) -> T {
    r.start.plus(k)
}

/// The number of values of a windowed loop's `a..=b`.
#[inline(always)]
pub fn range_count_inclusive<T: WindowIndex>(r: &std::ops::RangeInclusive<T>) -> usize {
    let (s, e) = (*r.start(), *r.end());
    if s <= e {
        s.distance_to(e).saturating_add(1)
    } else {
        0
    }
}

/// The `k`-th value of a windowed loop's `a..=b`.
#[inline(always)]
pub fn range_nth_inclusive<T: WindowIndex>(r: &std::ops::RangeInclusive<T>, k: usize) -> T {
    r.start().plus(k)
}

/// Wrapping integer arithmetic for the window bounds (`lo` is the index evaluated at a loop's first value, which
/// must not panic where the program does not).
pub mod wrapping {
    /// Primitive integers.
    pub trait Int: Copy {
        /// `self + o`, wrapping.
        fn add(self, o: Self) -> Self;
        /// `self - o`, wrapping.
        fn sub(self, o: Self) -> Self;
        /// `self * o`, wrapping.
        fn mul(self, o: Self) -> Self;
        /// `-self`, wrapping.
        fn neg(self) -> Self;
    }

    macro_rules! int {
        ($($t:ty),*) => {$(
            impl Int for $t {
                #[inline(always)] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
                #[inline(always)] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
                #[inline(always)] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
                #[inline(always)] fn neg(self) -> Self { self.wrapping_neg() }
            }
        )*};
    }
    int!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

    /// `a + b`.
    #[inline(always)]
    pub fn add<T: Int>(a: T, b: T) -> T {
        a.add(b)
    }
    /// `a - b`.
    #[inline(always)]
    pub fn sub<T: Int>(a: T, b: T) -> T {
        a.sub(b)
    }
    /// `a * b`.
    #[inline(always)]
    pub fn mul<T: Int>(a: T, b: T) -> T {
        a.mul(b)
    }
    /// `-a`.
    #[inline(always)]
    pub fn neg<T: Int>(a: T) -> T {
        a.neg()
    }
}

#[cfg(test)]
// `(&Probe(&a)).__omp_row(..)`: the expansion's autoref probe, borrowed as the expansion borrows it.
#[allow(clippy::needless_borrow)]
mod test {
    use super::*;
    use proptest::prelude::*;

    #[allow(unused_imports)]
    use super::{PickAny as _, PickSlice as _, RefRows as _, SliceRows as _};

    proptest! {
        // Whatever window is asked for, every read through it is the plain read.
        #[test]
        fn windows_never_change_a_read(
            a in prop::collection::vec(any::<u32>(), 0..40),
            lo in 0usize..50, len in 0usize..50,
            idx in prop::collection::vec(0usize..40, 0..20),
        ) {
            let a: &[u32] = &a;
            let w = (&Probe(&a)).__omp_row(lo, len);
            prop_assert_eq!(w.is_some(), lo + len <= a.len());
            if let Some(w) = w {
                {
                    for &i in &idx {
                        let got = std::panic::catch_unwind(|| *(&Pick(&a, &w)).__omp_pick(i));
                        let want = std::panic::catch_unwind(|| a[i]);
                        prop_assert_eq!(got.ok(), want.ok());
                        // Another slice under the same name never reads through the window.
                        let other: &[u32] = &a[..a.len() / 2];
                        let got = std::panic::catch_unwind(|| *(&Pick(&other, &w)).__omp_pick(i));
                        prop_assert_eq!(got.ok(), other.get(i).copied());
                    }
                }
            }
        }
    }

    proptest! {
        // A row handed out by a `RowsWindow` is the plain sub-slice, or none.
        #[test]
        fn rows_hand_out_plain_rows(
            a in prop::collection::vec(any::<u32>(), 0..40),
            first in 0usize..50, starts in 0usize..20, len in 0usize..20,
            asks in prop::collection::vec((0usize..60, 0usize..25), 0..20),
        ) {
            let a: &[u32] = &a;
            let rows = (&Probe(&a)).__omp_rows(first, starts, len);
            prop_assert_eq!(rows.is_some(), first + starts.saturating_sub(1) + len <= a.len());
            if let Some(rows) = rows {
                for (lo, n) in asks {
                    if let Some(w) = rows.__omp_row(lo, n) {
                        prop_assert_eq!(w.row, &a[lo..lo + n]);
                        prop_assert_eq!(w.lo, lo);
                    }
                }
            }
        }
    }

    #[test]
    fn other_types_get_no_windows() {
        struct OneBased(Vec<u32>);
        impl Index<usize> for OneBased {
            type Output = u32;
            fn index(&self, i: usize) -> &u32 {
                &self.0[i - 1]
            }
        }
        let x = OneBased(vec![7, 8, 9]);
        assert!((&Probe(&x)).__omp_row(0, 2).is_none());
        let w = NotSlice;
        assert_eq!(*(&Pick(&x, &w)).__omp_pick(1), 7, "the fallback keeps the type's own Index");
    }
}
