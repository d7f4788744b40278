//! Device lowering: reads of read-only arrays at an affine index of a sequential loop's variable go through an
//! `omp_device::affine::Window` checked once before the loop (`for k in 0..n { s += a[i * n + k] * x[k] }`: a dot
//! product whose per-element bounds checks kept LLVM from unrolling it; H200 2026-12-01, GEMM and ATAX at 1.6-1.7x
//! CUDA).
//!
//! The rewrite is a speed decision only. The window's soundness is `omp_device`'s (it verifies the whole range and
//! falls back to the ordinary indexing whenever a read is not the one it verified), and the rewritten read still
//! evaluates the original index expression, so a wrong reading of the loop here costs speed, never meaning. What this
//! module must get right is that the rewritten code means the same and compiles whenever the original did:
//! - the range's ends are evaluated once, in order, before the loop, as `for` does;
//! - the window's `c0` and `c1` are built from integer literals and names that are in scope before the loop (no name
//!   bound anywhere in the body), with wrapping arithmetic (so they cannot panic where the loop would not have run);
//! - only value reads are rewritten (not `&a[i]`, a method's receiver or a field's base), of arrays the body does not
//!   rebind, in loops whose bodies have no macro calls (which could bind or shadow names unseen).

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident};

use super::print::unlocated;
use crate::syntax::place::is_compound_assign;

/// Rewrites the loops of a kernel body; `read_only` names its read-only array captures (plain slices there).
pub(crate) struct AffineReads {
    read_only: HashSet<String>,
    windows: usize,
}

impl AffineReads {
    /// A pass over a kernel whose read-only slices are `read_only`.
    pub(crate) fn new(read_only: impl IntoIterator<Item = String>) -> AffineReads {
        AffineReads { read_only: read_only.into_iter().collect(), windows: 0 }
    }
}

impl VisitMut for AffineReads {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        if let Expr::ForLoop(f) = e {
            if let Some(rewritten) = self.for_loop(f) {
                *e = rewritten;
            }
        }
    }

    // A closure's loops run wherever it is called, in its own scope: left alone.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
}

impl AffineReads {
    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let syn::Pat::Ident(p) = &*f.pat else { return None };
        if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() || f.label.is_some() {
            return None;
        }
        let Expr::Range(r) = &*f.expr else { return None };
        let (Some(lo), Some(hi), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, &r.limits) else { return None };
        let bound = BoundInBody::of(&f.body)?;
        let k = p.ident.clone();
        let mut finder = Reads { k: &k, read_only: &self.read_only, bound: &bound, reads: Vec::new(), next: self.windows };
        let mut body = f.body.clone();
        finder.visit_block_mut(&mut body);
        if finder.reads.is_empty() {
            return None;
        }
        self.windows = finder.next;
        // Printed inline (no user positions): the kernel file is printed at the user's positions and never moves
        // backwards, so user tokens here, before the loop, would push the whole loop past its own lines.
        let windows = finder.reads.iter().map(|w| {
            let Window { name, array, c0, c1 } = w;
            let (array, c0, c1) = (unlocated(quote!(#array)), unlocated(c0.clone()), unlocated(c1.clone()));
            quote!(let #name = omp_device::affine::Window::new(#array, #c0, #c1, __omp_lo as usize, __omp_hi as usize);)
        });
        let names = finder.reads.iter().map(|w| &w.name);
        // Two copies of the loop, so that in the second LLVM knows every window verified and drops the checks (it
        // does not unswitch the loop on that by itself); small bodies only. The copy that indexes as written comes
        // first: the kernel file is printed at the user's positions and never moves backwards, so the first copy
        // keeps exact panic lines, which is where a read past the end (no window verifies) panics; a panic in the
        // second copy reports the end of the loop body.
        let run = if token_count(quote!(#body)) <= MAX_VERSIONED_TOKENS {
            quote! {
                if !(true #(&& #names.verified())*) {
                    for #k in __omp_lo..__omp_hi #body
                } else {
                    for #k in __omp_lo..__omp_hi #body
                }
            }
        } else {
            quote!(for #k in __omp_lo..__omp_hi #body)
        };
        syn::parse2(quote! {{
            let __omp_lo = #lo;
            let __omp_hi = #hi;
            #(#windows)*
            #run
        }})
        .ok()
    }
}

/// Loop bodies up to this many tokens are emitted twice (checked and unchecked copies); larger ones once.
const MAX_VERSIONED_TOKENS: usize = 400;

/// Tokens of `ts`, groups counted with their contents.
fn token_count(ts: TokenStream) -> usize {
    ts.into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 1 + token_count(g.stream()),
            _ => 1,
        })
        .sum()
}

/// One window: its variable, the array, and `c0`, `c1` (usize expressions).
struct Window {
    name: Ident,
    array: Ident,
    c0: TokenStream,
    c1: TokenStream,
}

/// Finds and rewrites the affine value reads of one loop's body (not inside nested loops or closures).
struct Reads<'a> {
    k: &'a Ident,
    read_only: &'a HashSet<String>,
    bound: &'a HashSet<String>,
    reads: Vec<Window>,
    next: usize,
}

impl Reads<'_> {
    /// `array[index]` as a window read, when `array` is a read-only capture the body does not rebind and `index`
    /// is affine in the loop variable with hoistable coefficients.
    fn rewrite(&mut self, ix: &syn::ExprIndex) -> Option<Expr> {
        let Expr::Path(p) = &*ix.expr else { return None };
        let array = p.path.get_ident()?;
        let name = array.to_string();
        if p.qself.is_some() || !self.read_only.contains(&name) || self.bound.contains(&name) {
            return None;
        }
        let a = affine(&ix.index, self.k, self.bound)?;
        if !a.has_k {
            return None;
        }
        let w = format_ident!("__omp_aw{}", self.next);
        self.next += 1;
        let (k, index) = (self.k, &ix.index);
        let read = syn::parse2(quote!(#w.read(#k as usize, #array, #index))).ok()?;
        self.reads.push(Window { name: w, array: array.clone(), c0: a.c0, c1: a.c1 });
        Some(read)
    }
}

impl VisitMut for Reads<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // Places, not values: their index expressions may still hold reads.
            Expr::Reference(r) => self.visit_operand(&mut r.expr),
            Expr::MethodCall(m) => {
                self.visit_operand(&mut m.receiver);
                for a in &mut m.args {
                    self.visit_expr_mut(a);
                }
            }
            Expr::Field(f) => self.visit_operand(&mut f.base),
            Expr::Assign(a) => {
                self.visit_place(&mut a.left);
                self.visit_expr_mut(&mut a.right);
            }
            Expr::Binary(b) if is_compound_assign(&b.op) => {
                self.visit_place(&mut b.left);
                self.visit_expr_mut(&mut b.right);
            }
            Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.index);
                if let Some(read) = self.rewrite(ix) {
                    *e = read;
                }
            }
            // Nested loops get their own windows (their variable is another); closures are left alone.
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::Closure(_) | Expr::Async(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

impl Reads<'_> {
    /// An operand used in place (`&e`, `e.method()`, `e.field`): when it is an index, only its index is a value.
    fn visit_operand(&mut self, e: &mut Expr) {
        match e {
            Expr::Index(ix) => self.visit_expr_mut(&mut ix.index),
            _ => self.visit_expr_mut(e),
        }
    }

    /// The left side of an assignment: only the index expressions inside it are values.
    fn visit_place(&mut self, e: &mut Expr) {
        if let Expr::Index(ix) = e {
            self.visit_place(&mut ix.expr);
            self.visit_expr_mut(&mut ix.index);
        } else if let Expr::Field(f) = e {
            self.visit_place(&mut f.base);
        }
    }
}

/// `c0 + k * c1` as usize expressions (wrapping), and whether `k` occurs.
struct Affine {
    c0: TokenStream,
    c1: TokenStream,
    has_k: bool,
}

/// The affine form of an index expression in `k`: integer literals, names in scope before the loop, `k`, `x as
/// usize` of a name, parentheses, `+`, `-`, and `*` with at most one side holding `k`.
fn affine(e: &Expr, k: &Ident, bound: &HashSet<String>) -> Option<Affine> {
    let zero = || quote!(0usize);
    match e {
        Expr::Paren(p) => affine(&p.expr, k, bound),
        Expr::Group(g) => affine(&g.expr, k, bound),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if matches!(i.suffix(), "" | "usize") => {
            let v: usize = i.base10_parse().ok()?;
            Some(Affine { c0: quote!(#v), c1: zero(), has_k: false })
        }
        Expr::Path(p) => name_term(p, k, bound, false),
        Expr::Cast(c) if matches!(&*c.ty, syn::Type::Path(t) if t.path.is_ident("usize")) => {
            let Expr::Path(p) = &*c.expr else { return None };
            name_term(p, k, bound, true)
        }
        Expr::Binary(b) => {
            let (l, r) = (affine(&b.left, k, bound)?, affine(&b.right, k, bound)?);
            let (l0, l1, r0, r1) = (&l.c0, &l.c1, &r.c0, &r.c1);
            let f = quote!(omp_device::affine);
            match b.op {
                BinOp::Add(_) => Some(Affine { c0: quote!(#f::wadd(#l0, #r0)), c1: quote!(#f::wadd(#l1, #r1)), has_k: l.has_k || r.has_k }),
                BinOp::Sub(_) => Some(Affine { c0: quote!(#f::wsub(#l0, #r0)), c1: quote!(#f::wsub(#l1, #r1)), has_k: l.has_k || r.has_k }),
                BinOp::Mul(_) if !(l.has_k && r.has_k) => {
                    // (l0 + k l1)(r0 + k r1) with l1 = 0 or r1 = 0.
                    let c1 = if l.has_k { quote!(#f::wmul(#l1, #r0)) } else { quote!(#f::wmul(#l0, #r1)) };
                    Some(Affine { c0: quote!(#f::wmul(#l0, #r0)), c1, has_k: l.has_k || r.has_k })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A name (`as usize` when `cast`) in an index: `k` itself, or a constant term when it is in scope before the loop.
fn name_term(p: &syn::ExprPath, k: &Ident, bound: &HashSet<String>, cast: bool) -> Option<Affine> {
    let id = p.path.get_ident().filter(|_| p.qself.is_none())?;
    if id == k {
        return Some(Affine { c0: quote!(0usize), c1: quote!(1usize), has_k: true });
    }
    if bound.contains(&id.to_string()) {
        return None;
    }
    let c0 = if cast { quote!((#id as usize)) } else { quote!(#id) };
    Some(Affine { c0, c1: quote!(0usize), has_k: false })
}

/// Every name a body binds (patterns of `let`, `match`, `if let`, closures, nested loops, items), or `None` when it
/// calls a macro (whose bindings cannot be seen).
struct BoundInBody {
    names: HashSet<String>,
    has_macro: bool,
}

impl BoundInBody {
    fn of(body: &syn::Block) -> Option<HashSet<String>> {
        let mut b = BoundInBody { names: HashSet::new(), has_macro: false };
        b.visit_block(body);
        (!b.has_macro).then_some(b.names)
    }
}

impl<'ast> Visit<'ast> for BoundInBody {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.has_macro = true;
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        // Items declared in the body (consts, statics, fns) shadow names too.
        let ident = match i {
            syn::Item::Const(c) => Some(&c.ident),
            syn::Item::Static(s) => Some(&s.ident),
            syn::Item::Fn(f) => Some(&f.sig.ident),
            _ => None,
        };
        if let Some(id) = ident {
            self.names.insert(id.to_string());
        }
        syn::visit::visit_item(self, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(src: &str) -> String {
        let mut b: syn::Block = syn::parse_str(src).unwrap();
        AffineReads::new(["a".to_string(), "x".to_string()]).visit_block_mut(&mut b);
        quote!(#b).to_string()
    }

    #[test]
    fn dot_products_read_through_windows() {
        let out = lower("{ let mut s = 0.0; for k in 0..n { s += alpha * a[i * n + k] * x[k]; } y[i] = s; }");
        assert_eq!(out.matches("Window :: new").count(), 2, "{out}");
        assert!(out.contains("__omp_aw0 . read (k as usize , a , i * n + k)"), "{out}");
        assert!(out.contains("__omp_aw1 . read (k as usize , x , k)"), "{out}");
        assert!(out.contains("let __omp_lo = 0 ; let __omp_hi = n ;"), "{out}");
    }

    #[test]
    fn strided_and_shifted_indices() {
        let out = lower("{ for k in 1..m { s += a[j + k * nj] + a[(k - 1) * w + j as usize]; } }");
        assert_eq!(out.matches("Window :: new").count(), 2, "{out}");
    }

    #[test]
    fn reads_whose_rewrite_could_change_meaning_stay() {
        for src in [
            // the array is rebound, a coefficient is bound in the body, a macro, a place, a write target, k twice
            "{ for k in 0..n { let a = &b[..]; s += a[k]; } }",
            "{ for k in 0..n { let off = k; s += a[off + k]; } }",
            "{ for k in 0..n { s += my!(a[k]); } }",
            "{ for k in 0..n { let r = &a[k]; s += *r; } }",
            "{ for k in 0..n { s += a[k * k]; } }",
            "{ for k in 0..n { s += z[k]; } }",
            "{ for k in 0..=n { s += a[k]; } }",
            "{ 'l: for k in 0..n { s += a[k]; } }",
            "{ for mut k in 0..n { k += 1; s += a[k]; } }",
            "{ for k in 0..n { s += a[f(k)]; } }",
        ] {
            let out = lower(src);
            assert!(!out.contains("Window"), "{src} -> {out}");
        }
    }

    #[test]
    fn nested_loops_get_their_own_windows() {
        let out = lower("{ for i in 0..n { for k in 0..m { s += a[i * m + k]; } } }");
        assert_eq!(out.matches("Window :: new").count(), 1, "{out}");
        assert!(out.contains("read (k as usize , a , i * m + k)"), "{out}");
    }
}
