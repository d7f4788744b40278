//! Row windows: the host lowering's bounds-check elimination, done with safe code whose meaning does not depend
//! on the analysis being right.
//!
//! Rust's bounds checks keep a loop from vectorising (each is an early exit). For every loop `L` of a parallel
//! loop body that LLVM might vectorise (the row loop over the innermost parallel dimension, and each sequential
//! `for v in a..b` / `a..=b` of the body), the accesses `x[idx]` whose index moves with `v` by a positive literal
//! stride (and otherwise uses only names in scope before `L`) get a *window*: just before `L` the expansion
//! evaluates `idx` at the first value of `v` (`lo`, in wrapping arithmetic: the evaluation must not panic where
//! the program would not) and the span of the row, and asks the runtime for the sub-slice `x[lo..lo + len]`.
//! When every window of `L` exists, `L` runs a copy of its body in which
//! - a read `x[idx]` of an array the loop only reads becomes `x.__omp_at(k, idx)` on a `RowView` bound to `x`:
//!   window `k` at `idx - lo` when in range, `x[idx]` otherwise;
//! - an array the loop writes is rebound to a `WindowMut` of its chunk view: indices in the window are used
//!   directly, others go through the view's ownership check.
//!
//! Both give the element the original expression names, so a wrong window (a name shadowed inside the row, an
//! index the analysis misread) costs speed, never meaning; when `lo` has the same shape as `idx`, LLVM sees
//! `idx - lo = 0, 1, 2, …` against a length it knows, drops the check and vectorises. Otherwise (a window
//! outside the array, a non-slice type) the original body runs. Nested loops get their own windows inside the
//! fast copy only, so the code grows linearly with the nesting depth.

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Pat, RangeLimits};

use super::host::rt;
use crate::analyze::affine::{affine, IterVar, Unreliable};
use crate::analyze::walk::{pat_idents, Env};
use crate::analyze::{Analysis, Class};
use crate::loops::LoopNest;

/// How the body may use an array that gets windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only read (a `RowView` of its slice).
    Read,
    /// Written at its disjoint index (a `WindowMut` of its chunk view).
    Write,
}

/// The arrays that may get windows: read-only slices (declared slice, array or `Vec`, used only by index and
/// `len`) and disjointly written arrays.
pub fn candidates(analysis: &Analysis, slice_like: &[String]) -> BTreeMap<String, Kind> {
    analysis
        .captures
        .iter()
        .filter_map(|c| match c.class {
            Class::Disjoint(_) => Some((c.name.to_string(), Kind::Write)),
            Class::Shared if c.indexed && !c.whole_value_use && slice_like.contains(&c.name.to_string()) => {
                Some((c.name.to_string(), Kind::Read))
            }
            _ => None,
        })
        .collect()
}

/// A loop that can hold windows: its variable, the expression of its first value and of its iteration count.
struct Loop<'a> {
    var: &'a Ident,
    /// Where the loop's values are (`__omp_values` for the row, the evaluated range for an inner loop).
    range: TokenStream,
    inclusive: bool,
}

/// The parallel row loop `for <var> in __omp_values { <stmts> }` with windows for its accesses and those of the
/// sequential loops inside it.
pub fn row(nest: &LoopNest, arrays: &BTreeMap<String, Kind>, stmts: &[syn::Stmt], values: &Ident) -> TokenStream {
    let body = syn::Block { brace_token: Default::default(), stmts: stmts.to_vec() };
    let plain = |body: &syn::Block| match nest.dims.last().and_then(|d| d.var.as_ref()) {
        Some(v) => quote!(for #v in #values #body),
        None => quote!(for _ in #values #body),
    };
    let Some(var) = nest.dims.last().and_then(|d| d.var.as_ref()).filter(|_| !arrays.is_empty()) else {
        return plain(&body);
    };
    let outer = Env::for_dims(&nest.dims.iter().map(|d| d.var.clone()).collect::<Vec<_>>());
    let l = Loop { var, range: quote!(#values), inclusive: false };
    let pat = quote!(#var);
    match windowed_loop(arrays, 0, &outer, &l, &pat, None, &body) {
        Some(versioned) => versioned,
        None => {
            // No window for the row itself; its inner loops may have some.
            let mut env = outer;
            env.bind_inner_loop(var, &syn::parse_quote!(0..1));
            let mut body = body;
            Nested { arrays, env, depth: 1 }.visit_block_mut(&mut body);
            plain(&body)
        }
    }
}

/// `for <pat> in <range> <body>` as a versioned pair of loops when its body has windows of its own; `None` when not.
fn windowed_loop(
    arrays: &BTreeMap<String, Kind>,
    depth: usize,
    outer: &Env,
    l: &Loop<'_>,
    pat: &TokenStream,
    label: Option<&syn::Label>,
    body: &syn::Block,
) -> Option<TokenStream> {
    let mut env = outer.clone();
    env.bind_inner_loop(l.var, &syn::parse_quote!(0..1));
    let found = find(arrays, &env, l.var, body);
    if found.is_empty() {
        return None;
    }
    let rt = rt();
    let range = &l.range;
    let start = if l.inclusive { quote!((*#range.start())) } else { quote!(#range.start) };
    let count = quote!(#rt::range_count(&#range));
    // One window per read access (each its own local, so LLVM keeps it in registers), one per written array (which
    // rebinds the array's name). Each request is its own `let … else`: on the fast path LLVM then knows every
    // window's exact bounds, and the fast loop counts `0..n`, the very index it checks against the windows.
    let (n, jj, slow) = (hidden("__omp_n"), hidden("__omp_jj"), hidden("__omp_slow"));
    let fast_label = syn::Lifetime::new(&format!("'__omp_fast{depth}"), Span::mixed_site());
    let mut lets = TokenStream::new();
    let mut keys: BTreeMap<String, Ident> = BTreeMap::new();
    for (array, accesses) in &found {
        let x = respan(&Ident::new(array, Span::call_site()), accesses[0].span);
        for a in accesses {
            let lo = substitute(&a.index, l.var, &start);
            let len = if a.stride == 1 {
                quote!(#n)
            } else {
                let stride = proc_macro2::Literal::u128_unsuffixed(a.stride);
                quote!(#rt::row_span(#n, #stride))
            };
            match arrays[array] {
                Kind::Read => {
                    let w = hidden(&format!("__omp_win{}", keys.len()));
                    lets.extend(quote! {
                        let ::core::option::Option::Some(#w) = (&#rt::Probe(&#x)).__omp_row(#lo, #len) else {
                            break #fast_label true;
                        };
                    });
                    keys.insert(a.key.clone(), w);
                }
                Kind::Write => lets.extend(quote! {
                    #[allow(unused_mut)]
                    let ::core::option::Option::Some(mut #x) = #x.__omp_window(#lo, #len) else {
                        break #fast_label true;
                    };
                }),
            }
        }
    }
    let mut fast = body.clone();
    Rewrite { keys: &keys, depth: 0 }.visit_block_mut(&mut fast);
    // Nested loops of the fast copy get their own windows.
    Nested { arrays, env: env.clone(), depth: depth + 1 }.visit_block_mut(&mut fast);
    let fast_stmts = &fast.stmts;
    Some(quote! {{
        let #n = #count;
        let #slow = #fast_label: {
            #lets
            #label for #jj in 0..#n {
                let #pat = #rt::range_nth(&#range, #jj);
                #(#fast_stmts)*
            }
            false
        };
        if #slow {
            #label for #pat in #range #body
        }
    }})
}

/// One windowed access: array, index (as written), the literal stride of the loop variable, its key.
struct Found {
    index: Expr,
    stride: u128,
    key: String,
    span: Span,
}

/// The accesses of `body` that move with `var` (and no variable of a loop nested inside), by array.
fn find(arrays: &BTreeMap<String, Kind>, env: &Env, var: &Ident, body: &syn::Block) -> BTreeMap<String, Vec<Found>> {
    let mut f = Finder { arrays, env: env.clone(), var, bound: Vec::new(), nested: Vec::new(), closures: 0, out: BTreeMap::new() };
    f.visit_block(body);
    f.out
}

struct Finder<'a> {
    arrays: &'a BTreeMap<String, Kind>,
    env: Env,
    var: &'a Ident,
    /// Names bound inside the loop body (scoped): an index using one cannot be evaluated before the loop.
    bound: Vec<String>,
    /// Variables of loops nested in the body.
    nested: Vec<String>,
    closures: usize,
    out: BTreeMap<String, Vec<Found>>,
}

impl Finder<'_> {
    fn consider(&mut self, array: &Ident, index: &Expr) {
        let name = array.to_string();
        let Some(kind) = self.arrays.get(&name) else { return };
        if self.closures > 0 || self.bound.contains(&name) || matches!(index, Expr::Range(_)) {
            return;
        }
        let key = format!("{name}[{}]", index.to_token_stream());
        if self.out.get(&name).is_some_and(|v| v.iter().any(|f| f.key == key)) {
            return;
        }
        // Everything the index names must exist before the loop: no name bound inside it, no nested loop variable.
        let mut names = Vec::new();
        idents(index, &mut names);
        if names.iter().any(|n| self.bound.contains(n) || self.nested.contains(n)) {
            return;
        }
        let Ok(form) = affine(index, &self.env, &Unreliable::default()) else { return };
        let mut stride = None;
        for (v, c) in form.var_terms() {
            match v {
                IterVar::Inner { name, .. } if name == &self.var.to_string() => {
                    if !c.atoms.is_empty() || c.lit <= 0 || stride.is_some() {
                        return;
                    }
                    stride = Some(c.lit as u128);
                }
                _ => {}
            }
        }
        let Some(stride) = stride else { return };
        // A written array has one index form; a second one cannot share its window.
        if *kind == Kind::Write && self.out.contains_key(&name) {
            return;
        }
        self.out.entry(name).or_default().push(Found { index: index.clone(), stride, key, span: array.span() });
    }

    fn bind(&mut self, pat: &Pat) {
        let mut ids = Vec::new();
        pat_idents(pat, &mut ids);
        self.bound.extend(ids.iter().map(|i| i.to_string()));
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        let mark = self.bound.len();
        visit::visit_block(self, b);
        self.bound.truncate(mark);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, e)) = &init.diverge {
                self.visit_expr(e);
            }
        }
        self.bind(&l.pat);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Index(ix) => {
                if let Expr::Path(p) = &*ix.expr {
                    if let Some(id) = p.path.get_ident() {
                        self.consider(id, &ix.index);
                    }
                }
                visit::visit_expr(self, e);
            }
            Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                let mark = self.bound.len();
                let mut ids = Vec::new();
                pat_idents(&f.pat, &mut ids);
                self.nested.extend(ids.iter().map(|i| i.to_string()));
                self.bind(&f.pat);
                self.visit_block(&f.body);
                self.nested.truncate(self.nested.len() - ids.len());
                self.bound.truncate(mark);
            }
            Expr::Closure(c) => {
                self.closures += 1;
                visit::visit_expr_closure(self, c);
                self.closures -= 1;
            }
            Expr::Match(m) => {
                self.visit_expr(&m.expr);
                for arm in &m.arms {
                    let mark = self.bound.len();
                    self.bind(&arm.pat);
                    if let Some((_, g)) = &arm.guard {
                        self.visit_expr(g);
                    }
                    self.visit_expr(&arm.body);
                    self.bound.truncate(mark);
                }
            }
            Expr::Let(l) => {
                self.visit_expr(&l.expr);
                self.bind(&l.pat);
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

/// Identifiers used as plain paths in an expression.
fn idents(e: &Expr, out: &mut Vec<String>) {
    struct V<'o>(&'o mut Vec<String>);
    impl<'ast> Visit<'ast> for V<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(id) = p.path.get_ident() {
                self.0.push(id.to_string());
            }
        }
    }
    V(out).visit_expr(e);
}

/// `idx` with the loop variable replaced by `start`, in wrapping arithmetic (evaluating it must not panic where
/// the loop itself would not).
fn substitute(idx: &Expr, var: &Ident, start: &TokenStream) -> TokenStream {
    let rt = rt();
    match idx {
        Expr::Paren(p) => substitute(&p.expr, var, start),
        Expr::Group(g) => substitute(&g.expr, var, start),
        Expr::Path(p) if p.path.is_ident(var) => quote!((#start)),
        Expr::Binary(b) => {
            let (l, r) = (substitute(&b.left, var, start), substitute(&b.right, var, start));
            let f = match b.op {
                syn::BinOp::Add(_) => quote!(add),
                syn::BinOp::Sub(_) => quote!(sub),
                syn::BinOp::Mul(_) => quote!(mul),
                _ => return quote!(#idx),
            };
            quote!(#rt::wrapping::#f(#l, #r))
        }
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            let x = substitute(&u.expr, var, start);
            quote!(#rt::wrapping::neg(#x))
        }
        Expr::Cast(c) => {
            let x = substitute(&c.expr, var, start);
            let ty = &c.ty;
            quote!(((#x) as #ty))
        }
        other => quote!(#other),
    }
}

/// A name of the expansion that user code cannot see or shadow (mixed-site hygiene).
fn hidden(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn respan(id: &Ident, span: Span) -> Ident {
    let mut id = id.clone();
    id.set_span(span);
    id
}

/// In the fast copy: reads `x[idx]` with a window `w` become `Pick(&x, &w).__omp_pick(idx)` (not inside closures).
struct Rewrite<'a> {
    keys: &'a BTreeMap<String, Ident>,
    depth: usize,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => {
                self.depth += 1;
                visit_mut::visit_expr_mut(self, e);
                self.depth -= 1;
            }
            Expr::Index(ix) if self.depth == 0 => {
                let key = format!("{}[{}]", ix.expr.to_token_stream(), ix.index.to_token_stream());
                match self.keys.get(&key) {
                    // A windowed index is affine: it holds no other access to rewrite.
                    Some(w) => {
                        let (x, i, rt) = (&ix.expr, &ix.index, rt());
                        *e = syn::parse_quote!((*(&#rt::Pick(&#x, &#w)).__omp_pick(#i)));
                    }
                    None => visit_mut::visit_expr_mut(self, e),
                }
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Gives the `for` loops of a fast copy their own windows.
struct Nested<'a> {
    arrays: &'a BTreeMap<String, Kind>,
    env: Env,
    /// Nesting depth of windowed loops (labels must not shadow each other).
    depth: usize,
}

impl VisitMut for Nested<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => {}
            Expr::ForLoop(f) => {
                let plain = match &*f.pat {
                    Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() && p.mutability.is_none() => Some(p.ident.clone()),
                    _ => None,
                };
                let mut range = &*f.expr;
                while let Expr::Paren(p) = range {
                    range = &p.expr;
                }
                let inclusive = match range {
                    Expr::Range(r) if r.start.is_some() && r.end.is_some() => Some(matches!(r.limits, RangeLimits::Closed(_))),
                    _ => None,
                };
                let (Some(var), Some(inclusive)) = (plain, inclusive) else {
                    // Not windowable itself; its nested loops may be.
                    let mut inner = Nested { arrays: self.arrays, env: self.env.clone(), depth: self.depth };
                    let mut ids = Vec::new();
                    pat_idents(&f.pat, &mut ids);
                    for id in &ids {
                        inner.env.bind_opaque(id);
                    }
                    inner.visit_block_mut(&mut f.body);
                    return;
                };
                let r = hidden("__omp_r");
                let l = Loop { var: &var, range: quote!(#r), inclusive };
                let pat = quote!(#var);
                let mut env = self.env.clone();
                env.bind_inner_loop(&var, &syn::parse_quote!(0..1));
                let body = f.body.clone();
                if let Some(versioned) = windowed_loop(self.arrays, self.depth, &self.env, &l, &pat, f.label.as_ref(), &body) {
                    let expr = &f.expr;
                    *e = syn::parse_quote!({
                        let #r = #expr;
                        #versioned
                    });
                } else {
                    let mut inner = Nested { arrays: self.arrays, env, depth: self.depth };
                    inner.visit_block_mut(&mut f.body);
                }
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        visit_mut::visit_local_mut(self, l);
        let mut ids = Vec::new();
        pat_idents(&l.pat, &mut ids);
        for id in &ids {
            self.env.bind_opaque(id);
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
