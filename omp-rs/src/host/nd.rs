//! ndarray arrays in parallel loops and target regions (`a[[i, j]]`): the expansion takes the array's elements as
//! one flat slice (standard layout only) and its extents as `usize`s before the loop, and turns `a[[i, j]]` into
//! `flat[below(i, n0) * n1 + below(j, n1)]`: the same element, the same panic when an index is past its extent
//! (ndarray's own indexing panics there too), and an index form the race analysis reads as `i * n1 + j`.
//!
//! The macro recognises the arrays by their type's name (`Array2<f64>`), which a user type may also have; what
//! makes the rewrite mean the same as the user's indexing is [`NdArray`], implemented here for ndarray's own
//! `ArrayBase` only (features `ndarray`, `ndarray-0-16`): another type of that name does not compile. Slices, `Vec`s
//! and arrays of rows (`&[[f64; 3]]`, C's `double (*a)[3]`) are taken apart the same way, `a[i][j]` becoming
//! `flat[below(i, n0) * n1 + below(j, n1)]`.

use std::borrow::Cow;

/// An ndarray array (any storage, any dimension): its extents and, in standard layout, its elements in row-major
/// order. Implemented for ndarray's `ArrayBase` (whose `as_slice` promises that order) and for slices, `Vec`s and
/// arrays of rows (`[[T; N]]`: `as_flattened`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an ndarray array that omp-rs knows",
    note = "enable omp's `ndarray` feature (ndarray 0.17) or `ndarray-0-16`; other types named like ndarray's are not taken apart"
)]
pub trait NdArray {
    /// Element type.
    type Elem;
    /// The extents (`shape()`).
    fn __omp_nd_shape(&self) -> Cow<'_, [usize]>;
    /// The elements in row-major order (`as_slice()`), when in standard layout.
    fn __omp_nd_flat(&self) -> Option<&[Self::Elem]>;
}

/// An [`NdArray`] whose elements may be written.
pub trait NdArrayMut: NdArray {
    /// The elements in row-major order (`as_slice_mut()`), when in standard layout.
    fn __omp_nd_flat_mut(&mut self) -> Option<&mut [Self::Elem]>;
}

// A reference to an array is taken apart as the array (a `target_data` block's regions see its tokens through the
// references the block holds).
impl<A: NdArray + ?Sized> NdArray for &A {
    type Elem = A::Elem;
    fn __omp_nd_shape(&self) -> Cow<'_, [usize]> {
        (**self).__omp_nd_shape()
    }
    fn __omp_nd_flat(&self) -> Option<&[Self::Elem]> {
        (**self).__omp_nd_flat()
    }
}

impl<A: NdArray + ?Sized> NdArray for &mut A {
    type Elem = A::Elem;
    fn __omp_nd_shape(&self) -> Cow<'_, [usize]> {
        (**self).__omp_nd_shape()
    }
    fn __omp_nd_flat(&self) -> Option<&[Self::Elem]> {
        (**self).__omp_nd_flat()
    }
}

impl<A: NdArrayMut + ?Sized> NdArrayMut for &mut A {
    fn __omp_nd_flat_mut(&mut self) -> Option<&mut [Self::Elem]> {
        (**self).__omp_nd_flat_mut()
    }
}

impl<T, const N: usize> NdArray for [[T; N]] {
    type Elem = T;
    fn __omp_nd_shape(&self) -> Cow<'_, [usize]> {
        Cow::Owned(vec![self.len(), N])
    }
    fn __omp_nd_flat(&self) -> Option<&[T]> {
        Some(self.as_flattened())
    }
}

impl<T, const N: usize> NdArrayMut for [[T; N]] {
    fn __omp_nd_flat_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut())
    }
}

// An array or a `Vec` of rows is taken apart as the slice of its rows.
impl<T, const N: usize, const M: usize> NdArray for [[T; N]; M] {
    type Elem = T;
    fn __omp_nd_shape(&self) -> Cow<'_, [usize]> {
        self.as_slice().__omp_nd_shape()
    }
    fn __omp_nd_flat(&self) -> Option<&[T]> {
        self.as_slice().__omp_nd_flat()
    }
}

impl<T, const N: usize, const M: usize> NdArrayMut for [[T; N]; M] {
    fn __omp_nd_flat_mut(&mut self) -> Option<&mut [T]> {
        self.as_mut_slice().__omp_nd_flat_mut()
    }
}

impl<T, const N: usize> NdArray for Vec<[T; N]> {
    type Elem = T;
    fn __omp_nd_shape(&self) -> Cow<'_, [usize]> {
        self.as_slice().__omp_nd_shape()
    }
    fn __omp_nd_flat(&self) -> Option<&[T]> {
        self.as_slice().__omp_nd_flat()
    }
}

impl<T, const N: usize> NdArrayMut for Vec<[T; N]> {
    fn __omp_nd_flat_mut(&mut self) -> Option<&mut [T]> {
        self.as_mut_slice().__omp_nd_flat_mut()
    }
}

#[allow(unused_macros)] // used only with the `ndarray` features
macro_rules! ndarray_impls {
    ($nd:ident) => {
        impl<S: $nd::Data, D: $nd::Dimension> NdArray for $nd::ArrayBase<S, D> {
            type Elem = S::Elem;
            fn __omp_nd_shape(&self) -> Cow<'_, [usize]> {
                Cow::Borrowed(self.shape())
            }
            fn __omp_nd_flat(&self) -> Option<&[S::Elem]> {
                self.as_slice()
            }
        }
        impl<S: $nd::DataMut, D: $nd::Dimension> NdArrayMut for $nd::ArrayBase<S, D> {
            fn __omp_nd_flat_mut(&mut self) -> Option<&mut [S::Elem]> {
                self.as_slice_mut()
            }
        }
    };
}
#[cfg(feature = "ndarray")]
ndarray_impls!(ndarray);
#[cfg(feature = "ndarray-0-16")]
ndarray_impls!(ndarray_0_16);

/// `i`, after checking that it is within an axis of `extent` elements (ndarray's bound check, per axis: a flat
/// index alone would let `a[[0, n1]]` read `a[[1, 0]]`).
#[inline(always)]
#[track_caller]
pub fn below(i: usize, extent: usize) -> usize {
    assert!(i < extent, "index {i} is out of bounds for an axis of length {extent}");
    i
}

/// The elements of a standard-layout array (`a.as_slice()`), or a panic that says what to do.
#[track_caller]
pub fn standard<'a, T>(elems: Option<&'a [T]>, name: &str) -> &'a [T] {
    elems.unwrap_or_else(|| panic!("omp: ndarray `{name}` is not in standard layout (row-major, contiguous): pass `{name}.as_standard_layout()` or a copy in standard layout"))
}

/// The elements of a standard-layout array, mutably (`a.as_slice_mut()`), or a panic that says what to do.
#[track_caller]
pub fn standard_mut<'a, T>(elems: Option<&'a mut [T]>, name: &str) -> &'a mut [T] {
    elems.unwrap_or_else(|| panic!("omp: ndarray `{name}` is not in standard layout (row-major, contiguous): copy it into one (`.as_standard_layout().into_owned()`) before the loop"))
}

/// The extents of a `D`-dimensional array (`a.shape()`).
#[track_caller]
pub fn shape<const D: usize>(shape: &[usize], name: &str) -> [usize; D] {
    shape.try_into().unwrap_or_else(|_| panic!("omp: ndarray `{name}` has {} axes, its declared type {D}", shape.len()))
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn checks_each_axis() {
        assert_eq!(below(2, 3), 2);
        assert!(std::panic::catch_unwind(|| below(3, 3)).is_err());
        assert_eq!(shape::<2>(&[2, 3], "a"), [2, 3]);
        let rows = vec![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
        assert_eq!(&*NdArray::__omp_nd_shape(&rows), &[2, 3]);
        assert_eq!(NdArray::__omp_nd_flat(&rows[..]), Some(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0][..]));
        assert_eq!(&*NdArray::__omp_nd_shape(&[[0u8; 4]; 5]), &[5, 4]);
        assert!(std::panic::catch_unwind(|| standard::<f64>(None, "a")).is_err());
    }
}
