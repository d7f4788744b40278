//! Canonical loop nests: `for v in <range>` where the range is `a..b` or `a..=b`, optionally followed by
//! `.step_by(s)` and/or `.rev()`; `collapse(n)` takes n perfectly nested, rectangular loops.
//!
//! The range expression is lowered by calling the same method chain on `omp::__private::Dim`, which mirrors
//! the iterator semantics exactly, so host, device and sequential Rust agree on the iteration space.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Block, Expr, ExprForLoop, Ident, Pat, Stmt};

use crate::ctxt::Ctxt;
use crate::names::spmd::THREAD;

/// One loop of a (collapsed) nest.
#[derive(Debug, Clone)]
pub struct LoopDim {
    /// The induction variable (`None` for `_`).
    pub var: Option<Ident>,
    /// The whole range expression as written (`0..n`, `(1..=m).step_by(2)`).
    pub range: Expr,
    /// The `a..b` part (without `step_by`/`rev`).
    pub base: syn::ExprRange,
    /// Method calls applied to the base range, innermost first (`step_by(s)`, `rev()`).
    pub adaptors: Vec<Adaptor>,
    /// Span of the `for`.
    pub span: Span,
}

impl LoopDim {
    /// A plain `a..b` / `a..=b`: its values count up by one. The kernel of such a loop computes them with a literal
    /// step (`lower::device`) and its launch passes the dimension through `ArgPack::unit_dim`, which checks that the
    /// step is 1 (`lower::offload`): both ask here, so they cannot disagree.
    pub fn counts_by_one(&self) -> bool {
        self.adaptors.is_empty()
    }

    /// `0..1` as written (an SPMD region's `num_teams(1)`): one iteration, whatever the index.
    pub fn single_iteration(&self) -> bool {
        let lit = |e: &Option<Box<Expr>>, v: u64| matches!(e.as_deref(), Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) if i.base10_parse::<u64>().ok() == Some(v));
        self.adaptors.is_empty()
            && matches!(self.base.limits, syn::RangeLimits::HalfOpen(_))
            && lit(&self.base.start, 0)
            && lit(&self.base.end, 1)
    }
}

/// `.step_by(s)` or `.rev()`.
#[derive(Debug, Clone)]
pub enum Adaptor {
    /// `.step_by(expr)`
    StepBy(Expr),
    /// `.rev()`
    Rev,
}

/// A loop nest extracted from a `for` loop.
#[derive(Debug, Clone)]
pub struct LoopNest {
    /// Outermost first; `collapse(n)` gives n dims.
    pub dims: Vec<LoopDim>,
    /// Body of the innermost collapsed loop.
    pub body: Block,
}

impl LoopNest {
    /// The induction variables, outermost first.
    pub fn vars(&self) -> Vec<Ident> {
        self.dims.iter().filter_map(|d| d.var.clone()).collect()
    }

    /// How many of a fused SPMD nest's innermost dimensions count its threads: two where the thread number is split
    /// (`omp::get_thread_num() / ..` and `% ..`), else one.
    pub fn thread_dims(&self) -> usize {
        let threads = self.dims.iter().filter(|d| d.var.as_ref().is_some_and(|v| v.to_string().starts_with(THREAD))).count();
        threads.max(1)
    }
}

/// Extracts `depth` perfectly nested canonical loops starting at `outer`. Reports why the nest does not qualify.
pub(crate) fn extract(outer: &ExprForLoop, depth: u32, collapse_span: Option<Span>, construct: &str, cx: &Ctxt) -> Option<LoopNest> {
    let mut dims = Vec::new();
    let mut current = outer.clone();
    for level in 0..depth {
        if let Some(label) = &current.label {
            if level > 0 {
                cx.error_spanned_by(label, "a loop inside `collapse` cannot have a label");
                return None;
            }
        }
        let dim = dimension(&current, construct, cx)?;
        // Rectangular: the bounds of an inner loop must not use outer induction variables.
        for outer_dim in &dims {
            let LoopDim { var: Some(v), .. } = outer_dim else { continue };
            if mentions(dim.range.to_token_stream(), v) {
                cx.error_spanned_by(
                    &dim.range,
                    format!(
                        "`collapse` needs a rectangular loop nest, but the bounds of this loop use `{v}` of an outer loop; \
                         remove `collapse` or make the bounds independent of `{v}`"
                    ),
                );
                return None;
            }
        }
        dims.push(dim);
        if level + 1 == depth {
            break;
        }
        match only_for_loop(&current.body) {
            Some(inner) => current = inner.clone(),
            None => {
                let span = collapse_span.unwrap_or_else(|| current.span());
                cx.error_at(
                    span,
                    format!(
                        "`collapse({depth})` needs {depth} perfectly nested `for` loops, but the loop at depth {} has {} in its body",
                        level + 1,
                        describe_body(&current.body)
                    ),
                );
                cx.error_spanned_by(&current.body, "this body must be exactly one `for` loop");
                return None;
            }
        }
    }
    let mut body = current.body.clone();
    if depth == 1 {
        if let Some(label) = &outer.label {
            own_label_continues(&mut body, &label.name);
        }
    }
    Some(LoopNest { dims, body })
}

/// `continue 'l` naming the parallel loop itself (`'l: for i in ..`) skips the rest of the iteration, as a plain
/// `continue` does: the body becomes the labelled block `'__omp_iteration: { .. }` and such a `continue` its
/// `break` (the loop and its label do not survive the lowering; a `break 'l` stays an error).
fn own_label_continues(body: &mut Block, label: &syn::Lifetime) {
    use syn::visit_mut::VisitMut;
    struct Rewrite<'a> {
        label: &'a syn::Lifetime,
        found: bool,
    }
    impl VisitMut for Rewrite<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Expr::Continue(c) = e {
                if c.label.as_ref().is_some_and(|l| l.ident == self.label.ident) {
                    let span = c.continue_token.span;
                    *e = syn::parse_quote_spanned!(span=> break '__omp_iteration);
                    self.found = true;
                    return;
                }
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
        // A closure or an item cannot continue the loop.
        fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut r = Rewrite { label, found: false };
    r.visit_block_mut(body);
    if r.found {
        let stmts = &body.stmts;
        *body = syn::parse_quote!({ '__omp_iteration: { #(#stmts)* } });
    }
}

fn describe_body(body: &Block) -> String {
    match body.stmts.len() {
        0 => "nothing".to_string(),
        1 => "a statement that is not a `for` loop".to_string(),
        n => format!("{n} statements"),
    }
}

/// The single `for` loop that forms a block, if that is all the block is.
fn only_for_loop(block: &Block) -> Option<&ExprForLoop> {
    match block.stmts.as_slice() {
        [Stmt::Expr(Expr::ForLoop(f), _)] => Some(f),
        _ => None,
    }
}

fn dimension(f: &ExprForLoop, construct: &str, cx: &Ctxt) -> Option<LoopDim> {
    let var = match &*f.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        Pat::Wild(_) => None,
        other => {
            cx.error_spanned_by(other, format!("the loop under `{construct}` must bind a plain variable (`for i in ...`)"));
            return None;
        }
    };
    let range = (*f.expr).clone();
    let (base, adaptors) = match split_range(&range) {
        Ok(x) => x,
        Err(msg) => {
            cx.error_spanned_by(&f.expr, format!("`{construct}` needs a counted loop over a range, {msg}"));
            return None;
        }
    };
    Some(LoopDim { var, range, base, adaptors, span: f.for_token.span })
}

fn split_range(expr: &Expr) -> Result<(syn::ExprRange, Vec<Adaptor>), String> {
    match strip(expr) {
        Expr::Range(r) => {
            if r.start.is_none() || r.end.is_none() {
                return Err("with both bounds (`a..b` or `a..=b`)".to_string());
            }
            Ok((r.clone(), Vec::new()))
        }
        Expr::MethodCall(m) => {
            let (base, mut adaptors) = split_range(&m.receiver)?;
            match (m.method.to_string().as_str(), m.args.len()) {
                ("step_by", 1) => adaptors.push(Adaptor::StepBy(m.args[0].clone())),
                ("rev", 0) => adaptors.push(Adaptor::Rev),
                (name, _) => return Err(format!("optionally with `.step_by(s)` or `.rev()`; `.{name}(..)` is not a canonical loop form")),
            }
            Ok((base, adaptors))
        }
        _ => {
            Err("`a..b`, `a..=b`, `(a..b).step_by(s)` or `(a..b).rev()`; iterate over indices and index the collection instead".to_string())
        }
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// Whether a token stream mentions an identifier (also inside nested groups and macro calls).
pub(crate) fn mentions(tokens: TokenStream, ident: &Ident) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == *ident,
        TokenTree::Group(g) => mentions(g.stream(), ident),
        _ => false,
    })
}

/// How deep a collapsed nest stays collapsed when its body writes rows: `c[i][j] = ..` on `&mut [Vec<f64>]` under
/// `collapse(2)` writes a different element in every iteration, but only the row index `i` places the write in the
/// array the loop is split over (each row is its own allocation; the element is then found inside the row). The
/// loops whose variables appear only in such a second index then run inside each iteration instead of being
/// spread over threads: the nest is collapsed down to the outermost of them (at least one loop). Speed only: a
/// collapsed nest and the same nest with inner loops run sequentially compute the same thing, and the nest that is
/// lowered is analysed like any other (a wrong guess here is a compile error or a slower loop, never a race).
pub(crate) fn rows_depth(nest: &LoopNest) -> usize {
    use syn::visit::Visit;
    /// Second indices of `x[a][b]` places written in the body, with their first index.
    struct RowWrites<'a>(Vec<(&'a Expr, &'a Expr)>);
    impl<'a> RowWrites<'a> {
        fn place(&mut self, e: &'a Expr) {
            if let Expr::Index(outer) = strip(e) {
                if let Expr::Index(inner) = strip(&outer.expr) {
                    if matches!(strip(&inner.expr), Expr::Path(_)) {
                        self.0.push((&inner.index, &outer.index));
                    }
                }
            }
        }
    }
    impl<'a> Visit<'a> for RowWrites<'a> {
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            self.place(&a.left);
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            if crate::syntax::place::is_compound_assign(&b.op) {
                self.place(&b.left);
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if r.mutability.is_some() {
                self.place(&r.expr);
            }
            syn::visit::visit_expr_reference(self, r);
        }
    }
    let mut writes = RowWrites(Vec::new());
    writes.visit_block(&nest.body);
    let mut depth = nest.dims.len();
    for (k, dim) in nest.dims.iter().enumerate().skip(1) {
        let Some(v) = &dim.var else { continue };
        let row_only =
            writes.0.iter().any(|(first, second)| mentions(second.to_token_stream(), v) && !mentions(first.to_token_stream(), v));
        if row_only {
            depth = depth.min(k);
        }
    }
    depth
}
