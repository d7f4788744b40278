//! Race-free access to data that the iterations of a parallel loop share, and the host path's main audited
//! `unsafe` (the others: the team's job hand-off in `team.rs`, the `unsafe(disjoint(..))` escape hatch in
//! `unchecked.rs`).
//!
//! - [`DisjointMut`]/[`ChunkView`]: an array that the loop writes, with the [`Ownership`] of its elements (which
//!   `ownership.rs` verified disjoint between iterations for the actual bounds). `parallel_for` gives each chunk of
//!   iterations one view per array (sealed [`DisjointArrays`]), and a view reaches an element only if an iteration
//!   of its chunk owns it: no two threads touch the same element, whatever the loop body computes.
//!   [`WindowMut`]/[`LatticeMut`] are fast paths of a view for a row of the body, checked when made.
//! - [`AtomicRef`]/[`AtomicSlice`]: scalars and arrays that the loop body only accesses through
//!   `#[omp::atomic]` statements, viewed as the matching `std::sync::atomic` types.
//! - [`CriticalCell`]: variables that the body only accesses inside `#[omp::critical]` blocks.

use std::marker::PhantomData;
use std::sync::atomic::{self, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::ownership::Ownership;

// ---------------------------------------------------------------------------------------------------------
// Disjoint writes

/// An array that a parallel loop writes, taken for the duration of the loop together with the verified
/// [`Ownership`] of its elements (which elements each iteration may access).
///
/// The loop's body reaches it only through a [`ChunkView`] per chunk of iterations, which [`parallel_for`]
/// creates (see [`DisjointArrays`]): a view hands out an element only if an iteration of its chunk owns it.
/// Chunks are disjoint ranges of iterations and ownership is disjoint between iterations, so no element is
/// reachable from two threads, whatever the loop body does with its indices.
///
/// [`parallel_for`]: crate::__private::parallel_for
#[derive(Debug)]
pub struct DisjointMut<'a, T, const D: usize> {
    ptr: *mut T,
    len: usize,
    own: Ownership<D>,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a shared `DisjointMut` only creates chunk views, through the sealed `DisjointArrays::views`, which
// only `parallel_for` calls, once per chunk; views of different chunks reach disjoint elements (module docs), so
// elements move between threads (T: Send) but are never reached from two threads.
unsafe impl<T: Send, const D: usize> Sync for DisjointMut<'_, T, D> {}
// SAFETY: it holds the exclusive borrow of the slice; sending it sends that borrow.
unsafe impl<T: Send, const D: usize> Send for DisjointMut<'_, T, D> {}

impl<'a, T, const D: usize> DisjointMut<'a, T, D> {
    /// Takes the array for the duration of the loop.
    pub fn new(slice: &'a mut [T], own: Ownership<D>) -> Self {
        DisjointMut { ptr: slice.as_mut_ptr(), len: slice.len(), own, _borrow: PhantomData }
    }

    /// The view of the iterations `first..last`. Private: only `DisjointArrays::views` calls it.
    fn view(&self, first: u64, last: u64) -> ChunkView<'a, T, D> {
        // The parts of the chunk's contiguous intervals that lie inside the array are checked once here;
        // everything else goes through `resolve` access by access. One interval for a monotone form; one per
        // constant offset of a lattice form over a dense nest (several writes per iteration at constant offsets); for
        // offsets between the parallel dimensions (a bitonic stage), one per offset of a partial block at either end
        // and one for the whole blocks between.
        let inside = |(lo, hi): (i128, i128)| {
            let (lo, hi) = (lo.max(0), hi.min(self.len as i128 - 1));
            if lo <= hi {
                (lo as usize, (hi - lo + 1) as usize)
            } else {
                (0, 0)
            }
        };
        let mut extra = [(0usize, 0usize); EXTRA_WINDOWS];
        let mut intervals = [(0i128, -1i128); EXTRA_WINDOWS + 1];
        let (lo, n, n_extra) = match self.own.interval(first, last) {
            Some(iv) => {
                let (lo, n) = inside(iv);
                (lo, n, 0)
            }
            None => match self.own.lattice_intervals(first, last, &mut intervals) {
                0 => (0, 0, 0),
                k => {
                    for (e, iv) in extra.iter_mut().zip(&intervals[1..k]) {
                        *e = inside(*iv);
                    }
                    let (lo, n) = inside(intervals[0]);
                    (lo, n, k - 1)
                }
            },
        };
        ChunkView { ptr: self.ptr, len: self.len, lo, n, extra, n_extra, first, last, own: self.own, _borrow: PhantomData }
    }
}

mod seal {
    /// Proof that the caller is this crate: only `parallel_for` creates chunk views.
    #[derive(Debug, Clone, Copy)]
    pub struct Token(pub(crate) ());
}
pub(crate) use seal::Token;

/// The arrays a parallel loop writes: a tuple of [`DisjointMut`]s (`()` for none). [`parallel_for`] hands the
/// body one tuple of [`ChunkView`]s per chunk.
///
/// [`parallel_for`]: crate::__private::parallel_for
pub trait DisjointArrays<const D: usize>: Sync {
    /// A tuple of chunk views, one per array.
    type Views;

    /// The views for the iterations `first..last`. Sealed: only this crate can call it, once per chunk.
    #[doc(hidden)]
    fn views(&self, first: u64, last: u64, token: seal::Token) -> Self::Views;
}

macro_rules! disjoint_arrays {
    ($(($($t:ident $v:ident),*))*) => {$(
        impl<'a, $($t: Send,)* const D: usize> DisjointArrays<D> for ($(DisjointMut<'a, $t, D>,)*) {
            type Views = ($(ChunkView<'a, $t, D>,)*);

            #[inline]
            #[allow(unused_variables, clippy::unused_unit)] // the empty tuple's case
            fn views(&self, first: u64, last: u64, _: seal::Token) -> Self::Views {
                let ($($v,)*) = self;
                ($($v.view(first, last),)*)
            }
        }
    )*};
}
disjoint_arrays! {
    ()
    (A a)
    (A a, B b)
    (A a, B b, C c)
    (A a, B b, C c, E e)
    (A a, B b, C c, E e, F f)
    (A a, B b, C c, E e, F f, G g)
    (A a, B b, C c, E e, F f, G g, H h)
    (A a, B b, C c, E e, F f, G g, H h, I i)
    (A a, B b, C c, E e, F f, G g, H h, I i, J j)
    (A a, B b, C c, E e, F f, G g, H h, I i, J j, K k)
    (A a, B b, C c, E e, F f, G g, H h, I i, J j, K k, L l)
    (A a, B b, C c, E e, F f, G g, H h, I i, J j, K k, L l, M m)
}

/// How many intervals beside the first a chunk view checks before the exact (dividing) ownership test.
const EXTRA_WINDOWS: usize = 7;

/// One chunk's access to a [`DisjointMut`] array: indexing reaches an element only if an iteration of the chunk
/// owns it, and panics otherwise (as an out-of-bounds index does). It also answers `len()`, nothing else.
///
/// Not `Send`/`Sync`: a view stays on the thread that runs its chunk, and the body cannot keep it past the
/// chunk (its captures are shared and `Sync`, and a view is neither).
#[derive(Debug)]
pub struct ChunkView<'a, T, const D: usize> {
    ptr: *mut T,
    len: usize,
    /// `[lo, lo + n)`: owned by the chunk and inside the array (checked when the view was made).
    lo: usize,
    n: usize,
    /// More such intervals `(lo, n)` (the other constant offsets of a lattice form), the first `n_extra` of them.
    extra: [(usize, usize); EXTRA_WINDOWS],
    n_extra: usize,
    first: u64,
    last: u64,
    own: Ownership<D>,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T, const D: usize> ChunkView<'a, T, D> {
    /// The array's length.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A pointer to element `i`, which this chunk owns and which is in bounds; panics otherwise.
    #[inline(always)]
    #[track_caller]
    fn element(&self, i: usize) -> *mut T {
        if i.wrapping_sub(self.lo) < self.n {
            // SAFETY: `i` lies in `[lo, lo + n)`, inside the array (checked in `DisjointMut::view`).
            return unsafe { self.ptr.add(i) };
        }
        for &(lo, n) in &self.extra[..self.n_extra] {
            if i.wrapping_sub(lo) < n {
                // SAFETY: as above, for one of the view's other intervals.
                return unsafe { self.ptr.add(i) };
            }
        }
        resolve(self.ptr, self.len, &self.own, self.first, self.last, i)
    }

    /// A window over the elements `lo..lo + len` for a row of the loop body, if the chunk owns them all: indices
    /// inside it are used directly, others go through the view (see [`WindowMut`]).
    #[inline(always)]
    pub fn __omp_window(&mut self, lo: usize, len: usize) -> Option<WindowMut<'_, 'a, T, D>> {
        if within(lo, len, self.lo, self.n) {
            // SAFETY: `lo + len <= self.lo + self.n <= len of the array` (checked just above).
            let row = unsafe { self.ptr.add(lo) };
            Some(WindowMut { row, lo, len, view: self })
        } else {
            None
        }
    }
}

/// Whether `lo..lo + len` lies inside `a..a + n` (no overflow).
#[inline(always)]
fn within(lo: usize, len: usize, a: usize, n: usize) -> bool {
    lo >= a && len <= n && lo - a <= n - len
}

/// The element `i` of the row `lo..lo + len` that starts at `row`, or `None` when `i` lies outside it.
///
/// # Safety
/// `row` points at element `lo` of an array holding at least `lo + len` elements.
#[inline(always)]
unsafe fn row_element<T>(row: *mut T, lo: usize, len: usize, i: usize) -> Option<*mut T> {
    let j = i.wrapping_sub(lo);
    // SAFETY: `j < len`, inside the row (the caller's contract).
    (j < len).then(|| unsafe { row.add(j) })
}

impl<'a, T, const D: usize> ChunkView<'a, T, D> {
    /// Whether the chunk owns all of `lo..lo + len` (inside its first interval or one of the others).
    #[inline(always)]
    fn owns_interval(&self, lo: usize, len: usize) -> bool {
        within(lo, len, self.lo, self.n) || self.extra[..self.n_extra].iter().any(|&(a, n)| within(lo, len, a, n))
    }

    /// One window per write of the body at a constant offset from the others (`tend[ID_DENS * plane + k * nx + i]`,
    /// `tend[ID_UMOM * plane + ...]`: `W` rows of one loop), if the chunk owns them all: the write numbered `j` is
    /// then checked against its own row only (see [`WindowsMut`]).
    #[inline(always)]
    pub fn __omp_windows<const W: usize>(&mut self, rows: [(usize, usize); W]) -> Option<WindowsMut<'_, 'a, T, D, W>> {
        let mut out = [(std::ptr::null_mut(), 0, 0); W];
        for (slot, &(lo, len)) in out.iter_mut().zip(&rows) {
            if !self.owns_interval(lo, len) {
                return None;
            }
            // SAFETY: `lo + len` lies inside an interval the view owns, which is inside the array.
            *slot = (unsafe { self.ptr.add(lo) }, lo, len);
        }
        Some(WindowsMut { rows: out, view: self })
    }

    /// A window over the points `lo + Σ jj_k·stride_k`, `jj_k < count_k`, for nested loops of the body that walk
    /// the array with strides (`px[i + r * n]`: the row over `i`, the loop over `r`), if the chunk owns them all.
    /// An access is then checked against its one expected point, given the loops' iteration counters (see
    /// [`LatticeMut`]).
    #[inline]
    pub fn __omp_lattice<const K: usize>(&mut self, lo: usize, dims: [(usize, usize); K]) -> Option<LatticeMut<'_, 'a, T, D, K>> {
        if self.own.owns_box(self.first, self.last, lo, dims, self.len) {
            Some(LatticeMut { ptr: self.ptr, lo, dims, view: self })
        } else {
            None
        }
    }
}

/// A [`ChunkView`] with a strided window: when the loops it was made for are at iterations `jj`, the access
/// `x[idx]` with `idx == lo + Σ jj_k·stride_k` is used directly (LLVM sees the equality and drops the test),
/// anything else goes through the view.
#[derive(Debug)]
pub struct LatticeMut<'w, 'a, T, const D: usize, const K: usize> {
    ptr: *mut T,
    lo: usize,
    dims: [(usize, usize); K],
    view: &'w mut ChunkView<'a, T, D>,
}

impl<'w, 'a, T, const D: usize, const K: usize> LatticeMut<'w, 'a, T, D, K> {
    #[inline(always)]
    fn expected(&self, jj: [usize; K], idx: usize) -> bool {
        let mut at = self.lo;
        for k in 0..K {
            if jj[k] >= self.dims[k].1 {
                return false;
            }
            at = at.wrapping_add(jj[k].wrapping_mul(self.dims[k].0));
        }
        idx == at
    }

    /// The window of the inner loops when the outermost one is at iteration `jj0`: hoists that loop's part of
    /// the check out of the inner loops (an empty window, which never matches, when `jj0` is past its count).
    #[inline(always)]
    pub fn __omp_fix<const K1: usize>(&mut self, jj0: usize) -> LatticeMut<'_, 'a, T, D, K1> {
        let mut dims = [(0, 0); K1];
        let ok = jj0 < self.dims[0].1 && K1 + 1 == K;
        if ok {
            dims.copy_from_slice(&self.dims[1..]);
        }
        let lo = self.lo.wrapping_add(jj0.wrapping_mul(self.dims[0].0));
        LatticeMut { ptr: self.ptr, lo, dims, view: &mut *self.view }
    }

    /// `x[idx]` when the window's loops are at iterations `jj`.
    #[inline(always)]
    #[track_caller]
    pub fn __omp_at(&self, jj: [usize; K], idx: usize) -> &T {
        if self.expected(jj, idx) {
            // SAFETY: one of the window's points, which `__omp_lattice` checked to be owned by the chunk and in bounds.
            unsafe { &*self.ptr.add(idx) }
        } else {
            &self.view[idx]
        }
    }

    /// `&mut x[idx]` when the window's loops are at iterations `jj`.
    #[inline(always)]
    #[track_caller]
    pub fn __omp_at_mut(&mut self, jj: [usize; K], idx: usize) -> &mut T {
        if self.expected(jj, idx) {
            // SAFETY: as `__omp_at`; `&mut self` holds the view exclusively.
            unsafe { &mut *self.ptr.add(idx) }
        } else {
            &mut self.view[idx]
        }
    }
}

/// `len()`, `is_empty()` and plain indexing through the chunk view, for the windows that wrap one (an access the
/// fast copy did not route to a window).
macro_rules! through_the_view {
    ($window:ident) => {
        impl<T, const D: usize, const N: usize> $window<'_, '_, T, D, N> {
            /// The array's length.
            #[inline(always)]
            pub fn len(&self) -> usize {
                self.view.len
            }

            /// Whether the array is empty.
            #[inline(always)]
            pub fn is_empty(&self) -> bool {
                self.view.len == 0
            }
        }

        impl<T, const D: usize, const N: usize> std::ops::Index<usize> for $window<'_, '_, T, D, N> {
            type Output = T;
            #[inline(always)]
            #[track_caller]
            fn index(&self, i: usize) -> &T {
                &self.view[i]
            }
        }

        impl<T, const D: usize, const N: usize> std::ops::IndexMut<usize> for $window<'_, '_, T, D, N> {
            #[inline(always)]
            #[track_caller]
            fn index_mut(&mut self, i: usize) -> &mut T {
                &mut self.view[i]
            }
        }
    };
}
through_the_view!(LatticeMut);
through_the_view!(WindowsMut);

/// `x.__omp_at(jj, idx)` / `x.__omp_at_mut(jj, idx)` on anything that is not a [`LatticeMut`] (a name the body
/// rebound): plain `x[idx]`.
pub trait OmpAt<J, I> {
    /// `Index::Output`.
    type Output: ?Sized;
    /// `&self[idx]`.
    fn __omp_at(&self, jj: J, idx: I) -> &Self::Output;
}

impl<S: ?Sized + std::ops::Index<I>, J, I> OmpAt<J, I> for S {
    type Output = S::Output;
    #[inline(always)]
    #[track_caller]
    fn __omp_at(&self, _: J, idx: I) -> &S::Output {
        &self[idx]
    }
}

/// The writing half of [`OmpAt`].
pub trait OmpAtMut<J, I>: OmpAt<J, I> {
    /// `&mut self[idx]`.
    fn __omp_at_mut(&mut self, jj: J, idx: I) -> &mut Self::Output;
}

impl<S: ?Sized + std::ops::IndexMut<I>, J, I> OmpAtMut<J, I> for S {
    #[inline(always)]
    #[track_caller]
    fn __omp_at_mut(&mut self, _: J, idx: I) -> &mut S::Output {
        &mut self[idx]
    }
}

/// The slow path of a [`ChunkView`] access: bounds, then ownership by the exact inverse of the index form.
#[cold]
#[inline(never)]
#[track_caller]
fn resolve<T, const D: usize>(ptr: *mut T, len: usize, own: &Ownership<D>, first: u64, last: u64, i: usize) -> *mut T {
    if i >= len {
        panic!("index out of bounds: the len is {len} but the index is {i}");
    }
    match own.owner(i) {
        // SAFETY: in bounds (checked above), and owned by an iteration of this view's chunk.
        Some(p) if (first..last).contains(&p) => unsafe { ptr.add(i) },
        owner => panic!(
            "omp: this iteration of the parallel loop accesses `{array}[{i}]`, but the loop's index `{array}[{index}]` \
             gives that element to {whom}: another thread may be writing it (a data race). Index `{array}` with the same \
             expression everywhere in the loop (and check that the names in it do not change inside the body)",
            array = own.array(),
            index = own.index(),
            whom = match owner {
                Some(p) => format!("iteration {p} of the flattened loop, in another chunk"),
                None => "no iteration".to_string(),
            },
        ),
    }
}

impl<T, const D: usize> std::ops::Index<usize> for ChunkView<'_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        // SAFETY: owned by this chunk and in bounds (`element`); other threads never reach it.
        unsafe { &*self.element(i) }
    }
}

impl<T, const D: usize> std::ops::IndexMut<usize> for ChunkView<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: as `index`; `&mut self` ends this thread's other borrows of the view.
        unsafe { &mut *self.element(i) }
    }
}

impl<T, const D: usize> ChunkView<'_, T, D> {
    /// The elements of `r`, every one owned by this chunk and in bounds; panics as slice indexing does, or as
    /// [`resolve`] does for an element another chunk owns.
    #[inline(always)]
    #[track_caller]
    fn elements(&self, r: std::ops::Range<usize>) -> (*mut T, usize) {
        let std::ops::Range { start, end } = r;
        if start > end {
            panic!("slice index starts at {start} but ends at {end}");
        }
        if end > self.len {
            panic!("range end index {end} out of range for slice of length {}", self.len);
        }
        if !self.owns_interval(start, end - start) {
            for i in start..end {
                resolve(self.ptr, self.len, &self.own, self.first, self.last, i);
            }
        }
        // SAFETY: `start <= end <= len`.
        (unsafe { self.ptr.add(start) }, end - start)
    }
}

/// A subslice of elements the chunk owns, passed on as a slice (LULESH's `corner_forces(&mut f[8 * k..8 * k + 8])`).
impl<T, const D: usize> std::ops::Index<std::ops::Range<usize>> for ChunkView<'_, T, D> {
    type Output = [T];
    #[inline(always)]
    #[track_caller]
    fn index(&self, r: std::ops::Range<usize>) -> &[T] {
        let (p, n) = self.elements(r);
        // SAFETY: every element of the range is owned by this chunk and in bounds (`elements`); other threads
        // never reach them.
        unsafe { std::slice::from_raw_parts(p, n) }
    }
}

impl<T, const D: usize> std::ops::IndexMut<std::ops::Range<usize>> for ChunkView<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, r: std::ops::Range<usize>) -> &mut [T] {
        let (p, n) = self.elements(r);
        // SAFETY: as `index`; `&mut self` ends this thread's other borrows of the view for the slice's life.
        unsafe { std::slice::from_raw_parts_mut(p, n) }
    }
}

/// A [`ChunkView`] with a window `lo..lo + len` of elements the chunk owns: an index inside the window is
/// used directly (the check LLVM can prove and drop in a loop over a row), anything else goes through the view.
#[derive(Debug)]
pub struct WindowMut<'w, 'a, T, const D: usize> {
    row: *mut T,
    lo: usize,
    len: usize,
    view: &'w mut ChunkView<'a, T, D>,
}

impl<'w, 'a, T, const D: usize> WindowMut<'w, 'a, T, D> {
    /// The array's length.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.view.len
    }

    /// Whether the array is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.view.len == 0
    }

    /// A window for an inner loop (see [`ChunkView::__omp_window`]).
    #[inline(always)]
    pub fn __omp_window(&mut self, lo: usize, len: usize) -> Option<WindowMut<'_, 'a, T, D>> {
        self.view.__omp_window(lo, len)
    }
}

impl<T, const D: usize> std::ops::Index<usize> for WindowMut<'_, '_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        // SAFETY: `__omp_window` checked the window to be owned by the chunk and inside the array.
        match unsafe { row_element(self.row, self.lo, self.len, i) } {
            // SAFETY: an element of the window.
            Some(p) => unsafe { &*p },
            None => &self.view[i],
        }
    }
}

impl<T, const D: usize> std::ops::IndexMut<usize> for WindowMut<'_, '_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: as `index`.
        match unsafe { row_element(self.row, self.lo, self.len, i) } {
            // SAFETY: as `index`; `&mut self` holds the view exclusively.
            Some(p) => unsafe { &mut *p },
            None => &mut self.view[i],
        }
    }
}

/// A [`ChunkView`] with one window per write at a constant offset (`rows[j] = (start, lo, len)`): write `j`'s index
/// inside its window is used directly (LLVM proves it in a loop over a row, as for one [`WindowMut`]), anything else
/// goes through the view.
#[derive(Debug)]
pub struct WindowsMut<'w, 'a, T, const D: usize, const W: usize> {
    rows: [(*mut T, usize, usize); W],
    view: &'w mut ChunkView<'a, T, D>,
}

impl<'w, 'a, T, const D: usize, const W: usize> WindowsMut<'w, 'a, T, D, W> {
    /// `&x[idx]` for the body's access numbered `j`.
    #[inline(always)]
    #[track_caller]
    pub fn __omp_at(&self, j: usize, idx: usize) -> &T {
        let (row, lo, len) = self.rows[j];
        // SAFETY: `__omp_windows` checked window `j` to be owned by the chunk and inside the array.
        match unsafe { row_element(row, lo, len, idx) } {
            // SAFETY: an element of window `j`.
            Some(p) => unsafe { &*p },
            None => &self.view[idx],
        }
    }

    /// `&mut x[idx]` for the body's access numbered `j`.
    #[inline(always)]
    #[track_caller]
    pub fn __omp_at_mut(&mut self, j: usize, idx: usize) -> &mut T {
        let (row, lo, len) = self.rows[j];
        // SAFETY: as `__omp_at`.
        match unsafe { row_element(row, lo, len, idx) } {
            // SAFETY: as `__omp_at`; `&mut self` holds the view exclusively (two windows may share elements, but each
            // reference handed out borrows `self`).
            Some(p) => unsafe { &mut *p },
            None => &mut self.view[idx],
        }
    }

    /// A window for an inner loop (see [`ChunkView::__omp_window`]).
    #[inline(always)]
    pub fn __omp_window(&mut self, lo: usize, len: usize) -> Option<WindowMut<'_, 'a, T, D>> {
        self.view.__omp_window(lo, len)
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
#[track_caller]
pub fn critical_lock(name: &str) -> SectionGuard {
    SectionGuard::enter(named_lock(name), name)
}

std::thread_local! {
    /// The critical sections the current thread is inside (addresses of their locks).
    static HELD: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether the current thread is inside a critical section (a parallel region it starts then runs on it alone).
pub(crate) fn inside_critical() -> bool {
    HELD.with(|h| !h.borrow().is_empty())
}

/// A held named critical section. Entering a section again on the thread that holds it (a nested region inside
/// the block reaching the same section) would deadlock: it panics instead.
#[derive(Debug)]
pub struct SectionGuard {
    key: usize,
    _lock: MutexGuard<'static, ()>,
}

impl SectionGuard {
    #[track_caller]
    fn enter(lock: &'static Mutex<()>, name: &str) -> Self {
        let key = lock as *const Mutex<()> as usize;
        if HELD.with(|h| h.borrow().contains(&key)) {
            panic!(
                "omp: critical section `{name}` entered again on the thread that is inside it (a nested region in the \
                 critical block?): it would deadlock. Use another name for the inner section"
            );
        }
        let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        HELD.with(|h| h.borrow_mut().push(key));
        SectionGuard { key, _lock: guard }
    }
}

impl Drop for SectionGuard {
    fn drop(&mut self) {
        HELD.with(|h| {
            let mut h = h.borrow_mut();
            if let Some(p) = h.iter().rposition(|k| *k == self.key) {
                h.remove(p);
            }
        });
    }
}

/// The locks of named critical sections, by name (leaked: sections live as long as the program).
type NamedLocks = Mutex<Vec<(String, &'static Mutex<()>)>>;

fn named_lock(name: &str) -> &'static Mutex<()> {
    static LOCKS: OnceLock<NamedLocks> = OnceLock::new();
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
    name: String,
    value: Mutex<T>,
}

impl<T: Send> CriticalCell<T> {
    /// Takes the variables (a tuple of `&mut`) for the duration of the loop.
    pub fn new(name: &str, vars: T) -> Self {
        CriticalCell { lock: named_lock(name), name: name.to_string(), value: Mutex::new(vars) }
    }

    /// Enters the critical section.
    #[track_caller]
    pub fn lock(&self) -> CriticalGuard<'_, T> {
        let section = SectionGuard::enter(self.lock, &self.name);
        let value = self.value.lock().unwrap_or_else(|e| e.into_inner());
        CriticalGuard { value, _section: section }
    }
}

/// Access to the variables of a [`CriticalCell`] while the named critical section is held.
#[derive(Debug)]
pub struct CriticalGuard<'a, T> {
    value: MutexGuard<'a, T>,
    _section: SectionGuard,
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
