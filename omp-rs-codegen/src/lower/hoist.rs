//! Bounds checks hoisted out of the innermost loop of the host lowering.
//!
//! Rust's bounds checks keep a loop from vectorising (each is an early exit). When an array access `x[idx]` in the
//! body has an index that is affine in the induction variables of the parallel nest and of sequential loops of the
//! body over simple ranges (`for k in lo..hi`, `lo..=hi`, ends over outer induction variables and invariants), with
//! loop-invariant coefficients, its index range over one row of the chunk is `[min idx, max idx]`, each term taking
//! its extreme at one end of its variable's range. The lowering computes those ends exactly (in `i128`, from the
//! affine forms, failing closed on overflow) before the row; when every such access is in bounds (or sits, in
//! every place it is written, in a sequential loop whose range is empty) the row runs a copy of the body with
//! unchecked accesses, otherwise the ordinary checked body (which then panics at the same iteration as sequential
//! code would).
//!
//! The unchecked copy is only sound if every name in a hoisted index means, at the access, what the affine form
//! assumed. So a name qualifies only if the body binds it nowhere else: induction variables and invariants that
//! the body never rebinds (`let i = i + 1` disqualifies `i`), and sequential loop variables bound exactly once (by
//! their `for`) that are not also captures. Identifiers inside macros other than the standard formatting and
//! assertion macros count as rebound (a macro may expand to a `let`).

use std::collections::{BTreeMap, HashMap};

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, RangeLimits};

use super::host::rt;
use super::names;
use crate::analyze::affine::{affine, Coeff, IterVar, Poly};
use crate::analyze::walk::{free_idents, Env};
use crate::analyze::{Analysis, Class};
use crate::loops::LoopNest;

/// A sequential loop of the body over a simple range, as the hoisted accesses inside it see it.
#[derive(Clone)]
struct InnerLoop {
    var: Ident,
    range: Expr,
    /// Affine forms of the range's ends (over outer induction variables and invariants).
    lo: Poly,
    hi: Poly,
    inclusive: bool,
}

/// One hoisted access: array, index (as written), its affine form, the sequential loops it sits in.
struct Access {
    array: Ident,
    index: Expr,
    form: Poly,
    loops: Vec<InnerLoop>,
}

/// Arrays whose accesses may be hoisted: written disjointly (views) or only read and known to be slices (their
/// declared type is a slice, array or `Vec`; other indexable types keep their checked `Index`).
fn candidates(analysis: &Analysis, slice_like: &[String]) -> Vec<String> {
    analysis
        .captures
        .iter()
        .filter(|c| match c.class {
            Class::Disjoint(_) => true,
            Class::Shared => c.indexed && !c.whole_value_use && slice_like.contains(&c.name.to_string()),
            _ => false,
        })
        .map(|c| c.name.to_string())
        .collect()
}

/// Values the index may use besides the induction variables: loop-invariant captures.
fn invariant(analysis: &Analysis, name: &str) -> bool {
    analysis.get(name).is_some_and(|c| matches!(c.class, Class::Shared | Class::Firstprivate) && !c.written)
}

/// Macros that cannot bind a name the body then uses.
const NON_BINDING_MACROS: &[&str] = &[
    "println", "print", "eprintln", "eprint", "format", "write", "writeln", "panic", "assert", "assert_eq", "assert_ne",
    "debug_assert", "debug_assert_eq", "debug_assert_ne", "unreachable", "todo", "unimplemented", "dbg",
];

/// How many times the body binds each name (patterns of `let`, `for`, closures, `match`, `if let`; identifiers
/// inside other macros count as bound twice).
fn bindings(body: &syn::Block) -> HashMap<String, usize> {
    #[derive(Default)]
    struct Counter(HashMap<String, usize>);
    impl Visit<'_> for Counter {
        fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
            *self.0.entry(p.ident.to_string()).or_default() += 1;
            visit::visit_pat_ident(self, p);
        }
        fn visit_macro(&mut self, m: &syn::Macro) {
            let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            if !NON_BINDING_MACROS.contains(&name.as_str()) {
                fn idents(ts: TokenStream, out: &mut HashMap<String, usize>) {
                    for tt in ts {
                        match tt {
                            TokenTree::Ident(i) => *out.entry(i.to_string()).or_default() += 2,
                            TokenTree::Group(g) => idents(g.stream(), out),
                            _ => {}
                        }
                    }
                }
                idents(m.tokens.clone(), &mut self.0);
            }
        }
        fn visit_item(&mut self, _: &syn::Item) {}
    }
    let mut c = Counter::default();
    c.visit_block(body);
    c.0
}

/// Whether a loop-invariant factor of an affine form is cheap and cannot panic when evaluated before the row
/// (where the original code might not evaluate it at all): a name, `x.len()`, or a cast of one.
fn simple_atoms(form: &Poly) -> bool {
    fn simple(e: &Expr) -> bool {
        match e {
            Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
            Expr::Paren(p) => simple(&p.expr),
            Expr::Group(g) => simple(&g.expr),
            Expr::Cast(c) => simple(&c.expr),
            Expr::MethodCall(m) => m.method == "len" && m.args.is_empty() && simple(&m.receiver),
            _ => false,
        }
    }
    let coeffs = form.constant_terms().into_iter().chain(form.var_terms().into_iter().map(|(_, c)| c));
    coeffs.into_iter().all(|c| c.atoms.iter().all(|(_, e)| simple(e)))
}

/// Finds the hoistable accesses of a body.
fn collect(nest: &LoopNest, analysis: &Analysis, slice_like: &[String], body: &syn::Block) -> Vec<Access> {
    struct Finder<'a> {
        arrays: Vec<String>,
        vars: Vec<Option<Ident>>,
        analysis: &'a Analysis,
        bound: HashMap<String, usize>,
        innermost: usize,
        loops: Vec<InnerLoop>,
        found: BTreeMap<String, Access>,
        closure_depth: usize,
    }
    impl VisitMut for Finder<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            match e {
                Expr::Closure(_) => {
                    self.closure_depth += 1;
                    visit_mut::visit_expr_mut(self, e);
                    self.closure_depth -= 1;
                }
                Expr::ForLoop(f) => {
                    self.visit_expr_mut(&mut f.expr);
                    let inner = self.inner_loop(f);
                    let pushed = inner.is_some();
                    self.loops.extend(inner);
                    self.visit_block_mut(&mut f.body);
                    if pushed {
                        self.loops.pop();
                    }
                }
                Expr::Index(ix) => {
                    if let (Expr::Path(p), 0) = (&*ix.expr, self.closure_depth) {
                        if let Some(id) = p.path.get_ident() {
                            if self.arrays.contains(&id.to_string()) {
                                self.consider(id.clone(), (*ix.index).clone());
                            }
                        }
                    }
                    visit_mut::visit_expr_mut(self, e);
                }
                _ => visit_mut::visit_expr_mut(self, e),
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    impl Finder<'_> {
        /// Bound nowhere in the body (induction variables, invariants) or only by its own `for` (loop variables).
        fn unique(&self, name: &str, times: usize) -> bool {
            self.bound.get(name).copied().unwrap_or(0) == times
        }

        fn dims_env(&self) -> Env {
            Env::for_dims(&self.vars)
        }

        /// Names an index or a range end may use: outer induction variables and invariants, never rebound.
        fn outer_name(&self, name: &str, allow_innermost: bool) -> bool {
            let dim = self.vars.iter().position(|v| v.as_ref().is_some_and(|v| v == name));
            match dim {
                Some(d) => (allow_innermost || d != self.innermost) && self.unique(name, 0),
                None => invariant(self.analysis, name) && self.unique(name, 0),
            }
        }

        /// `for k in lo..hi` (or `lo..=hi`) with a plain `k` bound only there and ends over outer names.
        fn inner_loop(&self, f: &syn::ExprForLoop) -> Option<InnerLoop> {
            if self.closure_depth > 0 || f.label.is_some() {
                return None;
            }
            let syn::Pat::Ident(p) = &*f.pat else { return None };
            let var = p.ident.clone();
            let name = var.to_string();
            if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() || !self.unique(&name, 1) {
                return None;
            }
            if self.analysis.get(&name).is_some() || self.vars.iter().flatten().any(|v| *v == name) {
                return None;
            }
            let mut range = &*f.expr;
            while let Expr::Paren(p) = range {
                range = &p.expr;
            }
            let Expr::Range(r) = range else { return None };
            let (Some(lo), Some(hi)) = (&r.start, &r.end) else { return None };
            let end = |e: &Expr| -> Option<Poly> {
                if !free_idents(e).iter().all(|i| self.outer_name(&i.to_string(), false)) {
                    return None;
                }
                let form = affine(e, &self.dims_env()).ok()?;
                let only_outer = form.var_terms().iter().all(|(v, _)| matches!(v, IterVar::Parallel(d) if *d != self.innermost));
                (only_outer && simple_atoms(&form)).then_some(form)
            };
            Some(InnerLoop {
                var,
                range: range.clone(),
                lo: end(lo)?,
                hi: end(hi)?,
                inclusive: matches!(r.limits, RangeLimits::Closed(_)),
            })
        }

        fn consider(&mut self, array: Ident, index: Expr) {
            // A range index (`x[a..b]`) takes a subslice: it keeps its checked `Index`.
            if matches!(index, Expr::Range(_)) {
                return;
            }
            let key = format!("{array}[{}]", index.to_token_stream());
            if let Some(seen) = self.found.get_mut(&key) {
                // The same access in another place: an empty loop excuses it only if it encloses every place.
                seen.loops.retain(|l| self.loops.iter().any(|m| m.var == l.var));
                return;
            }
            let loop_var = |name: &str| self.loops.iter().any(|l| l.var == name);
            // Only induction variables, loop-invariant captures and enclosing simple loops: nothing computed in the body.
            if !free_idents(&index).iter().all(|i| {
                let name = i.to_string();
                loop_var(&name) || self.outer_name(&name, true)
            }) {
                return;
            }
            let mut env = self.dims_env();
            for l in &self.loops {
                env.bind_inner_loop(&l.var, &l.range);
            }
            let Ok(form) = affine(&index, &env) else { return };
            if simple_atoms(&form) {
                let loops = self.loops.clone();
                self.found.insert(key, Access { array, index, form, loops });
            }
        }
    }
    let bound = bindings(body);
    let mut f = Finder {
        arrays: candidates(analysis, slice_like),
        vars: nest.dims.iter().map(|d| d.var.clone()).collect(),
        analysis,
        bound,
        innermost: nest.dims.len() - 1,
        loops: Vec::new(),
        found: BTreeMap::new(),
        closure_depth: 0,
    };
    let mut copy = body.clone();
    f.visit_block_mut(&mut copy);
    f.found.into_values().collect()
}

fn coeff(c: &Coeff) -> TokenStream {
    let rt = rt();
    let lit = c.lit;
    let atoms = c.atoms.iter().map(|(_, e)| quote!(#rt::Exact::new(#rt::coefficient(#e))));
    quote!((#rt::Exact::new(#lit) #(* #atoms)*))
}

/// The smallest and largest value of `form` (exactly, as i128) over one row: the innermost parallel variable runs
/// over the row's values, sequential loop variables over their ranges, outer induction variables are fixed. The
/// variables are independent there, so each term takes its own extreme (at one end of its variable's range,
/// whichever the sign of its coefficient picks).
fn extremes(form: &Poly, nest: &LoopNest, row: &(TokenStream, TokenStream), loops: &[InnerLoop]) -> (TokenStream, TokenStream) {
    let rt = rt();
    let last = nest.dims.len() - 1;
    let mut min = quote!(#rt::Exact::new(0));
    let mut max = quote!(#rt::Exact::new(0));
    for c in form.constant_terms() {
        let c = coeff(c);
        min = quote!(#min + #c);
        max = quote!(#max + #c);
    }
    for (v, c) in form.var_terms() {
        let c = coeff(c);
        let ends = match v {
            IterVar::Parallel(d) if *d == last => Some(row.clone()),
            IterVar::Parallel(d) => {
                let value = match &nest.dims[*d].var {
                    Some(var) => quote!(#rt::Exact::new(#rt::LoopIndex::to_i128(#var))),
                    None => quote!(#rt::Exact::new(0)),
                };
                min = quote!(#min + #c * #value);
                max = quote!(#max + #c * #value);
                None
            }
            IterVar::Inner { name, .. } => loops.iter().find(|l| l.var == name).map(|l| range_ends(l, nest, row)),
        };
        if let Some((lo, hi)) = ends {
            min = quote!(#min + (#c * #lo).min(#c * #hi));
            max = quote!(#max + (#c * #lo).max(#c * #hi));
        }
    }
    (min, max)
}

/// First and last value of a sequential loop's range (ends over outer induction variables and invariants only).
fn range_ends(l: &InnerLoop, nest: &LoopNest, row: &(TokenStream, TokenStream)) -> (TokenStream, TokenStream) {
    let (lo, _) = extremes(&l.lo, nest, row, &[]);
    let (hi, _) = extremes(&l.hi, nest, row, &[]);
    if l.inclusive {
        (lo, hi)
    } else {
        let rt = rt();
        (lo, quote!((#hi - #rt::Exact::new(1))))
    }
}

/// For the row loop over `ks` (iteration numbers of the innermost dimension): the condition under which every
/// hoistable access is in bounds, and the body with those accesses unchecked. `None` when nothing is hoistable.
pub fn hoisted(
    nest: &LoopNest,
    analysis: &Analysis,
    slice_like: &[String],
    body: &syn::Block,
    ks: &TokenStream,
) -> Option<(TokenStream, syn::Block)> {
    let accesses = collect(nest, analysis, slice_like, body);
    if accesses.is_empty() {
        return None;
    }
    let rt = rt();
    let dim = names::dim(nest.dims.len() - 1);
    let row = (
        quote!(#rt::Exact::new(#rt::LoopIndex::to_i128(#dim.at(#ks.start)))),
        quote!(#rt::Exact::new(#rt::LoopIndex::to_i128(#dim.at(#ks.end - 1)))),
    );
    let checks = accesses.iter().map(|a| {
        let (lo, hi) = extremes(&a.form, nest, &row, &a.loops);
        let x = &a.array;
        // An access in a sequential loop whose range is empty never runs (and its range has no last value).
        let empty = a.loops.iter().map(|l| {
            let (first, last) = range_ends(l, nest, &row);
            quote!(#rt::Exact::empty_range(#first, #last))
        });
        quote!((#(#empty ||)* #rt::Exact::in_bounds(#lo, #hi, #x.len())))
    });
    let cond = quote!(#ks.start < #ks.end #(&& #checks)*);
    let mut fast = body.clone();
    let keys: Vec<String> = accesses.iter().map(|a| format!("{}[{}]", a.array, a.index.to_token_stream())).collect();
    Unchecked { keys: &keys, write: false, closure_depth: 0 }.visit_block_mut(&mut fast);
    Some((cond, fast))
}

/// Rewrites the checked accesses into unchecked ones (reads `x.__omp_get(i)`, writes `x.__omp_get_mut(i)`).
struct Unchecked<'a> {
    keys: &'a [String],
    write: bool,
    closure_depth: usize,
}

impl Unchecked<'_> {
    fn rewrite(&self, e: &Expr) -> Option<Expr> {
        let Expr::Index(ix) = e else { return None };
        let key = format!("{}[{}]", ix.expr.to_token_stream(), ix.index.to_token_stream());
        if self.closure_depth > 0 || !self.keys.contains(&key) {
            return None;
        }
        let (x, i) = (&ix.expr, &ix.index);
        // SAFETY (of the generated block): the index range of this access over the row was checked against the
        // array's length just before the row, from the exact affine form of the index.
        Some(if self.write {
            syn::parse_quote!((*unsafe { #x.__omp_get_mut(#i) }))
        } else {
            syn::parse_quote!((*unsafe { #x.__omp_get(#i) }))
        })
    }
}

impl VisitMut for Unchecked<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => {
                self.closure_depth += 1;
                visit_mut::visit_expr_mut(self, e);
                self.closure_depth -= 1;
            }
            Expr::Assign(a) => {
                self.visit_expr_mut(&mut a.right);
                self.place(&mut a.left);
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                self.visit_expr_mut(&mut b.right);
                self.place(&mut b.left);
            }
            Expr::Reference(r) if r.mutability.is_some() => self.place(&mut r.expr),
            _ => match self.rewrite(e) {
                // A hoisted index is affine in loop variables and invariants: it holds no other access.
                Some(new) => *e = new,
                None => visit_mut::visit_expr_mut(self, e),
            },
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Unchecked<'_> {
    /// A place being written (`x[i] = ..`, `x[i].f += ..`, `&mut x[i]`): the access at its root becomes a mutable
    /// unchecked one; index expressions along the way are ordinary reads.
    fn place(&mut self, e: &mut Expr) {
        let saved = self.write;
        self.write = true;
        let new = self.rewrite(e);
        self.write = saved;
        match (new, e) {
            (Some(new), e) => *e = new,
            (None, Expr::Field(f)) => self.place(&mut f.base),
            (None, Expr::Paren(p)) => self.place(&mut p.expr),
            (None, Expr::Index(ix)) => {
                self.place(&mut ix.expr);
                self.visit_expr_mut(&mut ix.index);
            }
            (None, other) => visit_mut::visit_expr_mut(self, other),
        }
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_) | BitXorAssign(_) | BitAndAssign(_) | BitOrAssign(_) | ShlAssign(_) | ShrAssign(_)
    )
}
