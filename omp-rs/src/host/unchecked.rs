//! The escape hatch `unsafe(disjoint(u))`: a host parallel loop reaches `u`'s elements without the ownership
//! checks, because the user asserted, with `unsafe`, what omp-rs could not prove (halo copies that write the
//! border and read the interior of one array, a scatter whose indices are known to be distinct). Indices are still bounds-checked; only the absence of conflicts between iterations is the
//! user's promise, as in C.
#![allow(unsafe_code)]

use std::marker::PhantomData;
use std::ops::{Bound, Index, IndexMut, RangeBounds};

/// The elements of a slice shared by every thread of a parallel loop without checks of who writes what. Each
/// thread works on its own copy (it is `Copy`); `u[i]` and `u[a..b]` reach the elements.
pub struct UncheckedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    borrow: PhantomData<&'a mut [T]>,
}

impl<T> Clone for UncheckedSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for UncheckedSlice<'_, T> {}

// SAFETY: the threads reach the elements through copies of one `UncheckedSlice`; `new`'s contract (no element
// written by one iteration is read or written by another) rules out data races, and `T: Send + Sync` lets elements
// be written from and shared between threads.
unsafe impl<T: Send + Sync> Sync for UncheckedSlice<'_, T> {}
// SAFETY: as for `Sync`.
unsafe impl<T: Send + Sync> Send for UncheckedSlice<'_, T> {}

impl<'a, T> UncheckedSlice<'a, T> {
    /// The elements of `s` for one parallel loop.
    ///
    /// # Safety
    /// No element may be written by one iteration of the loop and read or written by another. The expansion of
    /// `unsafe(disjoint(u))` calls this inside an `unsafe` block that carries the user's `unsafe` keyword.
    pub unsafe fn new(s: &'a mut [T]) -> Self {
        UncheckedSlice { ptr: s.as_mut_ptr(), len: s.len(), borrow: PhantomData }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `start..end` for a range, panicking as slice indexing does.
    #[track_caller]
    fn range(&self, r: impl RangeBounds<usize>) -> (usize, usize) {
        let start = match r.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s.checked_add(1).unwrap_or_else(|| panic!("range start index overflows")),
            Bound::Unbounded => 0,
        };
        let end = match r.end_bound() {
            Bound::Included(&e) => e.checked_add(1).unwrap_or_else(|| panic!("range end index overflows")),
            Bound::Excluded(&e) => e,
            Bound::Unbounded => self.len,
        };
        assert!(start <= end, "slice index starts at {start} but ends at {end}");
        assert!(end <= self.len, "range end index {end} out of range for slice of length {}", self.len);
        (start, end)
    }

    #[track_caller]
    fn element(&self, i: usize) -> *mut T {
        assert!(i < self.len, "index out of bounds: the len is {} but the index is {i}", self.len);
        // SAFETY: `i < len`, inside the slice `new` was given (borrowed for `'a`).
        unsafe { self.ptr.add(i) }
    }
}

impl<T> Index<usize> for UncheckedSlice<'_, T> {
    type Output = T;
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        // SAFETY: a live element (bounds checked); no other iteration writes it while this one reads (`new`).
        unsafe { &*self.element(i) }
    }
}

impl<T> IndexMut<usize> for UncheckedSlice<'_, T> {
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: a live element (bounds checked); no other iteration reads or writes it while this one does (`new`).
        unsafe { &mut *self.element(i) }
    }
}

macro_rules! range_index {
    ($($r:ty),*) => {$(
        impl<T> Index<$r> for UncheckedSlice<'_, T> {
            type Output = [T];
            #[track_caller]
            fn index(&self, r: $r) -> &[T] {
                let (s, e) = self.range(r);
                // SAFETY: `s..e` lies inside the slice (checked); no other iteration writes it meanwhile (`new`).
                unsafe { std::slice::from_raw_parts(self.ptr.add(s), e - s) }
            }
        }

        impl<T> IndexMut<$r> for UncheckedSlice<'_, T> {
            #[track_caller]
            fn index_mut(&mut self, r: $r) -> &mut [T] {
                let (s, e) = self.range(r);
                // SAFETY: `s..e` lies inside the slice (checked); no other iteration reaches it meanwhile (`new`).
                unsafe { std::slice::from_raw_parts_mut(self.ptr.add(s), e - s) }
            }
        }
    )*};
}
range_index!(
    std::ops::Range<usize>,
    std::ops::RangeInclusive<usize>,
    std::ops::RangeFrom<usize>,
    std::ops::RangeTo<usize>,
    std::ops::RangeToInclusive<usize>,
    std::ops::RangeFull
);
