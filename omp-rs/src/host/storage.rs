//! Which types omp-rs may treat as a plain slice of elements. Decided by the compiler, from the type itself:
//! slices, arrays, `Vec`s and boxed slices (and references to them) qualify; any other type, even one that
//! implements `Index`, keeps its own meaning, and a parallel loop that would have to write it through a slice is
//! a compile error instead.

/// Seals [`SliceStorage`]: only the standard containers below (and omp-rs's data-region tokens) qualify.
mod seal {
    pub trait Sealed {}
}

/// A contiguous, directly indexable sequence of `Elem`s whose `x[i]` means "element `i`".
#[diagnostic::on_unimplemented(
    message = "omp-rs cannot index `{Self}` as a plain slice",
    label = "not a slice, array, `Vec` or boxed slice",
    note = "a parallel loop writes arrays through slices: use `&mut [T]`, `Vec<T>` or `[T; N]` (types with their own \
            `Index` impls are not supported there yet), or make the update `#[omp::atomic]`"
)]
pub trait SliceStorage: seal::Sealed {
    /// The element type.
    type Elem;
    /// The elements.
    fn storage(&self) -> &[Self::Elem];
}

/// A [`SliceStorage`] that can also be written.
#[diagnostic::on_unimplemented(
    message = "omp-rs cannot write `{Self}` as a plain slice",
    label = "not a mutable slice, array, `Vec` or boxed slice",
    note = "the loop writes this variable: it must be `&mut [T]`, `Vec<T>`, `[T; N]` or `Box<[T]>` (a `&[T]` cannot be \
            written; inside `target_data`, map it `tofrom` or `from`)"
)]
pub trait SliceStorageMut: SliceStorage {
    /// The elements, writable.
    fn storage_mut(&mut self) -> &mut [Self::Elem];
}

impl<T> seal::Sealed for [T] {}
impl<T> SliceStorage for [T] {
    type Elem = T;
    #[inline(always)]
    fn storage(&self) -> &[T] {
        self
    }
}
impl<T> SliceStorageMut for [T] {
    #[inline(always)]
    fn storage_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T, const N: usize> seal::Sealed for [T; N] {}
impl<T, const N: usize> SliceStorage for [T; N] {
    type Elem = T;
    #[inline(always)]
    fn storage(&self) -> &[T] {
        self
    }
}
impl<T, const N: usize> SliceStorageMut for [T; N] {
    #[inline(always)]
    fn storage_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> seal::Sealed for Vec<T> {}
impl<T> SliceStorage for Vec<T> {
    type Elem = T;
    #[inline(always)]
    fn storage(&self) -> &[T] {
        self
    }
}
impl<T> SliceStorageMut for Vec<T> {
    #[inline(always)]
    fn storage_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> seal::Sealed for Box<[T]> {}
impl<T> SliceStorage for Box<[T]> {
    type Elem = T;
    #[inline(always)]
    fn storage(&self) -> &[T] {
        self
    }
}
impl<T> SliceStorageMut for Box<[T]> {
    #[inline(always)]
    fn storage_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<S: ?Sized + SliceStorage> seal::Sealed for &S {}
impl<S: ?Sized + SliceStorage> SliceStorage for &S {
    type Elem = S::Elem;
    #[inline(always)]
    fn storage(&self) -> &[S::Elem] {
        (**self).storage()
    }
}

impl<S: ?Sized + SliceStorage> seal::Sealed for &mut S {}
impl<S: ?Sized + SliceStorage> SliceStorage for &mut S {
    type Elem = S::Elem;
    #[inline(always)]
    fn storage(&self) -> &[S::Elem] {
        (**self).storage()
    }
}
impl<S: ?Sized + SliceStorageMut> SliceStorageMut for &mut S {
    #[inline(always)]
    fn storage_mut(&mut self) -> &mut [S::Elem] {
        (**self).storage_mut()
    }
}

/// The elements of `x` (a variable the expansion reads as a slice). A generic argument, not a method call: no
/// auto-deref can turn a user type into the slice it derefs to.
#[inline(always)]
pub fn as_slice<S: ?Sized + SliceStorage>(x: &S) -> &[S::Elem] {
    x.storage()
}

/// The elements of `x`, writable (a variable a parallel loop or a mapping writes).
#[inline(always)]
pub fn as_slice_mut<S: ?Sized + SliceStorageMut>(x: &mut S) -> &mut [S::Elem] {
    x.storage_mut()
}

/// The number of elements of `x` (a variable mapped by a data region or named in a section).
#[inline(always)]
pub fn slice_len<S: ?Sized + SliceStorage>(x: &S) -> usize {
    x.storage().len()
}

/// Lets other modules of this crate (data-region tokens) join the seal.
pub(crate) use seal::Sealed;
