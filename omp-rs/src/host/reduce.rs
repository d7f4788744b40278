//! Reduction operators (OpenMP's `+ * min max & | ^ && ||`) with their identities: the table of `omp-rs-abi`, the
//! very definitions the kernels combine with. Each thread starts from the identity; the private copies are combined
//! with the original value in thread order, so a run with a static schedule and a fixed team size always gives the
//! same floating-point result.

pub use omp_rs_abi::reduce::{Add, BitAnd, BitOr, BitXor, LogAnd, LogOr, Max, Min, Mul, Reducer};

/// The identity of operator `R` for the type of `_like` (lets the expansion name the operator, not the type).
pub fn identity_of<R: Reducer<T>, T>(_like: &T) -> T {
    R::identity()
}
