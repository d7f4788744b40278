//! Standalone directives written as macros: `omp::target_update!(to: x)`, `omp::target_enter_data!(map(to: x))`,
//! `omp::target_exit_data!(map(from: x))`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::ctxt::Ctxt;
use crate::model::{ClauseValue, ConstructKind, Directive};
use crate::parse;
use crate::types::CaptureTypes;

/// Whether `name` is one of the macro-form directives.
pub fn is_standalone(name: &str) -> bool {
    matches!(name, "target_update" | "target_enter_data" | "target_exit_data")
}

/// Parses the macro arguments. `target_update!` also takes the short form `to: a, b` / `from: a`.
pub fn parse(name: &Ident, tokens: TokenStream, cx: &Ctxt) -> Option<Directive> {
    let construct = parse::construct(name, cx)?;
    let tokens = if construct.kind == ConstructKind::TargetUpdate { short_motion(tokens) } else { tokens };
    let d = parse::directive(construct, tokens, cx);
    if d.construct.kind == ConstructKind::TargetUpdate
        && !d.clauses.iter().any(|c| matches!(c.value, ClauseValue::To(_) | ClauseValue::From(_)))
        && !cx.has_errors()
    {
        cx.error_spanned_by(name, "`target_update!` needs `to: vars` or `from: vars`, e.g. `omp::target_update!(from: a)`");
    }
    Some(d)
}

/// `to: a, b` → `to(a, b)` (one motion per macro in the short form).
fn short_motion(tokens: TokenStream) -> TokenStream {
    let mut iter = tokens.clone().into_iter();
    match (iter.next(), iter.next()) {
        (Some(proc_macro2::TokenTree::Ident(dir)), Some(proc_macro2::TokenTree::Punct(p)))
            if (dir == "to" || dir == "from") && p.as_char() == ':' =>
        {
            let rest: TokenStream = iter.collect();
            quote!(#dir(#rest))
        }
        _ => tokens,
    }
}

/// Lowers a standalone directive to its runtime call (a no-op on the host path). `types`: the declared types of
/// its variables (a `&mut` reference is reborrowed rather than borrowed again).
pub fn lower(name: &Ident, tokens: TokenStream, types: &CaptureTypes, cx: &Ctxt) -> TokenStream {
    match parse(name, tokens, cx) {
        Some(d) if !cx.has_errors() => crate::lower::offload::standalone(&d, types),
        _ => TokenStream::new(),
    }
}

/// The variables a standalone directive names.
pub fn vars(d: &Directive) -> Vec<&Ident> {
    d.clauses
        .iter()
        .flat_map(|c| match &c.value {
            ClauseValue::To(items) | ClauseValue::From(items) => items.iter().map(|i| &i.var).collect::<Vec<_>>(),
            ClauseValue::Map(m) => m.items.iter().map(|i| &i.var).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The variables whose host copy a standalone directive writes (`target_update!(from: …)`, exit data `from`).
pub fn written(d: &Directive) -> Vec<&Ident> {
    d.clauses
        .iter()
        .flat_map(|c| match &c.value {
            ClauseValue::From(items) => items.iter().map(|i| &i.var).collect::<Vec<_>>(),
            ClauseValue::Map(m) if d.construct.kind == ConstructKind::TargetExitData && m.kind.writes_host() => {
                m.items.iter().map(|i| &i.var).collect()
            }
            _ => Vec::new(),
        })
        .collect()
}
