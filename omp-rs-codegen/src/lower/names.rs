//! Names of the hidden locals that expansions introduce. They have mixed-site hygiene (like `macro_rules!`
//! locals): the user's code in a loop body can neither name nor shadow them, so it cannot reach the runtime
//! handles behind the expansion's back. Built in one place so host and device lowerings agree.

use proc_macro2::{Ident, Span};

/// A hidden local of the expansion.
pub fn hidden(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The `Dim` of parallel dimension `k`.
pub fn dim(k: usize) -> Ident {
    hidden(&format!("__omp_dim{k}"))
}

/// The flattened index of dimension `k` inside a chunk.
pub fn k(k: usize) -> Ident {
    hidden(&format!("__omp_k{k}"))
}

/// The `Dim` of an inner sequential loop used by a written array's ownership.
pub fn inner_dim(var: &str) -> Ident {
    hidden(&format!("__omp_inner_{var}"))
}

/// The disjoint-write handle of array `var`.
pub fn disjoint(var: &Ident) -> Ident {
    hidden(&format!("__omp_w_{var}"))
}

/// The atomic handle of `var`.
pub fn atomic(var: &Ident) -> Ident {
    hidden(&format!("__omp_at_{var}"))
}

/// The lock-protected cell of a critical section.
pub fn critical(name: &str) -> Ident {
    hidden(&format!("__omp_cs_{name}"))
}

/// A fixed hidden name.
pub fn fixed(name: &str) -> Ident {
    hidden(name)
}
