//! Row windows: the host lowering's bounds-check elimination, done with safe code whose meaning does not depend
//! on the analysis being right.
//!
//! Rust's bounds checks keep a loop from vectorising (each is an early exit). For every loop `L` of a parallel
//! loop body that LLVM might vectorise (the row loop over the innermost parallel dimension, and each sequential
//! `for v in a..b` / `a..=b` of the body), the accesses `x[idx]` that move with `v` (and otherwise use only names in
//! scope before `L`) get a *window*: just before `L` the expansion evaluates `idx` at the first value of `v` (`lo`,
//! in wrapping arithmetic: the evaluation must not panic where the program would not) and asks the runtime for
//! the elements the loop will reach. When every window of `L` exists, `L` runs a copy of its body in which
//! - a read `x[idx]` of an array the loop only reads becomes `Pick(&x, &w).__omp_pick(idx)`: window `w` at
//!   `idx - lo` when `x` is still the array the window was made from and the window holds it, `x[idx]` otherwise;
//! - an array the loop writes with a unit stride is rebound to a `WindowMut` of its chunk view (indices in the
//!   window are used directly, others go through the view's ownership check);
//! - an array the loop writes with another stride (`px[i + r * n]`, in the row over `i` and a loop over `r`) gets
//!   a `LatticeMut`, and its accesses become `px.__omp_at([jj_i, jj_r], idx)`: used directly when `idx` is the
//!   point the loops' iteration counters predict, through the view otherwise.
//!
//! - a read that also moves with one loop nested in `L` by a literal stride (`x[i + j]`, FIR's taps) gets the
//!   rows that loop reads, checked once before `L` (`RowsWindow`); each instance of the nested loop takes its
//!   window from them, with a check LLVM proves from `L`'s counter, so `L` keeps no branch and can vectorise
//!   across rows.
//!
//! An index may name a plain `let` of the body (`let c = j + k * n; a[c]`): the window is computed from the
//! definition (with the names it used as they were then), while the access keeps its own index.
//!
//! Each of them gives the element the original expression names, so a wrong window (a name shadowed inside the
//! row, an index the analysis misread) costs speed, never meaning. When `lo` has the same shape as `idx`, LLVM sees
//! `idx - lo = 0, 1, 2, …` against a length it knows (or the predicted point equal to `idx`), drops the check and
//! vectorises. Otherwise (a window outside the array, a non-slice type) the original body runs. Windowed loops
//! count `jj in 0..n` (the value is the range's `jj`-th), the very counter the windows are checked against.
//! Nested loops get their own windows inside the fast copy only, so the code grows linearly with the nesting
//! depth.

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Pat, RangeLimits};

use crate::analyze::affine::{affine, Coeff, IterVar, Unreliable};
use crate::analyze::walk::{pat_idents, Env};
use crate::analyze::{Analysis, Class};
use crate::names::rt;
use crate::syntax::loops::LoopNest;

/// How the body may use an array that gets windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Only read (a `RowWindow` per access).
    Read,
    /// Written at its disjoint index (a `WindowMut` or `LatticeMut` of its chunk view).
    Write,
}

/// The arrays that may get windows: read-only slices (declared slice, array or `Vec`, used only by index and
/// `len`) and disjointly written arrays.
pub(crate) fn candidates(analysis: &Analysis, slice_like: &[String]) -> BTreeMap<String, Kind> {
    analysis
        .captures
        .iter()
        .filter_map(|c| match &c.class {
            // A single-iteration loop's whole-array ownership has no index form for windows to follow.
            Class::Disjoint(arr) if arr.whole => None,
            Class::Disjoint(_) => Some((c.name.to_string(), Kind::Write)),
            Class::Shared if c.indexed && !c.whole_value_use && slice_like.contains(&c.name.to_string()) => {
                Some((c.name.to_string(), Kind::Read))
            }
            _ => None,
        })
        .collect()
}

/// A loop whose iterations the lowering counts: `for <pat> in <range>` becomes
/// `for jj in 0..n { let <pat> = range_nth(&range, jj); … }`.
struct Loop<'a> {
    var: &'a Ident,
    /// Where the loop's values are (`__omp_values` for the row, the evaluated range for an inner loop).
    range: TokenStream,
    /// `a..=b` rather than `a..b`.
    inclusive: bool,
    label: Option<&'a syn::Label>,
    /// Nesting depth (0: the row), which names its counter and labels.
    depth: usize,
}

impl Loop<'_> {
    fn counter(&self) -> Ident {
        counter(self.depth)
    }

    /// The number of values of the range (`range_count` / `range_count_inclusive`).
    fn count(&self) -> TokenStream {
        let (rt, range) = (rt(), &self.range);
        if self.inclusive {
            quote!(#rt::range_count_inclusive(&#range))
        } else {
            quote!(#rt::range_count(&#range))
        }
    }

    /// The range's `k`-th value.
    fn nth(&self, k: TokenStream) -> TokenStream {
        let (rt, range) = (rt(), &self.range);
        if self.inclusive {
            quote!(#rt::range_nth_inclusive(&#range, #k))
        } else {
            quote!(#rt::range_nth(&#range, #k))
        }
    }

    /// `label: for jj in 0..n { let var = range[jj]; body }` (`n`: the count already evaluated).
    fn counted(&self, n: &Ident, body: &syn::Block) -> TokenStream {
        let (var, jj, label) = (self.var, self.counter(), self.label);
        let value = self.nth(quote!(#jj));
        let stmts = &body.stmts;
        quote! {
            #label for #jj in 0..#n {
                let #var = #value;
                #(#stmts)*
            }
        }
    }
}

/// Variables of loops that must be counted, each with the lattice windows of enclosing loops that walk it:
/// (array, the enclosing loop's counter), fixed with `__omp_fix` before the loop.
type Counted = BTreeMap<String, Vec<(Ident, Ident)>>;

/// Accesses (by key) whose rows an enclosing loop has checked: the `RowsWindow` that nested loops take their
/// windows from.
type Parents = BTreeMap<String, Ident>;

/// `let mut x = x.__omp_fix(jj);` for each lattice window an enclosing loop made over this one.
fn fix_lets(fixes: Option<&Vec<(Ident, Ident)>>) -> TokenStream {
    let lets = fixes.into_iter().flatten().map(|(x, jj)| quote!(#[allow(unused_mut)] let mut #x = #x.__omp_fix::<1>(#jj);));
    quote!(#(#lets)*)
}

fn counter(depth: usize) -> Ident {
    hidden(&format!("__omp_jj{depth}"))
}

/// A name of the expansion that user code cannot see or shadow (mixed-site hygiene).
fn hidden(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The identifier a user's name was written as (`r#type` stays raw), at `span`.
fn user_ident(name: &str, span: Span) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, span),
        None => Ident::new(name, span),
    }
}

/// The parallel row loop `for <var> in __omp_values { <stmts> }` with windows for its accesses and those of the
/// sequential loops inside it.
pub(crate) fn row(nest: &LoopNest, arrays: &BTreeMap<String, Kind>, stmts: &[syn::Stmt], values: &Ident) -> TokenStream {
    let body = syn::Block { brace_token: Default::default(), stmts: stmts.to_vec() };
    let plain = |body: &syn::Block| match nest.dims.last().and_then(|d| d.var.as_ref()) {
        Some(v) => quote!(for #v in #values #body),
        None => quote!(for _ in #values #body),
    };
    let Some(var) = nest.dims.last().and_then(|d| d.var.as_ref()).filter(|_| !arrays.is_empty()) else {
        return plain(&body);
    };
    let outer = Env::for_dims(&nest.dims.iter().map(|d| d.var.clone()).collect::<Vec<_>>());
    let l = Loop { var, range: quote!(#values), inclusive: false, label: None, depth: 0 };
    match windowed_loop(arrays, &outer, &l, &body, &Counted::new(), &Parents::new()) {
        Some(versioned) => versioned,
        None => {
            // No window for the row itself; its inner loops may have some.
            let mut env = outer;
            env.bind_inner_loop(var, &syn::parse_quote!(0..1));
            let mut body = body;
            Nested { arrays, env, depth: 1, counted: Counted::new(), parents: &Parents::new() }.visit_block_mut(&mut body);
            plain(&body)
        }
    }
}

/// Loop `l` over `body` as a versioned pair of counted loops when its body has windows of its own; `None` when not.
/// `counted`: variables of loops whose counters windows of enclosing loops use (this one among them, maybe):
/// their loops must be counted in every copy.
fn windowed_loop(
    arrays: &BTreeMap<String, Kind>,
    outer: &Env,
    l: &Loop<'_>,
    body: &syn::Block,
    counted: &Counted,
    parents: &Parents,
) -> Option<TokenStream> {
    let mut env = outer.clone();
    env.bind_inner_loop(l.var, &syn::parse_quote!(0..1));
    let found = find(arrays, &env, l.var, l.depth, body);
    if found.is_empty() {
        return None;
    }
    let rt = rt();
    let range = &l.range;
    let start = l.nth(quote!(0));
    let count = l.count();
    let (n, slow) = (hidden("__omp_n"), hidden("__omp_slow"));
    let fast_label = syn::Lifetime::new(&format!("'__omp_fast{}", l.depth), Span::mixed_site());
    // One window per read access (each its own local, so LLVM keeps it in registers), one per written array (which
    // rebinds the array's name). Each request is its own `let … else`: on the fast path LLVM then knows every
    // window's exact bounds.
    let mut lets = TokenStream::new();
    let mut keys: BTreeMap<String, Window> = BTreeMap::new();
    let mut inner_counted = counted.clone();
    let mut inner_parents = parents.clone();
    for (array, accesses) in &found {
        let x = user_ident(array, accesses[0].span);
        // A written array reached at several constant offsets, every access a row of this loop (miniWeather's
        // `tend[ID_DENS * plane + ...]`, `tend[ID_UMOM * plane + ...]`): one window per access, each access
        // checked against its own (`WindowsMut`), as the loop form's lattice window does for `tend[ll * plane + ...]`.
        let mut keys_of_rows: Vec<&str> = Vec::new();
        let all_rows = accesses.iter().all(|a| matches!(a.shape, Shape::Interval(_)));
        for a in accesses {
            if !keys_of_rows.contains(&a.key.as_str()) {
                keys_of_rows.push(&a.key);
            }
        }
        if arrays[array] == Kind::Write && all_rows && keys_of_rows.len() > 1 {
            let rows = keys_of_rows.iter().enumerate().map(|(j, key)| {
                let a = accesses.iter().find(|a| a.key == *key).unwrap_or(&accesses[0]);
                let Shape::Interval(s) = a.shape else { unreachable!("all rows") };
                keys.insert((*key).to_string(), Window::Slot(j));
                let (lo, len) = (substitute(&a.index, &[(l.var, &start)]), span(&n, s));
                quote!((#lo, #len))
            });
            let rows: Vec<TokenStream> = rows.collect();
            lets.extend(quote! {
                #[allow(unused_mut)]
                let ::core::option::Option::Some(mut #x) = #x.__omp_windows([#(#rows),*]) else {
                    break #fast_label true;
                };
            });
            continue;
        }
        for a in accesses {
            let lo = substitute(&a.index, &[(l.var, &start)]);
            match (arrays[array], &a.shape) {
                (Kind::Read, Shape::Interval(s)) => {
                    let len = span(&n, *s);
                    let w = hidden(&format!("__omp_win{}", keys.len()));
                    // From the rows an enclosing loop checked for this access, else from the array.
                    let source = match parents.get(&a.key) {
                        Some(rows) => quote!((&#rows)),
                        None => quote!((&#rt::Probe(&#x))),
                    };
                    lets.extend(quote! {
                        let ::core::option::Option::Some(#w) = #source.__omp_row(#lo, #len) else {
                            break #fast_label true;
                        };
                    });
                    keys.insert(a.key.clone(), Window::Read(w));
                }
                (Kind::Write, Shape::Interval(s)) => {
                    let len = span(&n, *s);
                    lets.extend(quote! {
                        #[allow(unused_mut)]
                        let ::core::option::Option::Some(mut #x) = #x.__omp_window(#lo, #len) else {
                            break #fast_label true;
                        };
                    });
                }
                (_, Shape::Lattice { stride, inner }) => {
                    let mut dims = vec![quote!((#stride, #n))];
                    let mut counters = vec![l.counter()];
                    let mut lo = lo;
                    if let Some(w) = inner {
                        lo = substitute(&a.index, &[(l.var, &start), (&w.var, &w.start)]);
                        let (s, count) = (&w.stride, w.count());
                        dims.push(quote!((#s, #count)));
                        // The inner loop fixes this loop's counter once per instance (`__omp_fix`), then checks
                        // its own.
                        counters = vec![counter(w.depth)];
                        inner_counted.entry(w.var.to_string()).or_default().push((x.clone(), l.counter()));
                    }
                    lets.extend(quote! {
                        #[allow(unused_mut)]
                        let ::core::option::Option::Some(mut #x) = #x.__omp_lattice(#lo, [#(#dims),*]) else {
                            break #fast_label true;
                        };
                    });
                    keys.insert(a.key.clone(), Window::Lattice(counters));
                }
                (_, Shape::Rows { own, inner: w, inner_stride }) => {
                    let lo = substitute(&a.index, &[(l.var, &start), (&w.var, &w.start)]);
                    let (starts, len) = (span(&n, *own), span(&w.count(), *inner_stride));
                    let rows = hidden(&format!("__omp_rows{}_{}", l.depth, inner_parents.len()));
                    lets.extend(quote! {
                        let ::core::option::Option::Some(#rows) = (&#rt::Probe(&#x)).__omp_rows(#lo, #starts, #len) else {
                            break #fast_label true;
                        };
                    });
                    inner_parents.insert(a.key.clone(), rows);
                }
            }
        }
    }
    let mut fast = body.clone();
    Rewrite { keys: &keys, depth: 0, bound: Vec::new() }.visit_block_mut(&mut fast);
    // Nested loops of the fast copy get their own windows (and are counted when a window here uses their counter).
    Nested { arrays, env: env.clone(), depth: l.depth + 1, counted: inner_counted, parents: &inner_parents }.visit_block_mut(&mut fast);
    let fast_loop = l.counted(&n, &fast);
    let fixes = counted.get(&l.var.to_string());
    let slow_loop = if fixes.is_some() {
        l.counted(&n, body)
    } else {
        let (label, var) = (l.label, l.var);
        quote!(#label for #var in #range #body)
    };
    let prelude = fix_lets(fixes);
    Some(quote! {{
        #prelude
        let #n = #count;
        let #slow = #fast_label: {
            #lets
            #fast_loop
            false
        };
        if #slow {
            #slow_loop
        }
    }})
}

/// The number of elements a row of `n` iterations spans at a literal stride.
fn span(n: &impl ToTokens, stride: u128) -> TokenStream {
    if stride == 1 {
        quote!(#n)
    } else {
        let rt = rt();
        let stride = proc_macro2::Literal::u128_unsuffixed(stride);
        quote!(#rt::row_span(#n, #stride))
    }
}

/// One windowed access: array, index (as written), how it moves with the loops, its key.
struct Found {
    index: Expr,
    shape: Shape,
    key: String,
    span: Span,
}

/// How an access moves with its loop's variable.
enum Shape {
    /// By a positive literal: an interval window.
    Interval(u128),
    /// A written array walked with any other stride (`stride`, an expression), maybe also by the variable of one
    /// loop nested in this one: a lattice window, checked against the loops' counters.
    Lattice { stride: TokenStream, inner: Option<InnerWalk> },
    /// A read that also moves with one loop nested in this one, both by positive literals (`x[i + j]`): the rows
    /// the nested loop reads, one per value of this loop, checked here once (a `RowsWindow`); the nested loop
    /// takes its window from them.
    Rows { own: u128, inner: InnerWalk, inner_stride: u128 },
}

/// The loop nested in a windowed loop that also moves a lattice access.
struct InnerWalk {
    var: Ident,
    range: Expr,
    inclusive: bool,
    /// Its first value (the range's start), for `lo`.
    start: TokenStream,
    stride: TokenStream,
    depth: usize,
}

impl InnerWalk {
    /// The number of values of its range, evaluated before the windowed loop.
    fn count(&self) -> TokenStream {
        let (rt, range) = (rt(), &self.range);
        let f = if self.inclusive { quote!(range_count_inclusive) } else { quote!(range_count) };
        quote!(#rt::#f(&(#range)))
    }
}

/// The accesses of `body` that move with `var` (and, for written arrays, at most one loop nested in it), by array.
fn find(arrays: &BTreeMap<String, Kind>, env: &Env, var: &Ident, depth: usize, body: &syn::Block) -> BTreeMap<String, Vec<Found>> {
    let mut f =
        Finder { arrays, env: env.clone(), var, depth, bound: Vec::new(), nested: Vec::new(), loops: 0, closures: 0, out: BTreeMap::new() };
    f.visit_block(body);
    f.out
}

/// A loop nested in the windowed one, as the finder saw it.
struct NestedLoop {
    var: String,
    /// `Some` for a plain `for v in a..b` / `a..=b`: its range, start and whether it is inclusive.
    range: Option<(Expr, Expr, bool)>,
    depth: usize,
}

struct Finder<'a> {
    arrays: &'a BTreeMap<String, Kind>,
    env: Env,
    var: &'a Ident,
    depth: usize,
    /// Names bound inside the loop body (scoped): an index using one cannot be evaluated before the loop, unless
    /// the binding is a plain `let name = expr;` (kept here, with the names it used already replaced), whose
    /// definition the index may use instead (`let c = j + k * n; a[c]`).
    bound: Vec<(String, Option<Expr>)>,
    /// Plain loops nested in the body, innermost last.
    nested: Vec<NestedLoop>,
    /// How many loops (of any pattern) enclose the current point inside the body.
    loops: usize,
    closures: usize,
    out: BTreeMap<String, Vec<Found>>,
}

/// `Σ lit·Π atoms` as a wrapping `usize` expression (a wrong stride only makes a lattice window miss).
fn stride_expr(monomials: &[&Coeff]) -> TokenStream {
    let rt = rt();
    let parts = monomials.iter().map(|c| {
        // typed, so a negative factor wraps like the rest (`-1i128 as usize` is `usize::MAX`)
        let lit = proc_macro2::Literal::i128_suffixed(c.lit);
        c.atoms.iter().fold(quote!((#lit as usize)), |acc, a| quote!(#rt::wrapping::mul(#acc, #a as usize)))
    });
    parts.fold(quote!(0usize), |acc, p| quote!(#rt::wrapping::add(#acc, #p)))
}

impl Finder<'_> {
    fn consider(&mut self, array: &Ident, index: &Expr) {
        let name = array.to_string();
        let Some(kind) = self.arrays.get(&name) else { return };
        if self.closures > 0 || self.is_bound(&name) || matches!(index, Expr::Range(_)) {
            return;
        }
        let key = format!("{name}[{}]", index.to_token_stream());
        // The window is computed from the definitions of the body's `let`s; the access itself keeps its index,
        // so a definition read wrongly can only make the window miss.
        let index = &self.inline_defs(index);
        if self.out.get(&name).is_some_and(|v| v.iter().any(|f| f.key == key)) {
            return;
        }
        // Everything the index names must exist before the loop (no name bound inside it), except the variables
        // of nested loops, which a lattice window may walk.
        let mut names = Vec::new();
        idents(index, &mut names);
        let nested_vars: Vec<&NestedLoop> = self.nested.iter().filter(|l| names.contains(&l.var)).collect();
        if names.iter().any(|n| self.is_bound(n) && !self.nested.iter().any(|l| l.var == *n)) {
            return;
        }
        let mut env = self.env.clone();
        for l in &self.nested {
            env.bind_inner_loop(&user_ident(&l.var, Span::call_site()), &syn::parse_quote!(0..1));
        }
        let Ok(form) = affine(index, &env, &Unreliable::default()) else { return };
        let of = |v: &str| -> Vec<&Coeff> {
            form.var_terms().into_iter().filter(|(iv, _)| matches!(iv, IterVar::Inner { name, .. } if name == v)).map(|(_, c)| c).collect()
        };
        let own = of(&self.var.to_string());
        if own.is_empty() {
            return;
        }
        let shape = match (kind, nested_vars.as_slice()) {
            (Kind::Read, []) => match own.as_slice() {
                [c] if c.atoms.is_empty() && c.lit > 0 => Shape::Interval(c.lit as u128),
                _ => return,
            },
            (Kind::Write, []) => match own.as_slice() {
                [c] if c.atoms.is_empty() && c.lit == 1 => Shape::Interval(1),
                _ => Shape::Lattice { stride: stride_expr(&own), inner: None },
            },
            (Kind::Read, [w]) => {
                let literal = |cs: &[&Coeff]| match cs {
                    [c] if c.atoms.is_empty() && c.lit > 0 => Some(c.lit as u128),
                    _ => None,
                };
                let (Some(own), Some(inner_stride)) = (literal(&own), literal(&of(&w.var))) else { return };
                let Some(inner) = self.inner_walk(w, quote!(#inner_stride)) else { return };
                Shape::Rows { own, inner, inner_stride }
            }
            (Kind::Write, [w]) => {
                let Some(inner) = self.inner_walk(w, stride_expr(&of(&w.var))) else { return };
                Shape::Lattice { stride: stride_expr(&own), inner: Some(inner) }
            }
            _ => return,
        };
        // A written array has one index form, or several rows of this loop (each then gets its own window,
        // `windowed_loop`); a second form cannot share a lattice window.
        if *kind == Kind::Write {
            let rows = |v: &Vec<Found>| v.iter().all(|f| matches!(f.shape, Shape::Interval(_)));
            if self.out.get(&name).is_some_and(|v| !(rows(v) && matches!(shape, Shape::Interval(_)))) {
                return;
            }
        }
        self.out.entry(name).or_default().push(Found { index: index.clone(), shape, key, span: array.span() });
    }

    fn bind(&mut self, pat: &Pat) {
        let mut ids = Vec::new();
        pat_idents(pat, &mut ids);
        self.bound.extend(ids.iter().map(|i| (i.to_string(), None)));
    }

    /// How an access moves with the nested loop `w` (by `stride`), when that loop is a plain range evaluable
    /// before the windowed loop (it may only name what exists there).
    fn inner_walk(&self, w: &NestedLoop, stride: TokenStream) -> Option<InnerWalk> {
        let (range, start, inclusive) = w.range.as_ref()?;
        let mut range_names = Vec::new();
        idents(range, &mut range_names);
        // Neither a name of the body nor this loop's own variable (`for j in 0..i`: a triangular loop).
        if range_names.iter().any(|n| self.is_bound(n) || self.var == n) {
            return None;
        }
        Some(InnerWalk {
            var: user_ident(&w.var, Span::call_site()),
            range: range.clone(),
            inclusive: *inclusive,
            start: quote!((#start)),
            stride,
            depth: w.depth,
        })
    }

    fn is_bound(&self, name: &str) -> bool {
        self.bound.iter().any(|(n, _)| n == name)
    }

    /// `e` with each name whose innermost binding in the body is a plain `let` replaced by its definition.
    fn inline_defs(&self, e: &Expr) -> Expr {
        struct Inline<'b>(&'b [(String, Option<Expr>)]);
        impl VisitMut for Inline<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let Expr::Path(p) = e {
                    if let Some(id) = p.path.get_ident() {
                        let name = id.to_string();
                        if let Some((_, Some(def))) = self.0.iter().rev().find(|(n, _)| *n == name) {
                            *e = syn::parse_quote!((#def));
                        }
                        return;
                    }
                }
                visit_mut::visit_expr_mut(self, e);
            }
            fn visit_item_mut(&mut self, _: &mut syn::Item) {}
            fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
        }
        let mut e = e.clone();
        Inline(&self.bound).visit_expr_mut(&mut e);
        e
    }
}

/// The name and definition of `let name = expr;` / `let name: T = expr;` (not `mut`, no `else`).
fn plain_let(l: &syn::Local) -> Option<(String, &Expr)> {
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let pat = match &l.pat {
        Pat::Type(t) => &*t.pat,
        p => p,
    };
    match pat {
        Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none() => Some((p.ident.to_string(), &init.expr)),
        _ => None,
    }
}

/// `a..b` / `a..=b` (in parentheses or not): the range, its start, whether it is inclusive.
fn plain_range(e: &Expr) -> Option<(Expr, Expr, bool)> {
    match e {
        Expr::Paren(p) => plain_range(&p.expr),
        Expr::Group(g) => plain_range(&g.expr),
        Expr::Range(r) if r.start.is_some() && r.end.is_some() => {
            Some((e.clone(), (*r.start.clone()?).clone(), matches!(r.limits, RangeLimits::Closed(_))))
        }
        _ => None,
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
        match plain_let(l) {
            Some((name, def)) => {
                let def = self.inline_defs(def);
                self.bound.push((name, Some(def)));
            }
            None => self.bind(&l.pat),
        }
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
                let plain = match &*f.pat {
                    Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() && p.mutability.is_none() => Some(p.ident.to_string()),
                    _ => None,
                };
                self.bind(&f.pat);
                self.loops += 1;
                let depth = self.depth + self.loops;
                match plain {
                    Some(var) => {
                        self.nested.push(NestedLoop { var, range: plain_range(&f.expr), depth });
                        self.visit_block(&f.body);
                        self.nested.pop();
                    }
                    None => self.visit_block(&f.body),
                }
                self.loops -= 1;
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

/// `idx` with loop variables replaced by their first values (`subs`), in wrapping arithmetic (evaluating it must
/// not panic where the loop itself would not).
fn substitute(idx: &Expr, subs: &[(&Ident, &TokenStream)]) -> TokenStream {
    let rt = rt();
    match idx {
        Expr::Paren(p) => substitute(&p.expr, subs),
        Expr::Group(g) => substitute(&g.expr, subs),
        Expr::Path(p) => match subs.iter().find(|(v, _)| p.path.is_ident(*v)) {
            Some((_, start)) => quote!((#start)),
            None => quote!(#idx),
        },
        Expr::Binary(b) => {
            let (l, r) = (substitute(&b.left, subs), substitute(&b.right, subs));
            let f = match b.op {
                syn::BinOp::Add(_) => quote!(add),
                syn::BinOp::Sub(_) => quote!(sub),
                syn::BinOp::Mul(_) => quote!(mul),
                _ => return quote!(#idx),
            };
            quote!(#rt::wrapping::#f(#l, #r))
        }
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            let x = substitute(&u.expr, subs);
            quote!(#rt::wrapping::neg(#x))
        }
        Expr::Cast(c) => {
            let x = substitute(&c.expr, subs);
            let ty = &c.ty;
            quote!(((#x) as #ty))
        }
        // ndarray's per-axis check stands for its index (the accesses themselves still check).
        Expr::Call(c) if crate::names::nd::is_below(&c.func) && c.args.len() == 2 => substitute(&c.args[0], subs),
        other => quote!(#other),
    }
}

/// How the fast copy reaches a windowed access.
enum Window {
    /// A read through its own window `w`: `Pick(&x, &w).__omp_pick(idx)`.
    Read(Ident),
    /// A written array walked with strides, checked against the loops' counters: `x.__omp_at([jj…], idx)`.
    Lattice(Vec<Ident>),
    /// Access number `j` of a written array reached in several rows: `x.__omp_at(j, idx)`.
    Slot(usize),
}

/// In the fast copy: reads `x[idx]` with a window become picks, accesses to a lattice window
/// `x.__omp_at([jj…], idx)` (`__omp_at_mut` where written); not inside closures, nor where the body has bound
/// the array's name to something else (the pick's identity check and the lattice's index check would keep the
/// meaning anyway, but the rebound value may not be indexable the same way).
struct Rewrite<'a> {
    keys: &'a BTreeMap<String, Window>,
    depth: usize,
    /// Names the body binds, scoped.
    bound: Vec<String>,
}

impl Rewrite<'_> {
    fn bind(&mut self, pat: &Pat) {
        let mut ids = Vec::new();
        pat_idents(pat, &mut ids);
        self.bound.extend(ids.iter().map(|i| i.to_string()));
    }

    fn rewrite(&self, ix: &syn::ExprIndex, write: bool) -> Option<Expr> {
        let base = ix.expr.to_token_stream().to_string();
        if self.bound.contains(&base) {
            return None;
        }
        let key = format!("{base}[{}]", ix.index.to_token_stream());
        let (x, i, rt) = (&ix.expr, &ix.index, rt());
        Some(match (self.keys.get(&key)?, write) {
            (Window::Read(w), false) => syn::parse_quote!((*(&#rt::Pick(&#x, &#w)).__omp_pick(#i))),
            (Window::Read(_), true) => return None,
            (Window::Lattice(jj), false) => syn::parse_quote!((*#x.__omp_at([#(#jj),*], #i))),
            (Window::Lattice(jj), true) => syn::parse_quote!((*#x.__omp_at_mut([#(#jj),*], #i))),
            (Window::Slot(j), false) => syn::parse_quote!((*#x.__omp_at(#j, #i))),
            (Window::Slot(j), true) => syn::parse_quote!((*#x.__omp_at_mut(#j, #i))),
        })
    }

    /// A place being written: its root access becomes a mutable one; indices along the way are reads.
    fn place(&mut self, e: &mut Expr) {
        match e {
            Expr::Index(ix) => match self.rewrite(ix, true) {
                Some(new) => *e = new,
                None => {
                    self.place(&mut ix.expr);
                    self.visit_expr_mut(&mut ix.index);
                }
            },
            Expr::Field(f) => self.place(&mut f.base),
            Expr::Paren(p) => self.place(&mut p.expr),
            other => self.visit_expr_mut(other),
        }
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mark = self.bound.len();
        visit_mut::visit_block_mut(self, b);
        self.bound.truncate(mark);
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, e)) = &mut init.diverge {
                self.visit_expr_mut(e);
            }
        }
        self.bind(&l.pat);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let mark = self.bound.len();
        self.bind(&arm.pat);
        if let Some((_, g)) = &mut arm.guard {
            self.visit_expr_mut(g);
        }
        self.visit_expr_mut(&mut arm.body);
        self.bound.truncate(mark);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => {
                self.depth += 1;
                visit_mut::visit_expr_mut(self, e);
                self.depth -= 1;
            }
            _ if self.depth > 0 => visit_mut::visit_expr_mut(self, e),
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                let mark = self.bound.len();
                self.bind(&f.pat);
                self.visit_block_mut(&mut f.body);
                self.bound.truncate(mark);
            }
            Expr::Let(l) => {
                self.visit_expr_mut(&mut l.expr);
                self.bind(&l.pat);
            }
            Expr::If(i) => {
                // `if let` bindings are visible in the `then` block only.
                let mark = self.bound.len();
                self.visit_expr_mut(&mut i.cond);
                self.visit_block_mut(&mut i.then_branch);
                self.bound.truncate(mark);
                if let Some((_, els)) = &mut i.else_branch {
                    self.visit_expr_mut(els);
                }
            }
            Expr::While(w) => {
                let mark = self.bound.len();
                self.visit_expr_mut(&mut w.cond);
                self.visit_block_mut(&mut w.body);
                self.bound.truncate(mark);
            }
            Expr::Assign(a) => {
                self.visit_expr_mut(&mut a.right);
                self.place(&mut a.left);
            }
            Expr::Binary(b) if crate::syntax::place::is_compound_assign(&b.op) => {
                self.visit_expr_mut(&mut b.right);
                self.place(&mut b.left);
            }
            Expr::Reference(r) if r.mutability.is_some() => self.place(&mut r.expr),
            // A windowed index is affine: it holds no other access to rewrite.
            Expr::Index(ix) => match self.rewrite(ix, false) {
                Some(new) => *e = new,
                None => visit_mut::visit_expr_mut(self, e),
            },
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Gives the `for` loops of a fast copy their own windows, and counts those whose counters enclosing windows use.
struct Nested<'a> {
    arrays: &'a BTreeMap<String, Kind>,
    env: Env,
    /// Nesting depth of the loops met here (counters and labels must not clash).
    depth: usize,
    /// Loops that must be counted (an enclosing lattice window uses their counter).
    counted: Counted,
    parents: &'a Parents,
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
                    let mut inner = Nested {
                        arrays: self.arrays,
                        env: self.env.clone(),
                        depth: self.depth + 1,
                        counted: self.counted.clone(),
                        parents: self.parents,
                    };
                    let mut ids = Vec::new();
                    pat_idents(&f.pat, &mut ids);
                    for id in &ids {
                        inner.env.bind_opaque(id);
                    }
                    inner.visit_block_mut(&mut f.body);
                    return;
                };
                let r = hidden("__omp_r");
                let l = Loop { var: &var, range: quote!(#r), inclusive, label: f.label.as_ref(), depth: self.depth };
                let expr = &f.expr;
                if let Some(versioned) = windowed_loop(self.arrays, &self.env, &l, &f.body.clone(), &self.counted, self.parents) {
                    *e = syn::parse_quote!({
                        let #r = #expr;
                        #versioned
                    });
                    return;
                }
                let mut env = self.env.clone();
                env.bind_inner_loop(&var, &syn::parse_quote!(0..1));
                let mut inner =
                    Nested { arrays: self.arrays, env, depth: self.depth + 1, counted: self.counted.clone(), parents: self.parents };
                inner.visit_block_mut(&mut f.body);
                if let Some(fixes) = self.counted.get(&var.to_string()) {
                    // An enclosing lattice window predicts its accesses from this loop's counter.
                    let n = hidden("__omp_n");
                    let (count, counted, prelude) = (l.count(), l.counted(&n, &f.body), fix_lets(Some(fixes)));
                    *e = syn::parse_quote!({
                        let #r = #expr;
                        #prelude
                        let #n = #count;
                        #counted
                    });
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
