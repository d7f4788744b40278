//! ndarray arrays in parallel loops and target regions: `a[[i, j]]`, `a[(i, j)]`, `v[i]` on `Array1/2/3`,
//! `ArrayView*`, `ArrayViewMut*` and `Array<T, IxN>` (standard layout).
//!
//! Like struct fields (`fields`), the loop is rewritten before it is analysed. For each such variable, before the
//! loop: its extents (`a_n0`, `a_n1`: `usize`s from `a.shape()`) and its elements as one flat slice (`a_flat`, from
//! `a.as_slice()` / `a.as_slice_mut()`, which exist only in standard layout: otherwise a panic says what to do).
//! In the loop, `a[[i, j]]` becomes `a_flat[below(i, a_n0) * a_n1 + below(j, a_n1)]`, `a.nrows()` `a_n0`, and so
//! on. `below` checks each index against its axis as ndarray's indexing does (the flat index alone could wrap into
//! the next row) and returns it, so the element and the panics are ndarray's; the race analysis reads the index as
//! the affine form `i * a_n1 + j` (`analyze::affine`). Target regions map `a_flat` as any slice and pass the
//! extents by value. What the rewrite assumes of the type (row-major elements, extents) is `omp`'s `NdArray` trait,
//! implemented for ndarray's own `ArrayBase` only: a user type that merely has the name does not compile.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, ExprForLoop, Ident, Type};

use crate::analyze::types::{nd_type, row_elem, TypeEnv};
use crate::names::nd::BELOW;
use crate::syntax::tokens::idents_in;

/// One ndarray variable of the loop, taken apart before it.
#[derive(Debug, Clone)]
pub(crate) struct NdArray {
    /// The variable (`a`).
    pub var: Ident,
    /// The flat slice that stands for it in the loop (`a_flat`).
    pub flat: Ident,
    /// Its extents (`a_n0`, `a_n1`, ...).
    pub extents: Vec<Ident>,
    /// Element type.
    pub elem: Type,
    /// Whether the loop writes an element.
    pub written: bool,
    /// Whether the variable is a reference to the array (`&Array2`, `&mut Array2`) rather than the array or view.
    pub by_ref: bool,
    /// Whether the name is a `target_data` block's token for the array: the token itself is the flat slice (its
    /// elements are the array's, mapped), so the region treats it as any mapped variable.
    pub mapped: bool,
    /// Whether it is a slice, `Vec` or array of rows ([`row_elem`]): indexed `a[i][j]`, its `len()` the rows'.
    pub rows: bool,
}

impl NdArray {
    /// The statements that bind the extents and the flat slice.
    pub(crate) fn bindings(&self) -> TokenStream {
        let (var, flat, elem) = (&self.var, &self.flat, &self.elem);
        let d = self.extents.len();
        let name = var.to_string();
        let shape = format_ident!("__omp_shape_{}", var);
        let extents = &self.extents;
        let ks = 0..d;
        let nd = quote!(::omp::__private::nd);
        // Called as trait functions on the array itself (not as methods, which an inherent method could shadow).
        let shared = if self.by_ref { quote!(&*#var) } else { quote!(&#var) };
        let slice = if self.mapped {
            TokenStream::new()
        } else if self.written {
            let place = if self.by_ref { quote!(&mut *#var) } else { quote!(&mut #var) };
            quote!(let #flat: &mut [#elem] = #nd::standard_mut(#nd::NdArrayMut::__omp_nd_flat_mut(#place), #name);)
        } else {
            quote!(let #flat: &[#elem] = #nd::standard(#nd::NdArray::__omp_nd_flat(#shared), #name);)
        };
        quote! {
            let #shape: [usize; #d] = #nd::shape::<#d>(&#nd::NdArray::__omp_nd_shape(#shared), #name);
            #(let #extents: usize = #shape[#ks];)*
            #slice
        }
    }

    /// The types the lowering sees for the new locals.
    pub(crate) fn types(&self) -> Vec<(String, Type)> {
        let elem = &self.elem;
        let flat: Type = if self.written { syn::parse_quote!(&mut [#elem]) } else { syn::parse_quote!(&[#elem]) };
        let mut out = vec![(self.flat.to_string(), flat)];
        if self.mapped {
            // The token keeps its name; the lowering sees it as a mapped slice (`mapped` names it).
            out[0].0 = self.var.to_string();
        }
        out.extend(self.extents.iter().map(|e| (e.to_string(), syn::parse_quote!(usize))));
        out
    }
}

/// How many axes `var` is indexed with in `f` when some index of it is an array of two or three (`a[[i, j]]`):
/// ndarray's form. (A tuple, `g[(i, j)]`, is as often a user type's own `Index` impl.)
pub(crate) fn axes_indexed(f: &ExprForLoop, var: &str) -> Option<usize> {
    struct Find<'a> {
        var: &'a str,
        axes: Option<usize>,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_index(&mut self, ix: &'ast syn::ExprIndex) {
            let named = matches!(&*ix.expr, Expr::Path(p) if p.path.is_ident(self.var));
            let axes = match &*ix.index {
                Expr::Array(a) => a.elems.len(),
                _ => 0,
            };
            if named && (2..=3).contains(&axes) {
                self.axes.get_or_insert(axes);
            }
            syn::visit::visit_expr_index(self, ix);
        }
    }
    let mut find = Find { var, axes: None };
    find.visit_expr_for_loop(f);
    find.axes
}

/// The loop's ndarray variables and the loop rewritten to use their flat slices; `None` when it indexes none.
pub(crate) fn rewrite(f: &ExprForLoop, types: &TypeEnv) -> Option<(Vec<NdArray>, ExprForLoop)> {
    let mut uses = Uses::default();
    uses.visit_expr_for_loop(f);
    // Names of the loop and of the locals made so far: a new local takes none of them.
    let mut taken = idents_in(f.to_token_stream());
    let mut fresh = |base: String| {
        let mut name = base;
        while taken.contains(&name) {
            name.push('_');
        }
        taken.insert(name.clone());
        Ident::new(&name, Span::call_site())
    };
    let mut arrays: BTreeMap<String, NdArray> = BTreeMap::new();
    for var in &uses.indexed {
        if uses.rebound.contains(var) || uses.in_macros.contains(var) {
            continue;
        }
        let Some(Some(ty)) = types.lookup(var) else { continue };
        let Some((elem, d)) = nd_type(ty) else { continue };
        // Inside a `target_data` block the name is the block's token (a value), whatever the array's declaration.
        let mapped = types.is_mapped(var);
        let by_ref = matches!(ty, Type::Reference(_)) && !mapped;
        let flat = if mapped { Ident::new(var, Span::call_site()) } else { fresh(format!("{var}_flat")) };
        let extents = (0..d).map(|k| fresh(format!("{var}_n{k}"))).collect();
        let written = uses.written.contains(var);
        let rows = row_elem(ty).is_some();
        // Rows used otherwise than element by element (`a[i]` as a whole row, `a.iter()`) stay as written, whole.
        if rows && !mapped && whole_uses(f, var) {
            continue;
        }
        let var_ident = Ident::new(var, Span::call_site());
        arrays.insert(var.clone(), NdArray { var: var_ident, flat, extents, elem, written, by_ref, mapped, rows });
    }
    if arrays.is_empty() {
        return None;
    }
    let mut out = f.clone();
    let mut rw = Rewrite { arrays: &arrays, changed: 0 };
    rw.visit_expr_mut(&mut out.expr);
    rw.visit_block_mut(&mut out.body);
    // Nothing to replace (an index ndarray does not take, such as `a[i]` on two axes): leave the loop as written.
    (rw.changed > 0).then(|| (arrays.into_values().collect(), out))
}

/// Whether the loop uses the array of rows `var` otherwise than as `var[i][j]`, `var.len()` and `var[i].len()`.
fn whole_uses(f: &ExprForLoop, var: &str) -> bool {
    struct Whole<'a> {
        var: &'a str,
        found: bool,
    }
    impl Whole<'_> {
        fn is_var(&self, e: &Expr) -> bool {
            matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.var))
        }
    }
    impl<'ast> Visit<'ast> for Whole<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Index(ix) => match &*ix.expr {
                    Expr::Index(row) if self.is_var(&row.expr) => {
                        self.visit_expr(&row.index);
                        self.visit_expr(&ix.index);
                        return;
                    }
                    _ => {}
                },
                Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                    if self.is_var(&m.receiver) {
                        return;
                    }
                    if let Expr::Index(row) = &*m.receiver {
                        if self.is_var(&row.expr) {
                            self.visit_expr(&row.index);
                            return;
                        }
                    }
                }
                _ if self.is_var(e) => {
                    self.found = true;
                    return;
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            self.found |= idents_in(m.tokens.clone()).contains(self.var);
        }
    }
    let mut w = Whole { var, found: false };
    w.visit_expr_for_loop(f);
    w.found
}

#[derive(Default)]
struct Uses {
    /// Variables indexed with `[[..]]`, `[(..)]` or a plain index.
    indexed: BTreeSet<String>,
    /// Variables whose element the loop writes.
    written: BTreeSet<String>,
    /// Names the loop binds (patterns).
    rebound: BTreeSet<String>,
    /// Names a macro of the loop mentions.
    in_macros: BTreeSet<String>,
}

/// The variable an indexing (`a[[i, j]]`, `a[i][j]`) starts from.
fn indexed_var(e: &Expr) -> Option<String> {
    match e {
        Expr::Index(ix) => match &*ix.expr {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
            inner => indexed_var(inner),
        },
        Expr::Paren(p) => indexed_var(&p.expr),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_expr_index(&mut self, ix: &'ast syn::ExprIndex) {
        if let Some(v) = indexed_var(&Expr::Index(ix.clone())) {
            self.indexed.insert(v);
        }
        syn::visit::visit_expr_index(self, ix);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some(v) = indexed_var(&a.left) {
            self.written.insert(v);
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if crate::syntax::place::is_compound_assign(&b.op) {
            if let Some(v) = indexed_var(&b.left) {
                self.written.insert(v);
            }
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        if r.mutability.is_some() {
            if let Some(v) = indexed_var(&r.expr) {
                self.written.insert(v);
            }
        }
        syn::visit::visit_expr_reference(self, r);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.rebound.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.in_macros.extend(idents_in(m.tokens.clone()));
    }
}

struct Rewrite<'a> {
    arrays: &'a BTreeMap<String, NdArray>,
    /// Expressions replaced so far.
    changed: usize,
}

impl Rewrite<'_> {
    fn array_of(&self, e: &Expr) -> Option<&NdArray> {
        match e {
            Expr::Path(p) if p.qself.is_none() => self.arrays.get(&p.path.get_ident()?.to_string()),
            _ => None,
        }
    }

    /// `a[i][j]` on an array of rows: the array and the two indices.
    fn row_indexing<'e>(&self, ix: &'e syn::ExprIndex) -> Option<(&NdArray, Vec<&'e Expr>)> {
        let Expr::Index(row) = &*ix.expr else { return None };
        let a = self.array_of(&row.expr).filter(|a| a.rows)?;
        Some((a, vec![&*row.index, &*ix.index]))
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // `a[i][j]` on rows: the outer indexing is rewritten whole, its inner `a[i]` (a row) left alone.
        let rows = matches!(&*e, Expr::Index(ix) if self.row_indexing(ix).is_some());
        if rows {
            if let Expr::Index(ix) = e {
                if let Expr::Index(row) = &mut *ix.expr {
                    self.visit_expr_mut(&mut row.index);
                }
                self.visit_expr_mut(&mut ix.index);
            }
        } else {
            syn::visit_mut::visit_expr_mut(self, e);
        }
        let below: syn::Path = syn::parse_str(BELOW).unwrap_or_else(|_| syn::parse_quote!(below));
        let replaced: Option<Expr> = match &*e {
            Expr::Index(ix) => self
                .row_indexing(ix)
                .or_else(|| self.array_of(&ix.expr).filter(|a| !a.rows).map(|a| (a, Vec::new())))
                .and_then(|(a, rows)| {
                    let indices: Vec<&Expr> = match &*ix.index {
                        _ if !rows.is_empty() => rows,
                        Expr::Array(arr) => arr.elems.iter().collect(),
                        Expr::Tuple(t) => t.elems.iter().collect(),
                        // `v[i]` on a one-axis array: the flat slice's own bound check is the axis's.
                        single if a.extents.len() == 1 => vec![single],
                        _ => return None,
                    };
                    if indices.len() != a.extents.len() {
                        return None;
                    }
                    // Spanned at the user's `a[[i, j]]`, so that messages about the access point there.
                    let at = syn::spanned::Spanned::span(&*ix);
                    let below = respan(below.to_token_stream(), at);
                    let mut flat: Option<TokenStream> = None;
                    for (i, n) in indices.iter().zip(&a.extents) {
                        let n = Ident::new(&n.to_string(), at);
                        let checked = quote::quote_spanned!(at=> #below(#i, #n));
                        flat = Some(match flat {
                            None => checked,
                            Some(prev) => quote::quote_spanned!(at=> (#prev) * #n + #checked),
                        });
                    }
                    let (var, flat) = (Ident::new(&a.flat.to_string(), syn::spanned::Spanned::span(&ix.expr)), flat?);
                    syn::parse2(quote::quote_spanned!(at=> #var[#flat])).ok()
                }),
            Expr::MethodCall(m) if m.args.is_empty() => match &*m.receiver {
                // A row's length (`a[i].len()`), the rows' extent: a plain variable, so that a loop to it has a bound
                // the analysis reads. `i` is not checked here (every row has that length); the elements' accesses
                // check it.
                Expr::Index(r) if m.method == "len" => self.array_of(&r.expr).filter(|a| a.rows).map(|a| {
                    let n1 = &a.extents[1];
                    syn::parse_quote!(#n1)
                }),
                receiver => self.array_of(receiver).and_then(|a| {
                    let n = &a.extents;
                    let axis = |k: usize| -> Expr {
                        let e = &n[k];
                        syn::parse_quote!(#e)
                    };
                    match (m.method.to_string().as_str(), n.len()) {
                        // A slice of rows' `len()` counts its rows.
                        ("len", _) if a.rows => Some(axis(0)),
                        ("nrows", 2) => Some(axis(0)),
                        ("ncols", 2) => Some(axis(1)),
                        ("len", _) => syn::parse2(quote!((1usize #(* #n)*))).ok(),
                        ("dim", 1) => Some(axis(0)),
                        ("dim", _) => syn::parse2(quote!((#(#n),*))).ok(),
                        _ => None,
                    }
                }),
            },
            _ => None,
        };
        if let Some(r) = replaced {
            *e = r;
            self.changed += 1;
        }
    }
}

/// `ts` with every token at `span`.
fn respan(ts: TokenStream, span: Span) -> TokenStream {
    ts.into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut inner = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                inner.set_span(span);
                tt = TokenTree::Group(inner);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn rewrites_rows_and_leaves_whole_rows() {
        let mut env = TypeEnv::default();
        env.bind("a", Some(syn::parse_quote!(&[[f64; 4]])));
        env.bind("c", Some(syn::parse_quote!(&mut [[f64; 4]])));
        env.bind("r", Some(syn::parse_quote!(&[[f64; 4]])));
        let f: ExprForLoop = syn::parse_quote!(for i in 0..c.len() {
            for j in 0..c[i].len() {
                c[i][j] = a[i][j] + r[i].iter().sum::<f64>();
            }
        });
        let Some((arrays, out)) = rewrite(&f, &env) else { panic!("nothing rewritten") };
        let names: Vec<(String, bool)> = arrays.iter().map(|a| (a.var.to_string(), a.written)).collect();
        assert_eq!(names, [("a".into(), false), ("c".into(), true)]);
        let text = out.to_token_stream().to_string();
        assert!(text.contains("0 .. c_n0"), "{text}");
        assert!(text.contains("0 .. c_n1"), "{text}");
        assert!(
            text.contains(
                "c_flat [(:: omp :: __private :: nd :: below (i , c_n0)) * c_n1 + :: omp :: __private :: nd :: below (j , c_n1)]"
            ),
            "{text}"
        );
        assert!(text.contains("r [i] . iter ()"), "{text}");
    }

    #[test]
    fn rewrites_indexing_and_extents() {
        let mut env = TypeEnv::default();
        env.bind("a", Some(syn::parse_quote!(&mut Array2<f64>)));
        env.bind("b", Some(syn::parse_quote!(&Array2<f64>)));
        let f: ExprForLoop = syn::parse_quote!(for i in 0..a.nrows() {
            for j in 0..a.ncols() {
                a[[i, j]] += b[(i, j)];
            }
        });
        let rewritten = rewrite(&f, &env);
        assert!(rewritten.is_some(), "nothing rewritten");
        let Some((arrays, out)) = rewritten else { return };
        assert_eq!(arrays.iter().map(|a| (a.var.to_string(), a.written)).collect::<Vec<_>>(), [("a".into(), true), ("b".into(), false)]);
        let text = out.to_token_stream().to_string();
        assert!(text.contains("0 .. a_n0"), "{text}");
        assert!(
            text.contains(
                "a_flat [(:: omp :: __private :: nd :: below (i , a_n0)) * a_n1 + :: omp :: __private :: nd :: below (j , a_n1)]"
            ),
            "{text}"
        );
        assert!(text.contains("b_flat ["), "{text}");
    }
}
