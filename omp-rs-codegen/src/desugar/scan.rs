//! Scans: OpenMP's `reduction(inscan, op: s)` on a loop directive with `#pragma omp scan inclusive(s)` /
//! `exclusive(s)` in its body, as prefix sums and stream compactions write them.
//!
//! ```ignore
//! #[omp::target_teams_distribute_parallel_for(reduction(inscan, +: s))]
//! for i in 0..n {
//!     y[i] = s;                      // the scan phase: `s` is the sum of x[0..i]
//!     omp::scan!(exclusive(s));
//!     s += x[i];                     // the input phase: what iteration i adds
//! }
//! ```
//!
//! The statement before `omp::scan!` and the statements after it are the two phases: with `inclusive(s)` the input
//! phase comes first and the scan phase sees the reduction of iterations `0..=i`; with `exclusive(s)` the scan phase
//! comes first and sees that of `0..i`. OpenMP allows no dependence between the phases other than through `s`, so
//! the region means three steps, which [`split`] writes into the enclosing block:
//!
//! ```ignore
//! let mut v: Vec<T> = vec![identity; count];       // each iteration's contribution
//! #[omp::<directive>(<the other clauses>)]
//! for i in lo..hi { let mut s: T = identity; <input phase>; v[i - lo] = s; }
//! s = omp::__private::scan::<Op, T>(&mut v, s, exclusive);   // v becomes the prefixes, s the total
//! #[omp::<directive>(<the other clauses>)]
//! for i in lo..hi { let s: T = v[i - lo]; <scan phase> }
//! ```
//!
//! Both loops get every check of a loop directive (the contribution array is written at the loop variable); the
//! prefixes are combined with the reduction table's `combine` in iteration order on the host, so a floating-point
//! scan gives the sequential loop's values. On a GPU the contributions travel to the host and back between the two
//! kernels. `s` ends with the reduction of its value before the loop and every contribution, as OpenMP specifies.
//!
//! Refused, each with the fix: no `omp::scan!` (or one below the body's top level, or naming another variable),
//! more than one variable in the `inscan` reduction, other reductions on the same loop, `nowait`, `collapse`, a
//! loop that is not `for i in lo..hi`, a reduction variable whose type the macro cannot see or that is no number or
//! `bool` (a `&mut f64` parameter), and `break`,
//! `continue`, `return` or `?` that would leave a phase.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Stmt};

use crate::analyze::types::TypeEnv;
use crate::ctxt::Ctxt;
use crate::model::ReductionOp;
use crate::syntax::body::find_omp_attr;

/// When `stmt` is a loop directive with an `inscan` reduction: the statements that replace it, or `Err(())` once
/// errors were reported. `None` for every other statement.
pub(crate) fn split(stmt: &Stmt, types: &TypeEnv, cx: &Ctxt) -> Option<Result<Vec<Stmt>, ()>> {
    let Stmt::Expr(Expr::ForLoop(f), _) = stmt else { return None };
    let attr = find_omp_attr(&f.attrs)?;
    let chunks = crate::syntax::parse::clause_chunks(&attr.args);
    let inscan_at = chunks.iter().position(|(name, tokens)| name == "reduction" && is_inscan(tokens))?;
    Some(lower(f, &attr, &chunks, inscan_at, types, cx))
}

/// Whether a `reduction(..)` clause's tokens start with the `inscan` modifier.
fn is_inscan(clause: &TokenStream) -> bool {
    clause.clone().into_iter().any(|tt| match tt {
        TokenTree::Group(g) => matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "inscan"),
        _ => false,
    })
}

/// `omp::scan!(inclusive(s))` or `omp::scan!(exclusive(s))`: the variable and whether it is exclusive.
struct ScanPoint {
    var: Ident,
    exclusive: bool,
}

fn scan_macro(stmt: &Stmt) -> Option<&syn::Macro> {
    crate::syntax::body::statement_macro(stmt).filter(|m| crate::syntax::body::omp_macro(m, "scan"))
}

fn parse_scan_point(m: &syn::Macro) -> syn::Result<ScanPoint> {
    m.parse_body_with(|input: syn::parse::ParseStream| {
        let kind: Ident = input.parse()?;
        let exclusive = match kind.to_string().as_str() {
            "inclusive" => false,
            "exclusive" => true,
            _ => return Err(syn::Error::new(kind.span(), "write `omp::scan!(inclusive(s))` or `omp::scan!(exclusive(s))`")),
        };
        let inner;
        syn::parenthesized!(inner in input);
        let var: Ident = inner.parse()?;
        if !inner.is_empty() {
            return Err(inner.error("one scan variable: the loop's `reduction(inscan, ..)` has one"));
        }
        Ok(ScanPoint { var, exclusive })
    })
}

fn lower(
    f: &syn::ExprForLoop,
    attr: &crate::syntax::body::OmpAttr,
    chunks: &[(String, TokenStream)],
    inscan_at: usize,
    types: &TypeEnv,
    cx: &Ctxt,
) -> Result<Vec<Stmt>, ()> {
    let (_, inscan) = &chunks[inscan_at];
    let (op, var) = parse_inscan(inscan).map_err(|e| cx.syn_error(e))?;
    let mut ok = true;
    for (name, tokens) in chunks.iter().enumerate().filter(|(k, _)| *k != inscan_at).map(|(_, c)| c) {
        let why = match name.as_str() {
            "reduction" => "other reductions on a scan's loop are not supported: reduce them in a loop of their own",
            "nowait" => "`nowait` on a scan's loop is not supported: its two passes wait for each other",
            "collapse" => "`collapse` on a scan's loop is not supported: scan a loop over one range",
            _ => continue,
        };
        cx.error_spanned_by(tokens, why);
        ok = false;
    }
    // The scan point: one statement of the body's top level.
    let points: Vec<usize> = f.body.stmts.iter().enumerate().filter(|(_, s)| scan_macro(s).is_some()).map(|(k, _)| k).collect();
    let nested = {
        let mut n = NestedScan(None);
        f.body.stmts.iter().filter(|s| scan_macro(s).is_none()).for_each(|s| n.visit_stmt(s));
        n.0
    };
    if let Some(span) = nested {
        cx.error_at(span, "`omp::scan!` stands at the top level of the loop's body (between its two phases), not inside a block");
        return Err(());
    }
    let at = match points.as_slice() {
        [one] => *one,
        [] => {
            cx.error_spanned_by(
                &var,
                format!(
                    "a `reduction(inscan, ..)` loop separates its phases with `omp::scan!(inclusive({var}));` or \
                     `omp::scan!(exclusive({var}));` in its body"
                ),
            );
            return Err(());
        }
        [_, second, ..] => {
            cx.error_spanned_by(&f.body.stmts[*second], "one `omp::scan!` per loop body");
            return Err(());
        }
    };
    let point = match scan_macro(&f.body.stmts[at]).map(parse_scan_point) {
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            cx.syn_error(e);
            return Err(());
        }
        None => return Err(()),
    };
    if point.var != var {
        cx.error_spanned_by(
            &point.var,
            format!("the scan names `{}`, the loop's `reduction(inscan, ..)` `{var}`: they are one variable", point.var),
        );
        return Err(());
    }
    let syn::Pat::Ident(pat) = &*f.pat else {
        cx.error_spanned_by(&f.pat, "a scan's loop variable is one name (`for i in lo..hi`)");
        return Err(());
    };
    let i = &pat.ident;
    let (lo, hi) = match &*f.expr {
        Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => match (&r.start, &r.end) {
            (Some(lo), Some(hi)) => (lo.clone(), hi.clone()),
            _ => {
                cx.error_spanned_by(&f.expr, "a scan's loop runs over `lo..hi`, both bounds written");
                return Err(());
            }
        },
        other => {
            cx.error_spanned_by(other, "a scan's loop runs over a range `lo..hi` (the contributions are indexed `i - lo`)");
            return Err(());
        }
    };
    let Some(Some(ty)) = types.lookup(&var.to_string()) else {
        cx.error_spanned_by(
            &var,
            format!(
                "give the scan variable `{var}` its type (`let mut {var}: f64 = 0.0;`): the contributions are stored in an array of it"
            ),
        );
        return Err(());
    };
    if !crate::analyze::types::is_primitive(ty) {
        cx.error_spanned_by(
            &var,
            format!(
                "the scan variable `{var}` is a `{}`: a scan reduces a local number or `bool` (take a `&mut` \
                 parameter's value into a local before the loop and store it back after)",
                quote!(#ty)
            ),
        );
        return Err(());
    }
    let ty = ty.clone();
    let (before, after) = (&f.body.stmts[..at], &f.body.stmts[at + 1..]);
    // A `break` / `continue` naming the scan's own loop leaves the phase too.
    let own_label: Vec<String> = f.label.iter().map(|l| l.name.ident.to_string()).collect();
    for stmt in before.iter().chain(after) {
        let mut exits = crate::syntax::body::Exits::new(&own_label);
        exits.visit_stmt(stmt);
        for (span, what) in exits.found {
            cx.error_at(
                span,
                format!(
                    "`{what}` would leave a phase of the scan's loop: the two phases run in two passes; branch around the code instead"
                ),
            );
            ok = false;
        }
    }
    if !ok {
        return Err(());
    }
    let (input, scan) = if point.exclusive { (after, before) } else { (before, after) };

    let [v, lo_n, hi_n, id] =
        ["__omp_scan_v", "__omp_scan_lo", "__omp_scan_hi", "__omp_scan_identity"].map(|n| Ident::new(n, Span::call_site()));
    let reduce = quote!(::omp::__private::reduce);
    let reducer = op.reducer(quote!(#reduce));
    let exclusive = point.exclusive;
    // `i - lo` indexes the contributions; a loop variable of another type than `usize` is cast.
    let index_type = crate::analyze::types::range_type(&syn::parse_quote!(#lo..#hi), types);
    let slot: TokenStream = if index_type.as_deref() == Some("usize") { quote!(#i - #lo_n) } else { quote!((#i - #lo_n) as usize) };
    let bound_type = index_type.map(|t| {
        let t = format_ident!("{}", t);
        quote!(: #t)
    });
    let clauses: Vec<&TokenStream> = chunks.iter().enumerate().filter(|(k, _)| *k != inscan_at).map(|(_, (_, t))| t).collect();
    let name = &attr.name;
    let mut other_attrs = f.attrs.clone();
    other_attrs.remove(attr.index);
    let label = &f.label;
    let out = quote! {
        let #lo_n #bound_type = #lo;
        let #hi_n #bound_type = #hi;
        let #id: #ty = <#reducer as #reduce::Reducer<#ty>>::identity();
        let mut #v: ::std::vec::Vec<#ty> = ::std::vec![#id; ::omp::__private::range_count(&(#lo_n..#hi_n))];
        #(#other_attrs)*
        #[omp::#name(#(#clauses),*)]
        #label for #i in #lo_n..#hi_n {
            let mut #var: #ty = #id;
            #(#input)*
            #v[#slot] = #var;
        }
        #var = ::omp::__private::scan::<#reducer, #ty>(&mut #v, #var, #exclusive);
        #(#other_attrs)*
        #[omp::#name(#(#clauses),*)]
        #label for #i in #lo_n..#hi_n {
            let #var: #ty = #v[#slot];
            #(#scan)*
        }
    };
    match syn::parse2::<syn::Block>(quote!({ #out })) {
        Ok(b) => Ok(b.stmts),
        Err(e) => {
            cx.syn_error(e);
            Err(())
        }
    }
}

/// `reduction(inscan, op: s)`: the operator and the one variable.
fn parse_inscan(clause: &TokenStream) -> syn::Result<(ReductionOp, Ident)> {
    let group = clause
        .clone()
        .into_iter()
        .find_map(|tt| match tt {
            TokenTree::Group(g) => Some(g),
            _ => None,
        })
        .ok_or_else(|| syn::Error::new_spanned(clause, "expected `reduction(inscan, op: s)`"))?;
    let r = syn::parse::Parser::parse2(crate::syntax::parse::inscan_reduction, group.stream())?;
    match r.vars.as_slice() {
        [one] => Ok((r.op, one.clone())),
        _ => Err(syn::Error::new_spanned(clause, "a scan reduces one variable per loop (`reduction(inscan, +: s)`)")),
    }
}

/// The first `omp::scan!` below the top level of a body.
struct NestedScan(Option<Span>);

impl<'ast> Visit<'ast> for NestedScan {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if crate::syntax::body::omp_macro(m, "scan") && self.0.is_none() {
            self.0 = Some(m.span());
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod test {
    use super::*;
    use quote::ToTokens;

    fn split_text(stmt: Stmt, env: &TypeEnv) -> Result<String, String> {
        let cx = Ctxt::scratch();
        match split(&stmt, env, &cx) {
            Some(Ok(stmts)) => Ok(stmts.iter().map(|s| s.to_token_stream().to_string()).collect::<Vec<_>>().join("\n")),
            Some(Err(())) => {
                Err(cx.check().err().map_or_else(String::new, |e| e.into_iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")))
            }
            None => Err("not a scan".into()),
        }
    }

    #[test]
    fn exclusive_scan_is_two_loops_around_the_prefix() {
        let mut env = TypeEnv::default();
        env.bind("s", Some(syn::parse_quote!(f64)));
        env.bind("n", Some(syn::parse_quote!(usize)));
        let stmt: Stmt = syn::parse_quote! {
            #[omp::parallel_for(schedule(static, 1), reduction(inscan, +: s))]
            for i in 0..n {
                y[i] = s;
                omp::scan!(exclusive(s));
                s += x[i];
            }
        };
        let text = split_text(stmt, &env).unwrap_or_else(|e| panic!("{e}"));
        // The input phase first, then the prefix, then the scan phase; the other clauses on both loops.
        let input = text.find("s += x [i]").unwrap_or(usize::MAX);
        let prefix = text.find("__private :: scan").unwrap_or(usize::MAX);
        let scan = text.find("y [i] = s").unwrap_or(usize::MAX);
        assert!(input < prefix && prefix < scan, "{text}");
        assert_eq!(text.matches("schedule (static , 1)").count(), 2, "{text}");
        assert!(!text.contains("inscan"), "{text}");
        assert!(text.contains("__omp_scan_v [i - __omp_scan_lo] = s"), "{text}");
        assert!(text.contains("true"), "{text}");
    }

    #[test]
    fn refusals() {
        let mut env = TypeEnv::default();
        env.bind("s", Some(syn::parse_quote!(i64)));
        let no_point: Stmt = syn::parse_quote! {
            #[omp::parallel_for(reduction(inscan, +: s))]
            for i in 0..10 { s += i; }
        };
        assert!(split_text(no_point, &env).is_err_and(|e| e.contains("omp::scan!(inclusive(s));")));
        let nested: Stmt = syn::parse_quote! {
            #[omp::parallel_for(reduction(inscan, +: s))]
            for i in 0..10 { if i > 0 { omp::scan!(inclusive(s)); } s += i; }
        };
        assert!(split_text(nested, &env).is_err_and(|e| e.contains("top level")));
        let exit: Stmt = syn::parse_quote! {
            #[omp::parallel_for(reduction(inscan, +: s))]
            for i in 0..10 { if i > 3 { continue; } s += i; omp::scan!(inclusive(s)); y[i] = s; }
        };
        assert!(split_text(exit, &env).is_err_and(|e| e.contains("`continue`")));
        let untyped: Stmt = syn::parse_quote! {
            #[omp::parallel_for(reduction(inscan, +: t))]
            for i in 0..10 { t += i; omp::scan!(inclusive(t)); y[i] = t; }
        };
        assert!(split_text(untyped, &env).is_err_and(|e| e.contains("give the scan variable `t` its type")));
        let mut by_ref = TypeEnv::default();
        by_ref.bind("s", Some(syn::parse_quote!(&mut f64)));
        let reference: Stmt = syn::parse_quote! {
            #[omp::parallel_for(reduction(inscan, +: s))]
            for i in 0..10 { s += 1.0; omp::scan!(inclusive(s)); y[i] = s; }
        };
        assert!(split_text(reference, &by_ref).is_err_and(|e| e.contains("a scan reduces a local number")));
        let plain: Stmt = syn::parse_quote! {
            #[omp::parallel_for(reduction(+: s))]
            for i in 0..10 { s += i; }
        };
        assert!(split_text(plain, &env).is_err_and(|e| e == "not a scan"));
    }
}
