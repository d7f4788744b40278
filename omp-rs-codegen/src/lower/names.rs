//! Names of the hidden locals that expansions introduce. They start with `__omp_` so they cannot collide with
//! user code, and they are built in one place so host and device lowerings agree.

use proc_macro2::{Ident, Span};
use quote::format_ident;

/// The `Dim` of parallel dimension `k`.
pub fn dim(k: usize) -> Ident {
    format_ident!("__omp_dim{}", k)
}

/// The flattened index of dimension `k` inside a chunk.
pub fn k(k: usize) -> Ident {
    format_ident!("__omp_k{}", k)
}

/// The `Dim` of an inner sequential loop used by a run-time disjointness check.
pub fn inner_dim(var: &str) -> Ident {
    format_ident!("__omp_inner_{}", var)
}

/// The disjoint-write handle of array `var`.
pub fn disjoint(var: &Ident) -> Ident {
    format_ident!("__omp_w_{}", var)
}

/// The atomic handle of `var`.
pub fn atomic(var: &Ident) -> Ident {
    format_ident!("__omp_at_{}", var)
}

/// The lock-protected cell of a critical section.
pub fn critical(name: &str) -> Ident {
    if name.is_empty() {
        Ident::new("__omp_cs_", Span::call_site())
    } else {
        format_ident!("__omp_cs_{}", name)
    }
}

/// A fixed hidden name.
pub fn fixed(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}
