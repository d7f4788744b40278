//! Array captures inside kernels.
//!
//! A kernel receives an array as two slots (base, length). Written arrays become a [`View<T>`]:
//! `Copy`, shared by all threads, bounds-checked like a slice. Read-only arrays become a plain
//! `&[T]` through [`ro_slice`], whose base parameter is a thin `&[T; 0]` reference: the reference
//! makes LLVM mark the kernel argument `noalias readonly`, so NVIDIA loads go through the
//! read-only data cache (`ld.global.nc`).

use core::ops::{Index, IndexMut};

/// A (pointer, length) view over device memory that several threads write at once.
///
/// Indexing is bounds-checked and panics with core's usual
/// `index out of bounds: the len is {len} but the index is {index}` message at the caller's
/// location (`#[track_caller]`). The type is `Copy` and hands out `&mut T` from `&mut self` on
/// every copy, so **writes from different threads are race-free only because the omp-rs macro
/// proved that the threads' index sets are disjoint** (or the writes are `atomic`). Code outside
/// generated kernels must uphold the same rule.
#[derive(Debug)]
pub struct View<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Clone for View<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for View<T> {}

impl<T> View<T> {
    /// Wraps `len` elements starting at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` elements of `T` (or dangling and aligned
    /// when `len == 0`) while the view is used, and concurrent accesses through copies of the view must touch
    /// disjoint elements (or be atomic).
    #[inline(always)]
    pub const unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        View { ptr, len }
    }

    /// Same as [`View::from_raw_parts`] from a thin base reference (`&mut [T; 0]` kernel parameter),
    /// which lets LLVM mark the argument `noalias`.
    ///
    /// # Safety
    /// As for [`View::from_raw_parts`] with `base.as_mut_ptr()` and `len`.
    #[inline(always)]
    pub unsafe fn from_base(base: &mut [T; 0], len: u64) -> Self {
        // SAFETY: forwarded to the caller.
        unsafe { Self::from_raw_parts(base.as_mut_ptr(), len as usize) }
    }

    /// Number of elements.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// `true` when the view has no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The base pointer.
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// Pointer to element `i`, bounds-checked (for atomics on an element).
    #[inline(always)]
    #[track_caller]
    pub fn element_ptr(&self, i: usize) -> *mut T {
        check(i, self.len);
        // SAFETY: i < len, inside the allocation.
        unsafe { self.ptr.add(i) }
    }
}

/// Bounds check through a real slice index so the panic is core's own `panic_bounds_check`
/// (usual message, no `core::fmt` code pulled in) at the `#[track_caller]` location.
#[inline(always)]
#[track_caller]
fn check(i: usize, len: usize) {
    if i >= len {
        // A zero-sized slice of `len` elements: indexing it performs exactly the usual check.
        // SAFETY: `()` is zero-sized, so any aligned non-null pointer is valid for `len` elements.
        let s: &[()] = unsafe { core::slice::from_raw_parts(core::ptr::NonNull::dangling().as_ptr(), len) };
        #[allow(clippy::no_effect)]
        s[i];
    }
}

impl<T> Index<usize> for View<T> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        check(i, self.len);
        // SAFETY: i < len; validity per `from_raw_parts`.
        unsafe { &*self.ptr.add(i) }
    }
}

impl<T> IndexMut<usize> for View<T> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        check(i, self.len);
        // SAFETY: i < len; validity and disjointness per `from_raw_parts`.
        unsafe { &mut *self.ptr.add(i) }
    }
}

/// Rebuilds a read-only array capture from its thin base parameter and length.
///
/// Declare the kernel parameter as `x: &[T; 0]` (not `*const T`): a reference argument is
/// `noalias readonly` in LLVM, so NVIDIA loads through it become `ld.global.nc` (verified by the
/// omp-rs-build tests). `[T; 0]` rather than `T` because the reference then claims 0
/// dereferenceable bytes, so LLVM never speculates a load from an empty array's dangling base.
///
/// # Safety
/// `base` must point to `len` initialised elements that nobody writes while the kernel runs.
/// (Reading past the referent of a `&[T; 0]` is fine for LLVM; under Rust's Stacked Borrows
/// model it is not, which is why this is only used for kernel parameters.)
#[inline(always)]
pub unsafe fn ro_slice<T>(base: &[T; 0], len: u64) -> &[T] {
    // SAFETY: forwarded to the caller.
    unsafe { core::slice::from_raw_parts(base.as_ptr(), len as usize) }
}
