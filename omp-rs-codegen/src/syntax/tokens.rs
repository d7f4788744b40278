//! Token-level helpers for code the passes read before it is parsed (macro arguments, attribute arguments): the
//! identifiers of a token stream.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream, TokenTree};

/// Every identifier in `tokens`, groups included.
pub(crate) fn idents_in(tokens: TokenStream) -> BTreeSet<String> {
    ident_tokens(tokens).iter().map(|i| i.to_string()).collect()
}

/// Every identifier of `tokens`, groups included, in order (with its span).
pub(crate) fn ident_tokens(tokens: TokenStream) -> Vec<Ident> {
    fn walk(tokens: TokenStream, out: &mut Vec<Ident>) {
        for t in tokens {
            match t {
                TokenTree::Ident(i) => out.push(i),
                TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, &mut out);
    out
}
