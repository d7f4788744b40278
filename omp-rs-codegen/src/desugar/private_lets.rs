//! C's `int ind;` + `private(ind)` with `ind = k * nx + i;` first thing in every iteration: the private copy holds
//! one value per iteration, set before any use, which is what `let ind = k * nx + i;` at the top of the body says.
//! Rewritten so, the race analysis sees the index as the affine form it is (a private scalar can hold anything, so it
//! cannot place a write) and the clause drops the variable. The meaning is the same: a private copy starts each
//! iteration, the original is not written by the loop either way.

use quote::ToTokens;
use syn::{Expr, ExprForLoop, Ident, Stmt};

use crate::analyze::types::TypeEnv;
use crate::analyze::walk::Access;
use crate::model::Directive;

/// The directive without the rewritten `private` variables, the loop with their leading assignments as `let`s, and
/// those variables; `None` when no `private` variable is assigned that way.
///
/// A variable qualifies when one of the statements that open the innermost body of the collapsed nest (before any
/// other statement) is `v = e;`, `e` does not name `v`, and the rest of the body only reads `v` (as a value, at an
/// index, its `len()`, as the analysis's walk sees uses): no assignment, `&mut`, method call, element write or
/// macro that could need the copy mutable.
pub(crate) fn rewrite(d: &Directive, f: &ExprForLoop, env: &TypeEnv) -> Option<(Directive, ExprForLoop, Vec<Ident>)> {
    if d.settings.private.is_empty() {
        return None;
    }
    let mut loop_ = f.clone();
    let mut body = &mut loop_.body;
    for _ in 1..d.settings.collapse.depth.max(1) {
        match body.stmts.as_mut_slice() {
            [Stmt::Expr(Expr::ForLoop(inner), _)] => body = &mut inner.body,
            _ => return None,
        }
    }
    let mut converted: Vec<Ident> = Vec::new();
    for k in 0..body.stmts.len() {
        let Stmt::Expr(Expr::Assign(a), Some(_)) = &body.stmts[k] else { break };
        let Expr::Path(p) = &*a.left else { break };
        let Some(v) = p.path.get_ident().filter(|v| d.settings.private.contains(v) && !converted.contains(v)) else { break };
        if crate::syntax::loops::mentions(a.right.to_token_stream(), v) || !only_read(&body.stmts[k + 1..], v) {
            break;
        }
        let (v, rhs) = (v.clone(), a.right.clone());
        let ty = env.lookup(&v.to_string()).flatten().cloned();
        body.stmts[k] = match ty {
            Some(t) => syn::parse_quote!(let #v: #t = #rhs;),
            None => syn::parse_quote!(let #v = #rhs;),
        };
        converted.push(v);
    }
    if converted.is_empty() {
        return None;
    }
    let mut d = d.clone();
    d.settings.private.retain(|v| !converted.contains(v));
    Some((d, loop_, converted))
}

/// Whether `stmts` use `v` only to read it.
fn only_read(stmts: &[Stmt], v: &Ident) -> bool {
    let rest = syn::Block { brace_token: Default::default(), stmts: stmts.to_vec() };
    let uses = crate::analyze::walk::walk_body(&rest, &[], &[]).uses;
    uses.iter().filter(|u| u.ident == *v).all(|u| matches!(u.access, Access::Read | Access::IndexRead(_) | Access::Len))
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    /// `rewrite` of a `target_teams_distribute_parallel_for(<clauses>)` over `body`, with `ind: usize` declared: the
    /// variables rewritten and the innermost body's first statement.
    fn rewritten(clauses: &str, body: &str) -> Option<(Vec<String>, String)> {
        let cx = crate::ctxt::Ctxt::scratch();
        let name: syn::Ident = syn::parse_str("target_teams_distribute_parallel_for").ok()?;
        let construct = crate::syntax::parse::construct(&name, &cx)?;
        let d = crate::syntax::parse::directive(construct, clauses.parse().ok()?, &cx);
        let f: syn::ExprForLoop = syn::parse_str(body).unwrap_or_else(|e| panic!("{e}"));
        let mut env = crate::analyze::types::TypeEnv::default();
        env.bind("ind", Some(syn::parse_quote!(usize)));
        let (d, f, vars) = super::rewrite(&d, &f, &env)?;
        assert!(d.settings.private.iter().all(|v| !vars.contains(v)), "the clause drops them");
        let mut body = &f.body;
        while let [syn::Stmt::Expr(syn::Expr::ForLoop(inner), _)] = body.stmts.as_slice() {
            body = &inner.body;
        }
        Some((vars.iter().map(ToString::to_string).collect(), body.stmts[0].to_token_stream().to_string()))
    }

    #[test]
    fn a_private_set_first_in_every_iteration_becomes_a_typed_let() {
        let (vars, first) =
            rewritten("collapse(2), private(ind)", "for k in 0..n { for i in 0..m { ind = k * m + i; s[ind] = 1.0; } }").unwrap();
        assert_eq!((vars, first.as_str()), (vec!["ind".to_string()], "let ind : usize = k * m + i ;"));
        // Two set in turn, the second from the first.
        let (vars, _) = rewritten("private(ind, j)", "for i in 0..n { ind = 2 * i; j = ind + 1; s[j] = 1.0; }").unwrap();
        assert_eq!(vars, ["ind", "j"]);
    }

    #[test]
    fn a_private_read_first_or_written_again_stays_private() {
        assert!(rewritten("private(ind)", "for i in 0..n { ind = ind + i; s[ind] = 1.0; }").is_none());
        assert!(rewritten("private(ind)", "for i in 0..n { ind = i; ind += 1; s[ind] = 1.0; }").is_none());
        assert!(rewritten("private(ind)", "for i in 0..n { ind = i; f(&mut ind); }").is_none());
        assert!(rewritten("private(ind)", "for i in 0..n { let t = 1; ind = i + t; s[ind] = 1.0; }").is_none());
        assert!(rewritten("private(ind)", "for i in 0..n { ind = i; bump!(ind); }").is_none());
        // Uses that need the copy mutable: an element write, a mutating method, any other method.
        assert!(rewritten("private(ind)", "for i in 0..n { ind = [i; 4]; ind[0] = 1; s[ind[1]] = 1.0; }").is_none());
        assert!(rewritten("private(ind)", "for i in 0..n { ind = Vec::new(); ind.push(i); }").is_none());
        assert!(rewritten("private(ind)", "for i in 0..n { ind = i; s[ind.min(3)] = 1.0; }").is_none());
        // Not the innermost body of the collapsed nest.
        assert!(rewritten("collapse(2), private(ind)", "for k in 0..n { ind = k; for i in 0..m { s[ind + i] = 1.0; } }").is_none());
    }
}
