//! How a reduction's partial values combine with each other and with the variable's value before the loop, so that
//! the parallel result is the sequential loop's for the form the user wrote.
//!
//! Each thread (and each GPU team) starts its copy at the operator's identity and runs the user's update on it; the
//! copies are then combined, in thread order, into the original value. For `max`/`min` the combination is where the
//! forms differ: `m = m.max(x)` is IEEE maxNum (a NaN start becomes a number), `if x > m { m = x }` keeps a NaN start
//! (no number compares greater than NaN). So an `if` form combines with the body's own comparison
//! ([`Combine::Compare`]); a float update of another form is refused with the forms to write.
//!
//! `ok = ok && e` under `reduction(&&: ok)` skips `e` once `ok` is false in the sequential loop, but every thread
//! starts its `ok` at `true` and so evaluates `e` where the sequential loop does not: unless `e` cannot fail nor
//! have an effect (names, literals, comparisons, field reads), the form is refused with `ok = e && ok`, which
//! evaluates `e` in every iteration in both.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::visit::Visit;
use syn::{BinOp, Expr, Ident};

use crate::ctxt::Ctxt;
use crate::model::ReductionOp;

/// How the partial values of one reduction variable combine.
#[derive(Debug, Clone)]
pub enum Combine {
    /// With the operator's `Reducer::combine`.
    Op,
    /// With the body's comparison: `|acc, v| if <acc and v compared as the body compares m and x> { v } else { acc }`.
    Compare(TokenStream),
}

impl Combine {
    /// The combining function as an expression of type `fn(T, T) -> T` (`reducer`: the `Reducer` path for `Op`).
    pub fn function(&self, reducer: TokenStream) -> TokenStream {
        match self {
            Combine::Op => reducer,
            Combine::Compare(f) => f.clone(),
        }
    }
}

/// The combination for `var` under `op` in `body` (reporting forms whose meaning it cannot keep); `dims`: the
/// region's loops (an element `a[i]` of a loop `for i in 0..a.len()` is always there to read).
pub(crate) fn combine(
    body: &syn::Block,
    var: &Ident,
    op: &ReductionOp,
    ty: Option<&str>,
    dims: &[crate::syntax::loops::LoopDim],
    cx: &Ctxt,
) -> Combine {
    let mut updates = Updates { var, found: Vec::new() };
    updates.visit_block(body);
    match op {
        ReductionOp::Max | ReductionOp::Min => extremum(&updates.found, var, op, ty, cx),
        ReductionOp::LogAnd | ReductionOp::LogOr => {
            for u in &updates.found {
                short_circuit(u, var, op, dims, cx);
            }
            Combine::Op
        }
        _ => Combine::Op,
    }
}

/// One statement of the body that assigns the variable.
#[derive(Debug, Clone)]
enum Update {
    /// `var = value` (the whole assignment, and the `if` it is the only statement of, if any).
    Assign { value: Expr, guard: Option<Expr> },
    /// Anything else that writes it (`var += ..`).
    Other,
}

struct Updates<'a> {
    var: &'a Ident,
    found: Vec<Update>,
}

impl Updates<'_> {
    fn is_var(&self, e: &Expr) -> bool {
        matches!(strip(e), Expr::Path(p) if p.path.is_ident(self.var))
    }
}

impl<'ast> Visit<'ast> for Updates<'_> {
    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        // `if cond { var = value }`: the guarded form.
        if i.else_branch.is_none() && i.then_branch.stmts.len() == 1 {
            if let syn::Stmt::Expr(Expr::Assign(a), _) = &i.then_branch.stmts[0] {
                if self.is_var(&a.left) {
                    self.found.push(Update::Assign { value: (*a.right).clone(), guard: Some((*i.cond).clone()) });
                    self.visit_expr(&i.cond);
                    self.visit_expr(&a.right);
                    return;
                }
            }
        }
        syn::visit::visit_expr_if(self, i);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if self.is_var(&a.left) {
            self.found.push(Update::Assign { value: (*a.right).clone(), guard: None });
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if crate::syntax::place::is_compound_assign(&b.op) && self.is_var(&b.left) {
            self.found.push(Update::Other);
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn same(a: &Expr, b: &Expr) -> bool {
    strip(a).to_token_stream().to_string() == strip(b).to_token_stream().to_string()
}

/// `max`/`min`: the method form combines with the operator; the `if` / `if`-expression form with its comparison.
fn extremum(updates: &[Update], var: &Ident, op: &ReductionOp, ty: Option<&str>, cx: &Ctxt) -> Combine {
    let integer = ty.is_some_and(|t| crate::analyze::types::INTEGERS.contains(&t));
    let mut compare: Option<TokenStream> = None;
    let mut methods = false;
    for u in updates {
        let form = match u {
            Update::Assign { value, guard: Some(cond) } => compared(cond, var, value),
            // `m = if x > m { x } else { m }`
            Update::Assign { value: Expr::If(i), guard: None } => if_expression(i, var),
            Update::Assign { value, guard: None } if method_form(value, var, op) => {
                methods = true;
                continue;
            }
            _ => None,
        };
        match (form, &compare) {
            (Some(f), None) => compare = Some(f),
            (Some(f), Some(c)) if f.to_string() == c.to_string() => {}
            _ if integer => return Combine::Op,
            _ => {
                let (m, f) = (var.to_string(), if *op == ReductionOp::Max { "max" } else { "min" });
                let cmp = if *op == ReductionOp::Max { ">" } else { "<" };
                cx.error_spanned_by(
                    var,
                    format!(
                        "`{m}` is reduced with `{f}`, and the parallel loop combines the threads' `{m}`s the way the body \
                         updates it; it can do so for `{m} = {m}.{f}(x)` and for `if x {cmp} {m} {{ {m} = x }}` (whose NaN \
                         behaviour differs), not for this form or a mix: write every update of `{m}` in one of those \
                         two forms"
                    ),
                );
                return Combine::Op;
            }
        }
    }
    match (compare, methods) {
        (Some(_), true) if !integer => {
            let m = var.to_string();
            cx.error_spanned_by(
                var,
                format!(
                    "`{m}` is updated both as `{m} = {m}.max(x)` and in an `if` form, whose NaN behaviour differs: the \
                     parallel combination can follow one of them; write every update of `{m}` in one form"
                ),
            );
            Combine::Op
        }
        (Some(c), _) if !integer => Combine::Compare(c),
        _ => Combine::Op,
    }
}

/// `m = m.max(x)`, `m = x.max(m)`, `m = f64::max(m, x)` (and `min`).
fn method_form(value: &Expr, var: &Ident, op: &ReductionOp) -> bool {
    let name = if *op == ReductionOp::Max { "max" } else { "min" };
    let is_var = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(var));
    match strip(value) {
        Expr::MethodCall(m) => m.method == name && m.args.len() == 1 && (is_var(&m.receiver) || is_var(&m.args[0])),
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name))
                && c.args.len() == 2
                && c.args.iter().any(is_var)
        }
        _ => false,
    }
}

/// The combining function of `if cond { var = value }` where `cond` compares `var` with `value`.
fn compared(cond: &Expr, var: &Ident, value: &Expr) -> Option<TokenStream> {
    let Expr::Binary(b) = strip(cond) else { return None };
    if !matches!(b.op, BinOp::Gt(_) | BinOp::Lt(_) | BinOp::Ge(_) | BinOp::Le(_)) {
        return None;
    }
    let is_var = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(var));
    let op = &b.op;
    let (acc, v) = (quote!(__omp_acc), quote!(__omp_v));
    let test = if is_var(&b.left) && same(&b.right, value) {
        quote!(#acc #op #v)
    } else if is_var(&b.right) && same(&b.left, value) {
        quote!(#v #op #acc)
    } else {
        return None;
    };
    Some(quote!(|#acc, #v| if #test { #v } else { #acc }))
}

/// `if cond { value } else { var }` (or the branches swapped, with the comparison's sense kept by `compared`).
fn if_expression(i: &syn::ExprIf, var: &Ident) -> Option<TokenStream> {
    let branch_expr = |b: &syn::Block| match b.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(e.clone()),
        _ => None,
    };
    let then = branch_expr(&i.then_branch)?;
    let Some((_, els)) = &i.else_branch else { return None };
    let Expr::Block(els) = &**els else { return None };
    let els = branch_expr(&els.block)?;
    let is_var = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(var));
    if is_var(&els) {
        compared(&i.cond, var, &then)
    } else {
        None
    }
}

/// `var = var && e` (`||`): refused unless `e` cannot fail nor have an effect.
fn short_circuit(u: &Update, var: &Ident, op: &ReductionOp, dims: &[crate::syntax::loops::LoopDim], cx: &Ctxt) {
    let Update::Assign { value, .. } = u else { return };
    let Expr::Binary(b) = strip(value) else { return };
    let matches_op = matches!((&b.op, op), (BinOp::And(_), ReductionOp::LogAnd) | (BinOp::Or(_), ReductionOp::LogOr));
    let is_var = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(var));
    if !matches_op || !is_var(&b.left) || inert(&b.right, dims) {
        return;
    }
    let (v, o) = (var.to_string(), if *op == ReductionOp::LogAnd { "&&" } else { "||" });
    let skipped = if *op == ReductionOp::LogAnd { "false" } else { "true" };
    let start = if *op == ReductionOp::LogAnd { "true" } else { "false" };
    cx.error_spanned_by(
        &b.right,
        format!(
            "`{v} = {v} {o} e` skips `e` once `{v}` is {skipped} in the sequential loop, but each thread starts its own \
             `{v}` at `{start}`, so `e` would run in iterations where the sequential loop does not run it (a panic or an \
             effect it never has): write `{v} = e {o} {v};` (`e` runs in every iteration, in both), or compute `e` \
             into a local first"
        ),
    );
}

/// Whether evaluating `e` can neither panic nor have an effect: names, literals, field reads, comparisons and
/// logic of those, and `a[i]` where the loop `for i in 0..a.len()` (or `k..a.len()`, `k` a literal) runs `i`
/// (no calls, other indexing, arithmetic that may overflow, macros).
fn inert(e: &Expr, dims: &[crate::syntax::loops::LoopDim]) -> bool {
    let me = |x: &Expr| inert(x, dims);
    match e {
        Expr::Path(_) | Expr::Lit(_) => true,
        Expr::Field(f) => me(&f.base),
        Expr::Paren(p) => me(&p.expr),
        Expr::Group(g) => me(&g.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)) && me(&u.expr),
        Expr::Binary(b) => {
            matches!(
                b.op,
                BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_) | BinOp::And(_) | BinOp::Or(_)
            ) && me(&b.left)
                && me(&b.right)
        }
        Expr::Cast(c) => me(&c.expr),
        Expr::Index(ix) => in_bounds(&ix.expr, &ix.index, dims),
        _ => false,
    }
}

/// `a[i]` with `i` the variable of a plain, ascending loop over `lit..a.len()`.
fn in_bounds(array: &Expr, index: &Expr, dims: &[crate::syntax::loops::LoopDim]) -> bool {
    let (Expr::Path(a), Expr::Path(i)) = (strip(array), strip(index)) else { return false };
    let (Some(a), Some(i)) = (a.path.get_ident(), i.path.get_ident()) else { return false };
    dims.iter().any(|d| {
        let start_lit = matches!(d.base.start.as_deref(), Some(Expr::Lit(_)));
        let end_len = matches!(d.base.end.as_deref().map(strip), Some(Expr::MethodCall(m)) if m.method == "len" && m.args.is_empty()
            && matches!(strip(&m.receiver), Expr::Path(p) if p.path.is_ident(a)));
        d.var.as_ref() == Some(i) && d.counts_by_one() && start_lit && end_len && matches!(d.base.limits, syn::RangeLimits::HalfOpen(_))
    })
}

#[cfg(test)]
mod test {
    use super::*;

    fn form(body: syn::Block, op: ReductionOp, ty: Option<&str>) -> Result<String, String> {
        let cx = Ctxt::scratch();
        let v: Ident = syn::parse_quote!(m);
        let dims = [crate::syntax::loops::LoopDim {
            var: Some(syn::parse_quote!(i)),
            range: syn::parse_quote!(0..x.len()),
            base: syn::parse_quote!(0..x.len()),
            adaptors: Vec::new(),
            span: proc_macro2::Span::call_site(),
        }];
        let c = combine(&body, &v, &op, ty, &dims, &cx);
        if cx.has_errors() {
            return Err("refused".into());
        }
        Ok(match c {
            Combine::Op => "op".into(),
            Combine::Compare(t) => t.to_string(),
        })
    }

    #[test]
    fn the_body_s_form_decides_the_combination() {
        assert_eq!(
            form(
                syn::parse_quote!({
                    m = m.max(x[i]);
                }),
                ReductionOp::Max,
                Some("f64")
            ),
            Ok("op".into())
        );
        assert_eq!(
            form(
                syn::parse_quote!({
                    if x[i] > m {
                        m = x[i];
                    }
                }),
                ReductionOp::Max,
                Some("f64")
            ),
            Ok("| __omp_acc , __omp_v | if __omp_v > __omp_acc { __omp_v } else { __omp_acc }".into())
        );
        assert_eq!(
            form(
                syn::parse_quote!({
                    if m > x[i] {
                        m = x[i];
                    }
                }),
                ReductionOp::Min,
                None
            ),
            Ok("| __omp_acc , __omp_v | if __omp_acc > __omp_v { __omp_v } else { __omp_acc }".into())
        );
        assert!(form(
            syn::parse_quote!({
                m = if x[i] > m { x[i] } else { m };
            }),
            ReductionOp::Max,
            None
        )
        .is_ok_and(|f| f != "op"));
        // Integers have no NaN: every form combines with the operator.
        assert_eq!(
            form(
                syn::parse_quote!({
                    if x[i] > m {
                        m = x[i];
                    }
                }),
                ReductionOp::Max,
                Some("i64")
            ),
            Ok("op".into())
        );
        assert_eq!(
            form(
                syn::parse_quote!({
                    if !(x[i] <= m) {
                        m = x[i];
                    }
                }),
                ReductionOp::Max,
                Some("u32")
            ),
            Ok("op".into())
        );
        // A float form whose NaN behaviour the combination cannot follow, or a mix.
        assert!(form(
            syn::parse_quote!({
                if !(x[i] <= m) {
                    m = x[i];
                }
            }),
            ReductionOp::Max,
            Some("f64")
        )
        .is_err());
        assert!(form(
            syn::parse_quote!({
                m = m.max(y[i]);
                if x[i] > m {
                    m = x[i];
                }
            }),
            ReductionOp::Max,
            None
        )
        .is_err());
    }

    #[test]
    fn short_circuits_that_could_run_what_the_sequential_loop_skips_are_refused() {
        let and = |b: syn::Block| form(b, ReductionOp::LogAnd, Some("bool"));
        assert!(and(syn::parse_quote!({
            m = m && x[i + 1] > 0.0;
        }))
        .is_err());
        assert!(
            and(syn::parse_quote!({
                m = m && y[i] > 0.0;
            }))
            .is_err(),
            "y may be shorter than x"
        );
        assert!(
            and(syn::parse_quote!({
                m = m && x[i] > 0.0;
            }))
            .is_ok(),
            "for i in 0..x.len(): x[i] is there"
        );
        assert!(and(syn::parse_quote!({
            m = m && check(i);
        }))
        .is_err());
        assert!(and(syn::parse_quote!({
            m = x[i] > 0.0 && m;
        }))
        .is_ok());
        assert!(and(syn::parse_quote!({
            let t = x[i] > 0.0;
            m = m && t;
        }))
        .is_ok());
        assert!(and(syn::parse_quote!({
            m = m && (a < b || !flag);
        }))
        .is_ok());
    }
}
