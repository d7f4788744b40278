//! Shared write access for parallel loops whose iterations write provably distinct elements
//! (indirect writes through a zone list) or update elements atomically.
//!
//! RAJAPerf's Apps kernels write `out[zones[ii]]`; the zone list has distinct entries, which
//! the type system cannot see. These wrappers keep that one `unsafe` promise in one place.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// A slice that parallel iterations may write at distinct indices.
#[derive(Debug)]
pub struct DisjointSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: writes go to distinct indices (the contract of `write`), so no element is shared
// between threads; T: Send lets values move to the writing thread.
unsafe impl<T: Send> Send for DisjointSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for DisjointSlice<'_, T> {}

impl<'a, T> DisjointSlice<'a, T> {
    /// Borrows `s` exclusively for the lifetime of the wrapper.
    pub fn new(s: &'a mut [T]) -> Self {
        DisjointSlice { ptr: s.as_mut_ptr(), len: s.len(), _borrow: PhantomData }
    }

    /// Writes `v` at `i` (bounds-checked).
    ///
    /// # Safety
    /// While this wrapper lives, no other iteration reads or writes index `i`.
    pub unsafe fn write(&self, i: usize, v: T) {
        assert!(i < self.len, "index {i} out of bounds {}", self.len);
        // SAFETY: in bounds (checked), and exclusive per the caller's contract.
        unsafe { self.ptr.add(i).write(v) }
    }
}

/// Views `s` as atomics for `#pragma omp atomic`-style updates.
pub fn as_atomic_f64(s: &mut [f64]) -> &[AtomicU64] {
    const _: () = assert!(
        std::mem::size_of::<AtomicU64>() == std::mem::size_of::<f64>() && std::mem::align_of::<AtomicU64>() == std::mem::align_of::<f64>()
    );
    // SAFETY: AtomicU64 has the size and alignment of f64 (checked above); the exclusive
    // borrow of `s` guarantees that every access during the returned borrow is atomic.
    unsafe { std::slice::from_raw_parts(s.as_mut_ptr().cast::<AtomicU64>(), s.len()) }
}

/// `*x += v` atomically on an f64 stored as bits (compare-and-swap loop).
pub fn atomic_add_f64(x: &AtomicU64, v: f64) {
    let mut cur = x.load(Ordering::Relaxed);
    loop {
        let new = (f64::from_bits(cur) + v).to_bits();
        match x.compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(seen) => cur = seen,
        }
    }
}
