//! Host `parallel` regions: OpenMP's `#pragma omp parallel` block on the CPU, with the team's code either written
//! by thread number or shared out by worksharing constructs.
//!
//! **Without worksharing constructs** the block is what every thread runs, and its threads share nothing but the
//! variables around it, so the region means the parallel loop over its thread numbers:
//!
//! ```ignore
//! #[omp::parallel(num_threads(p))]            // let threads: usize = p;  (checked positive; 1 when nested)
//! {                                           // #[omp::parallel_for(num_threads(threads), schedule(static, 1), ..)]
//!     let t = omp::get_thread_num();          // for thread in 0..threads {
//!     for i in t * chunk..(t + 1) * chunk {   //     let t = thread;
//!         y[i] = 2.0 * x[i];                  //     ..
//!     }                                       // }
//! }
//! ```
//!
//! with every guarantee of a loop directive (writes checked disjoint across threads, `#[omp::critical]` and
//! `#[omp::atomic]` inside), `omp::get_thread_num()` and `omp::get_num_threads()` the loop variable and the team
//! size (as in SPMD regions, [`crate::desugar::spmd`]: written with their `omp::` path), the region's other clauses the
//! loop's (`reduction`, `private`, `firstprivate`, `default`, `shared`).
//!
//! **With worksharing constructs** the block is a sequence the team runs together, and each statement is one step
//! of it, in order:
//! - `#[omp::r#for(..)] for ..` (`#pragma omp for`; `for` is a keyword in Rust, so the attribute is written with
//!   its raw name) shares the loop's iterations out among the team: the `parallel_for` of the team's size with the
//!   `for`'s clauses;
//! - `#[omp::single] { .. }` and `#[omp::master] { .. }` run once, on the team's first thread;
//! - `#[omp::critical] { .. }` and an `#[omp::atomic]` update run once for each thread, one at a time
//!   (`omp::get_thread_num()` is the thread's number there);
//! - `omp::barrier!()` stands between steps;
//! - a plain `for` over a range the threads share, a `while` or an `if` on a value every thread sees alike (a
//!   residual a reduction computed, a flag), or a plain block, holding such statements (a time loop around the
//!   sweeps, a convergence loop);
//! - `let` of a value computed from the variables around the region (arithmetic, `len()`, no calls), the same for
//!   every thread.
//!
//! Every step ends with all of the team's work in it done: the implicit barriers of `for` and `single`, and a
//! barrier where OpenMP has none (`master`, `nowait`), which OpenMP allows (a thread may always wait). So a step
//! never runs beside another, and each is checked as the construct it is lowered to.
//!
//! Refused, each with the fix: any other statement in a region with worksharing constructs (code every thread
//! would run: a write, a call, a `let mut` each thread changes, a thread-dependent value), constructs under a
//! thread-dependent `if` or `while`, or in a `loop` or `match`, a loop directive in the region (a nested `parallel` region
//! per thread), and `reduction` / `private` / `firstprivate` on such a region (put them on its `for`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Stmt};

use crate::ctxt::Ctxt;
use crate::names::spmd::{THREAD, THREADS};
use crate::syntax::body::{find_omp_attr, omp_macro, statement_macro, stmt_attrs};
use crate::syntax::parse::clause_chunks;

/// The constructs that share a region's work out (and `barrier`, a macro): their presence makes the block a
/// sequence of steps.
const WORKSHARING: &[&str] = &["for", "single", "master"];

/// An omp attribute's directive name, raw identifiers unwrapped (`r#for` is `for`).
fn directive_name(attrs: &[syn::Attribute]) -> Option<(String, crate::syntax::body::OmpAttr)> {
    find_omp_attr(attrs).map(|a| (a.name.unraw().to_string(), a))
}

/// When `stmt` is a host `parallel` block: the statements that replace it, `Err(())` when it is one but refused
/// (reported to `cx`). A worksharing construct outside any `parallel` block is reported here too.
pub(crate) fn rewrite(stmt: &Stmt, cx: &Ctxt) -> Option<Result<Vec<Stmt>, ()>> {
    let (name, attr) = directive_name(stmt_attrs(stmt))?;
    if WORKSHARING.contains(&name.as_str()) {
        let spelled = if name == "for" { "r#for".to_string() } else { name.clone() };
        cx.error_at(
            attr.name.span(),
            format!(
                "`#[omp::{spelled}]` shares work among the threads of the `#[omp::parallel]` block around it, and there \
                 is none here{}",
                if name == "for" { "; a loop run by a team of its own is `#[omp::parallel_for]`" } else { "" }
            ),
        );
        return Some(Err(()));
    }
    let Stmt::Expr(Expr::Block(region), _) = stmt else { return None };
    if name != "parallel" {
        return None;
    }
    let construct = crate::syntax::parse::construct(&attr.name, cx)?;
    let d = crate::syntax::parse::directive(construct, attr.args.clone(), cx);
    let threads = Ident::new(THREADS, Span::call_site());
    let count = match &d.settings.num_threads {
        Some(e) => quote!(::omp::__private::team_size(#e)),
        None => quote!(::omp::get_max_threads()),
    };
    let count = match &d.settings.if_cond {
        Some(c) => quote!(if #c { #count } else { 1 }),
        None => count,
    };
    // Inside another active region (this fn called from a parallel loop's body) the block is an inactive region
    // of one thread, as OpenMP's nested regions are here (max-active-levels 1).
    let count = quote!(if ::omp::get_active_level() > 0 { 1 } else { #count });
    let mut attrs = region.attrs.clone();
    attrs.remove(attr.index);
    let clauses: Vec<(String, TokenStream)> =
        clause_chunks(&attr.args).into_iter().filter(|(n, _)| !matches!(n.as_str(), "num_threads" | "if")).collect();
    let mut out = vec![syn::parse_quote!(let #threads: usize = #count;)];
    if Constructs::any_in(&region.block) {
        if let Some((name, tokens)) = clauses.iter().find(|(n, _)| matches!(n.as_str(), "reduction" | "private" | "firstprivate")) {
            cx.error_spanned_by(
                tokens,
                format!(
                    "`{name}` on a `parallel` block with worksharing constructs: put it on the `#[omp::r#for]` loop it \
                     belongs to (each step of the block is its own region)"
                ),
            );
            return Some(Err(()));
        }
        let mut steps = Steps { cx, ok: true };
        let block = steps.block(&region.block);
        if !steps.ok {
            return Some(Err(()));
        }
        out.push(syn::parse_quote!(#(#attrs)* #block));
    } else {
        let thread = Ident::new(THREAD, Span::call_site());
        let mut body = region.block.clone();
        ThreadRoutines::of_loop().visit_block_mut(&mut body);
        let shared = hoist_shared_lets(&mut body);
        let clauses = clauses.iter().map(|(_, t)| t);
        out.push(syn::parse_quote! {
            #(#attrs)*
            {
                #(#shared)*
                #[omp::parallel_for(num_threads(#threads), schedule(static, 1) #(, #clauses)*)]
                for #thread in 0..#threads #body
            }
        });
    }
    Some(Ok(out))
}

/// Takes out of a team's body the immutable `let`s whose value is the same for every thread ([`Uniform`]: the team
/// size, `let chunk = n.div_ceil(p);`), computed from the variables around the region and from each other, so that
/// the loop analysis sees them as the loop-invariant values they are (`t * chunk + k` is then affine). A `let`
/// stays when it names the thread number, a local of the body that stays, or when a statement before it that stays
/// names what it binds (it would shadow that name there).
fn hoist_shared_lets(body: &mut syn::Block) -> Vec<Stmt> {
    let thread = THREAD.to_string();
    let mut staying: Vec<String> = vec![thread];
    let mut named_before: Vec<String> = Vec::new();
    let (mut hoisted, mut kept) = (Vec::new(), Vec::new());
    for stmt in std::mem::take(&mut body.stmts) {
        let names = crate::syntax::tokens::idents_in(stmt.to_token_stream());
        let bound: Vec<String> = match &stmt {
            Stmt::Local(l) => {
                let mut b = Vec::new();
                crate::analyze::walk::pat_idents(&l.pat, &mut b);
                b.iter().map(|i| i.to_string()).collect()
            }
            _ => Vec::new(),
        };
        let shared = match &stmt {
            Stmt::Local(l) => {
                matches!(&l.pat, syn::Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none())
                    && l.init.as_ref().is_some_and(|i| i.diverge.is_none() && Uniform::is(&i.expr))
                    && !names.iter().any(|n| staying.contains(n))
                    && !bound.iter().any(|b| named_before.contains(b))
            }
            _ => false,
        };
        if shared {
            hoisted.push(stmt);
        } else {
            staying.extend(bound);
            named_before.extend(names);
            kept.push(stmt);
        }
    }
    body.stmts = kept;
    hoisted
}

/// Whether a block holds a worksharing construct or a barrier, at any depth (closures and items aside).
struct Constructs {
    found: bool,
}

impl Constructs {
    fn any_in(block: &syn::Block) -> bool {
        let mut c = Constructs { found: false };
        c.visit_block(block);
        c.found
    }

    fn any_in_expr(stmt: &Stmt) -> bool {
        let mut c = Constructs { found: false };
        c.visit_stmt(stmt);
        c.found
    }
}

impl<'ast> Visit<'ast> for Constructs {
    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        if directive_name(std::slice::from_ref(a)).is_some_and(|(n, _)| WORKSHARING.contains(&n.as_str())) {
            self.found = true;
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.found |= omp_macro(m, "barrier");
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `omp::get_thread_num()` and `omp::get_num_threads()` replaced by `thread` and the team size; not inside a
/// nested directive (a loop directive there is a region of its own, whose threads the routines count).
struct ThreadRoutines {
    thread: Expr,
}

impl ThreadRoutines {
    /// The routines as the loop's variable (a loop over the team's threads).
    fn of_loop() -> Self {
        let thread = Ident::new(THREAD, Span::call_site());
        ThreadRoutines { thread: syn::parse_quote!(#thread) }
    }

    /// The routines as the team's first thread (`single`, `master`).
    fn of_first() -> Self {
        ThreadRoutines { thread: syn::parse_quote!(0usize) }
    }
}

impl VisitMut for ThreadRoutines {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Call(call) = e {
            if let (Expr::Path(p), true) = (&*call.func, call.args.is_empty()) {
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                if segs.len() == 2 && segs[0] == "omp" {
                    let threads = Ident::new(THREADS, syn::spanned::Spanned::span(&*call));
                    match segs[1].as_str() {
                        "get_thread_num" => {
                            *e = self.thread.clone();
                            return;
                        }
                        "get_num_threads" => {
                            *e = syn::parse_quote!(#threads);
                            return;
                        }
                        _ => {}
                    }
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if find_omp_attr(stmt_attrs(s)).is_none() {
            visit_mut::visit_stmt_mut(self, s);
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The steps of a region with worksharing constructs ([module docs](self)).
struct Steps<'a> {
    cx: &'a Ctxt,
    ok: bool,
}

impl Steps<'_> {
    fn refuse(&mut self, at: impl ToTokens, msg: &str) {
        self.cx.error_spanned_by(at, msg);
        self.ok = false;
    }

    fn block(&mut self, block: &syn::Block) -> syn::Block {
        let stmts: Vec<Stmt> = block.stmts.iter().filter_map(|s| self.step(s)).collect();
        syn::Block { brace_token: block.brace_token, stmts }
    }

    fn step(&mut self, stmt: &Stmt) -> Option<Stmt> {
        const EVERY_THREAD: &str = "every thread of the `parallel` team runs this statement: put it in `#[omp::single]` \
                                    (run once) or `#[omp::critical]` (each thread in turn), or before the region";
        if let Some(m) = statement_macro(stmt) {
            if omp_macro(m, "barrier") {
                // Every step ends with the team's work done.
                return None;
            }
            self.refuse(m, EVERY_THREAD);
            return None;
        }
        if let Some((name, attr)) = directive_name(stmt_attrs(stmt)) {
            return self.construct(stmt, &name, attr);
        }
        match stmt {
            Stmt::Item(_) => Some(stmt.clone()),
            Stmt::Local(l) => {
                let mutable = matches!(&l.pat, syn::Pat::Ident(p) if p.mutability.is_some());
                let uniform = l.init.as_ref().is_some_and(|i| i.diverge.is_none() && Uniform::is(&i.expr));
                if mutable || !uniform {
                    self.refuse(
                        l,
                        "in a `parallel` block with worksharing constructs a `let` is each thread's own: only a value \
                         the same for every thread (computed from the variables around the region without calls) \
                         can stand here; declare a variable the steps change before the region, and use \
                         `reduction(op: v)` on the `#[omp::r#for]` for a per-thread sum",
                    );
                    return None;
                }
                Some(stmt.clone())
            }
            // A time loop or a block around steps: every thread walks it alike.
            Stmt::Expr(Expr::ForLoop(f), semi) if Uniform::is(&f.expr) && Constructs::any_in(&f.body) => {
                let mut f = f.clone();
                f.body = self.block(&f.body);
                Some(Stmt::Expr(Expr::ForLoop(f), *semi))
            }
            // A branch or a convergence loop on a value every thread sees alike (a flag, a residual the steps
            // reduce): the threads take the same way.
            Stmt::Expr(Expr::If(i), semi) if Uniform::is(&i.cond) && Constructs::any_in_expr(stmt) => {
                Some(Stmt::Expr(Expr::If(self.branch(i)), *semi))
            }
            Stmt::Expr(Expr::While(w), semi) if Uniform::is(&w.cond) && Constructs::any_in(&w.body) => {
                let mut w = w.clone();
                w.body = self.block(&w.body);
                Some(Stmt::Expr(Expr::While(w), *semi))
            }
            Stmt::Expr(Expr::Block(b), semi) if b.attrs.is_empty() => {
                let mut b = b.clone();
                b.block = self.block(&b.block);
                Some(Stmt::Expr(Expr::Block(b), *semi))
            }
            _ if Constructs::any_in_expr(stmt) => {
                self.refuse(
                    stmt,
                    "worksharing constructs and barriers stand at the top level of the `parallel` block, in plain \
                     blocks, or in `for`, `while` and `if` on values the same for every thread (not under a \
                     thread-dependent condition, a `loop` or a `match`, where some threads might not reach them)",
                );
                None
            }
            _ => {
                self.refuse(stmt, EVERY_THREAD);
                None
            }
        }
    }

    /// An `if` (and its `else if` chain) on a uniform condition: each branch a sequence of steps.
    fn branch(&mut self, i: &syn::ExprIf) -> syn::ExprIf {
        let mut i = i.clone();
        i.then_branch = self.block(&i.then_branch);
        if let Some((_, other)) = &mut i.else_branch {
            match &mut **other {
                Expr::If(inner) if Uniform::is(&inner.cond) => *inner = self.branch(inner),
                Expr::Block(b) => b.block = self.block(&b.block),
                e => self.refuse(&*e, "an `else if` on a value that differs between threads around worksharing steps"),
            }
        }
        i
    }

    fn construct(&mut self, stmt: &Stmt, name: &str, attr: crate::syntax::body::OmpAttr) -> Option<Stmt> {
        let mut stmt = stmt.clone();
        crate::syntax::body::remove_omp_attr(&mut stmt);
        let threads = Ident::new(THREADS, Span::call_site());
        match (name, &stmt) {
            ("for", Stmt::Expr(Expr::ForLoop(f), semi)) => {
                let clauses = clause_chunks(&attr.args).into_iter().filter(|(n, _)| n != "nowait").map(|(_, t)| t);
                let mut f = f.clone();
                f.attrs.insert(0, syn::parse_quote!(#[omp::parallel_for(num_threads(#threads) #(, #clauses)*)]));
                Some(Stmt::Expr(Expr::ForLoop(f), *semi))
            }
            ("for", _) => {
                self.refuse(&stmt, "`#[omp::r#for]` applies to a `for` loop over a range");
                None
            }
            ("single" | "master", Stmt::Expr(Expr::Block(b), semi)) => {
                if let Some((clause, tokens)) = clause_chunks(&attr.args).into_iter().find(|(n, _)| n != "nowait") {
                    self.refuse(tokens, &format!("`{clause}` on `#[omp::{name}]` is not supported (only `nowait`)"));
                    return None;
                }
                // The team's first thread runs it.
                let mut b = b.clone();
                ThreadRoutines::of_first().visit_block_mut(&mut b.block);
                Some(Stmt::Expr(Expr::Block(b), *semi))
            }
            ("critical", Stmt::Expr(Expr::Block(b), _)) => {
                let thread = Ident::new(THREAD, Span::call_site());
                let mut block = b.block.clone();
                ThreadRoutines::of_loop().visit_block_mut(&mut block);
                Some(syn::parse_quote!(for #thread in 0..#threads #block))
            }
            // Each thread's update, one thread at a time.
            ("atomic", _) => {
                let thread = Ident::new(THREAD, Span::call_site());
                let mut block: syn::Block = syn::parse_quote!({ #stmt });
                ThreadRoutines::of_loop().visit_block_mut(&mut block);
                Some(syn::parse_quote!(for #thread in 0..#threads #block))
            }
            ("single" | "master" | "critical", _) => {
                self.refuse(&stmt, &format!("`#[omp::{name}]` applies to a block"));
                None
            }
            _ => {
                self.refuse(
                    attr.name,
                    &format!(
                        "`#[omp::{name}]` in a `parallel` block would be a region of its own run by every thread of \
                         the team; share a loop out with `#[omp::r#for]`, or put the directive before the region"
                    ),
                );
                None
            }
        }
    }
}

/// Whether an expression has the same value on every thread: literals, variables, arithmetic, casts, fields,
/// indexing, ranges and the primitive numbers' own methods (`len()`, `min`, `div_ceil`, ..), no other calls.
struct Uniform {
    ok: bool,
}

impl Uniform {
    fn is(e: &Expr) -> bool {
        let mut u = Uniform { ok: true };
        u.visit_expr(e);
        u.ok
    }
}

impl<'ast> Visit<'ast> for Uniform {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Lit(_)
            | Expr::Path(_)
            | Expr::Binary(_)
            | Expr::Unary(_)
            | Expr::Cast(_)
            | Expr::Paren(_)
            | Expr::Group(_)
            | Expr::Field(_)
            | Expr::Index(_)
            | Expr::Range(_)
            | Expr::Tuple(_)
            | Expr::Array(_)
            | Expr::Reference(_) => syn::visit::visit_expr(self, e),
            Expr::MethodCall(m) if m.args.is_empty() && matches!(m.method.to_string().as_str(), "len" | "is_empty") => {
                syn::visit::visit_expr(self, e)
            }
            Expr::MethodCall(m) if crate::analyze::types::is_same_type_method(&m.method.to_string()) => syn::visit::visit_expr(self, e),
            _ => self.ok = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(stmts: &[Stmt]) -> Vec<String> {
        stmts
            .iter()
            .map(|s| match s {
                Stmt::Local(l) => l.pat.to_token_stream().to_string(),
                other => other.to_token_stream().to_string(),
            })
            .collect()
    }

    #[test]
    fn shared_lets_leave_the_team_body() {
        let thread = Ident::new(THREAD, Span::call_site());
        let threads = Ident::new(THREADS, Span::call_site());
        let mut body: syn::Block = syn::parse_quote!({
            let t = #thread;
            let p = #threads;
            let chunk = n.div_ceil(p);
            let i = t * chunk;
            let b = n + t;
            let n = 5;
            let mut acc = 0.0;
            let r = f(n);
        });
        let hoisted = hoist_shared_lets(&mut body);
        // `n = 5` would shadow the `n` that `b`'s staying `let` reads; `acc` is mutable, `r` calls a function.
        assert_eq!(names(&hoisted), ["p", "chunk"]);
        assert_eq!(names(&body.stmts), ["t", "i", "b", "n", "mut acc", "r"]);
    }

    #[test]
    fn uniform_values() {
        let uniform = |e: Expr| Uniform::is(&e);
        assert!(uniform(syn::parse_quote!(n.div_ceil(p) * 2 + x.len())));
        assert!(uniform(syn::parse_quote!(err > tol && !done)));
        assert!(!uniform(syn::parse_quote!(omp::get_thread_num() == 0)));
        assert!(!uniform(syn::parse_quote!(next(&mut state))));
        assert!(!uniform(syn::parse_quote!({
            k += 1;
            k
        })));
    }
}
