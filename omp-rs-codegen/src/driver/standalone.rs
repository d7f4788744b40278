//! Standalone directives written as macros: `omp::target_update!(to: x)`, `omp::target_enter_data!(map(to: x))`,
//! `omp::target_exit_data!(map(from: x))`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::analyze::types::CaptureTypes;
use crate::ctxt::Ctxt;
use crate::model::{ConstructKind, Directive};
use crate::syntax::parse;

/// Whether `name` is one of the macro-form directives.
pub(crate) fn is_standalone(name: &str) -> bool {
    matches!(name, "target_update" | "target_enter_data" | "target_exit_data")
}

/// Parses the macro arguments. `target_update!` also takes the short form `to: a, b` / `from: a`.
pub(crate) fn parse(name: &Ident, tokens: TokenStream, cx: &Ctxt) -> Option<Directive> {
    let construct = parse::construct(name, cx)?;
    let tokens = if construct.kind == ConstructKind::TargetUpdate { short_motion(tokens) } else { tokens };
    let d = parse::directive(construct, tokens, cx);
    if d.construct.kind == ConstructKind::TargetUpdate && d.settings.motions.is_empty() && !cx.has_errors() {
        cx.error_spanned_by(name, "`target_update!` needs `to: vars` or `from: vars`, e.g. `omp::target_update!(from: a)`");
    }
    Some(d)
}

/// `to: a, b` → `to(a, b)` (one motion per macro in the short form). Clauses after the list stay clauses:
/// `from: b[0..n], depend(out: b), nowait` → `from(b[0..n]), depend(out: b), nowait`.
fn short_motion(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, TokenTree};
    let mut iter = tokens.clone().into_iter();
    let dir = match (iter.next(), iter.next()) {
        (Some(TokenTree::Ident(dir)), Some(TokenTree::Punct(p))) if (dir == "to" || dir == "from") && p.as_char() == ':' => dir,
        _ => return tokens,
    };
    // Split the rest at top-level commas (groups keep theirs); the first segment that reads as a clause
    // (`name(...)` — no variable is called — or `nowait`) ends the list.
    let mut segments: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for t in iter {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => segments.push(Vec::new()),
            _ => segments.last_mut().map_or((), |s| s.push(t)),
        }
    }
    let is_clause = |s: &[TokenTree]| match s {
        [TokenTree::Ident(i)] => i == "nowait",
        [TokenTree::Ident(_), TokenTree::Group(g)] => g.delimiter() == Delimiter::Parenthesis,
        _ => false,
    };
    let split = segments.iter().position(|s| is_clause(s)).unwrap_or(segments.len());
    let join = |segs: &[Vec<TokenTree>]| {
        let parts = segs.iter().filter(|s| !s.is_empty()).map(|s| s.iter().cloned().collect::<TokenStream>());
        quote!(#(#parts),*)
    };
    let (vars, clauses) = (join(&segments[..split]), join(&segments[split..]));
    if clauses.is_empty() {
        quote!(#dir(#vars))
    } else {
        quote!(#dir(#vars), #clauses)
    }
}

/// Lowers a standalone directive to its runtime call (a no-op on the host path). `types`: the declared types of
/// its variables (a `&mut` reference is reborrowed rather than borrowed again).
pub(crate) fn lower(name: &Ident, tokens: TokenStream, types: &CaptureTypes, cx: &Ctxt) -> TokenStream {
    match parse(name, tokens, cx) {
        Some(d) if !cx.has_errors() => crate::lower::offload::standalone(&d, types),
        _ => TokenStream::new(),
    }
}

/// The variables a standalone directive names.
pub(crate) fn vars(d: &Directive) -> Vec<&Ident> {
    let moved = d.settings.motions.iter().flat_map(|m| &m.items);
    moved.chain(d.settings.mapped()).map(|i| &i.var).collect()
}

/// The variables whose host copy a standalone directive writes (`target_update!(from: …)`, exit data `from`).
pub(crate) fn written(d: &Directive) -> Vec<&Ident> {
    let from = d.settings.motions.iter().filter(|m| !m.to).flat_map(|m| &m.items);
    let exit = d.construct.kind == ConstructKind::TargetExitData;
    let copied_back = d.settings.maps.iter().filter(|m| exit && m.kind.writes_host()).flat_map(|m| &m.items);
    from.chain(copied_back).map(|i| &i.var).collect()
}

#[cfg(test)]
mod test {
    use super::short_motion;
    use quote::quote;

    #[test]
    fn short_motion_keeps_clauses_apart() {
        let s = |t: proc_macro2::TokenStream| short_motion(t).to_string();
        assert_eq!(s(quote!(from: a, b)), quote!(from(a, b)).to_string());
        assert_eq!(s(quote!(from: b[0..n], depend(out: b))), quote!(from(b[0..n]), depend(out: b)).to_string());
        assert_eq!(s(quote!(to: x, y[1..], device(1), nowait)), quote!(to(x, y[1..]), device(1), nowait).to_string());
        assert_eq!(s(quote!(to(x), if(c))), quote!(to(x), if(c)).to_string(), "the clause form is unchanged");
    }
}
