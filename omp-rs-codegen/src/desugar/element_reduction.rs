//! Reductions on array elements: OpenMP's `reduction(max: d[0])` and `reduction(+: beta[0:3])`, written
//! `reduction(max: d[0])` and `reduction(+: beta[..3])` on a loop statement of a `#[omp::directives]` fn.
//!
//! OpenMP gives each thread a private copy of the listed elements and combines them into the elements at the end,
//! which is a scalar reduction per element; [`rewrite`] writes it so before the loop is lowered:
//!
//! ```ignore
//! let mut __omp_red_d_0: f32 = d[0];                 // a host array: the element's value
//! #[omp::target_teams_distribute_parallel_for(reduction(max: __omp_red_d_0))]
//! for i in 0..n { .. __omp_red_d_0 = __omp_red_d_0.max(v) .. }   // the body's `d[0]`
//! d[0] = __omp_red_d_0;
//! ```
//!
//! A scalar reduction ends with its value before the loop combined with every contribution, so the element ends as
//! OpenMP says. When the array is mapped by an enclosing `target_data` block (its current value is on the device),
//! the scalar starts at the operator's identity and a serial target region combines it into the device's element
//! (`#[omp::target] { d[0] = d[0].max(r); }`, the reduction table's combiners: integers wrap, a float `max` ignores
//! a NaN, as the scalar reductions do).
//!
//! Fields reduce the same way (`reduction(+: acc.0, acc.1)` on a tuple, `reduction(+: stats.sum)` on a local
//! struct): each field a scalar started at its value and assigned after the loop; a kernel takes each scalar's type
//! from the tuple's declared (or evident) type.
//!
//! The elements are named by literal indices (`d[0]`, `beta[..3]`, `beta[1..=2]`, at most 64), the loop uses the
//! array only at those elements, and its element type is declared; anything else is refused with the fix, as is a
//! mapped array on a host loop (reduce in a target region) and a section reduction inside a `#[omp::target]` block.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::parse::Parser;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Stmt};

use crate::analyze::types::TypeEnv;
use crate::ctxt::Ctxt;
use crate::model::{Leaves, ReductionOp};
use crate::syntax::body::find_omp_attr;

/// Most elements one array's reduction may list (each is a scalar of its own).
const MOST: u64 = 64;

/// One reduced array, tuple or struct: its name and the parts reduced.
struct Elements {
    var: Ident,
    parts: Vec<Part>,
}

/// A reduced part: an element by its literal index (`d[0]`) or a field (`acc.0`, `stats.sum`).
#[derive(Clone, PartialEq)]
enum Part {
    Index(u64),
    Field(syn::Member),
}

impl Elements {
    /// The scalar standing for `part` in the loop.
    fn name(&self, part: &Part) -> Ident {
        match part {
            Part::Index(k) => format_ident!("__omp_red_{}_{}", self.var, k),
            Part::Field(syn::Member::Unnamed(i)) => format_ident!("__omp_red_{}_f{}", self.var, i.index),
            Part::Field(syn::Member::Named(f)) => format_ident!("__omp_red_{}_f_{}", self.var, f),
        }
    }

    /// The part as the code outside the loop names it.
    fn place(&self, part: &Part) -> TokenStream {
        let var = &self.var;
        match part {
            Part::Index(k) => {
                let k = syn::LitInt::new(&format!("{k}usize"), Span::call_site());
                quote!(#var[#k])
            }
            Part::Field(m) => quote!(#var.#m),
        }
    }
}

/// When `stmt` is a loop directive with a reduction on array elements: the statements that replace it; `Err(())`
/// when it is one but refused (reported to `cx`).
pub(crate) fn rewrite(stmt: &Stmt, types: &TypeEnv, in_target: bool, cx: &Ctxt) -> Option<Result<Vec<Stmt>, ()>> {
    let Stmt::Expr(Expr::ForLoop(fl), semi) = stmt else { return None };
    let attr = find_omp_attr(&fl.attrs)?;
    let construct = crate::syntax::parse::construct(&attr.name, &Ctxt::scratch())?;
    if !construct.is_loop() {
        return None;
    }
    // The clauses as written, each reduction's element items replaced by their scalars.
    let mut reduced: Vec<(ReductionOp, Elements)> = Vec::new();
    let mut args = TokenStream::new();
    let mut refused = false;
    for (name, tokens) in crate::syntax::parse::clause_chunks(&attr.args) {
        let group = tokens.clone().into_iter().nth(1);
        match (name.as_str(), group) {
            ("reduction", Some(TokenTree::Group(g))) if g.delimiter() == Delimiter::Parenthesis && has_elements(&g.stream()) => {
                match clause(g.stream(), cx) {
                    Ok((op, op_tokens, items)) => {
                        let mut list = Vec::new();
                        for item in items {
                            match item {
                                Item::Scalar(tokens) => list.push(tokens),
                                Item::Elements(e) => {
                                    list.extend(e.parts.iter().map(|k| e.name(k).into_token_stream()));
                                    reduced.push((op.clone(), e));
                                }
                            }
                        }
                        args.extend(quote!(reduction(#op_tokens: #(#list),*),));
                    }
                    Err(()) => refused = true,
                }
            }
            _ => args.extend(quote!(#tokens,)),
        }
    }
    if reduced.is_empty() && !refused {
        return None;
    }
    if refused {
        return Some(Err(()));
    }
    let target = construct.leaves().contains(Leaves::TARGET);
    let (mut before, mut after, mut back) = (Vec::new(), Vec::new(), Vec::new());
    for (op, e) in &reduced {
        let var = &e.var;
        let fields = e.parts.iter().all(|p| matches!(p, Part::Field(_)));
        let declared = types.lookup(&var.to_string()).flatten();
        if fields {
            // A tuple's or struct's fields (a local, never mapped): each a scalar reduction started at its value. A
            // kernel needs each scalar's type, which a tuple's declared type gives.
            for part in &e.parts {
                let (name, place) = (e.name(part), e.place(part));
                let ty = match (part, declared) {
                    (Part::Field(syn::Member::Unnamed(i)), Some(syn::Type::Tuple(t))) => t.elems.iter().nth(i.index as usize).cloned(),
                    _ => None,
                };
                match ty {
                    Some(ty) => before.push(quote!(let mut #name: #ty = #place;)),
                    None if target => {
                        cx.error_spanned_by(
                            var,
                            format!(
                                "a reduction on fields of `{var}` in a target region needs their types: declare `{var}` as a \
                                 tuple with its type (`let mut {var}: (f64, f64) = (0.0, 0.0);`), or reduce into typed locals \
                                 and assign the fields after the loop"
                            ),
                        );
                        return Some(Err(()));
                    }
                    None => before.push(quote!(let mut #name = #place;)),
                }
                after.push(quote!(#place = #name;));
            }
            continue;
        }
        if !e.parts.iter().all(|p| matches!(p, Part::Index(_))) {
            cx.error_spanned_by(var, format!("a reduction names elements or fields of `{var}`, not both"));
            return Some(Err(()));
        }
        let Some(elem) = declared.and_then(element_scalar) else {
            cx.error_spanned_by(
                var,
                format!(
                    "a reduction on elements of `{var}` needs their type: declare `{var}` with its type (`{var}: &mut [f64]`, \
                     `let mut {var}: Vec<f32> = ..`)"
                ),
            );
            return Some(Err(()));
        };
        let ty: syn::Type = syn::parse_str(&elem).ok()?;
        let mapped = types.is_mapped(&var.to_string());
        if mapped && (!target || in_target) {
            cx.error_spanned_by(
                var,
                format!(
                    "`{var}` is mapped by the enclosing `target_data` block: reduce into its elements from a combined target \
                     loop directive (`#[omp::target_teams_distribute_parallel_for(reduction(..))]`), whose device copy the \
                     result is combined into"
                ),
            );
            return Some(Err(()));
        }
        for part in &e.parts {
            let (name, place) = (e.name(part), e.place(part));
            if mapped {
                let identity = identity(op, &elem);
                before.push(quote!(let mut #name: #ty = #identity;));
                let combined = combine(op, &elem, place.clone(), quote!(#name));
                back.push(quote!(#place = #combined;));
            } else {
                before.push(quote!(let mut #name: #ty = #place;));
                after.push(quote!(#place = #name;));
            }
        }
    }
    let mut fl = fl.clone();
    let mut uses = ElementUses { reduced: &reduced, cx, ok: true };
    uses.visit_block_mut(&mut fl.body);
    if !uses.ok {
        return Some(Err(()));
    }
    let name = &attr.name;
    fl.attrs[attr.index] = syn::parse_quote!(#[omp::#name(#args)]);
    let semi = semi.map(|_| quote!(;));
    let back = (!back.is_empty()).then(|| quote!(#[omp::target] { #(#back)* }));
    let out = quote!({ #(#before)* #fl #semi #(#after)* #back });
    match syn::parse2::<syn::Block>(out) {
        Ok(b) => Some(Ok(b.stmts)),
        Err(e) => {
            cx.syn_error(e);
            Some(Err(()))
        }
    }
}

/// Whether a reduction clause's list names an element or a field (`x[..]`, `x.0` at its top level).
fn has_elements(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Group(g) => g.delimiter() == Delimiter::Bracket,
        TokenTree::Punct(p) => p.as_char() == '.',
        _ => false,
    })
}

/// An item of a reduction's list.
enum Item {
    Scalar(TokenStream),
    Elements(Elements),
}

/// `op: items` of a reduction clause: the operator, its tokens, the items.
fn clause(tokens: TokenStream, cx: &Ctxt) -> Result<(ReductionOp, TokenStream, Vec<Item>), ()> {
    let all: Vec<TokenTree> = tokens.into_iter().collect();
    let colon = all.iter().position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ':')).ok_or(())?;
    let op_tokens: TokenStream = all[..colon].iter().cloned().collect();
    let op = (|input: syn::parse::ParseStream| crate::syntax::parse::reduction_op(input))
        .parse2(op_tokens.clone())
        .map_err(|e| cx.syn_error(e))?;
    if let ReductionOp::User(name) = &op {
        cx.error_spanned_by(
            name,
            format!(
                "a user-defined reduction (`{name}`) reduces variables, not array elements or fields: reduce into a local \
                 variable and store it after the loop"
            ),
        );
        return Err(());
    }
    let mut items = Vec::new();
    for chunk in all[colon + 1..].split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        match chunk {
            [] => {}
            [TokenTree::Ident(_)] => items.push(Item::Scalar(chunk.iter().cloned().collect())),
            [TokenTree::Ident(var), TokenTree::Group(g)] if g.delimiter() == Delimiter::Bracket => {
                let parts = indices(var, g, cx)?.into_iter().map(Part::Index).collect();
                items.push(Item::Elements(Elements { var: var.clone(), parts }));
            }
            [TokenTree::Ident(var), TokenTree::Punct(dot), member] if dot.as_char() == '.' => {
                let Ok(member) = syn::parse2::<syn::Member>(member.clone().into()) else {
                    cx.error_spanned_by(member.clone(), "a reduction names a field as `acc.0` or `stats.sum`");
                    return Err(());
                };
                items.push(Item::Elements(Elements { var: var.clone(), parts: vec![Part::Field(member)] }));
            }
            other => {
                let tokens: TokenStream = other.iter().cloned().collect();
                cx.error_spanned_by(tokens, "a reduction lists variables (`s`), array elements (`d[0]`, `beta[..3]`) or fields (`acc.0`)");
                return Err(());
            }
        }
    }
    Ok((op, op_tokens, items))
}

/// The literal indices `x[k]`, `x[a..b]`, `x[..b]`, `x[a..=b]` name.
fn indices(var: &Ident, g: &proc_macro2::Group, cx: &Ctxt) -> Result<Vec<u64>, ()> {
    let refuse = || {
        cx.error_spanned_by(
            g,
            format!(
                "a reduction on elements of `{var}` names them by literal indices: `{var}[0]`, `{var}[..3]` (C's \
                 `{var}[0:3]`), `{var}[1..=2]`, at most {MOST}; reduce other sections into scalars and write them back"
            ),
        );
    };
    let lit = |e: &Expr| match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u64>().ok(),
        _ => None,
    };
    let range = match syn::parse2::<Expr>(g.stream()) {
        Ok(Expr::Range(r)) => {
            let start = match &r.start {
                Some(s) => lit(s),
                None => Some(0),
            };
            let end = r.end.as_deref().and_then(lit).map(|e| if matches!(r.limits, syn::RangeLimits::Closed(_)) { e + 1 } else { e });
            start.zip(end)
        }
        Ok(e) => lit(&e).map(|k| (k, k + 1)),
        Err(_) => None,
    };
    match range {
        Some((a, b)) if a < b && b - a <= MOST => Ok((a..b).collect()),
        _ => {
            refuse();
            Err(())
        }
    }
}

/// The element type of a slice, array or `Vec` of a primitive number or `bool`, through references.
fn element_scalar(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => element_scalar(&r.elem),
        syn::Type::Paren(p) => element_scalar(&p.elem),
        syn::Type::Slice(s) => crate::analyze::types::scalar_name(&s.elem),
        syn::Type::Array(a) => crate::analyze::types::scalar_name(&a.elem),
        // `Vec<T>`, and a `target_data` token's type in a function that takes one (`&mut omp::MappedMut<'_, '_, T>`).
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
            if !["Vec", "MappedMut", "MappedRef"].iter().any(|n| last.ident == n) {
                return None;
            }
            a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => crate::analyze::types::scalar_name(t),
                _ => None,
            })
        }
        _ => None,
    }
}

fn is_float(elem: &str) -> bool {
    matches!(elem, "f32" | "f64")
}

/// The operator's identity for `elem` (OpenMP's initializers).
fn identity(op: &ReductionOp, elem: &str) -> TokenStream {
    let ty: syn::Type = syn::parse_str(elem).unwrap_or_else(|_| syn::parse_quote!(f64));
    match op {
        ReductionOp::Add | ReductionOp::BitOr | ReductionOp::BitXor if elem == "bool" => quote!(false),
        ReductionOp::Add | ReductionOp::BitOr | ReductionOp::BitXor => quote!(0 as #ty),
        ReductionOp::Mul => quote!(1 as #ty),
        ReductionOp::BitAnd if elem == "bool" => quote!(true),
        ReductionOp::BitAnd => quote!(!(0 as #ty)),
        ReductionOp::LogAnd => quote!(true),
        ReductionOp::LogOr => quote!(false),
        ReductionOp::Max if is_float(elem) => quote!(#ty::NEG_INFINITY),
        ReductionOp::Max => quote!(#ty::MIN),
        ReductionOp::Min if is_float(elem) => quote!(#ty::INFINITY),
        ReductionOp::Min => quote!(#ty::MAX),
        // Refused by `clause`.
        ReductionOp::User(name) => quote!(<#name as ::omp::__private::reduce::Reducer<#ty>>::identity()),
    }
}

/// The combiner of `a` (the element) and `b` (the reduced scalar): `omp_rs_abi::reduce`'s, which the scalar
/// reductions use (integer sums and products wrap; a float `min` / `max` ignores a NaN operand), spelled out because
/// the serial region's code is compiled for the host and the device alike.
fn combine(op: &ReductionOp, elem: &str, a: TokenStream, b: TokenStream) -> TokenStream {
    let int = !is_float(elem) && elem != "bool";
    match op {
        ReductionOp::Add if int => quote!(#a.wrapping_add(#b)),
        ReductionOp::Add => quote!(#a + #b),
        ReductionOp::Mul if int => quote!(#a.wrapping_mul(#b)),
        ReductionOp::Mul => quote!(#a * #b),
        ReductionOp::BitAnd => quote!(#a & #b),
        ReductionOp::BitOr => quote!(#a | #b),
        ReductionOp::BitXor => quote!(#a ^ #b),
        ReductionOp::LogAnd => quote!(#a && #b),
        ReductionOp::LogOr => quote!(#a || #b),
        ReductionOp::Max if is_float(elem) => quote!(#a.max(#b)),
        ReductionOp::Min if is_float(elem) => quote!(#a.min(#b)),
        ReductionOp::Max => quote!(if #b > #a { #b } else { #a }),
        ReductionOp::Min => quote!(if #b < #a { #b } else { #a }),
        // Refused by `clause`.
        ReductionOp::User(name) => quote!(#name(#a, #b)),
    }
}

/// The loop body's `x[k]` of a reduced element becomes its scalar; any other use of a reduced array is refused.
struct ElementUses<'a> {
    reduced: &'a [(ReductionOp, Elements)],
    cx: &'a Ctxt,
    ok: bool,
}

impl ElementUses<'_> {
    /// The reductions of `ident`'s parts, if it is reduced.
    fn of(&self, ident: &Ident) -> Option<&Elements> {
        self.reduced.iter().map(|(_, e)| e).find(|e| e.var == *ident)
    }

    /// The scalar of `var`'s `part`, if a reduction names it.
    fn scalar(&self, var: &Ident, part: &Part) -> Option<Ident> {
        self.reduced.iter().map(|(_, e)| e).find(|e| e.var == *var && e.parts.contains(part)).map(|e| e.name(part))
    }

    fn refuse(&mut self, at: &dyn ToTokens, var: &Ident) {
        self.cx.error_spanned_by(
            at,
            format!(
                "the loop reduces parts of `{var}`: it may use `{var}` only at those parts, each named as in the clause \
                 (`{var}[0]` by its literal index, `{var}.0`)"
            ),
        );
        self.ok = false;
    }
}

impl VisitMut for ElementUses<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let (base, part, span) = match e {
            Expr::Index(ix) => {
                let k = match &*ix.index {
                    Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u64>().ok(),
                    _ => None,
                };
                (&*ix.expr, k.map(Part::Index), syn::spanned::Spanned::span(&*ix))
            }
            Expr::Field(f) => (&*f.base, Some(Part::Field(f.member.clone())), syn::spanned::Spanned::span(&*f)),
            _ => {
                visit_mut::visit_expr_mut(self, e);
                return;
            }
        };
        let Some(var) = (match base {
            Expr::Path(p) => p.path.get_ident().filter(|i| self.of(i).is_some()).cloned(),
            _ => None,
        }) else {
            visit_mut::visit_expr_mut(self, e);
            return;
        };
        match part.and_then(|part| self.scalar(&var, &part)) {
            Some(name) => *e = syn::parse_quote_spanned!(span=> #name),
            None => self.refuse(&*e, &var),
        }
    }

    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        if let Some(var) = p.get_ident().filter(|i| self.of(i).is_some()).cloned() {
            self.refuse(&*p, &var);
        }
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if let Some(elems) = self.of(&p.ident) {
            self.cx.error_spanned_by(
                &p.ident,
                format!("`{}` is reduced at elements of the loop: a local of the same name would hide it; rename the local", elems.var),
            );
            self.ok = false;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
