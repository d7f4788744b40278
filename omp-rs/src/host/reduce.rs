//! Reduction operators (OpenMP's `+ * min max & | ^ && ||`) with their identities: the table of `omp-rs-abi`, the
//! very definitions the kernels combine with. Each thread starts from the identity; the private copies are combined
//! with the original value in thread order, so a run with a static schedule and a fixed team size always gives the
//! same floating-point result.

pub use omp_rs_abi::reduce::{Add, BitAnd, BitOr, BitXor, LogAnd, LogOr, Max, Min, Mul, Reducer};

/// The identity of operator `R` for the type of `_like` (lets the expansion name the operator, not the type).
pub fn identity_of<R: Reducer<T>, T>(_like: &T) -> T {
    R::identity()
}

/// The middle step of a scan (`reduction(inscan, ..)`, `omp_rs_codegen::desugar::scan`): turns each iteration's
/// contribution into the reduction of `init` and the contributions before it (`exclusive`) or up to it
/// (inclusive), in iteration order, and returns the reduction of `init` and all of them.
pub fn scan<R: Reducer<T>, T: Copy>(contributions: &mut [T], init: T, exclusive: bool) -> T {
    let mut acc = init;
    for c in contributions.iter_mut() {
        let own = *c;
        if exclusive {
            *c = acc;
            acc = R::combine(acc, own);
        } else {
            acc = R::combine(acc, own);
            *c = acc;
        }
    }
    acc
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn scans_in_iteration_order() {
        let mut v = [1i64, 2, 3, 4];
        assert_eq!(scan::<Add, i64>(&mut v, 10, true), 20);
        assert_eq!(v, [10, 11, 13, 16]);
        let mut v = [3.0f64, -1.0, 5.0];
        assert_eq!(scan::<Max, f64>(&mut v, f64::NEG_INFINITY, false), 5.0);
        assert_eq!(v, [3.0, 3.0, 5.0]);
        let mut empty: [u32; 0] = [];
        assert_eq!(scan::<Mul, u32>(&mut empty, 7, true), 7);
    }
}
