//! SPMD target regions: OpenMP's `target teams` whose body is one `parallel` block, the form CUDA kernels are
//! ported to (`int gid = omp_get_team_num() * omp_get_num_threads() + omp_get_thread_num();`).
//!
//! ```ignore
//! #[omp::target_teams(num_teams(blocks), thread_limit(256))]
//! {
//!     #[omp::parallel]
//!     {
//!         let gid = omp::get_team_num() * omp::get_num_threads() + omp::get_thread_num();
//!         if gid < n { y[gid] += a * x[gid]; }
//!     }
//! }
//! ```
//!
//! Without a `barrier` and without team-local data, the threads of such a region share nothing but the mapped
//! arrays, so the region means exactly the collapsed loop nest over its (team, thread) pairs:
//!
//! ```ignore
//! let teams: usize = num_teams;              // checked positive
//! let threads: usize = num_threads.min(thread_limit);
//! #[omp::target_teams_distribute_parallel_for(collapse(2), num_teams(teams), thread_limit(threads), ..)]
//! for team in 0..teams { for thread in 0..threads { <body, the four routines replaced by team, teams, thread, threads> } }
//! ```
//!
//! which [`fuse`] writes into the enclosing block; the loop nest then gets every guarantee of a loop directive (its
//! writes are checked disjoint across all (team, thread) pairs, so a race between two threads is a compile error or
//! a panic before the region), and its launch is the grid the code asked for (`num_teams` teams of `threads`
//! threads, one (team, thread) pair each). The team has exactly `min(num_threads, thread_limit)` threads (OpenMP
//! allows fewer; a ported code's `omp_get_num_threads()` means what its `num_threads` / `thread_limit` said, on
//! the CPU path too).
//!
//! With barriers or team-local arrays and variables (the statements of the `target_teams` block before its
//! `parallel` block), the body is a team body ([`team`]).
//!
//! Refused, each with the fix: other statements in the `target_teams` block (per-team code), code after the
//! `parallel` block, `if` on the `parallel` (it would change the team size), a `reduction` on the
//! `parallel` that the `target_teams` does not repeat (OpenMP combines it into the team's private copy only), the
//! routines called without the `omp::` path (a `use omp::get_thread_num` would call the host's routine) or inside a
//! macro call's arguments (not parsed, so not replaced), and a region without `num_teams` or without a team size.
//! A function declared in the `#[omp::directives]` fn that calls the routines, holds a barrier or takes a
//! team-local array is inlined where the body calls it ([`inline`]), so its routines mean the team's numbers; a
//! helper declared elsewhere sees the routines of the loop it runs in, as in any loop directive: pass it the
//! numbers instead.
//!
//! [`inline`] reads a team function with [`team`]'s bindings and `team` defers to it (in its docs): one job, the
//! only cycle inside this folder.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Stmt};

use crate::ctxt::Ctxt;
use crate::model::Directive;
use crate::names::spmd::{ROUTINES, TEAM, TEAMS, TEAM_HI, TEAM_LO, THREAD, THREADS, THREAD_HI, THREAD_LO};
use crate::syntax::body::{find_omp_attr, OmpAttr};
use crate::syntax::parse::{self, clause_chunks};

pub(crate) mod inline;
pub(crate) mod team;

/// When `stmt` is an SPMD region (`#[omp::target_teams(..)] { #[omp::parallel(..)] { .. } }`): the statements that
/// replace it, the counts' `let`s and the loop directive; `Err(())` when it is one but malformed (reported to
/// `cx`). `None` for every other statement. `scope`: the functions the enclosing fn declares and its locals where
/// the region stands ([`inline`]), made only for a region.
pub(crate) fn fuse<'s>(stmt: &Stmt, scope: impl FnOnce() -> inline::Scope<'s>, cx: &Ctxt) -> Option<Result<Vec<Stmt>, ()>> {
    let Stmt::Expr(Expr::Block(teams_block), _) = stmt else { return None };
    let teams = find_omp_attr(&teams_block.attrs).filter(|a| a.name == "target_teams")?;
    let parallel_at = teams_block.block.stmts.iter().position(|s| parallel_attr(s).is_some())?;
    Some(fuse_region(teams_block, &teams, parallel_at, &scope(), cx))
}

fn parallel_attr(stmt: &Stmt) -> Option<OmpAttr> {
    match stmt {
        Stmt::Expr(Expr::Block(b), _) => find_omp_attr(&b.attrs).filter(|a| a.name == "parallel"),
        _ => None,
    }
}

fn fuse_region(
    teams_block: &syn::ExprBlock,
    teams: &OmpAttr,
    parallel_at: usize,
    scope: &inline::Scope<'_>,
    cx: &Ctxt,
) -> Result<Vec<Stmt>, ()> {
    let stmts = &teams_block.block.stmts;
    if let Some(after) = stmts.get(parallel_at + 1) {
        cx.error_spanned_by(
            after,
            "an SPMD `#[omp::target_teams]` block ends with its `#[omp::parallel]` block: code after it (which OpenMP runs \
             once per team) is not supported; move it into the `parallel` block under `if omp::get_thread_num() == 0` \
             after an `omp::barrier!()`, or after the region",
        );
        return Err(());
    }
    let arrays: Vec<team::TeamArray> = stmts[..parallel_at].iter().filter_map(|s| team::team_array(s, cx)).collect();
    if arrays.len() != parallel_at {
        return Err(());
    }
    let Stmt::Expr(Expr::Block(parallel_block), _) = &stmts[parallel_at] else { return Err(()) };
    let Some(parallel) = parallel_attr(&stmts[parallel_at]) else { return Err(()) };
    let (Some(teams_d), Some(parallel_d)) = (directive(teams, cx), directive(&parallel, cx)) else { return Err(()) };

    let mut ok = true;
    let teams_count = teams_d.settings.num_teams.clone();
    if teams_count.is_none() {
        cx.error_at(
            teams.name.span(),
            "an SPMD `#[omp::target_teams]` region needs `num_teams(n)`: the team numbers its threads compute are what it says",
        );
        ok = false;
    }
    let size = match (&parallel_d.settings.num_threads, &teams_d.settings.thread_limit) {
        (Some(n), Some(l)) => {
            Some(quote!(::omp::__private::spmd_count(#n, "num_threads").min(::omp::__private::spmd_count(#l, "thread_limit"))))
        }
        (Some(n), None) => Some(quote!(::omp::__private::spmd_count(#n, "num_threads"))),
        (None, Some(l)) => Some(quote!(::omp::__private::spmd_count(#l, "thread_limit"))),
        (None, None) => {
            cx.error_at(
                parallel.name.span(),
                "the `#[omp::parallel]` block of an SPMD region needs its team size: `thread_limit(n)` on the \
                 `target_teams` or `num_threads(n)` here (the thread numbers mean what it says)",
            );
            ok = false;
            None
        }
    };
    if let Some(c) = parallel_d.clauses.iter().find(|c| c.name == crate::model::ClauseName::If) {
        cx.error_at(
            c.name_span,
            "`if` on the `parallel` of an SPMD region is not supported: a false condition gives the team one thread, \
             which changes what its thread numbers mean; branch around the region instead",
        );
        ok = false;
    }
    for r in &parallel_d.settings.reductions {
        for v in &r.vars {
            let repeated = teams_d.settings.reductions.iter().any(|t| t.op == r.op && t.vars.iter().any(|tv| tv == v));
            if !repeated {
                cx.error_spanned_by(
                    v,
                    format!(
                        "`reduction` on the `parallel` combines `{v}` into the team's own copy only (a scalar is \
                         firstprivate to a `target teams`), so the host would never see it: put the same \
                         `reduction({}: {v})` on the `target_teams` too",
                        r.op.spelling()
                    ),
                );
                ok = false;
            }
        }
    }

    let mut body = parallel_block.block.clone();
    inline::inline_calls(&mut body, scope, &arrays, cx)?;
    let mut routines = Routines { cx, ok: true };
    routines.visit_block_mut(&mut body);
    if !(ok && routines.ok) {
        return Err(());
    }
    let team_names: Vec<String> = arrays.iter().map(|a| a.name().to_string()).collect();
    let scalars: Vec<String> = arrays.iter().filter(|a| a.is_scalar()).map(|a| a.name().to_string()).collect();
    team::scalar_uses(&mut body, &scalars);
    FirstThread::rewrite(&mut body, THREAD, &team_names);
    // `team % nb` and `team / nb` (`t % 16`, `t / 16`) as the only uses: loops of their own, which the race
    // analysis reads as two dimensions where it could not read the division.
    let team_split = Split::of(&mut body, TEAM, TEAM_HI, TEAM_LO, &team_names);
    let thread_split = Split::of(&mut body, THREAD, THREAD_HI, THREAD_LO, &team_names);
    if thread_split.is_some() {
        // `if lane == 0` with `lane = omp::get_thread_num() % 32` (the first thread of each group of 32 writes),
        // `if g == 0` with `g = omp::get_thread_num() / 32` (the first group writes).
        FirstThread::rewrite(&mut body, THREAD_LO, &team_names);
        FirstThread::rewrite(&mut body, THREAD_HI, &team_names);
    }
    if !arrays.is_empty() || team::holds_barrier(&body.stmts) {
        if let Some(r) = teams_d.settings.reductions.first() {
            cx.error_spanned_by(
                &r.vars[0],
                "`reduction` on an SPMD region with barriers or team-local arrays is not supported: combine in a \
                 team-local array and have one thread write the team's result (`sums[omp::get_team_num()] = part[0];`)",
            );
            return Err(());
        }
        let thread_names: &[&str] = if thread_split.is_some() { &[THREAD_HI, THREAD_LO] } else { &[THREAD] };
        team::lower(&mut body, &arrays, thread_names, cx)?;
    }
    let (Some(teams_count), Some(size)) = (teams_count, size) else { return Err(()) };

    let clauses: Vec<TokenStream> = clause_chunks(&teams.args)
        .into_iter()
        .filter(|(name, _)| !matches!(name.as_str(), "num_teams" | "thread_limit"))
        .chain(clause_chunks(&parallel.args).into_iter().filter(|(name, _)| !matches!(name.as_str(), "num_threads" | "reduction")))
        .map(|(_, tokens)| tokens)
        .collect();
    let [team, teams_n, thread, threads_n] = [TEAM, TEAMS, THREAD, THREADS].map(|n| Ident::new(n, Span::call_site()));
    let directive = Ident::new("target_teams_distribute_parallel_for", teams.name.span());
    let mut other_attrs = teams_block.attrs.clone();
    other_attrs.remove(teams.index);
    // `num_teams(1)`: the nest's team loop is `0..1` as written, so that the race analysis sees one team.
    let one_team = matches!(&teams_count, Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "1");
    let team_range = if one_team { quote!(0..1usize) } else { quote!(0..#teams_n) };
    let mut depth = 2usize;
    let mut checks = TokenStream::new();
    let inner = match &thread_split {
        None => quote!(for #thread in 0..#threads_n #body),
        Some(e) => {
            depth += 1;
            let (hi, lo) = (Ident::new(THREAD_HI, Span::call_site()), Ident::new(THREAD_LO, Span::call_site()));
            checks.extend(quote!(::omp::__private::spmd_split(#threads_n, #e as usize, "the team size", "omp::get_thread_num()");));
            quote!(for #hi in 0..#threads_n / (#e as usize) { for #lo in 0..(#e as usize) #body })
        }
    };
    let nest = match &team_split {
        None => quote!(for #team in #team_range { #inner }),
        Some(e) => {
            depth += 1;
            let (hi, lo) = (Ident::new(TEAM_HI, Span::call_site()), Ident::new(TEAM_LO, Span::call_site()));
            checks.extend(quote!(::omp::__private::spmd_split(#teams_n, #e as usize, "num_teams", "omp::get_team_num()");));
            quote!(for #hi in 0..#teams_n / (#e as usize) { for #lo in 0..(#e as usize) { #inner } })
        }
    };
    let depth_lit = syn::LitInt::new(&depth.to_string(), Span::call_site());
    let out = quote! {
        let #teams_n: usize = ::omp::__private::spmd_count(#teams_count, "num_teams");
        let #threads_n: usize = #size;
        #checks
        #(#other_attrs)*
        #[omp::#directive(collapse(#depth_lit), num_teams(#teams_n), thread_limit(#threads_n) #(, #clauses)*)]
        #nest
    };
    match syn::parse2::<syn::Block>(quote!({ #out })) {
        Ok(b) => Ok(b.stmts),
        Err(e) => {
            cx.syn_error(e);
            Err(())
        }
    }
}

/// The directive an attribute spells, parsed; its errors reported to `cx` (once: the fused directive's own parse
/// sees only clauses that parsed here).
fn directive(attr: &OmpAttr, cx: &Ctxt) -> Option<Directive> {
    let look = Ctxt::scratch();
    let d = parse::construct(&attr.name, &look).map(|c| parse::directive(c, attr.args.clone(), &look));
    if look.has_errors() {
        if let Some(c) = parse::construct(&attr.name, cx) {
            parse::directive(c, attr.args.clone(), cx);
        }
        return None;
    }
    d
}

/// Replaces `omp::get_team_num()` and its three kin by the nest's names; refuses them without the `omp::` path, as
/// values and inside macro calls.
struct Routines<'a> {
    cx: &'a Ctxt,
    ok: bool,
}

impl Routines<'_> {
    /// `Some(name)` for a path naming one of the routines (`omp::get_thread_num`, `::omp::…`, or bare).
    fn routine(path: &syn::Path) -> Option<(&'static str, bool)> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let last = segs.last()?;
        let (_, bound) = ROUTINES.iter().find(|(r, _)| r == last)?;
        let qualified = segs.len() == 2 && segs[0] == "omp";
        Some((bound, qualified))
    }
}

impl VisitMut for Routines<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Call(call) if call.args.is_empty() => {
                if let Expr::Path(p) = &*call.func {
                    if let Some((bound, qualified)) = Self::routine(&p.path) {
                        if qualified {
                            // The call's span: an error about the index points at the user's routine call.
                            let id = Ident::new(bound, syn::spanned::Spanned::span(&*call));
                            *e = syn::parse_quote!(#id);
                        } else {
                            self.cx.error_spanned_by(
                                &call.func,
                                "in an SPMD region write the routine with its path, `omp::get_thread_num()`: the region \
                                 replaces that call by the thread's number (an imported name would call the host's routine)",
                            );
                            self.ok = false;
                        }
                        return;
                    }
                }
            }
            Expr::Path(p) if Self::routine(&p.path).is_some_and(|(_, q)| q) => {
                self.cx.error_spanned_by(&*p, "in an SPMD region call the routine (`omp::get_thread_num()`); it is no value to pass on");
                self.ok = false;
                return;
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if let Some(name) = routine_in(&m.tokens) {
            // A macro's arguments are not parsed here, so the call inside would stay the host's routine.
            self.cx.error_spanned_by(
                &*m,
                format!(
                    "`{name}` inside a macro call in an SPMD region: bind it first (`let t = omp::{name}();`) and pass the value to the macro"
                ),
            );
            self.ok = false;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Writes that only the team's thread 0 makes, `if omp::get_thread_num() == 0 { out[team] = v; }` (CUDA's
/// `if (threadIdx.x == 0)`): inside such a block the thread number is 0, so the index `e` of each mapped array's
/// element write there is the same number as `e + thread · teams`, which the loop nest's race analysis sees one
/// (team, thread) pair own. The condition is the thread number (or an immutable local bound to it alone) `== 0`.
/// The same holds for the remainder and the quotient of a split thread number (`if lane == 0` with
/// `lane = t % 32`, the first thread of each group of 32; `if g == 0` with `g = t / 32`):
/// `e + lane · teams · threads`, distinct across the other numbers wherever `e` is below `teams · threads` (the
/// race analysis checks it, else refuses or panics before the region).
struct FirstThread<'a> {
    /// The nest's name of the thread number ([`THREAD`], [`THREAD_LO`] or [`THREAD_HI`]).
    of: &'a str,
    /// The thread number's names: the nest's and its aliases.
    names: Vec<String>,
    /// The team-local arrays (their accesses are checked by thread, see `team`).
    team_arrays: &'a [String],
    /// What each index gains (zero inside the block).
    term: TokenStream,
}

impl FirstThread<'_> {
    /// Rewrites the writes under `if of == 0` (`of`: [`THREAD`], [`THREAD_LO`] or [`THREAD_HI`]).
    /// An inlined team function's body ([`inline`]) is a scope of its own: its names cannot mean the region's (the
    /// inlining refuses that), so its aliases are found and its writes rewritten by themselves.
    fn rewrite(body: &mut syn::Block, of: &str, team_arrays: &[String]) {
        let names = Aliases::of(body, of).names();
        let [of_ident, teams, threads] = [of, TEAMS, THREADS].map(|n| Ident::new(n, Span::call_site()));
        let term = if of == THREAD { quote!(#of_ident * #teams) } else { quote!(#of_ident * (#teams * #threads)) };
        let mut first = FirstThread { of, names, team_arrays, term };
        body.stmts.iter_mut().for_each(|s| first.visit_stmt_mut(s));
    }

    fn is_thread(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| self.names.contains(&i.to_string())))
    }

    /// `t == 0`, or a chain of `&&` with such a term (`lane == 0 && i < n`).
    fn first_only(&self, cond: &Expr) -> bool {
        match cond {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_)) => {
                (self.is_thread(&b.left) && Self::is_zero(&b.right)) || (Self::is_zero(&b.left) && self.is_thread(&b.right))
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => self.first_only(&b.left) || self.first_only(&b.right),
            Expr::Paren(p) => self.first_only(&p.expr),
            _ => false,
        }
    }

    fn is_zero(e: &Expr) -> bool {
        matches!(e, Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "0")
    }
}

impl VisitMut for FirstThread<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        if inline::is_inlined(b) {
            FirstThread::rewrite(b, self.of, self.team_arrays);
        } else {
            visit_mut::visit_block_mut(self, b);
        }
    }

    fn visit_expr_if_mut(&mut self, e: &mut syn::ExprIf) {
        if self.first_only(&e.cond) {
            let mut w = OwnedByFirst { team_arrays: self.team_arrays, term: &self.term };
            w.visit_block_mut(&mut e.then_branch);
        } else {
            visit_mut::visit_block_mut(self, &mut e.then_branch);
        }
        self.visit_expr_mut(&mut e.cond);
        if let Some((_, other)) = &mut e.else_branch {
            self.visit_expr_mut(other);
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The `let t = <of>;` bindings of a body ([`alias_of`]) and every name it declares.
struct Aliases<'a> {
    of: &'a str,
    bound: Vec<String>,
    declared: Vec<String>,
}

impl<'a> Aliases<'a> {
    fn of(body: &syn::Block, of: &'a str) -> Self {
        let mut aliases = Aliases { of, bound: Vec::new(), declared: Vec::new() };
        body.stmts.iter().for_each(|s| syn::visit::Visit::visit_stmt(&mut aliases, s));
        aliases
    }

    /// Whether the body declares `name` exactly once.
    fn declared_once(&self, name: &str) -> bool {
        self.declared.iter().filter(|d| *d == name).count() == 1
    }

    /// `of` and its aliases declared once (a shadowed name may mean something else).
    fn names(&self) -> Vec<String> {
        std::iter::once(self.of.to_string()).chain(self.bound.iter().filter(|a| self.declared_once(a)).cloned()).collect()
    }
}

impl<'ast> syn::visit::Visit<'ast> for Aliases<'_> {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        // An inlined team function's names are its own ([`FirstThread::rewrite`]).
        if !inline::is_inlined(b) {
            syn::visit::visit_block(self, b);
        }
    }
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(name) = alias_of(l, self.of) {
            self.bound.push(name);
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.declared.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Inside a thread-0 block: `a[e] = ..` / `a[e] op= ..` become `a[(e) + term]` ([`FirstThread`]).
struct OwnedByFirst<'a> {
    team_arrays: &'a [String],
    term: &'a TokenStream,
}

impl VisitMut for OwnedByFirst<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let place = match e {
            Expr::Assign(a) => Some(&mut a.left),
            Expr::Binary(b) if team::compound_op(&b.op).is_some() => Some(&mut b.left),
            _ => None,
        };
        if let Some(place) = place {
            if let Expr::Index(ix) = &mut **place {
                let root = match &*ix.expr {
                    Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                };
                if root.is_some_and(|r| !self.team_arrays.contains(&r)) {
                    let (index, term) = (&ix.index, self.term);
                    let span = syn::spanned::Spanned::span(&**index);
                    *ix.index = syn::parse_quote_spanned!(span=> (#index) + #term);
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A team or thread number the body uses only as `n / E` and `n % E` with one `E` (a literal or a name from outside
/// the region: a captured scalar or a const), directly or through `let` aliases, where a checked write's index
/// depends on them (else nothing changes, [`Split::needed`]): the nest gets two loops for it,
/// `for hi in 0..count / E { for lo in 0..E { .. } }` (the run time checks that `E` divides the count, so they
/// walk the same numbers in the same order), and the body reads `hi` and `lo`. `Split::of` rewrites the body and
/// returns `E`, or leaves it as it is.
struct Split;

impl Split {
    fn of(body: &mut syn::Block, name: &str, hi: &str, lo: &str, team_arrays: &[String]) -> Option<Expr> {
        let aliases = Aliases::of(body, name);
        let names = aliases.names();
        let mut uses = SplitUses { names: &names, divisors: Vec::new(), other: false };
        syn::visit::Visit::visit_block(&mut uses, body);
        let first = uses.divisors.first()?.clone();
        let text = first.to_token_stream().to_string();
        let simple = match &first {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u64>().is_ok_and(|v| v > 0),
            Expr::Path(p) => p.path.get_ident().is_some_and(|i| !aliases.declared.contains(&i.to_string())),
            _ => false,
        };
        if uses.other || !simple || uses.divisors.iter().any(|d| d.to_token_stream().to_string() != text) {
            return None;
        }
        if !Self::needed(body, &names, team_arrays) {
            return None;
        }
        SplitRewrite { names: &names, hi, lo, divisor: &first }.visit_block_mut(body);
        Some(first)
    }

    /// Whether a write the race analysis checks (a mapped array's element, not an atomic update) has an index that
    /// depends on `n / e` or `n % e`, directly or through `let`s: only then does the split change what compiles.
    /// Elsewhere the nest stays as written, so that no region that compiled gains the split's run-time check.
    fn needed(body: &syn::Block, names: &[String], team_arrays: &[String]) -> bool {
        let mut derived: Vec<String> = Vec::new();
        loop {
            let mut lets = DerivedLets { names, derived: &derived, found: Vec::new() };
            syn::visit::Visit::visit_block(&mut lets, body);
            let new: Vec<String> = lets.found.into_iter().filter(|n| !derived.contains(n)).collect();
            if new.is_empty() {
                break;
            }
            derived.extend(new);
        }
        let mut writes = DerivedWrites { names, derived: &derived, team_arrays, found: false };
        syn::visit::Visit::visit_block(&mut writes, body);
        writes.found
    }
}

/// Whether `e` holds `n / e'` or `n % e'` of `names`, or names one of `derived`.
fn derives(e: &Expr, names: &[String], derived: &[String]) -> bool {
    struct Find<'a> {
        names: &'a [String],
        derived: &'a [String],
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Binary(b) if matches!(b.op, syn::BinOp::Div(_) | syn::BinOp::Rem(_)) && names_one_of(&b.left, self.names) => {
                    self.found = true;
                }
                Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.derived.contains(&i.to_string())) => self.found = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find { names, derived, found: false };
    syn::visit::Visit::visit_expr(&mut f, e);
    f.found
}

/// The locals whose value [`derives`] from the split number.
struct DerivedLets<'a> {
    names: &'a [String],
    derived: &'a [String],
    found: Vec<String>,
}

impl<'ast> syn::visit::Visit<'ast> for DerivedLets<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if l.init.as_ref().is_some_and(|i| derives(&i.expr, self.names, self.derived)) {
            let mut b = team::Bindings::default();
            syn::visit::Visit::visit_pat(&mut b, &l.pat);
            self.found.extend(b.names());
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether a checked write's index [`derives`] from the split number.
struct DerivedWrites<'a> {
    names: &'a [String],
    derived: &'a [String],
    team_arrays: &'a [String],
    found: bool,
}

impl DerivedWrites<'_> {
    fn place(&mut self, place: &Expr) {
        if let Expr::Index(ix) = place {
            let root = crate::syntax::place::place_root(place).map(|r| r.ident.to_string());
            if root.is_some_and(|r| !self.team_arrays.contains(&r)) && derives(&ix.index, self.names, self.derived) {
                self.found = true;
            }
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for DerivedWrites<'_> {
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if matches!(crate::syntax::body::statement_directive(stmt), Ok(Some(crate::syntax::body::BodyDirective::Atomic(_)))) {
            return;
        }
        syn::visit::visit_stmt(self, stmt);
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Assign(a) => self.place(&a.left),
            Expr::Binary(b) if team::compound_op(&b.op).is_some() => self.place(&b.left),
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The name `let name = <of>;` (immutable, plain) binds.
fn alias_of(l: &syn::Local, of: &str) -> Option<String> {
    let pat = match &l.pat {
        syn::Pat::Type(t) => &*t.pat,
        p => p,
    };
    let (syn::Pat::Ident(id), Some(init)) = (pat, &l.init) else { return None };
    let bound = matches!(&*init.expr, Expr::Path(p) if p.path.is_ident(of));
    (bound && id.mutability.is_none() && id.by_ref.is_none() && init.diverge.is_none()).then(|| id.ident.to_string())
}

fn names_one_of(e: &Expr, names: &[String]) -> bool {
    let mut e = e;
    while let Expr::Paren(p) = e {
        e = &p.expr;
    }
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| names.contains(&i.to_string())))
}

/// The divisors of `n / E` and `n % E` uses of `names`, and whether any other use exists.
struct SplitUses<'a> {
    names: &'a [String],
    divisors: Vec<Expr>,
    other: bool,
}

impl<'ast> syn::visit::Visit<'ast> for SplitUses<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Div(_) | syn::BinOp::Rem(_)) && names_one_of(&b.left, self.names) => {
                let mut d = &*b.right;
                while let Expr::Paren(p) = d {
                    d = &p.expr;
                }
                self.divisors.push(d.clone());
                self.visit_expr(&b.right);
            }
            Expr::Path(_) if names_one_of(e, self.names) => self.other = true,
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_local(&mut self, l: &'ast syn::Local) {
        // An alias's own binding is no use.
        if self.names.iter().any(|n| alias_of(l, n).is_some()) {
            return;
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // A macro's tokens are not parsed: a name there is a use this cannot rewrite.
        self.other |= crate::syntax::tokens::ident_tokens(m.tokens.clone()).iter().any(|i| self.names.contains(&i.to_string()));
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Replaces `n / E` by `hi`, `n % E` by `lo`, and an alias's binding by `hi * E + lo` (the same number).
struct SplitRewrite<'a> {
    names: &'a [String],
    hi: &'a str,
    lo: &'a str,
    divisor: &'a Expr,
}

impl VisitMut for SplitRewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Binary(b) = e {
            if names_one_of(&b.left, self.names) {
                let name = if matches!(b.op, syn::BinOp::Div(_)) { self.hi } else { self.lo };
                if matches!(b.op, syn::BinOp::Div(_) | syn::BinOp::Rem(_)) {
                    let id = Ident::new(name, syn::spanned::Spanned::span(&*b));
                    *e = syn::parse_quote!(#id);
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if self.names.iter().any(|n| alias_of(l, n).is_some()) {
            if let Some(init) = &mut l.init {
                let (hi, lo, d) = (Ident::new(self.hi, Span::call_site()), Ident::new(self.lo, Span::call_site()), self.divisor);
                *init.expr = syn::parse_quote!(#hi * (#d as usize) + #lo);
                l.attrs.push(syn::parse_quote!(#[allow(unused_variables)]));
            }
            return;
        }
        visit_mut::visit_local_mut(self, l);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The first of the routines named anywhere in a macro call's tokens.
fn routine_in(tokens: &TokenStream) -> Option<&'static str> {
    tokens.clone().into_iter().find_map(|tt| match tt {
        TokenTree::Ident(i) => ROUTINES.iter().map(|(r, _)| *r).find(|r| i == r),
        TokenTree::Group(g) => routine_in(&g.stream()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fused(src: TokenStream) -> Result<String, String> {
        let stmt: Stmt = syn::parse2(src).unwrap();
        let cx = Ctxt::new();
        let out = fuse(&stmt, inline::Scope::default, &cx).expect("an SPMD region");
        match (out, cx.check()) {
            (Ok(stmts), Ok(())) => Ok(stmts.iter().map(|s| s.to_token_stream().to_string()).collect::<Vec<_>>().join("\n")),
            (_, Err(e)) => Err(e.to_string()),
            (Err(()), Ok(())) => Err("refused without a message".into()),
        }
    }

    #[test]
    fn an_spmd_region_is_the_collapsed_nest_over_its_teams_and_threads() {
        let out = fused(quote! {
            #[omp::target_teams(num_teams(g), thread_limit(b), map(to: x[0..n]))]
            {
                #[omp::parallel(firstprivate(a))]
                {
                    let gid = omp::get_team_num() * omp::get_num_threads() + omp::get_thread_num();
                    if gid < n { y[gid] = a * x[gid] + omp::get_num_teams() as f64; }
                }
            }
        })
        .unwrap();
        assert!(out.contains("let __omp_spmd_teams : usize = :: omp :: __private :: spmd_count (g , \"num_teams\")"), "{out}");
        assert!(out.contains("spmd_count (b , \"thread_limit\")"), "{out}");
        assert!(
            out.contains(
                "# [omp :: target_teams_distribute_parallel_for (collapse (2) , num_teams (__omp_spmd_teams) , \
                 thread_limit (__omp_spmd_threads) , map (to : x [0 .. n]) , firstprivate (a))]"
            ),
            "{out}"
        );
        assert!(out.contains("for __omp_spmd_team in 0 .. __omp_spmd_teams { for __omp_spmd_thread in 0 .. __omp_spmd_threads"), "{out}");
        assert!(out.contains("let gid = __omp_spmd_team * __omp_spmd_threads + __omp_spmd_thread"), "{out}");
        assert!(out.contains("a * x [gid] + __omp_spmd_teams as f64"), "{out}");
        assert!(!out.contains("omp :: get_"), "{out}");
    }

    #[test]
    fn num_threads_and_thread_limit_give_the_smaller_team() {
        let out = fused(quote! {
            #[omp::target_teams(num_teams(4) thread_limit(64) reduction(+: s))]
            { #[omp::parallel(num_threads(t), reduction(+: s))] { s += omp::get_thread_num(); } }
        })
        .unwrap();
        assert!(
            out.contains("spmd_count (t , \"num_threads\") . min (:: omp :: __private :: spmd_count (64 , \"thread_limit\"))"),
            "{out}"
        );
        // The teams' reduction is the loop's; the parallel's repeats it.
        assert_eq!(out.matches("reduction").count(), 1, "{out}");
    }

    #[test]
    fn malformed_spmd_regions_are_refused_with_the_fix() {
        let cases = [
            (
                quote!(
                    #[omp::target_teams(thread_limit(8))]
                    {
                        #[omp::parallel]
                        {}
                    }
                ),
                "needs `num_teams(n)`",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8))]
                    {
                        #[omp::parallel]
                        {}
                    }
                ),
                "needs its team size",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8), thread_limit(8))]
                    {
                        let t = [0; 8];
                        #[omp::parallel]
                        {}
                    }
                ),
                "declare it `let mut t`",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8), thread_limit(8))]
                    {
                        #[omp::parallel(if(c))]
                        {}
                    }
                ),
                "`if` on the `parallel`",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8), thread_limit(8))]
                    {
                        #[omp::parallel(reduction(+: s))]
                        {
                            s += 1;
                        }
                    }
                ),
                "put the same `reduction(+: s)` on the `target_teams`",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8), thread_limit(8))]
                    {
                        #[omp::parallel]
                        {
                            let t = get_thread_num();
                        }
                    }
                ),
                "with its path",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8), thread_limit(8))]
                    {
                        #[omp::parallel]
                        {
                            if c {
                                omp::barrier!();
                            }
                        }
                    }
                ),
                "must be reached by every thread of the team",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8), thread_limit(8))]
                    {
                        #[omp::parallel]
                        {
                            assert!(omp::get_thread_num() < 8);
                        }
                    }
                ),
                "inside a macro call",
            ),
            (
                quote!(
                    #[omp::target_teams(num_teams(8), thread_limit(8))]
                    {
                        #[omp::parallel(schedule(static))]
                        {}
                    }
                ),
                "not allowed on `parallel`",
            ),
        ];
        for (src, want) in cases {
            let err = fused(src.clone()).expect_err(&src.to_string());
            assert!(err.contains(want), "{src}: {err}");
        }
    }

    #[test]
    fn team_local_reads_are_checked_only_in_the_phases_that_write_the_array() {
        let out = fused(quote! {
            #[omp::target_teams(num_teams(g), thread_limit(64))]
            {
                let mut part = [0.0f64; 64];
                let mut tile: [[f32; 8]; 8] = [[0.0; 8]; 8];
                #[omp::parallel]
                {
                    let t = omp::get_thread_num();
                    part[t] = x[t];
                    tile[t / 8][t % 8] = 1.0;
                    omp::barrier!();
                    for s in [32, 16, 8, 4, 2, 1] {
                        if t < s { part[t] += part[t + s]; }
                        omp::barrier!();
                    }
                    y[omp::get_team_num() * 64 + t] = tile[t % 8][t / 8] as f64;
                    if t == 0 { sums[omp::get_team_num()] = part[0]; }
                }
            }
        })
        .unwrap();
        // Both arrays and their bytes, `part` with read stamps (it is read where it is written), `tile` without.
        assert!(out.contains("__omp_spmd_new_arena :: < { 0usize + __omp_spmd_bytes :: < f64 > (1usize * (64)) + __omp_spmd_bytes :: < f32 > (1usize * (8) * (8)) } >"), "{out}");
        assert!(out.contains("__omp_spmd_arena . array :: < f64 , 1usize > (\"part\" , [64] , 0.0f64 , true)"), "{out}");
        assert!(out.contains("__omp_spmd_arena . array :: < f32 , 2usize > (\"tile\" , [8 , 8] , 0.0 , false)"), "{out}");
        assert!(
            out.contains("part . write (__omp_spmd_phase , __omp_k , part . read_checked (__omp_spmd_phase , __omp_k) + __omp_v)"),
            "{out}"
        );
        assert!(out.contains("part . read_checked (__omp_spmd_phase , [t + s])"), "{out}");
        // After the last barrier nothing writes `part` (the loop's last stretch runs with the code after it, which
        // only reads): its read there is plain, as is `tile`'s.
        assert!(out.contains("part . read (__omp_spmd_phase , [0])"), "{out}");
        assert!(out.contains("tile . read (__omp_spmd_phase , [t % 8 , t / 8])"), "{out}");
        assert_eq!(out.matches("__omp_spmd_barrier (& mut __omp_spmd_phase)").count(), 2, "{out}");
        // Thread 0's write of the team's sum is owned by (team, 0).
        assert!(out.contains("sums [(__omp_spmd_team) + __omp_spmd_thread * __omp_spmd_teams]"), "{out}");
    }

    #[test]
    fn a_loop_that_holds_a_barrier_runs_its_last_stretch_with_its_first() {
        // `s[t]` is written at the top of the body and `s[t + 1]` read at its end: the end of one iteration runs with
        // the start of the next, so the read is checked.
        let out = fused(quote! {
            #[omp::target_teams(num_teams(g), thread_limit(64))]
            {
                let mut s = [0u32; 65];
                #[omp::parallel]
                {
                    let t = omp::get_thread_num();
                    for k in 0..steps {
                        s[t] = k;
                        omp::barrier!();
                        y[omp::get_team_num() * 64 + t] += s[t + 1];
                    }
                }
            }
        })
        .unwrap();
        assert!(out.contains("s . read_checked (__omp_spmd_phase , [t + 1])"), "{out}");
    }

    #[test]
    fn barriers_every_thread_may_not_reach_are_refused() {
        let region = |body: TokenStream| {
            quote! {
                #[omp::target_teams(num_teams(8), thread_limit(64))]
                {
                    let mut s = [0.0f64; 64];
                    #[omp::parallel]
                    { let t = omp::get_thread_num(); #body }
                }
            }
        };
        let cases = [
            (
                quote!(while go {
                    omp::barrier!();
                }),
                "not under `if`, `match`, `while` or `loop`",
            ),
            (
                quote!(for k in 0..t {
                    omp::barrier!();
                }),
                "its range depends on `t`",
            ),
            (quote!(let mut n = 4; for k in 0..n { omp::barrier!(); }), "its range depends on `n`"),
            (quote!(let m = s[0] as usize; for k in 0..m { omp::barrier!(); }), "its range depends on `m`"),
            (
                quote!(for k in 0..4 {
                    if t == k {
                        break;
                    }
                    omp::barrier!();
                }),
                "`break` here would let a thread skip barriers",
            ),
            (
                quote!(for k in 0..4 {
                    for j in 0..t {
                        if j == 3 {
                            continue;
                        }
                    }
                    omp::barrier!();
                }),
                "",
            ),
            (
                quote!('a: for k in 0..4 {
                    for j in 0..t {
                        continue 'a;
                    }
                    omp::barrier!();
                }),
                "`continue` here",
            ),
            (quote!(if t == 1 { return; } omp::barrier!();), "`return` here"),
            (quote!(omp::barrier!(); helper(&s);), "is used here as a whole"),
            (quote!(omp::barrier!(); let r = &mut s[t];), "a `&mut` borrow"),
            (quote!(omp::barrier!(); let s = 1.0;), "give this local another name"),
            (quote!(omp::barrier!(); assert!(s[t] > 0.0);), "inside a macro call"),
        ];
        for (body, want) in cases {
            let src = region(body.clone());
            match fused(src) {
                Ok(out) if want.is_empty() => assert!(out.contains("__omp_spmd_barrier"), "{body}: {out}"),
                Ok(out) => panic!("{body}: accepted: {out}"),
                Err(e) => assert!(!want.is_empty() && e.contains(want), "{body}: {e}"),
            }
        }
        let untyped = fused(quote! {
            #[omp::target_teams(num_teams(8), thread_limit(64))]
            {
                let mut s = [0.0; 64];
                #[omp::parallel]
                { s[omp::get_thread_num()] = 1.0; }
            }
        });
        assert!(untyped.unwrap_err().contains("give the element type of the team-local array `s`"));
    }

    #[test]
    fn team_and_thread_numbers_divided_by_one_number_are_two_loops_each() {
        let out = fused(quote! {
            #[omp::target_teams(num_teams(nb * nb), thread_limit(64))]
            {
                #[omp::parallel]
                {
                    let bx = omp::get_team_num() % nb;
                    let by = omp::get_team_num() / nb;
                    let t = omp::get_thread_num();
                    let (tx, ty) = (t % 8, t / 8);
                    c[(by * 8 + ty) * n + bx * 8 + tx] = 1.0;
                }
            }
        })
        .unwrap();
        assert!(out.contains("collapse (4)"), "{out}");
        assert!(out.contains("spmd_split (__omp_spmd_teams , nb as usize , \"num_teams\""), "{out}");
        assert!(
            out.contains("for __omp_spmd_team_hi in 0 .. __omp_spmd_teams / (nb as usize) { for __omp_spmd_team_lo in 0 .. (nb as usize)"),
            "{out}"
        );
        assert!(out.contains("let bx = __omp_spmd_team_lo ; let by = __omp_spmd_team_hi"), "{out}");
        // The alias `t` is rebuilt from the two loops.
        assert!(out.contains("let t = __omp_spmd_thread_hi * (8 as usize) + __omp_spmd_thread_lo"), "{out}");
        assert!(out.contains("(__omp_spmd_thread_lo , __omp_spmd_thread_hi)"), "{out}");
        // Any other use of the number keeps the nest two-dimensional.
        let other = fused(quote! {
            #[omp::target_teams(num_teams(g), thread_limit(64))]
            {
                #[omp::parallel]
                {
                    let t = omp::get_thread_num();
                    y[omp::get_team_num() * 64 + t] = (t % 8) as f64;
                }
            }
        })
        .unwrap();
        assert!(other.contains("collapse (2)"), "{other}");
        // So does a body whose checked writes do not depend on the division (an atomic update needs no ownership):
        // it gains no run-time condition on the team size.
        let unneeded = fused(quote! {
            #[omp::target_teams(num_teams(g), thread_limit(64))]
            {
                #[omp::parallel]
                {
                    let (a, b) = (omp::get_thread_num() % 4, omp::get_thread_num() / 4);
                    #[omp::atomic]
                    hist[a * 16 + b] += 1;
                }
            }
        })
        .unwrap();
        assert!(unneeded.contains("collapse (2)") && !unneeded.contains("spmd_split"), "{unneeded}");
    }

    #[test]
    fn a_teams_block_without_parallel_is_not_spmd() {
        let stmt: Stmt = syn::parse_quote!(
            #[omp::target_teams(num_teams(8))]
            {
                #[omp::distribute_parallel_for]
                for i in 0..n {
                    y[i] = 0.0;
                }
            }
        );
        assert!(fuse(&stmt, inline::Scope::default, &Ctxt::new()).is_none());
    }
}
