//! `nowait` on a target loop: the region becomes a deferred task (OpenMP), completed at the next `taskwait` or
//! when its block ends.
//!
//! Rewritten before lowering, in the block that holds it: the region and the statements after it, up to the next
//! `omp::taskwait!()` of the same block (or the block's end), become a `target_data` block that maps the region's
//! arrays (`tofrom` for those it writes, `to` for those it reads), with the region's `device` and `if`. So:
//! - the region finds its data present and goes onto the device's queue without waiting;
//! - host code after it cannot touch those arrays until the taskwait: the data block's tokens shadow them, and using
//!   one is a compile error naming the variable (the types keep host code off pending data);
//! - the copies back happen at the end of the data block, after the region (and whatever was queued after it)
//!   finished; the `taskwait` that follows the block waits for the rest.
//!
//! Arrays an enclosing data region maps already are left to it (present, so the region is queued anyway); a region
//! whose arrays are all mapped that way stays as it is.
//!
//! The runtime keeps queued launches on common device memory in submission order, which satisfies every `depend`
//! clause between them, and lets launches on different memory overlap (`omp::offload`'s lanes). A region that maps
//! new data waits for what is queued first (copies settle the device), so independent regions overlap when their
//! data is already present (inside a data region). A `let` between the region and the taskwait is scoped to the data
//! block: a name used after the taskwait must be declared before the region.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Expr, Stmt};

use crate::analyze::types::{CaptureTypes, TypeEnv};
use crate::analyze::{self, Class};
use crate::ctxt::Ctxt;
use crate::syntax::body::{find_omp_attr, stmt_attrs};
use crate::syntax::loops;
use crate::syntax::parse;

/// If statement `i` of `block` is a `nowait` target loop, wraps it and the statements after it, up to the next
/// `omp::taskwait!()`, in a `target_data` block (see the module). `types`: the declarations in view at statement `i`.
pub(crate) fn defer_at(block: &mut syn::Block, i: usize, types: &TypeEnv) {
    let Some((data_attr, region)) = deferred(&block.stmts[i], types) else { return };
    let end = block.stmts[i + 1..].iter().position(is_taskwait).map_or(block.stmts.len(), |k| i + 1 + k);
    let rest = &block.stmts[i + 1..end];
    let wrapped: Stmt = syn::parse_quote!(#data_attr { #region #(#rest)* });
    block.stmts.splice(i..end, [wrapped]);
}

/// For a `nowait` target loop: the `#[omp::target_data(...)]` attribute mapping its arrays, and the region. `None` for any other statement, or a region with no array to map (all present through an enclosing
/// data region, where the region is queued anyway, or none whose type is known).
fn deferred(stmt: &Stmt, types: &TypeEnv) -> Option<(TokenStream, Stmt)> {
    let Stmt::Expr(Expr::ForLoop(f), _) = stmt else { return None };
    let attr = find_omp_attr(stmt_attrs(stmt))?;
    // Errors are reported by the region's own lowering; this look is only to find what to map.
    let scratch = Ctxt::scratch();
    let construct = parse::construct(&attr.name, &scratch)?;
    if !(construct.is_target() && construct.is_loop()) {
        return None;
    }
    let d = parse::directive(construct, attr.args.clone(), &scratch);
    if !d.settings.nowait || scratch.has_errors() {
        return None;
    }
    let nest = loops::extract(f, d.settings.collapse.depth, d.settings.collapse.span, d.construct.name, &scratch)?;
    let analysis = analyze::parallel_loop(&d, &nest, &scratch);
    let (mut to, mut tofrom) = (Vec::new(), Vec::new());
    for c in &analysis.captures {
        let known = CaptureTypes::of([&c.name], types);
        let key = c.name.to_string();
        if known.mapped.contains(&key) {
            // Mapped by an enclosing data region: present for the region, and a nested block ending here would make
            // each iteration of a time loop wait for the region.
            continue;
        }
        if !known.slice_like.contains(&key) {
            continue; // a scalar, a `DeviceBuffer`, or a type the declaration does not show: the region maps it itself
        }
        if matches!(types.lookup(&key), Some(Some(syn::Type::Array(_)))) {
            continue; // an array value (`taps: [f64; 16]`): the region takes its own copy (by value, or mapped)
        }
        match &c.class {
            Class::Shared => to.push(c.name.clone()),
            class if class.writes() => tofrom.push(c.name.clone()),
            _ => {}
        }
    }
    if to.is_empty() && tofrom.is_empty() {
        return None;
    }
    let nowait_span =
        attr.args.clone().into_iter().find(|t| t.to_string() == "nowait").map_or_else(proc_macro2::Span::call_site, |t| t.span());
    let mut clauses = Vec::new();
    if !tofrom.is_empty() {
        clauses.push(quote_spanned!(nowait_span=> map(tofrom: #(#tofrom),*)));
    }
    if !to.is_empty() {
        clauses.push(quote_spanned!(nowait_span=> map(to: #(#to),*)));
    }
    if let Some(e) = &d.settings.device {
        clauses.push(quote!(device(#e)));
    }
    if let Some(e) = &d.settings.if_cond {
        clauses.push(quote!(if(#e)));
    }
    let data_attr = quote_spanned!(nowait_span=> #[omp::target_data(#(#clauses),*)]);
    // The region keeps its `nowait` (its launch must not wait); inside the block its arrays are mapped, so it is not
    // deferred a second time.
    Some((data_attr, stmt.clone()))
}

/// `omp::taskwait!()` as a statement.
fn is_taskwait(stmt: &Stmt) -> bool {
    let Some(mac) = crate::syntax::body::statement_macro(stmt) else { return false };
    let segs: Vec<String> = mac.path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs == ["omp", "taskwait"]
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn a_nowait_region_takes_the_statements_up_to_the_taskwait() {
        let mut block: syn::Block = syn::parse2(quote!({
            let n = y.len();
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                y[i] = 2.0 * x[i];
            }
            other(&mut w);
            omp::taskwait!();
            done(y);
        }))
        .expect("a block");
        let mut env = crate::analyze::types::TypeEnv::default();
        env.bind("x", Some(syn::parse_quote!(&[f64])));
        env.bind("y", Some(syn::parse_quote!(&mut [f64])));
        super::defer_at(&mut block, 1, &env);
        assert_eq!(block.stmts.len(), 4, "let, data block, taskwait, done");
        let data = block.stmts[1].clone();
        let text = quote!(#data).to_string();
        assert!(text.starts_with(&quote!(#[omp::target_data(map(tofrom: y), map(to: x))]).to_string()), "{text}");
        assert!(text.contains("other"), "{text}");
        assert!(text.contains("nowait") && !text.contains("done"), "{text}");
    }
}
