//! Array captures inside kernels.
//!
//! A kernel receives an array as two slots (base, length). Written arrays become a [`View<T>`]:
//! `Copy`, shared by all threads, bounds-checked like a slice. Read-only arrays become a plain
//! `&[T]` through [`ro_slice`], whose base parameter is a thin `&[T; 0]` reference: the reference
//! makes LLVM mark the kernel argument `noalias readonly`, so NVIDIA loads go through the
//! read-only data cache (`ld.global.nc`).

use crate::abi_shared::OwnerMode;
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

/// Which elements of a written array each iteration of the kernel owns (the kernel ABI; computed and verified
/// disjoint by the host runtime before the launch, `omp::__private::Ownership`): iteration numbers `k` own
/// `base(k) = origin + Σ stride_d·k_d` plus, in hull mode, up to `width` more elements, or, in lattice mode,
/// exactly the points `Σ inner_j·q_j` (`q_j < count_j`) above it.
#[derive(Debug, Clone, Copy)]
pub struct Owner<const D: usize, const I: usize> {
    /// [`OwnerMode::Nothing`]: the runtime found no element to own (e.g. an empty sequential loop); any write is a
    /// stray one.
    nothing: bool,
    lattice: bool,
    /// [`OwnerMode::Hull32`]: hull mode whose every owned element lies in `0..2^31` (the runtime checked it for all
    /// iterations), so that the base and the distance to it are computed in 32-bit arithmetic (GPUs multiply 64-bit
    /// integers with three instructions): modulo 2^32 the base is exact, and an index below it wraps past any width.
    narrow: bool,
    origin: i64,
    width: u64,
    strides: [i64; D],
    /// Lattice mode: the sequential-loop terms, largest stride first.
    inner: [Term; I],
    /// Lattice mode: every term's stride is 0 or a power of two (bitonic's partners, most nests' rows), so that a
    /// term costs a shift and a mask instead of a division.
    pow2: bool,
}

/// One sequential-loop term of a lattice: `stride·q`, `q < count`. `shift` and `mask` are `stride`'s logarithm
/// and `stride - 1` when it is a power of two; a zero stride has shift 64 (its quotient is 0), a full mask and no
/// limit on its count.
#[derive(Debug, Clone, Copy, Default)]
struct Term {
    stride: u64,
    count: u64,
    shift: u32,
    mask: u64,
}

impl<const D: usize, const I: usize> Owner<D, I> {
    /// From the kernel's ownership slots: the encoded [`OwnerMode`], origin, width, one stride per dimension, then
    /// (stride, count) per sequential-loop term.
    #[inline(always)]
    pub fn from_slots(mode: u64, origin: u64, width: u64, strides: [u64; D], inner: [[u64; 2]; I]) -> Self {
        let mut s = [0i64; D];
        let mut t = [Term::default(); I];
        let mut pow2 = true;
        for d in 0..D {
            s[d] = strides[d] as i64;
        }
        for j in 0..I {
            let (stride, count) = (inner[j][0], inner[j][1]);
            pow2 &= stride == 0 || stride.is_power_of_two();
            // A zero stride adds nothing, whatever its count.
            t[j] = match stride {
                0 => Term { stride, count: u64::MAX, shift: 64, mask: u64::MAX },
                _ => Term { stride, count, shift: stride.trailing_zeros(), mask: stride - 1 },
            };
        }
        // Lattice mode without sequential-loop terms owns exactly the base: hull mode of width 0. Folding it here
        // leaves the common 1-D write (`y[i]`) one comparison instead of a mode branch.
        // One comparison per flag on the raw slot (what `OwnerMode::decode` means, without its chain of branches,
        // some twenty instructions in every thread's prologue): a value no mode encodes owns nothing.
        let is = |m: OwnerMode| mode == m.encode();
        let lattice_mode = is(OwnerMode::Lattice);
        let lattice = lattice_mode && I > 0;
        let width = if lattice_mode && I == 0 { 0 } else { width };
        let narrow = is(OwnerMode::Hull32);
        let nothing = !(is(OwnerMode::Hull) || lattice_mode || narrow);
        Owner { nothing, lattice, narrow, origin: origin as i64, width, strides: s, inner: t, pow2 }
    }

    /// Whether the launch's ownership has the form [`Disjoint::at_fast`] checks: narrow hull mode without
    /// sequential-loop terms (`y[i]`, `next[row * n + col]`), or lattice mode whose strides are powers of two
    /// (bitonic's partners). The same for every thread, so the kernel branches once, not per access.
    #[inline(always)]
    pub fn fast(&self) -> bool {
        if I == 0 {
            self.narrow
        } else {
            self.lattice && self.pow2
        }
    }

    /// The base element of the iteration with iteration numbers `k`: exact in 64 bits, and modulo 2^32 in narrow
    /// mode (where only that is used). Computed once per iteration ([`Disjoint::at`]), not per access.
    #[inline(always)]
    fn base<const FAST: bool>(&self, k: &[u64; D]) -> i64 {
        if self.narrow_for::<FAST>() {
            let mut base = self.origin as u32;
            for d in 0..D {
                base = base.wrapping_add((self.strides[d] as u32).wrapping_mul(k[d] as u32));
            }
            return i64::from(base);
        }
        let mut base = self.origin;
        for d in 0..D {
            base = base.wrapping_add(self.strides[d].wrapping_mul(k[d] as i64));
        }
        base
    }

    /// `f` on each sequential-loop term, largest stride first, at constant indices (at most seven: six loops and the
    /// offsets): a loop over the array left it in local memory, reloaded at every access.
    #[inline(always)]
    fn each_term(&self, mut f: impl FnMut(&Term)) {
        let mut at = |j: usize| {
            if let Some(t) = self.inner.get(j) {
                f(t);
            }
        };
        at(0);
        at(1);
        at(2);
        at(3);
        at(4);
        at(5);
        at(6);
    }

    /// Whether the base and the checks are computed in 32 bits: narrow hull mode (in the fast copy, which
    /// [`Owner::fast`] admits without sequential-loop terms only in that mode).
    #[inline(always)]
    fn narrow_for<const FAST: bool>(&self) -> bool {
        if FAST {
            I == 0
        } else {
            self.narrow
        }
    }

    /// Lattice mode with power-of-two strides: whether the element `r` above the iteration's base is one of its
    /// points. A shift and a mask per term: `r - q·stride` is `r & (stride - 1)`.
    #[inline(always)]
    fn lattice_pow2_owns(&self, mut r: u64) -> bool {
        let mut owned = true;
        self.each_term(|t| {
            let q = if t.shift < 64 { r >> t.shift } else { 0 };
            owned &= q < t.count;
            r &= t.mask;
        });
        owned && r == 0
    }

    /// Whether the iteration whose base element is `base` ([`Owner::base`]) owns element `i`. With `FAST` the
    /// launch's form is the one [`Owner::fast`] found, so the check is straight-line code (no branch on the mode):
    /// LLVM then computes it once for an element that an iteration reads and writes.
    #[inline(always)]
    fn owns<const FAST: bool>(&self, base: i64, i: usize) -> bool {
        if FAST && I > 0 {
            return self.lattice_pow2_owns((i as i64).wrapping_sub(base) as u64);
        }
        if self.narrow_for::<FAST>() {
            // Compared in 32 bits as well (the runtime's hull is below 2^31, so is the width): a 64-bit
            // comparison lets LLVM widen the whole computation back to 64-bit multiplies.
            return (i as u64) >> 32 == 0 && (i as u32).wrapping_sub(base as u32) <= self.width as u32;
        }
        let mut r = (i as i64).wrapping_sub(base) as u64;
        if self.nothing {
            return false;
        }
        if !self.lattice {
            return r <= self.width;
        }
        // Strides are the launch's (every thread branches alike).
        if self.pow2 {
            return self.lattice_pow2_owns(r);
        }
        let mut owned = true;
        self.each_term(|t| {
            if owned && t.stride != 0 {
                let q = r / t.stride;
                if q >= t.count {
                    owned = false;
                } else {
                    r -= q * t.stride;
                }
            }
        });
        const { assert!(I <= 7, "more sequential-loop terms than the ownership check unrolls") };
        owned && r == 0
    }
}

/// A written array of a kernel with its [`Owner`]: hands each iteration an [`OwnedView`].
#[derive(Debug, Clone, Copy)]
pub struct Disjoint<T, const D: usize, const I: usize> {
    view: View<T>,
    owner: Owner<D, I>,
}

impl<T, const D: usize, const I: usize> Disjoint<T, D, I> {
    /// The array `view` written by the kernel's iterations as `owner` says.
    ///
    /// # Safety
    /// `view` as in [`View::from_raw_parts`]; `owner` must be the host runtime's verified ownership for this
    /// launch's iteration space (no element owned by two iterations).
    #[inline(always)]
    pub unsafe fn new(view: View<T>, owner: Owner<D, I>) -> Self {
        Disjoint { view, owner }
    }

    /// The view of the iteration with iteration numbers `k` (each GPU thread runs its own iterations).
    #[inline(always)]
    pub fn at(&self, k: [u64; D]) -> OwnedView<'_, T, D, I, false> {
        OwnedView { view: self.view, base: self.owner.base::<false>(&k), owner: &self.owner }
    }

    /// [`Disjoint::at`] for a launch whose ownership is [`Owner::fast`]'s form (the kernel runs its loop once with
    /// these views and once with [`Disjoint::at`]'s, and picks the copy at the start); panics otherwise.
    #[inline(always)]
    #[track_caller]
    pub fn at_fast(&self, k: [u64; D]) -> OwnedView<'_, T, D, I, true> {
        if !self.owner.fast() {
            not_fast();
        }
        OwnedView { view: self.view, base: self.owner.base::<true>(&k), owner: &self.owner }
    }

    /// Whether [`Disjoint::at_fast`] applies to this launch.
    #[inline(always)]
    pub fn fast(&self) -> bool {
        self.owner.fast()
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn not_fast() -> ! {
    panic!("omp: a kernel took the fast ownership path for an ownership of another form")
}

/// One iteration's access to a written array: an element is reachable only if the iteration owns it, so no two
/// GPU threads write the same element whatever the loop body computes (a stray index panics, like an
/// out-of-bounds one).
#[derive(Debug)]
pub struct OwnedView<'o, T, const D: usize, const I: usize, const FAST: bool> {
    view: View<T>,
    /// The iteration's base element ([`Owner::base`]).
    base: i64,
    owner: &'o Owner<D, I>,
}

impl<T, const D: usize, const I: usize, const FAST: bool> OwnedView<'_, T, D, I, FAST> {
    /// Number of elements of the array.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.view.len
    }

    /// `true` when the array has no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.view.len == 0
    }

    #[inline(always)]
    #[track_caller]
    fn element(&self, i: usize) -> *mut T {
        check(i, self.view.len);
        if !self.owner.owns::<FAST>(self.base, i) {
            not_owned();
        }
        // SAFETY: in bounds, and owned by this iteration alone (the host verified the ownership disjoint).
        unsafe { self.view.ptr.add(i) }
    }
}

impl<T, const D: usize, const I: usize, const FAST: bool> OwnedView<'_, T, D, I, FAST> {
    /// The elements of `r`, every one in bounds and owned by this iteration (a subslice passed to a helper:
    /// `&mut f[8 * k..8 * k + 8]`); panics as slice indexing does, or as a stray index does.
    #[inline(always)]
    #[track_caller]
    fn elements(&self, r: core::ops::Range<usize>) -> (*mut T, usize) {
        if r.start > r.end {
            range_order(r.start, r.end);
        }
        if r.end > self.view.len {
            check(r.end - 1, self.view.len);
        }
        for i in r.clone() {
            if !self.owner.owns::<FAST>(self.base, i) {
                not_owned();
            }
        }
        // SAFETY: `start <= end <= len`.
        (unsafe { self.view.ptr.add(r.start) }, r.end - r.start)
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn range_order(start: usize, end: usize) -> ! {
    let _ = (start, end);
    panic!("slice index starts after it ends")
}

impl<T, const D: usize, const I: usize, const FAST: bool> Index<core::ops::Range<usize>> for OwnedView<'_, T, D, I, FAST> {
    type Output = [T];
    #[inline(always)]
    #[track_caller]
    fn index(&self, r: core::ops::Range<usize>) -> &[T] {
        let (p, n) = self.elements(r);
        // SAFETY: see `elements`: in bounds, and owned by this iteration alone.
        unsafe { core::slice::from_raw_parts(p, n) }
    }
}

impl<T, const D: usize, const I: usize, const FAST: bool> IndexMut<core::ops::Range<usize>> for OwnedView<'_, T, D, I, FAST> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, r: core::ops::Range<usize>) -> &mut [T] {
        let (p, n) = self.elements(r);
        // SAFETY: as `index`; `&mut self` ends this iteration's other borrows of the view for the slice's life.
        unsafe { core::slice::from_raw_parts_mut(p, n) }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn not_owned() -> ! {
    panic!("omp: this iteration accesses an element of a written array that another iteration owns (a data race)")
}

impl<T, const D: usize, const I: usize, const FAST: bool> Index<usize> for OwnedView<'_, T, D, I, FAST> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        // SAFETY: see `element`.
        unsafe { &*self.element(i) }
    }
}

impl<T, const D: usize, const I: usize, const FAST: bool> IndexMut<usize> for OwnedView<'_, T, D, I, FAST> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: see `element`; `&mut self` ends this iteration's other borrows of the view.
        unsafe { &mut *self.element(i) }
    }
}

/// An array (or a scalar, as one element) that the kernel only updates with `#[omp::atomic]`: it offers the
/// atomic operations and `len()`, nothing a plain access could race with.
#[derive(Debug, Clone, Copy)]
pub struct AtomicView<T> {
    view: View<T>,
}

impl<T: crate::atomic::AtomicScalar> AtomicView<T> {
    /// The array `view`, accessed only atomically.
    ///
    /// # Safety
    /// `view` as in [`View::from_raw_parts`]; nobody accesses its elements non-atomically during the kernel.
    #[inline(always)]
    pub unsafe fn new(view: View<T>) -> Self {
        AtomicView { view }
    }

    /// Number of elements.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.view.len
    }

    /// `true` when there are no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.view.len == 0
    }

    /// `#[omp::atomic(read)]` of element `i`.
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, i: usize) -> T {
        // SAFETY: bounds-checked pointer into the array, accessed only atomically (`new`'s contract).
        unsafe { crate::atomic::atomic_load(self.view.element_ptr(i)) }
    }

    /// `#[omp::atomic(write)]` of element `i`.
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_store(self.view.element_ptr(i), v) }
    }

    /// `x[i] += v`.
    #[inline(always)]
    #[track_caller]
    pub fn add(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_add(self.view.element_ptr(i), v) }
    }

    /// `x[i] -= v`.
    #[inline(always)]
    #[track_caller]
    pub fn sub(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_sub(self.view.element_ptr(i), v) }
    }

    /// `x[i] = x[i].min(v)`.
    #[inline(always)]
    #[track_caller]
    pub fn min(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_min(self.view.element_ptr(i), v) }
    }

    /// `x[i] = x[i].max(v)`.
    #[inline(always)]
    #[track_caller]
    pub fn max(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_max(self.view.element_ptr(i), v) }
    }

    /// `x[i] = f(x[i])` atomically (compare-and-swap loop); returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn update<F: FnMut(T) -> T>(&self, i: usize, f: F) -> T {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_update(self.view.element_ptr(i), f) }
    }
}

/// The whole array as a plain slice, in a kernel whose loop has exactly one iteration (a serial `#[omp::target]`
/// region): one thread runs the body, so no other thread touches the array. Panics unless `units == 1`.
///
/// # Safety
/// `base` and `len` as in [`View::from_raw_parts`], and nothing else accesses the array during the kernel (the host
/// passes a `&mut` capture's data).
#[inline(always)]
#[track_caller]
pub unsafe fn serial_slice<'a, T>(base: *mut T, len: u64, units: u64) -> &'a mut [T] {
    if units != 1 {
        panic!("a kernel that sees its arrays as plain slices must have one iteration");
    }
    // SAFETY: the caller's contract; one iteration means one thread reaches this (the walk gives each unit to one
    // thread).
    unsafe { core::slice::from_raw_parts_mut(base, len as usize) }
}

/// An array that the kernel only adds to (`#[omp::atomic] x[i] += v` / `-=`): while it fits the team's arena
/// ([`crate::team::TeamArena`]) and each team runs at least as many iterations as it has elements, the team adds into
/// a zeroed copy in shared memory and [`TeamAdds::finish`] adds the copy's non-zero elements to the array, one
/// global atomic per element and team instead of one per update (CUDA codes privatize histograms and scatter-adds
/// into `__shared__` memory by hand). Otherwise every update is a global atomic, as in [`AtomicView`].
///
/// The sum is the same up to the order of the additions, which atomics leave open anyway.
#[derive(Debug, Clone, Copy)]
pub struct TeamAdds<T> {
    view: View<T>,
    /// The team's copy, or null.
    team: *mut T,
}

impl<T: crate::atomic::AtomicScalar> TeamAdds<T> {
    /// The array `view`, combined per team when worth it (see the type's docs). Called by every thread of the team
    /// with the same `arena` state and `units_per_team` (it may end with a barrier).
    ///
    /// # Safety
    /// As for [`AtomicView::new`]; besides, every thread of the team calls [`TeamAdds::finish`] once, after its last
    /// update.
    #[inline(always)]
    pub unsafe fn new(view: View<T>, arena: &mut crate::team::TeamArena, units_per_team: u64) -> Self {
        let worth_it = view.len > 0 && units_per_team >= view.len as u64;
        let team = if worth_it { arena.zeroed(view.len, T::__zero()) } else { None };
        TeamAdds { view, team: team.unwrap_or(core::ptr::null_mut()) }
    }

    /// Number of elements.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.view.len
    }

    /// `true` when there are no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.view.len == 0
    }

    /// `x[i] += v`.
    #[inline(always)]
    #[track_caller]
    pub fn add(&self, i: usize, v: T) {
        // SAFETY: the array's atomic add and the team copy's (the caller checks `i` and picks the memory).
        unsafe { self.update(i, v, crate::atomic::atomic_add, T::__team_add) }
    }

    /// `x[i] -= v`.
    #[inline(always)]
    #[track_caller]
    pub fn sub(&self, i: usize, v: T) {
        // SAFETY: as in `add`.
        unsafe { self.update(i, v, crate::atomic::atomic_sub, T::__team_sub) }
    }

    /// Element `i` (bounds-checked) updated by `global` in the array, or by `team` in the team's copy when there is
    /// one.
    ///
    /// # Safety
    /// `global` and `team` are atomic updates valid for any in-bounds element of, respectively, the array (accessed
    /// only atomically, `new`'s contract) and the team's copy of `len` elements.
    #[inline(always)]
    #[track_caller]
    unsafe fn update(&self, i: usize, v: T, global: unsafe fn(*mut T, T), team: unsafe fn(*mut T, T)) {
        let p = self.view.element_ptr(i);
        if self.team.is_null() {
            // SAFETY: bounds-checked pointer into the array; `global` per the caller.
            unsafe { global(p, v) }
        } else {
            // SAFETY: `i < len` (checked above), inside the team's copy of `len` elements; `team` per the caller.
            unsafe { team(self.team.add(i), v) }
        }
    }

    /// Adds the team's copy to the array (after a barrier: every thread's updates are in it). Every thread of the
    /// team calls it once, after its last update.
    #[inline(always)]
    pub fn finish(&self) {
        if self.team.is_null() {
            return;
        }
        crate::team::barrier();
        let (me, step) = (crate::launch::thread_in_team() as usize, crate::launch::team_size() as usize);
        let mut j = me;
        while j < self.view.len {
            // SAFETY: `j < len`: inside the team's copy, complete after the barrier; the array's element `j` is
            // accessed only atomically.
            unsafe {
                let v = crate::atomic::atomic_load(self.team.add(j));
                if !v.__adds_nothing() {
                    crate::atomic::atomic_add(self.view.as_ptr().add(j), v);
                }
            }
            j += step;
        }
    }
}

impl<T: crate::atomic::AtomicInt> AtomicView<T> {
    /// `x[i] &= v`.
    #[inline(always)]
    #[track_caller]
    pub fn and(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_and(self.view.element_ptr(i), v) }
    }

    /// `x[i] |= v`.
    #[inline(always)]
    #[track_caller]
    pub fn or(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_or(self.view.element_ptr(i), v) }
    }

    /// `x[i] ^= v`.
    #[inline(always)]
    #[track_caller]
    pub fn xor(&self, i: usize, v: T) {
        // SAFETY: as `load`.
        unsafe { crate::atomic::atomic_xor(self.view.element_ptr(i), v) }
    }
}
