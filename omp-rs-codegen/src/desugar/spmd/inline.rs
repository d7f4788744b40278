//! Team functions: functions an SPMD region's `parallel` block calls that hold `omp::barrier!()`, take one of the
//! team's arrays, or ask for the team and thread numbers, as OpenMP lets a function called in a parallel region do
//! (HeCBench's `twoWayScan(buffer, opArray, selSize, tid)` with its barriers, block scans over `__shared__`-like
//! arrays, `omp_get_thread_num()` in a helper).
//!
//! ```ignore
//! #[omp::directives]
//! fn morphology(img: &[u8], out: &mut [u8], width: usize, hsize: usize, teams: usize) {
//!     fn two_way_scan(buffer: &[u8], op: &mut [u8], sel: usize, tid: usize) {
//!         op[tid] = buffer[tid];
//!         op[tid + sel] = buffer[tid + sel];
//!         omp::barrier!();
//!         ..
//!     }
//!     #[omp::target_teams(num_teams(teams), thread_limit(hsize))]
//!     {
//!         let mut s_mem = [0u8; 128];
//!         #[omp::parallel]
//!         {
//!             ..
//!             two_way_scan(&s_mem, &mut s_mem[2 * hsize..], hsize, tid);   // two views of one array, as in C
//!         }
//!     }
//! }
//! ```
//!
//! omp-rs inlines such a call where it stands, before the team body is analysed, so the barriers, team-local
//! accesses and routine calls of the function are the region's own: they get the same phase analysis, run-time
//! checks and numbers as code written in the block. The function is declared in the `#[omp::directives]` fn (in its
//! body, or a block around the region), where both the macro and the build helper see it.
//!
//! **What the inlined call means** is the call's meaning: the arguments are evaluated left to right into locals
//! first, then bound to the parameters by `let <pattern>: <type> = <argument>;` (rustc checks each against the
//! parameter's type, as at a call), then the body runs; a return type types the tail as `let` does. A parameter
//! that receives a team-local array (`&s`, `&mut s`, or for one dimension `&mut s[lo..]`, `&s[lo..hi]`) is not a
//! slice but the array itself, shifted by `lo`: `p[i]` becomes `s[lo + i]` (with `i < hi - lo` checked when the
//! range has an end, as the subslice would), `p.len()` the subslice's length; the range is checked against the
//! array at the call, as slicing does. Rust's borrow rules do not hold for these views (two views of one array may
//! both write, as C's pointers into `__shared__` memory do): the team-local handles check every access at run time,
//! so two threads touching one element in one phase, one of them writing, still panics before the access.
//!
//! Refused, each with the fix: a team function called in an expression when it holds a barrier (a barrier must
//! stand where every thread reaches it: call it as a statement), generic, `async`, `unsafe` or method team
//! functions, `return` or `?` in one (its tail is its value), recursion, a team-local array passed to a parameter of
//! another element type, dimension count or mutability than the array's, a parameter of the function that its body
//! rebinds while it holds an array, and a name the function uses from its own scope that the region binds as a
//! local (inlined, the name would mean the local), and a variable from outside the region passed to a `&mut`
//! parameter (a mapped array written through it would escape the region's checks). A call of a barrier-holding function outside an SPMD region's
//! `parallel` block is refused where it stands ([`remaining_calls`]); so is a name the function reads that an item
//! or `use` of a block nearer the region declares, or that a team function calling it binds. The host keeps the
//! function's definition, its barriers removed, for rustc's type check of the body as written.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, ItemFn, Stmt};

use super::team::{holds_barrier, Bindings, TeamArray};
use crate::ctxt::Ctxt;

/// The first statement of an inlined body, `let __omp_inlined = ();`: it marks a scope whose names are the team
/// function's own ([`is_inlined`]).
const INLINED: &str = "__omp_inlined";

/// Whether a block is an inlined team function's body.
pub(crate) fn is_inlined(b: &syn::Block) -> bool {
    matches!(b.stmts.first(), Some(Stmt::Local(l)) if matches!(&l.pat, syn::Pat::Ident(p) if p.ident == INLINED))
}

/// How deep team functions may call team functions (recursion is refused before).
const MAX_DEPTH: usize = 16;

/// The functions of `fns` that reach a barrier: they hold one, or call one that does (by name, to a fixed point).
fn barrier_fns(fns: &[&ItemFn]) -> Vec<String> {
    let mut found: Vec<String> = fns.iter().filter(|f| holds_barrier(&f.block.stmts)).map(|f| f.sig.ident.to_string()).collect();
    loop {
        let more: Vec<String> = fns
            .iter()
            .filter(|f| !found.contains(&f.sig.ident.to_string()))
            .filter(|f| calls_any(f.block.to_token_stream(), &found))
            .map(|f| f.sig.ident.to_string())
            .collect();
        if more.is_empty() {
            return found;
        }
        found.extend(more);
    }
}

/// Whether tokens call one of `names` (`name(..)`, not a method or a path's last segment).
fn calls_any(tokens: TokenStream, names: &[String]) -> bool {
    !calls_of(tokens, names).is_empty()
}

/// The calls of `names` in tokens, by the called name.
fn calls_of(tokens: TokenStream, names: &[String]) -> Vec<Ident> {
    fn walk(tokens: TokenStream, names: &[String], out: &mut Vec<Ident>) {
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        for (k, t) in tts.iter().enumerate() {
            match t {
                TokenTree::Ident(i) if names.contains(&i.to_string()) => {
                    let called =
                        matches!(tts.get(k + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    // Not a method, a path's last segment or the function's own definition.
                    let after = k.checked_sub(1).map(|j| &tts[j]);
                    let not_a_call = match after {
                        Some(TokenTree::Punct(p)) => p.as_char() == ':' || p.as_char() == '.',
                        Some(TokenTree::Ident(f)) => f == "fn",
                        _ => false,
                    };
                    if called && !not_a_call {
                        out.push(i.clone());
                    }
                }
                TokenTree::Group(g) => walk(g.stream(), names, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, names, &mut out);
    out
}

fn names_routine(tokens: TokenStream) -> bool {
    crate::syntax::tokens::ident_tokens(tokens).iter().any(|i| crate::names::spmd::ROUTINES.iter().any(|(r, _)| i == r))
}

/// The name of a value item (`fn`, `const`, `static`): what a call or a path in a body may mean.
fn value_item_name(item: &syn::Item) -> Option<&Ident> {
    match item {
        syn::Item::Fn(f) => Some(&f.sig.ident),
        syn::Item::Const(c) => Some(&c.ident),
        syn::Item::Static(s) => Some(&s.ident),
        _ => None,
    }
}

/// An inlined body as the expression that stands where the call did.
fn block_expr(block: syn::Block) -> Expr {
    Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block })
}

/// What a region sees around it: the functions the enclosing `#[omp::directives]` fn declares (in its body or a block
/// around the region, innermost first) and its locals where the region stands.
#[derive(Default)]
pub(crate) struct Scope<'a> {
    pub(crate) fns: Vec<ScopeFn<'a>>,
    pub(crate) locals: Option<&'a crate::analyze::types::TypeEnv>,
}

/// A function of the blocks around a region, with what blocks nearer the region declare: names its body cannot see
/// but an inlined copy would (items and `use`s), and whether one of them may declare names unseen (a glob `use`, a
/// macro declaring items).
pub(crate) struct ScopeFn<'a> {
    pub(crate) f: &'a ItemFn,
    pub(crate) hidden: Vec<String>,
    pub(crate) opaque: bool,
}

impl<'a> Scope<'a> {
    /// The scope of a region inside `blocks` (outermost first).
    pub(crate) fn of(blocks: &'a [crate::analyze::resolve::BlockScope], locals: &'a crate::analyze::types::TypeEnv) -> Self {
        let (mut fns, mut hidden, mut opaque) = (Vec::new(), Vec::new(), false);
        for b in blocks.iter().rev() {
            for item in &b.items {
                if let syn::Item::Fn(f) = item {
                    fns.push(ScopeFn { f, hidden: hidden.clone(), opaque });
                }
            }
            hidden.extend(b.items.iter().filter_map(value_item_name).map(|i| i.to_string()));
            for import in &b.imports {
                match import {
                    crate::analyze::resolve::Import::Named { name, .. } => hidden.push(name.clone()),
                    crate::analyze::resolve::Import::Glob { .. } => opaque = true,
                }
            }
            opaque |= b.opaque;
        }
        Scope { fns, locals: Some(locals) }
    }

    fn is_local(&self, name: &str) -> bool {
        self.locals.is_some_and(|t| t.lookup(name).is_some())
    }

    fn find(&self, name: &str) -> Option<&ScopeFn<'a>> {
        self.fns.iter().find(|d| d.f.sig.ident == name)
    }
}

/// Inlines every call of a team function in `body` (an SPMD region's `parallel` block). `Err(())` once errors were
/// reported.
pub(crate) fn inline_calls(body: &mut syn::Block, scope: &Scope<'_>, arrays: &[TeamArray], cx: &Ctxt) -> Result<(), ()> {
    if scope.fns.is_empty() {
        return Ok(());
    }
    // The names the region binds where an inlined body will stand: the region's locals, items and team arrays.
    let mut bound = RegionNames(Vec::new());
    bound.visit_block(body);
    bound.0.extend(arrays.iter().map(|a| a.name().to_string()));
    let all: Vec<&ItemFn> = scope.fns.iter().map(|d| d.f).collect();
    let barriers = barrier_fns(&all);
    let mut inliner = Inliner { scope, barriers, arrays, bound: bound.0, cx, ok: true, stack: Vec::new(), next: 0 };
    inliner.visit_block_mut(body);
    if inliner.ok {
        Ok(())
    } else {
        Err(())
    }
}

/// Locals and items a block binds, anywhere in it.
struct RegionNames(Vec<String>);

impl<'ast> Visit<'ast> for RegionNames {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item(&mut self, item: &'ast syn::Item) {
        self.0.extend(value_item_name(item).map(|i| i.to_string()));
    }
}

struct Inliner<'a> {
    scope: &'a Scope<'a>,
    /// The functions of the scope that reach a barrier ([`barrier_fns`]).
    barriers: Vec<String>,
    /// The region's team-local arrays and variables.
    arrays: &'a [TeamArray],
    bound: Vec<String>,
    cx: &'a Ctxt,
    ok: bool,
    /// The team functions being inlined, outermost first.
    stack: Vec<String>,
    /// Numbers the locals of each inlining.
    next: usize,
}

/// A parameter that receives a team-local array: the array, and for a range of it the locals holding the range's
/// start and length.
struct View {
    param: String,
    array: Ident,
    /// The array's declared outer length.
    outer_len: Expr,
    range: Option<(Ident, Ident)>,
    mutable: bool,
}

/// `&s`, `&mut s`, `&s[lo..hi]`: a team-local array passed to a function, with its range (one dimension only).
struct ArrayArg {
    array: Ident,
    mutable: bool,
    lo: Option<Expr>,
    hi: Option<Expr>,
    span: Span,
}

impl<'a> Inliner<'a> {
    fn error<T: ToTokens>(&mut self, at: T, msg: impl std::fmt::Display) {
        self.cx.error_spanned_by(at, msg);
        self.ok = false;
    }

    /// The team function a call names, when the call is to one and its name is not shadowed by a local.
    fn callee(&self, call: &syn::ExprCall) -> Option<&'_ ItemFn> {
        let Expr::Path(p) = &*call.func else { return None };
        let name = p.path.get_ident()?.to_string();
        // A local of that name (a closure, bound outside the region or in it) is what the call calls.
        if p.qself.is_some() || self.scope.is_local(&name) || self.bound.contains(&name) {
            return None;
        }
        let f = self.scope.find(&name)?.f;
        let passes_array = call.args.iter().any(|a| self.array_arg(a).is_some());
        (self.reaches_barrier(f) || names_routine(f.block.to_token_stream()) || passes_array).then_some(f)
    }

    fn array(&self, name: &str) -> Option<&'a TeamArray> {
        self.arrays.iter().find(|a| a.name() == name)
    }

    fn reaches_barrier(&self, f: &ItemFn) -> bool {
        self.barriers.contains(&f.sig.ident.to_string())
    }

    fn array_arg(&self, e: &Expr) -> Option<ArrayArg> {
        let e = match e {
            Expr::Paren(p) => &*p.expr,
            e => e,
        };
        let Expr::Reference(r) = e else { return None };
        let (place, range) = match &*r.expr {
            Expr::Index(i) => match &*i.index {
                Expr::Range(range) => (&*i.expr, Some(range)),
                _ => return None,
            },
            place => (place, None),
        };
        let Expr::Path(p) = place else { return None };
        let array = p.path.get_ident()?;
        // A team-local variable passed `&mut k` is an element borrow (refused by the team lowering).
        if self.array(&array.to_string())?.is_scalar() {
            return None;
        }
        let (lo, hi) = match range {
            None => (None, None),
            Some(range) => {
                let hi = range.end.as_deref().map(|end| match range.limits {
                    syn::RangeLimits::HalfOpen(_) => end.clone(),
                    syn::RangeLimits::Closed(_) => syn::parse_quote!((#end) + 1),
                });
                (Some(range.start.as_deref().cloned().unwrap_or_else(|| syn::parse_quote!(0usize))), hi)
            }
        };
        Some(ArrayArg { array: array.clone(), mutable: r.mutability.is_some(), lo, hi, span: e.span() })
    }

    /// The inlined body of `call` to `f`, or `None` (reported) when the call cannot be inlined.
    fn inline(&mut self, f: &ItemFn, call: &syn::ExprCall) -> Option<syn::Block> {
        // The arguments are the caller's code: team functions they call are inlined there.
        let mut call = call.clone();
        call.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
        let call = &call;
        let name = f.sig.ident.to_string();
        if self.stack.contains(&name) || self.stack.len() >= MAX_DEPTH {
            self.error(call, format!("`{name}` calls itself through team functions: omp-rs inlines them, so they cannot recurse"));
            return None;
        }
        let sig = &f.sig;
        if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.unsafety.is_some() || sig.receiver().is_some() {
            self.error(
                &sig.ident,
                format!(
                    "`{name}` is a team function (it holds `omp::barrier!()`, takes a team-local array or calls the team \
                     routines), which omp-rs inlines into the SPMD region: it cannot be generic, `async`, `unsafe` or a \
                     method"
                ),
            );
            return None;
        }
        let mut exits = crate::syntax::body::Exits::new(&[]);
        exits.visit_block(&f.block);
        if let Some((span, what)) = exits.found.first() {
            self.cx.error_at(
                *span,
                format!(
                    "`{what}` in the team function `{name}`: omp-rs inlines it into the SPMD region; give its value as the tail expression"
                ),
            );
            self.ok = false;
            return None;
        }
        if sig.inputs.len() != call.args.len() {
            // rustc reports the count on the function as written (kept for the host); nothing to inline.
            self.error(call, format!("`{name}` takes {} arguments, this call passes {}", sig.inputs.len(), call.args.len()));
            return None;
        }
        // Names the body uses from its own scope must mean the same where it is inlined.
        let mut own = Bindings::default();
        sig.inputs.iter().for_each(|a| own.visit_fn_arg(a));
        own.visit_block(&f.block);
        let own: Vec<String> = own.names().collect();
        let mut free = FreeNames(Vec::new());
        free.visit_block(&f.block);
        let (hidden, opaque) = self.scope.find(&name).map(|d| (d.hidden.clone(), d.opaque)).unwrap_or_default();
        let free: Vec<(String, Span)> = free.0.into_iter().filter(|(n, _)| !own.contains(n)).collect();
        if let (true, Some((n, span))) = (opaque, free.first()) {
            self.cx.error_at(
                *span,
                format!(
                    "the team function `{name}` uses `{n}`, and a block between it and the SPMD region calling it has a \
                     glob `use` or a macro that may declare `{n}` there: omp-rs inlines the function at the call, so it \
                     cannot tell that `{n}` means the same; declare the function in the region's own block"
                ),
            );
            self.ok = false;
            return None;
        }
        if let Some(clash) = free.iter().find(|(n, _)| self.bound.contains(n) || self.scope.is_local(n) || hidden.contains(n)) {
            let (n, span) = clash.clone();
            self.cx.error_at(
                span,
                format!(
                    "the team function `{name}` uses `{n}`, which the SPMD region calling it binds otherwise (a local, a \
                     team-local array, or an item or `use` of a block nearer the region): omp-rs inlines the function \
                     there, where `{n}` would mean that; rename one of them"
                ),
            );
            self.ok = false;
            return None;
        }

        let k = self.next;
        self.next += 1;
        let mut lets: Vec<TokenStream> = Vec::new();
        let mut views: Vec<View> = Vec::new();
        let mut params: Vec<TokenStream> = Vec::new();
        for (i, (input, arg)) in sig.inputs.iter().zip(&call.args).enumerate() {
            let syn::FnArg::Typed(pt) = input else { return None };
            match self.array_arg(arg) {
                Some(a) => {
                    let view = self.view(&name, pt, a, k, i, &mut lets)?;
                    views.push(view);
                }
                None => {
                    if let Some(outside) = self.outside_borrowed_mutably(pt, arg) {
                        self.error(
                            arg,
                            format!(
                                "`{name}` would write `{outside}`, which the region shares with the host or the other \
                                 threads, through its parameter `{}`: omp-rs checks a region's writes where the region \
                                 writes them, so write `{outside}[..]` in the region (the function may compute the value)",
                                pt.pat.to_token_stream()
                            ),
                        );
                        return None;
                    }
                    let local = format_ident!("__omp_tf{}_arg{}", k, i, span = arg.span());
                    lets.push(quote!(let #local = #arg;));
                    let (pat, ty) = (&pt.pat, &pt.ty);
                    params.push(quote!(let #pat: #ty = #local;));
                }
            }
        }
        // A view's parameter rebound by the body would make later uses of the name mean the binding.
        for v in &views {
            if own.iter().filter(|n| **n == v.param).count() > 1 {
                self.error(
                    &sig.ident,
                    format!(
                        "`{name}` binds `{}` again in its body; it receives a team-local array: give the binding another name",
                        v.param
                    ),
                );
                return None;
            }
        }
        let mut body = (*f.block).clone();
        let mut subst = Subst { views: &views, cx: self.cx, ok: true };
        subst.visit_block_mut(&mut body);
        if !subst.ok {
            self.ok = false;
            return None;
        }
        // Team functions the body calls in turn, inlined where the body's own names are bound too.
        self.stack.push(name.clone());
        let region_names = self.bound.len();
        self.bound.extend(own.iter().cloned());
        self.visit_block_mut(&mut body);
        self.bound.truncate(region_names);
        self.stack.pop();
        // The tail typed by the return type, as the call would type it.
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            if let Some(Stmt::Expr(tail, None)) = body.stmts.pop() {
                let ret = format_ident!("__omp_tf{}_ret", k);
                body.stmts.push(syn::parse_quote!(let #ret: #ty = #tail;));
                body.stmts.push(Stmt::Expr(syn::parse_quote!(#ret), None));
            } else {
                self.error(&sig.output, format!("the team function `{name}` returns a value: end its body with it"));
                return None;
            }
        }
        let stmts = &body.stmts;
        let marker = Ident::new(INLINED, Span::call_site());
        match syn::parse2(quote!({ let #marker = (); #(#lets)* #(#params)* #(#stmts)* })) {
            Ok(b) => Some(b),
            Err(e) => {
                self.cx.syn_error(e);
                self.ok = false;
                None
            }
        }
    }

    /// `let <pat> = f(..);` for a team function `f` with barriers and a return type: `let out: T;`, the inlined body
    /// ending in `out = <its value>;`, then `let <pat> = out;`.
    fn inline_into_let(&mut self, f: &ItemFn, call: &syn::ExprCall, stmt: &Stmt) -> Option<Vec<Stmt>> {
        let Stmt::Local(local) = stmt else { return None };
        let syn::ReturnType::Type(_, ty) = &f.sig.output else {
            self.error(call, format!("`{}` returns no value", f.sig.ident));
            return None;
        };
        let mut body = self.inline(f, call)?;
        // The inlined body ends with its typed value (`inline`).
        let Some(Stmt::Expr(value, None)) = body.stmts.pop() else { return None };
        let out = format_ident!("__omp_tf{}_out", self.next);
        self.next += 1;
        body.stmts.push(syn::parse_quote!(#out = #value;));
        let mut binding = local.clone();
        if let Some(init) = &mut binding.init {
            *init.expr = syn::parse_quote!(#out);
        }
        Some(vec![syn::parse_quote!(let #out: #ty;), Stmt::Expr(block_expr(body), None), Stmt::Local(binding)])
    }

    /// The variable from outside the region that `arg` lends to a `&mut` parameter, if it does (a mapped array or
    /// captured variable: its writes would escape the region's checks).
    fn outside_borrowed_mutably(&self, pt: &syn::PatType, arg: &Expr) -> Option<String> {
        if !matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some()) {
            return None;
        }
        let mut at = arg;
        loop {
            at = match at {
                Expr::Reference(r) => &r.expr,
                Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. }) => expr,
                Expr::Paren(p) => &p.expr,
                Expr::Index(i) => &i.expr,
                Expr::Field(f) => &f.base,
                Expr::MethodCall(m) => &m.receiver,
                _ => break,
            };
        }
        let Expr::Path(p) = at else { return None };
        let name = p.path.get_ident()?.to_string();
        (self.scope.is_local(&name) && !self.bound.contains(&name)).then_some(name)
    }

    /// Binds the view a parameter receives: its start and length checked as slicing checks them.
    fn view(&mut self, name: &str, pt: &syn::PatType, a: ArrayArg, k: usize, i: usize, lets: &mut Vec<TokenStream>) -> Option<View> {
        let syn::Pat::Ident(pid) = &*pt.pat else {
            self.error(&pt.pat, format!("`{name}` receives the team-local array `{}` here: bind the parameter to a name", a.array));
            return None;
        };
        let team = self.array(&a.array.to_string())?;
        let (dims, elem_tokens) = (team.dims(), team.elem().to_token_stream().to_string());
        let syn::Type::Reference(r) = &*pt.ty else {
            self.error(
                &pt.ty,
                format!("`{name}`'s parameter `{}` receives the team-local array `{}`: type it `&[T]` or `&mut [T]`", pid.ident, a.array),
            );
            return None;
        };
        // The parameter's element type and dimension count: `[T]`, `[T; N]`, `[[T; N]]`, ..
        let (mut t, mut depth) = (&*r.elem, 0usize);
        loop {
            match t {
                syn::Type::Slice(s) => t = &s.elem,
                syn::Type::Array(arr) => t = &arr.elem,
                _ => break,
            }
            depth += 1;
        }
        let wanted = if a.lo.is_some() { 1 } else { dims };
        if depth != wanted || t.to_token_stream().to_string() != elem_tokens {
            self.error(
                &pt.ty,
                format!(
                    "`{name}`'s parameter `{}` receives the team-local array `{}`, whose elements are `{elem_tokens}` in {dims} \
                     dimension(s): type the parameter accordingly (`&mut [{elem_tokens}]` for one dimension)",
                    pid.ident, a.array
                ),
            );
            return None;
        }
        if r.mutability.is_some() && !a.mutable {
            self.cx.error_at(a.span, format!("`{name}` writes through `{}`: pass `&mut {}`", pid.ident, a.array));
            self.ok = false;
            return None;
        }
        if a.lo.is_some() && dims != 1 {
            self.cx
                .error_at(a.span, format!("a range of the team-local array `{}` passes one dimension only; pass the whole array", a.array));
            self.ok = false;
            return None;
        }
        let array = &a.array;
        let outer_len = team.outer_len().clone();
        let mut range = None;
        if let Some(lo) = &a.lo {
            let s = format_ident!("__omp_tf{}_start{}", k, i);
            let hi = a.hi.clone().unwrap_or_else(|| syn::parse_quote!((#outer_len) as usize));
            let l = format_ident!("__omp_tf{}_len{}", k, i);
            let end = format_ident!("__omp_tf{}_end{}", k, i);
            lets.push(quote!(
                let #s: usize = #lo;
                let #end: usize = #hi;
                if #s > #end || #end > (#outer_len) as usize {
                    ::core::panic!("a range of a team-local array passed to a team function is out of bounds");
                }
                let #l: usize = #end - #s;
            ));
            range = Some((s, l));
        }
        Some(View { param: pid.ident.to_string(), array: array.clone(), outer_len, range, mutable: a.mutable && r.mutability.is_some() })
    }
}

impl VisitMut for Inliner<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut out = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            match &stmt {
                // `f(..);` as a statement: the inlined block stands where the call did.
                Stmt::Expr(Expr::Call(call), semi) => {
                    if let Some(f) = self.callee(call) {
                        let (f, call, semi) = (f.clone(), call.clone(), *semi);
                        if let Some(b) = self.inline(&f, &call) {
                            stmt = Stmt::Expr(block_expr(b), semi);
                        }
                        out.push(stmt);
                        continue;
                    }
                }
                // `let v = f(..);` with barriers in `f`: the inlined block as a statement, its value assigned to a
                // local declared before it, then the `let` of that local (a barrier stands in no expression).
                Stmt::Local(syn::Local { init: Some(syn::LocalInit { expr, diverge: None, .. }), .. }) => {
                    if let Expr::Call(call) = &**expr {
                        if let Some(f) = self.callee(call).filter(|f| self.reaches_barrier(f)) {
                            let (f, call) = (f.clone(), call.clone());
                            if let Some(stmts) = self.inline_into_let(&f, &call, &stmt) {
                                out.extend(stmts);
                            }
                            continue;
                        }
                    }
                }
                _ => {}
            }
            self.visit_stmt_mut(&mut stmt);
            out.push(stmt);
        }
        block.stmts = out;
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Call(call) = e {
            if let Some(f) = self.callee(call) {
                let (f, call) = (f.clone(), call.clone());
                if self.reaches_barrier(&f) {
                    self.error(
                        &call,
                        format!(
                            "`{}` holds an `omp::barrier!()`, which every thread of the team must reach: call it as a \
                             statement (`{0}(..);` or `let v = {0}(..);`) where the whole team runs, not inside an \
                             expression",
                            f.sig.ident
                        ),
                    );
                    return;
                }
                if let Some(b) = self.inline(&f, &call) {
                    *e = block_expr(b);
                }
                return;
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Single names a body reads from its scope (expression paths and macro arguments), with where.
struct FreeNames(Vec<(String, Span)>);

impl<'ast> Visit<'ast> for FreeNames {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let (None, Some(i)) = (&p.qself, p.path.get_ident()) {
            self.0.push((i.to_string(), i.span()));
        }
        syn::visit::visit_expr_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // Macro arguments are not parsed: every identifier counts (a false clash asks for a rename, never a change).
        for i in crate::syntax::tokens::ident_tokens(m.tokens.clone()) {
            self.0.push((i.to_string(), i.span()));
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Rewrites a team function's body for the views its parameters receive: `p[i]` into the array's element, `p.len()`
/// into the view's length, `&mut p[lo..]` into a range of the array (for team functions it calls in turn).
struct Subst<'a> {
    views: &'a [View],
    cx: &'a Ctxt,
    ok: bool,
}

impl<'a> Subst<'a> {
    fn view_of(&self, e: &Expr) -> Option<&'a View> {
        let Expr::Path(p) = e else { return None };
        let name = p.path.get_ident()?.to_string();
        let views: &'a [View] = self.views;
        views.iter().find(|v| v.param == name)
    }

    /// The array index for view index `i` (or a range's bound, `end`): shifted by the range's start, checked
    /// against its length as a subslice checks.
    fn index(v: &View, i: &Expr, end: bool) -> Expr {
        let Some((s, l)) = &v.range else { return i.clone() };
        let beyond = if end { quote!(>) } else { quote!(>=) };
        syn::parse_quote_spanned!(i.span()=> {
            let __omp_i: usize = #i;
            if __omp_i #beyond #l {
                ::core::panic!("index out of bounds of a team-local array's range passed to a team function");
            }
            #s + __omp_i
        })
    }
}

impl VisitMut for Subst<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Index(ix) => {
                if let Some(v) = self.view_of(&ix.expr) {
                    let (array, span) = (v.array.clone(), ix.expr.span());
                    self.visit_expr_mut(&mut ix.index);
                    if let Expr::Range(r) = &mut *ix.index {
                        // `p[lo..hi]` (passed on): the array's range, each bound checked against the view.
                        for (bound, end) in [(&mut r.start, false), (&mut r.end, true)] {
                            match (bound.as_mut(), &v.range) {
                                (Some(x), _) => **x = Self::index(v, x, end),
                                (None, Some((s, l))) if end => *bound = Some(Box::new(syn::parse_quote!(#s + #l))),
                                (None, Some((s, _))) => *bound = Some(Box::new(syn::parse_quote!(#s))),
                                (None, None) => {}
                            }
                        }
                        if let syn::RangeLimits::Closed(_) = r.limits {
                            self.cx.error_spanned_by(&*r, "pass a half-open range (`lo..hi`) of a team function's array on");
                            self.ok = false;
                        }
                    } else {
                        *ix.index = Self::index(v, &ix.index, false);
                    }
                    *ix.expr = syn::parse_quote_spanned!(span=> #array);
                    return;
                }
            }
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                if let Some(v) = self.view_of(&m.receiver) {
                    let n = &v.outer_len;
                    *e = match &v.range {
                        Some((_, l)) => syn::parse_quote!(#l),
                        None => syn::parse_quote!(((#n) as usize)),
                    };
                    return;
                }
            }
            Expr::Path(_) => {
                if let Some(v) = self.view_of(e) {
                    // Passed on whole: the same view, as a range of the array (or the array).
                    let (array, span) = (&v.array, e.span());
                    let m = if v.mutable { quote!(mut) } else { quote!() };
                    *e = match &v.range {
                        Some((s, l)) => syn::parse_quote_spanned!(span=> (&#m #array[#s..#s + #l])),
                        None => syn::parse_quote_spanned!(span=> (&#m #array)),
                    };
                    return;
                }
            }
            Expr::Reference(r) => {
                // `&mut p` / `&p` passed on: the view itself.
                if let Some(v) = self.view_of(&r.expr) {
                    if r.mutability.is_some() && !v.mutable {
                        self.cx.error_spanned_by(
                            &*r,
                            format!("`{}` is a shared view of `{}`: it cannot be borrowed `&mut`", v.param, v.array),
                        );
                        self.ok = false;
                        return;
                    }
                    let mut inner = (*r.expr).clone();
                    self.visit_expr_mut(&mut inner);
                    *e = inner;
                    return;
                }
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let named = m.tokens.clone().into_iter().any(|t| mentions(&t, self.views));
        if named {
            self.cx.error_spanned_by(
                &*m,
                "a team-local array received by a team function, inside a macro call: read the element into a local first",
            );
            self.ok = false;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn mentions(t: &TokenTree, views: &[View]) -> bool {
    match t {
        TokenTree::Ident(i) => views.iter().any(|v| i == &v.param),
        TokenTree::Group(g) => g.stream().into_iter().any(|t| mentions(&t, views)),
        _ => false,
    }
}

/// Team functions declared in `block` keep their definition for the host's type check, with their barriers
/// removed; one whose calls were all inlined is marked unused. A call of one that reaches a barrier outside an SPMD
/// region's `parallel` block (where the inlining removed the others) is refused at the call. Run after the block's
/// statements were lowered.
pub(crate) fn remaining_calls(block: &mut syn::Block, cx: &Ctxt) {
    let fns: Vec<&ItemFn> = block.stmts.iter().filter_map(|s| if let Stmt::Item(syn::Item::Fn(f)) = s { Some(f) } else { None }).collect();
    if fns.is_empty() {
        return;
    }
    let barriers = barrier_fns(&fns);
    // Team functions by their body, and any taking a slice or array (it may have received team-local arrays).
    let team: Vec<String> = fns
        .iter()
        .filter(|f| {
            barriers.contains(&f.sig.ident.to_string())
                || names_routine(f.block.to_token_stream())
                || f.sig.inputs.iter().any(|a| matches!(a, syn::FnArg::Typed(t) if matches!(&*t.ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Slice(_) | syn::Type::Array(_)))))
        })
        .map(|f| f.sig.ident.to_string())
        .collect();
    let mut called = Vec::new();
    for stmt in &block.stmts {
        if !matches!(stmt, Stmt::Item(syn::Item::Fn(f)) if barriers.contains(&f.sig.ident.to_string())) {
            called.extend(calls_of(stmt.to_token_stream(), &team));
        }
    }
    for i in called.iter().filter(|i| barriers.contains(&i.to_string())) {
        cx.error_at(
            i.span(),
            format!(
                "`{i}` reaches an `omp::barrier!()`: it is a team function, called only in the `#[omp::parallel]` block \
                 of an SPMD `#[omp::target_teams]` region (omp-rs inlines it there)"
            ),
        );
    }
    for stmt in &mut block.stmts {
        let Stmt::Item(syn::Item::Fn(f)) = stmt else { continue };
        let name = f.sig.ident.to_string();
        if barriers.contains(&name) {
            NoBarriers.visit_block_mut(&mut f.block);
        }
        if team.contains(&name) && !called.iter().any(|c| *c == name) {
            f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
        }
    }
}

/// Removes `omp::barrier!();` statements (the host copy of a team function is only type-checked).
struct NoBarriers;

impl VisitMut for NoBarriers {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        block.stmts.retain(|s| !crate::syntax::body::statement_macro(s).is_some_and(|m| crate::syntax::body::omp_macro(m, "barrier")));
        visit_mut::visit_block_mut(self, block);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
