//! Names of the hidden locals that expansions introduce. They have mixed-site hygiene (like `macro_rules!`
//! locals): the user's code in a loop body can neither name nor shadow them, so it cannot reach the runtime
//! handles behind the expansion's back. Built in one place so host and device lowerings agree.
//!
//! The names the rewrites give what they introduce ([`spmd`], [`nd`]) live here too: the rewrite that makes them,
//! the analyses and lowerings that read them, and the error collector (`ctxt`), whose messages show them as the user
//! wrote them, share them. This module uses nothing of the crate.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

pub(crate) mod nd;
pub(crate) mod spmd;

/// The path of the hidden runtime API.
pub(crate) fn rt() -> TokenStream {
    quote!(::omp::__private)
}

/// A hidden local of the expansion.
pub(crate) fn hidden(name: &str) -> Ident {
    // Names built from a raw identifier (`__omp_token_r#in`) drop its `r#`: the prefix keeps them apart.
    Ident::new(&name.replace("r#", ""), Span::mixed_site())
}

/// The `Dim` of parallel dimension `k`.
pub(crate) fn dim(k: usize) -> Ident {
    hidden(&format!("__omp_dim{k}"))
}

/// The flattened index of dimension `k` inside a chunk.
pub(crate) fn k(k: usize) -> Ident {
    hidden(&format!("__omp_k{k}"))
}

// `format_ident!` strips the `r#` of a raw identifier (`r#type`), which a plain `format!` would keep (and then
// make an invalid name).

/// The `Dim` of an inner sequential loop used by a written array's ownership.
pub(crate) fn inner_dim(var: &str) -> Ident {
    format_ident!("__omp_inner_{}", var.trim_start_matches("r#"), span = Span::mixed_site())
}

/// The disjoint-write handle of array `var`.
pub(crate) fn disjoint(var: &Ident) -> Ident {
    format_ident!("__omp_w_{}", var, span = Span::mixed_site())
}

/// The unchecked handle of `var` (`unsafe(disjoint(var))`).
pub(crate) fn unchecked(var: &Ident) -> Ident {
    format_ident!("__omp_uc_{}", var, span = Span::mixed_site())
}

/// The atomic handle of `var`.
pub(crate) fn atomic(var: &Ident) -> Ident {
    format_ident!("__omp_at_{}", var, span = Span::mixed_site())
}

/// The lock-protected cell of a critical section.
pub(crate) fn critical(name: &str) -> Ident {
    format_ident!("__omp_cs_{}", name.trim_start_matches("r#"), span = Span::mixed_site())
}
