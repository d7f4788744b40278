//! ndarray arrays in parallel loops and target regions (`a[[i, j]]`): the expansion takes the array's elements as
//! one flat slice (standard layout only) and its extents as `usize`s before the loop, and turns `a[[i, j]]` into
//! `flat[below(i, n0) * n1 + below(j, n1)]`: the same element, the same panic when an index is past its extent
//! (ndarray's own indexing panics there too), and an index form the race analysis reads as `i * n1 + j`. No
//! dependency on ndarray: the expansion calls the array's inherent `as_slice`, `as_slice_mut` and `shape`.

/// `i`, after checking that it is within an axis of `extent` elements (ndarray's bound check, per axis: a flat
/// index alone would let `a[[0, n1]]` read `a[[1, 0]]`).
#[inline(always)]
#[track_caller]
pub fn below(i: usize, extent: usize) -> usize {
    assert!(i < extent, "ndarray index {i} is out of bounds for an axis of length {extent}");
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
        assert!(std::panic::catch_unwind(|| standard::<f64>(None, "a")).is_err());
    }
}
