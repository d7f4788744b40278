//! Bounds checks hoisted out of the innermost loop of the host lowering.
//!
//! Rust's bounds checks keep a loop from vectorising (each is an early exit). When an array access `x[idx]` in the
//! body has an index that is affine in the innermost induction variable with a non-negative literal coefficient,
//! and otherwise depends only on outer induction variables and loop-invariant values, its index range over one row
//! of the chunk is `[idx(first), idx(last)]`. The lowering computes those ends exactly (in `i128`, from the affine
//! form) before the row; when every such access is in bounds the row runs a copy of the body with unchecked
//! accesses, otherwise the ordinary checked body (which then panics at the same iteration as sequential code would).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident};

use super::host::rt;
use super::names;
use crate::analyze::affine::{affine, Coeff, IterVar, Poly};
use crate::analyze::walk::{free_idents, Env};
use crate::analyze::{Analysis, Class};
use crate::loops::LoopNest;

/// One hoisted access: array, index (as written), its affine form.
struct Access {
    array: Ident,
    index: Expr,
    form: Poly,
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

/// Finds the hoistable accesses of a body.
fn collect(nest: &LoopNest, analysis: &Analysis, slice_like: &[String], body: &syn::Block) -> Vec<Access> {
    struct Finder<'a> {
        arrays: Vec<String>,
        vars: Vec<Option<Ident>>,
        analysis: &'a Analysis,
        innermost: usize,
        found: BTreeMap<String, Access>,
        closure_depth: usize,
    }
    impl VisitMut for Finder<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Expr::Closure(_) = e {
                self.closure_depth += 1;
                visit_mut::visit_expr_mut(self, e);
                self.closure_depth -= 1;
                return;
            }
            if let Expr::Index(ix) = e {
                if let (Expr::Path(p), 0) = (&*ix.expr, self.closure_depth) {
                    if let Some(id) = p.path.get_ident() {
                        if self.arrays.contains(&id.to_string()) {
                            self.consider(id.clone(), (*ix.index).clone());
                        }
                    }
                }
            }
            visit_mut::visit_expr_mut(self, e);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    impl Finder<'_> {
        fn consider(&mut self, array: Ident, index: Expr) {
            // A range index (`x[a..b]`) takes a subslice: it keeps its checked `Index`.
            if matches!(index, Expr::Range(_)) {
                return;
            }
            let key = format!("{array}[{}]", index.to_token_stream());
            if self.found.contains_key(&key) {
                return;
            }
            let dims: Vec<String> = self.vars.iter().flatten().map(|v| v.to_string()).collect();
            // Only induction variables and loop-invariant captures: nothing computed in the body.
            if !free_idents(&index).iter().all(|i| dims.contains(&i.to_string()) || invariant(self.analysis, &i.to_string())) {
                return;
            }
            let Ok(form) = affine(&index, &Env::for_dims(&self.vars)) else { return };
            let monotonic = form.var_terms().iter().all(|(v, c)| match v {
                IterVar::Parallel(d) if *d == self.innermost => c.atoms.is_empty() && c.lit >= 0,
                IterVar::Parallel(_) => true,
                IterVar::Inner { .. } => false,
            });
            if monotonic {
                self.found.insert(key, Access { array, index, form });
            }
        }
    }
    let mut f = Finder {
        arrays: candidates(analysis, slice_like),
        vars: nest.dims.iter().map(|d| d.var.clone()).collect(),
        analysis,
        innermost: nest.dims.len() - 1,
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
    let atoms = c.atoms.iter().map(|(_, e)| quote!(#rt::coefficient(#e)));
    quote!((#lit as i128) #(* #atoms)*)
}

/// `idx` at the given value of the innermost variable, exactly, as i128.
fn value_at(a: &Access, nest: &LoopNest, innermost_value: &TokenStream) -> TokenStream {
    let rt = rt();
    let last = nest.dims.len() - 1;
    let mut sum = quote!(0i128);
    for c in a.form.constant_terms() {
        let c = coeff(c);
        sum = quote!(#sum + #c);
    }
    for (v, c) in a.form.var_terms() {
        let c = coeff(c);
        let value = match v {
            IterVar::Parallel(d) if *d == last => innermost_value.clone(),
            IterVar::Parallel(d) => match &nest.dims[*d].var {
                Some(var) => quote!(#rt::LoopIndex::to_i128(#var)),
                None => quote!(0i128),
            },
            IterVar::Inner { .. } => quote!(0i128),
        };
        sum = quote!(#sum + #c * #value);
    }
    sum
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
    let first = quote!(#rt::LoopIndex::to_i128(#dim.at(#ks.start)));
    let last = quote!(#rt::LoopIndex::to_i128(#dim.at(#ks.end - 1)));
    let checks = accesses.iter().map(|a| {
        let (lo, hi) = (value_at(a, nest, &first), value_at(a, nest, &last));
        let x = &a.array;
        quote!((#lo) >= 0 && (#hi) < (#x.len() as i128))
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
