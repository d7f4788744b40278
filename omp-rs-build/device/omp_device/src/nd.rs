//! ndarray indexing in kernels: the device side of `omp::__private::nd` (see there).

/// `i`, after checking that it is within an axis of `extent` elements.
#[inline(always)]
pub fn below(i: usize, extent: usize) -> usize {
    if i >= extent {
        panic!("index out of bounds for its axis");
    }
    i
}
