//! Race-free access to data that the iterations of a parallel loop share: the one audited module of the host
//! path that needs `unsafe`.
//!
//! - [`DisjointMut`]/[`DisjointView`]: an array that every iteration writes, at an index the macro's analysis
//!   proved to be one affine function of the loop variables that depends on every parallel induction variable;
//!   [`check_disjoint`] verifies at run time that this function is injective over the actual loop bounds.
//!   Together they guarantee that no two threads touch the same element.
//! - [`AtomicRef`]/[`AtomicSlice`]: scalars and arrays that the loop body only accesses through
//!   `#[omp::atomic]` statements, viewed as the matching `std::sync::atomic` types.
//! - [`CriticalCell`]: variables that the body only accesses inside `#[omp::critical]` blocks.

use std::marker::PhantomData;
use std::sync::atomic::{self, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::Dim;
use super::LoopIndex;

// ---------------------------------------------------------------------------------------------------------
// Disjoint writes

/// An array written by a parallel loop at indices that differ between iterations.
#[derive(Debug)]
pub struct DisjointMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: the handle only hands out views to threads of the loop that borrowed the slice exclusively; elements
// move between threads (T: Send) but are never touched by two threads (see `view`).
unsafe impl<T: Send> Sync for DisjointMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for DisjointMut<'_, T> {}

impl<'a, T> DisjointMut<'a, T> {
    /// Takes the array for the duration of the loop.
    pub fn new(slice: &'a mut [T]) -> Self {
        DisjointMut { ptr: slice.as_mut_ptr(), len: slice.len(), _borrow: PhantomData }
    }

    /// A per-thread view with bounds-checked indexing.
    ///
    /// # Safety
    /// Every access through views of this handle, on every thread, must use the one index function the omp-rs
    /// analysis proved injective across iterations (and that [`check_disjoint`] verified for the actual bounds),
    /// so that no element is accessed by two threads.
    pub unsafe fn view(&self) -> DisjointView<'_, T> {
        DisjointView { ptr: self.ptr, len: self.len, _borrow: PhantomData }
    }
}

/// One thread's view of a [`DisjointMut`] array: it can be indexed and asked its length, nothing else.
#[derive(Debug)]
pub struct DisjointView<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T> DisjointView<'_, T> {
    /// The array's length.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(index: usize, len: usize) -> ! {
    panic!("index out of bounds: the len is {len} but the index is {index}")
}

impl<T> std::ops::Index<usize> for DisjointView<'_, T> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        if i >= self.len {
            out_of_bounds(i, self.len);
        }
        // SAFETY: in bounds; no other thread accesses element i (contract of `DisjointMut::view`).
        unsafe { &*self.ptr.add(i) }
    }
}

impl<T> std::ops::IndexMut<usize> for DisjointView<'_, T> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        if i >= self.len {
            out_of_bounds(i, self.len);
        }
        // SAFETY: in bounds; no other thread accesses element i (contract of `DisjointMut::view`), and this
        // thread's other borrows of the view end before this one starts (`&mut self`).
        unsafe { &mut *self.ptr.add(i) }
    }
}

/// One variable term `coefficient · v` of an affine index, with the values `v` takes.
#[derive(Debug, Clone, Copy)]
pub struct IndexTerm {
    /// How far the index moves from one value of `v` to the next.
    stride: i128,
    /// How many values `v` takes.
    count: u64,
}

impl IndexTerm {
    /// The term `coefficient · v` for a loop variable ranging over `dim`.
    pub fn new<T: LoopIndex>(coefficient: i128, dim: &Dim<T>) -> Self {
        let stride = coefficient.checked_mul(dim.signed_step()).unwrap_or(i128::MAX);
        IndexTerm { stride, count: dim.count() }
    }
}

/// Verifies that an affine index `c + Σ coefficientₖ·vₖ` takes a different value for every combination of the
/// loop variables (mixed-radix condition: sorted by stride, each stride exceeds the span of all smaller terms),
/// so the iterations of a parallel loop write disjoint elements. Panics with an explanation otherwise.
pub fn check_disjoint(array: &str, index: &str, terms: &[IndexTerm]) {
    let mut live: Vec<(i128, u64)> = terms.iter().filter(|t| t.count > 1).map(|t| (t.stride.abs(), t.count)).collect();
    live.sort_unstable();
    let mut span: i128 = 0;
    for (stride, count) in live {
        if stride <= span {
            panic!(
                "omp: iterations of this parallel loop may write the same element of `{array}`: in `{array}[{index}]` a loop \
                 variable with {count} values moves the index by {stride}, which does not exceed the {span} covered by the \
                 faster-moving variables. Check the row length / coefficients against the loop bounds"
            );
        }
        span = stride.saturating_mul(count as i128 - 1).saturating_add(span);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Atomics

/// Scalar types that `#[omp::atomic]` supports, with the atomic type of the same size and alignment.
pub trait AtomicElem: Copy + Send + Sync + 'static {
    /// The `std::sync::atomic` type with the same bits.
    type Atomic: Sync + Send;
    /// Atomic load.
    fn load(a: &Self::Atomic) -> Self;
    /// Atomic store.
    fn store(a: &Self::Atomic, v: Self);
    /// Weak compare-exchange on the bits.
    fn compare_exchange_weak(a: &Self::Atomic, current: Self, new: Self) -> Result<Self, Self>;
    /// Views `&mut Self` as its atomic type.
    fn as_atomic(v: &mut Self) -> &Self::Atomic;
    /// Views `&mut [Self]` as a slice of its atomic type.
    fn as_atomic_slice(v: &mut [Self]) -> &[Self::Atomic];
}

macro_rules! atomic_elem {
    ($($t:ty => $a:ty, $bits:ty, |$x:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        const _: () = assert!(std::mem::size_of::<$t>() == std::mem::size_of::<$a>());
        const _: () = assert!(std::mem::align_of::<$t>() >= std::mem::align_of::<$a>());
        impl AtomicElem for $t {
            type Atomic = $a;
            #[inline]
            fn load(a: &$a) -> $t { let $b: $bits = a.load(Ordering::Relaxed); $from }
            #[inline]
            fn store(a: &$a, $x: $t) { a.store($to, Ordering::Relaxed) }
            #[inline]
            fn compare_exchange_weak(a: &$a, current: $t, new: $t) -> Result<$t, $t> {
                let cur: $bits = { let $x = current; $to };
                let new: $bits = { let $x = new; $to };
                a.compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed)
                    .map(|$b| $from)
                    .map_err(|$b| $from)
            }
            #[inline]
            fn as_atomic(v: &mut $t) -> &$a {
                // SAFETY: same size, at least the atomic's alignment (asserted above); the exclusive borrow makes
                // every access for its lifetime go through the atomic.
                unsafe { <$a>::from_ptr((v as *mut $t).cast()) }
            }
            #[inline]
            fn as_atomic_slice(v: &mut [$t]) -> &[$a] {
                // SAFETY: as for `as_atomic`, element by element; the layout of a slice is its elements'.
                unsafe { std::slice::from_raw_parts(v.as_mut_ptr().cast::<$a>(), v.len()) }
            }
        }
    )*};
}

atomic_elem! {
    f32 => atomic::AtomicU32, u32, |x| x.to_bits(), |b| f32::from_bits(b);
    f64 => atomic::AtomicU64, u64, |x| x.to_bits(), |b| f64::from_bits(b);
    i8 => atomic::AtomicI8, i8, |x| x, |b| b;
    i16 => atomic::AtomicI16, i16, |x| x, |b| b;
    i32 => atomic::AtomicI32, i32, |x| x, |b| b;
    i64 => atomic::AtomicI64, i64, |x| x, |b| b;
    isize => atomic::AtomicIsize, isize, |x| x, |b| b;
    u8 => atomic::AtomicU8, u8, |x| x, |b| b;
    u16 => atomic::AtomicU16, u16, |x| x, |b| b;
    u32 => atomic::AtomicU32, u32, |x| x, |b| b;
    u64 => atomic::AtomicU64, u64, |x| x, |b| b;
    usize => atomic::AtomicUsize, usize, |x| x, |b| b;
    bool => atomic::AtomicBool, bool, |x| x, |b| b;
}

/// The update of an `#[omp::atomic]` statement (`x += v` → [`atomic::Add`](crate::__private::atomic::Add)).
pub trait AtomicUpdate<T: AtomicElem> {
    /// The new value from the old one and the operand.
    fn op(old: T, v: T) -> T;

    /// Applies the update atomically, returning (old, new).
    #[inline]
    fn apply(a: &T::Atomic, v: T) -> (T, T) {
        let mut old = T::load(a);
        loop {
            let new = Self::op(old, v);
            match T::compare_exchange_weak(a, old, new) {
                Ok(_) => return (old, new),
                Err(now) => old = now,
            }
        }
    }
}

/// A scalar that a parallel loop updates only through `#[omp::atomic]`.
#[derive(Debug)]
pub struct AtomicRef<'a, T: AtomicElem> {
    cell: &'a T::Atomic,
}

impl<'a, T: AtomicElem> AtomicRef<'a, T>
where
    T::Atomic: std::fmt::Debug,
{
    /// Takes the variable for the duration of the loop.
    pub fn new(v: &'a mut T) -> Self {
        AtomicRef { cell: T::as_atomic(v) }
    }

    /// `#[omp::atomic(read)]`
    #[inline]
    pub fn load(&self) -> T {
        T::load(self.cell)
    }

    /// `#[omp::atomic(write)]`
    #[inline]
    pub fn store(&self, v: T) {
        T::store(self.cell, v)
    }

    /// `#[omp::atomic]` update / capture: returns (old, new).
    #[inline]
    pub fn apply<U: AtomicUpdate<T>>(&self, v: T) -> (T, T) {
        U::apply(self.cell, v)
    }
}

/// An array that a parallel loop updates only through `#[omp::atomic]` (e.g. a histogram).
#[derive(Debug)]
pub struct AtomicSlice<'a, T: AtomicElem> {
    cells: &'a [T::Atomic],
}

impl<'a, T: AtomicElem> AtomicSlice<'a, T>
where
    T::Atomic: std::fmt::Debug,
{
    /// Takes the array for the duration of the loop.
    pub fn new(v: &'a mut [T]) -> Self {
        AtomicSlice { cells: T::as_atomic_slice(v) }
    }

    /// The array's length.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// `#[omp::atomic(read)]` of element `i`.
    #[inline]
    #[track_caller]
    pub fn load(&self, i: usize) -> T {
        T::load(&self.cells[i])
    }

    /// `#[omp::atomic(write)]` of element `i`.
    #[inline]
    #[track_caller]
    pub fn store(&self, i: usize, v: T) {
        T::store(&self.cells[i], v)
    }

    /// `#[omp::atomic]` update / capture of element `i`: returns (old, new).
    #[inline]
    #[track_caller]
    pub fn apply<U: AtomicUpdate<T>>(&self, i: usize, v: T) -> (T, T) {
        U::apply(&self.cells[i], v)
    }
}

// ---------------------------------------------------------------------------------------------------------
// Critical sections

/// The global lock of a named critical section (all `critical(name)` blocks of the process exclude each other,
/// as in OpenMP; the unnamed ones share the name `""`).
pub fn critical_lock(name: &str) -> MutexGuard<'static, ()> {
    named_lock(name).lock().unwrap_or_else(|e| e.into_inner())
}

fn named_lock(name: &str) -> &'static Mutex<()> {
    static LOCKS: OnceLock<Mutex<Vec<(String, &'static Mutex<()>)>>> = OnceLock::new();
    let mut locks = LOCKS.get_or_init(|| Mutex::new(Vec::new())).lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, l)) = locks.iter().find(|(n, _)| n == name) {
        return l;
    }
    let l: &'static Mutex<()> = Box::leak(Box::new(Mutex::new(())));
    locks.push((name.to_string(), l));
    l
}

/// Variables a parallel loop writes only inside `#[omp::critical(name)]` blocks.
#[derive(Debug)]
pub struct CriticalCell<T> {
    lock: &'static Mutex<()>,
    value: Mutex<T>,
}

impl<T: Send> CriticalCell<T> {
    /// Takes the variables (a tuple of `&mut`) for the duration of the loop.
    pub fn new(name: &str, vars: T) -> Self {
        CriticalCell { lock: named_lock(name), value: Mutex::new(vars) }
    }

    /// Enters the critical section.
    pub fn lock(&self) -> CriticalGuard<'_, T> {
        let section = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let value = self.value.lock().unwrap_or_else(|e| e.into_inner());
        CriticalGuard { value, _section: section }
    }
}

/// Access to the variables of a [`CriticalCell`] while the named critical section is held.
#[derive(Debug)]
pub struct CriticalGuard<'a, T> {
    value: MutexGuard<'a, T>,
    _section: MutexGuard<'static, ()>,
}

impl<T> std::ops::Deref for CriticalGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> std::ops::DerefMut for CriticalGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}


#[cfg(test)]
mod test {
    use super::*;

    fn terms(t: &[(i128, u64)]) -> Vec<IndexTerm> {
        t.iter().map(|&(stride, count)| IndexTerm { stride, count }).collect()
    }

    #[test]
    fn row_major_is_disjoint() {
        check_disjoint("b", "i * n + j", &terms(&[(10, 8), (1, 10)]));
        check_disjoint("b", "i * n + j", &terms(&[(10, 8), (1, 9)]));
        check_disjoint("c", "(i*n+j)*m+k", &terms(&[(12, 5), (3, 4), (1, 3)]));
    }

    #[test]
    #[should_panic(expected = "may write the same element of `b`")]
    fn short_rows_overlap() {
        check_disjoint("b", "i * n + j", &terms(&[(10, 8), (1, 11)]));
    }

    #[test]
    #[should_panic(expected = "may write the same element")]
    fn zero_coefficient_overlaps() {
        check_disjoint("y", "i * n", &terms(&[(0, 8)]));
    }
}

// ---------------------------------------------------------------------------------------------------------
// Unchecked indexing after a hoisted bounds check

/// Element access without a bounds check, for loop bodies whose index ranges the expansion checked before the loop.
pub trait UncheckedIndex<T> {
    /// `&self[i]` without the check.
    ///
    /// # Safety
    /// `i < len`.
    unsafe fn __omp_get(&self, i: usize) -> &T;
    /// `&mut self[i]` without the check.
    ///
    /// # Safety
    /// `i < len`, plus the contract of the underlying mutable access.
    unsafe fn __omp_get_mut(&mut self, i: usize) -> &mut T;
}

impl<T> UncheckedIndex<T> for [T] {
    #[inline(always)]
    unsafe fn __omp_get(&self, i: usize) -> &T {
        // SAFETY: forwarded to the caller (`i < len`).
        unsafe { self.get_unchecked(i) }
    }
    #[inline(always)]
    unsafe fn __omp_get_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: forwarded to the caller (`i < len`).
        unsafe { self.get_unchecked_mut(i) }
    }
}

impl<T> UncheckedIndex<T> for DisjointView<'_, T> {
    #[inline(always)]
    unsafe fn __omp_get(&self, i: usize) -> &T {
        // SAFETY: `i < len` (caller); no other thread touches element i (contract of `DisjointMut::view`).
        unsafe { &*self.ptr.add(i) }
    }
    #[inline(always)]
    unsafe fn __omp_get_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: as `__omp_get`, and `&mut self` ends this thread's other borrows of the view.
        unsafe { &mut *self.ptr.add(i) }
    }
}
