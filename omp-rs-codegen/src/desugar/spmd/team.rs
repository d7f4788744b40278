//! Barriers and team-local arrays in SPMD regions: OpenMP's `#pragma omp barrier` and the arrays a `target teams`
//! block declares before its `parallel` (CUDA's `__shared__`), as block reductions and tiled kernels use them.
//!
//! ```ignore
//! #[omp::target_teams(num_teams(blocks), thread_limit(256))]
//! {
//!     let mut part = [0.0f64; 256];           // one per team, shared by its threads
//!     #[omp::parallel]
//!     {
//!         let t = omp::get_thread_num();
//!         part[t] = x[omp::get_team_num() * 256 + t];
//!         omp::barrier!();
//!         for s in [128, 64, 32, 16, 8, 4, 2, 1] {
//!             if t < s { part[t] += part[t + s]; }
//!             omp::barrier!();
//!         }
//!         if t == 0 { sums[omp::get_team_num()] = part[0]; }
//!     }
//! }
//! ```
//!
//! **What the region means.** The code between two barriers is a *phase*; every thread of a team runs the same
//! phases in the same order, because a barrier stands only where every thread reaches it as often as the others:
//! as a statement of the `parallel` block itself, of a plain block there, or of a `for` loop there whose range is
//! the same for every thread of the team (it names no thread-dependent value: [`Uniform`]), never under an `if`,
//! `match`, `while` or `loop`, and no `break`, `continue`, `return` or `?` leaves a part of the region that holds a
//! barrier. Each thread keeps its own locals across barriers; the mapped arrays are the loop nest's (their writes
//! are checked disjoint across all (team, thread) pairs, as without barriers).
//!
//! **Team-local arrays** (`let mut a = [v; N];`, `[[v; N]; M]`, `[[[v; N]; M]; L]`, the element type written as a
//! literal's suffix or in the `let`'s type) become handles on the team's memory (`omp_rs_abi::team_local`): each
//! indexing of `a` a `read`, `read_checked` or `write` call, `#[omp::atomic] a[i] += v` (`-=`) an `atomic_add`
//! (`atomic_sub`), an assignment to a field of an element (`a[i].x = v`) a read of the element and a write of it
//! changed. **Team-local variables** (`let mut k: usize = 0;`, C's `size_t k;` beside the `parallel`) are arrays of
//! one element whose uses [`scalar_uses`] writes as `k[0]` before anything else reads the body. A method call on an
//! element of a struct type receives the copy in a `TeamLocalElement` (`Deref` only), so that a `&mut self` method
//! is a compile error instead of a change lost. Whatever this module concludes, the handles check at run time that
//! no two threads touch an element between two barriers where one of them writes it (a race panics before the
//! access): the analysis only picks the cheap form. [`Phases`] lists the phases that can run at run time, each with the statements it may
//! hold — the stretch before a loop that holds a barrier runs with the loop body's first stretch, the body's last
//! stretch with the next iteration's first and with the code after the loop — and a read of an array in a phase
//! that also writes it is `read_checked` (element stamps), any other read is `read` (one announcement per thread
//! and phase, then a plain load).
//!
//! A function declared in the `#[omp::directives]` fn may hold barriers and take team-local arrays: its calls are
//! inlined before this module reads the body ([`super::inline`]).
//!
//! Refused, each with the fix: a barrier elsewhere; other uses of a team-local array than indexing every dimension
//! and `.len()` (passing it to a function declared elsewhere, `&mut a[i]`, a macro naming it); a team-local array or variable without
//! its element type, one that a local of the body shadows, or one whose initial value calls the team or thread
//! routines (it is computed before the threads run).

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Stmt};

use crate::ctxt::Ctxt;
use crate::names::spmd::{ARENA, BARRIER, BYTES, ELEMENT, NEW_ARENA, PHASE, ROUTINES};

/// A team-local array: `let mut name[: ty] = [[value; n1]; n0];`, or a team-local variable `let mut name[: ty] =
/// value;` (C's `size_t k;` beside the `parallel`), which is the one element of an array of one ([`scalar_uses`]).
pub(crate) struct TeamArray {
    name: Ident,
    elem: syn::Type,
    /// Outermost first, as indexing writes them (`a[i0][i1]`); `[1]` for a variable.
    dims: Vec<Expr>,
    value: Expr,
    scalar: bool,
}

impl TeamArray {
    /// The array's name.
    pub(crate) fn name(&self) -> &Ident {
        &self.name
    }

    /// Whether it is a team-local variable (used by name, not indexed).
    pub(crate) fn is_scalar(&self) -> bool {
        self.scalar
    }

    /// Its element type, as written.
    pub(crate) fn elem(&self) -> &syn::Type {
        &self.elem
    }

    /// How many dimensions it has (a variable: one, of one element).
    pub(crate) fn dims(&self) -> usize {
        self.dims.len()
    }

    /// Its outermost length as declared (`N` of `[v; N]`: a value the whole team shares, unlike a name of the
    /// array, which the barrier analysis counts as varying).
    pub(crate) fn outer_len(&self) -> &Expr {
        &self.dims[0]
    }
}

/// Reads a statement of a `target_teams` block before its `parallel` as a team-local array; `None` (reported to
/// `cx`) when it is not one.
pub(crate) fn team_array(stmt: &Stmt, cx: &Ctxt) -> Option<TeamArray> {
    const HOW: &str = "a `target_teams` block holds its team-local arrays (`let mut tile = [0.0f64; 256];`, shared by the \
                       team's threads) and then its `#[omp::parallel]` block";
    let Stmt::Local(local) = stmt else {
        cx.error_spanned_by(stmt, format!("{HOW}; move other statements into the `parallel` block or before the region"));
        return None;
    };
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        p => (p, None),
    };
    let syn::Pat::Ident(id) = pat else {
        cx.error_spanned_by(&local.pat, format!("{HOW}: bind one array to one name"));
        return None;
    };
    if id.mutability.is_none() || id.by_ref.is_some() || id.subpat.is_some() {
        cx.error_spanned_by(
            &local.pat,
            format!(
                "a team-local array is written by the team's threads: declare it `let mut {}`; a table the threads only \
                 read belongs inside the `parallel` block or before the region",
                id.ident
            ),
        );
        return None;
    }
    let Some(init) = &local.init else {
        cx.error_spanned_by(
            stmt,
            format!(
                "give the team-local `{}` its initial value (`[0.0f64; 256]` for an array, `0usize` for a variable): \
                 the team's threads share it from the start",
                id.ident
            ),
        );
        return None;
    };
    if init.diverge.is_some() {
        cx.error_spanned_by(stmt, "a team-local array or variable is a `let` with a value, not `let .. else`");
        return None;
    }
    // The value is computed before the team's threads exist: no thread or team number means anything there.
    let routine =
        crate::syntax::tokens::ident_tokens(init.expr.to_token_stream()).into_iter().find(|i| ROUTINES.iter().any(|(r, _)| i == r));
    if let Some(r) = routine {
        cx.error_spanned_by(
            &init.expr,
            format!(
                "the initial value of the team-local `{}` calls `{r}`, which it cannot mean before the team's threads \
                 run: give it a value every team shares and assign it in the `parallel` block (under \
                 `if omp::get_thread_num() == 0`, then `omp::barrier!()`)",
                id.ident
            ),
        );
        return None;
    }
    // A variable: neither its value nor its type is an array.
    let array_typed = matches!(ty, Some(syn::Type::Array(_)));
    if !matches!(&*init.expr, Expr::Repeat(_) | Expr::Array(_)) && !array_typed {
        let literal_struct = match &*init.expr {
            Expr::Struct(st) if st.qself.is_none() => Some(syn::Type::Path(syn::TypePath { qself: None, path: st.path.clone() })),
            _ => None,
        };
        let elem = match ty.cloned().or_else(|| suffix_type(&init.expr)).or(literal_struct) {
            Some(t) => t,
            None => {
                cx.error_spanned_by(
                    &init.expr,
                    format!(
                        "give the type of the team-local variable `{}`: a suffix (`0usize`, `0.0f32`), a struct \
                         literal or the `let`'s type (`let mut {}: u32 = 0;`); the team's memory is laid out before the \
                         threads run",
                        id.ident, id.ident
                    ),
                );
                return None;
            }
        };
        let one: Expr = syn::parse_quote!(1usize);
        return Some(TeamArray { name: id.ident.clone(), elem, dims: vec![one], value: (*init.expr).clone(), scalar: true });
    }
    // `[[v; n1]; n0]`: the dimensions outermost first, down to the element value.
    let (mut dims, mut value) = (Vec::new(), &*init.expr);
    while let Expr::Repeat(r) = value {
        dims.push((*r.len).clone());
        value = &r.expr;
    }
    if dims.is_empty() || dims.len() > 3 {
        cx.error_spanned_by(
            &init.expr,
            format!(
                "write the team-local array `{}`'s value as `[v; N]` (two or three dimensions: `[[v; N]; M]`): the team's \
                 threads set every element to `v`",
                id.ident
            ),
        );
        return None;
    }
    let elem = match ty {
        Some(t) => {
            let mut t = t;
            let mut depth = 0;
            while let syn::Type::Array(a) = t {
                t = &a.elem;
                depth += 1;
            }
            if depth != dims.len() {
                cx.error_spanned_by(ty, format!("the type of `{}` has {depth} dimensions and its value {}", id.ident, dims.len()));
                return None;
            }
            t.clone()
        }
        None => match suffix_type(value) {
            Some(t) => t,
            None => {
                cx.error_spanned_by(
                    value,
                    format!(
                        "give the element type of the team-local array `{}`: a suffix (`0.0f64`, `0u32`) or the `let`'s type \
                         (`let mut {}: [f32; 256] = ..`); the team's memory is laid out before the threads run",
                        id.ident, id.ident
                    ),
                );
                return None;
            }
        },
    };
    Some(TeamArray { name: id.ident.clone(), elem, dims, value: value.clone(), scalar: false })
}

/// Writes each use of a team-local variable in a team body as the element it is (`k` becomes `k[0]`), so that the
/// variables are checked, phased and lowered as the arrays are. Uses inside macro calls stay as written (and are
/// refused by the lowering, as an array's are).
pub(crate) fn scalar_uses(body: &mut syn::Block, scalars: &[String]) {
    struct Uses<'a>(&'a [String]);
    impl Uses<'_> {
        fn is_scalar(&self, e: &Expr) -> bool {
            names_array(e, self.0).is_some()
        }
    }
    impl VisitMut for Uses<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if self.is_scalar(e) {
                let span = e.span();
                let whole = e.clone();
                *e = syn::parse_quote_spanned!(span=> #whole[0]);
                return;
            }
            visit_mut::visit_expr_mut(self, e);
        }
        fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
            // `S { k }`: the shorthand would print the member alone.
            if f.colon_token.is_none() && self.is_scalar(&f.expr) {
                f.colon_token = Some(Default::default());
            }
            visit_mut::visit_field_value_mut(self, f);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    if !scalars.is_empty() {
        Uses(scalars).visit_block_mut(body);
    }
}

/// The type a literal's suffix (or `true`/`false`) names.
fn suffix_type(e: &Expr) -> Option<syn::Type> {
    let e = match e {
        Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => &**expr,
        e => e,
    };
    let Expr::Lit(l) = e else { return None };
    let suffix = match &l.lit {
        syn::Lit::Int(i) => i.suffix().to_string(),
        syn::Lit::Float(f) => f.suffix().to_string(),
        syn::Lit::Bool(_) => "bool".to_string(),
        _ => return None,
    };
    (!suffix.is_empty()).then(|| syn::parse_str(&suffix).ok()).flatten()
}

/// Lowers a team body: checks where its barriers stand, rewrites its barriers and team-local accesses, and puts the
/// arena's set-up first. `thread`: the names the thread number is bound to (two where it is split). `Err(())` once errors were reported.
pub(crate) fn lower(body: &mut syn::Block, arrays: &[TeamArray], thread: &[&str], cx: &Ctxt) -> Result<(), ()> {
    let names: Vec<String> = arrays.iter().map(|a| a.name.to_string()).collect();
    let mut ok = true;
    // Shadowing would make an indexing of the name mean the local; refused rather than told apart.
    let mut declared = Declared(Vec::new());
    declared.visit_block(body);
    for (name, span) in &declared.0 {
        if names.contains(name) {
            cx.error_at(*span, format!("`{name}` names a team-local array or variable here; give this local another name"));
            ok = false;
        }
    }
    let uniform = Uniform::of(body, thread, &names);
    let scalar: Vec<bool> = arrays.iter().map(|a| a.scalar).collect();
    let mut phases = Phases {
        names: &names,
        scalar: &scalar,
        uniform: &uniform,
        cx,
        ok: true,
        phases: vec![Vec::new()],
        segments: 0,
        accesses: Vec::new(),
    };
    phases.stmts(&body.stmts, vec![0], &[]);
    ok &= phases.ok;
    if !ok {
        return Err(());
    }
    // A read is checked where some phase that may hold it also holds a write of the array.
    let decisions: Vec<bool> = phases
        .accesses
        .iter()
        .map(|a| {
            a.reads
                && (a.writes
                    || phases
                        .phases
                        .iter()
                        .filter(|p| p.contains(&a.segment))
                        .any(|p| phases.accesses.iter().any(|b| b.writes && b.array == a.array && p.contains(&b.segment))))
        })
        .collect();
    let mixed: Vec<bool> =
        (0..arrays.len()).map(|k| phases.accesses.iter().zip(&decisions).any(|(a, checked)| a.array == k && *checked)).collect();
    let primitive: Vec<bool> = arrays.iter().map(|a| crate::analyze::types::is_primitive(&a.elem)).collect();
    let mut rewrite = Rewrite { names: &names, primitive: &primitive, decisions: &decisions, next: 0 };
    rewrite.visit_block_mut(body);

    let [arena, phase, new_arena, bytes] = [ARENA, PHASE, NEW_ARENA, BYTES].map(|n| Ident::new(n, Span::call_site()));
    let sizes = arrays.iter().map(|a| {
        let (elem, dims) = (&a.elem, &a.dims);
        quote!(#bytes::<#elem>(1usize #(* (#dims))*))
    });
    let mut prologue = quote!(let mut #arena = #new_arena::<{ 0usize #(+ #sizes)* }>(););
    for (a, mixed) in arrays.iter().zip(mixed) {
        let (name, elem, dims, value) = (&a.name, &a.elem, &a.dims, &a.value);
        let d = dims.len();
        let label = name.to_string();
        prologue.extend(quote!(let #name = #arena.array::<#elem, #d>(#label, [#(#dims),*], #value, #mixed);));
    }
    prologue.extend(quote!(#[allow(unused_mut, unused_variables)] let mut #phase: u32 = #arena.start();));
    let block: syn::Block = syn::parse2(quote!({ #prologue })).map_err(|e| cx.syn_error(e))?;
    body.stmts.splice(0..0, block.stmts);
    Ok(())
}

/// Whether a statement is `omp::barrier!();`.
fn is_barrier(stmt: &Stmt) -> bool {
    crate::syntax::body::statement_macro(stmt).is_some_and(barrier_macro)
}

fn barrier_macro(m: &syn::Macro) -> bool {
    crate::syntax::body::omp_macro(m, "barrier")
}

/// Whether statements hold a barrier anywhere.
pub(crate) fn holds_barrier(stmts: &[Stmt]) -> bool {
    struct Find(bool);
    impl<'ast> Visit<'ast> for Find {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            self.0 |= barrier_macro(m);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Find(false);
    stmts.iter().for_each(|s| f.visit_stmt(s));
    f.0
}

/// A team-local access, in the order both passes meet them.
struct Access {
    array: usize,
    segment: usize,
    reads: bool,
    writes: bool,
}

/// The statements of a team body between barriers ("segments", one per statement) and the phases that may run at
/// run time, each the set of segments whose code it may hold; two accesses may run at the same time when some phase
/// holds both. Walking the body keeps the phases open at each point (more than one after a loop that holds a
/// barrier: the loop may run zero times); a statement's segment joins every open phase; a barrier closes them and
/// opens a new one. A loop that holds a barrier: its body starts in the phases open before it (its first iteration)
/// and in a phase with the end of the previous iteration (the wrap-around), and the code after it runs in the
/// phases open at the body's end (its last iteration) and in copies of those before it (no iteration at all).
struct Phases<'a> {
    names: &'a [String],
    /// Per name: whether it is a team-local variable.
    scalar: &'a [bool],
    uniform: &'a Uniform,
    cx: &'a Ctxt,
    ok: bool,
    /// Each phase's segments.
    phases: Vec<Vec<usize>>,
    segments: usize,
    accesses: Vec<Access>,
}

impl Phases<'_> {
    fn phase(&mut self, segments: Vec<usize>) -> usize {
        self.phases.push(segments);
        self.phases.len() - 1
    }

    fn error<T: ToTokens>(&mut self, at: T, msg: impl std::fmt::Display) {
        self.cx.error_spanned_by(at, msg);
        self.ok = false;
    }

    /// A new segment in every phase of `open`.
    fn segment(&mut self, open: &[usize]) -> usize {
        let s = self.segments;
        self.segments += 1;
        for &p in open {
            self.phases[p].push(s);
        }
        s
    }

    /// Walks `stmts` in the phases `open`, inside the barrier loops labelled `labels`; the phases open at their end.
    fn stmts(&mut self, stmts: &[Stmt], mut open: Vec<usize>, labels: &[String]) -> Vec<usize> {
        for stmt in stmts {
            if is_barrier(stmt) {
                open = vec![self.phase(Vec::new())];
                continue;
            }
            if holds_barrier(std::slice::from_ref(stmt)) {
                match stmt {
                    Stmt::Expr(Expr::ForLoop(f), _) if f.attrs.is_empty() => {
                        let seg = self.segment(&open);
                        self.collect(seg, |c| c.visit_expr(&f.expr));
                        if let Some(name) = self.uniform.depends(&f.expr) {
                            self.error(
                                &f.expr,
                                format!(
                                    "this loop holds an `omp::barrier!()`, so every thread of the team must run it as often \
                                     as the others; its range depends on `{name}`, which differs between threads: compute \
                                     the range from values the whole team shares"
                                ),
                            );
                        }
                        let copies: Vec<Vec<usize>> = open.iter().map(|&p| self.phases[p].clone()).collect();
                        let skipped: Vec<usize> = copies.into_iter().map(|segs| self.phase(segs)).collect();
                        let wrap = self.phase(Vec::new());
                        let mut inner = labels.to_vec();
                        inner.extend(f.label.as_ref().map(|l| l.name.ident.to_string()));
                        let mut body_open = open.clone();
                        body_open.push(wrap);
                        let end = self.stmts(&f.body.stmts, body_open, &inner);
                        // The wrap-around: the end of an iteration with the start of the next (`wrap` holds the start).
                        for &e in &end {
                            let mut segs = self.phases[e].clone();
                            segs.extend(self.phases[wrap].clone());
                            self.phase(segs);
                        }
                        open = end.into_iter().chain(skipped).collect();
                        continue;
                    }
                    Stmt::Expr(Expr::Block(b), _) if b.attrs.is_empty() && b.label.is_none() => {
                        open = self.stmts(&b.block.stmts, open, labels);
                        continue;
                    }
                    _ => {
                        self.error(
                            stmt,
                            "an `omp::barrier!()` must be reached by every thread of the team as often as by the others: \
                             it stands in the `parallel` block, a plain block there or a `for` loop over a range the \
                             team shares, not under `if`, `match`, `while` or `loop`; hoist it out of the condition",
                        );
                        continue;
                    }
                }
            }
            self.exits(stmt, labels);
            let seg = self.segment(&open);
            self.collect(seg, |c| c.visit_stmt(stmt));
        }
        open
    }

    /// Refuses the exits of a barrier-free statement inside barrier loops labelled `labels`: `return`, `?`, and
    /// `break`/`continue` that leave the statement's own loops.
    fn exits(&mut self, stmt: &Stmt, labels: &[String]) {
        let mut e = crate::syntax::body::Exits::new(labels);
        e.visit_stmt(stmt);
        for (span, what) in e.found {
            self.cx.error_at(span, exit_message(what));
            self.ok = false;
        }
    }

    /// Records the team-local accesses of barrier-free code in segment `seg` (`visit` walks it).
    fn collect(&mut self, seg: usize, visit: impl FnOnce(&mut Collect<'_>)) {
        let mut c = Collect { names: self.names, scalar: self.scalar, seg, out: Vec::new(), errors: Vec::new() };
        visit(&mut c);
        for (span, msg) in c.errors {
            self.cx.error_at(span, msg);
            self.ok = false;
        }
        self.accesses.extend(c.out);
    }
}

fn exit_message(what: &str) -> String {
    format!(
        "`{what}` here would let a thread skip barriers the rest of its team waits at: in an SPMD region with \
         `omp::barrier!()`, branch around the code instead (`if`), so that every thread reaches every barrier"
    )
}

/// The thread-dependent names of a team body: the thread number, every `mut` local (its value may be assigned per
/// thread), every local whose value names one of them, a team-local array or an array the body writes, and the
/// variables of loops over such ranges.
struct Uniform {
    varying: Vec<String>,
}

impl Uniform {
    fn of(body: &syn::Block, thread: &[&str], team_arrays: &[String]) -> Uniform {
        let mut written = Written(Vec::new());
        written.visit_block(body);
        let mut varying: Vec<String> = thread.iter().map(|t| t.to_string()).chain(team_arrays.iter().cloned()).chain(written.0).collect();
        // To a fixed point: a local is varying when its value names a varying name.
        loop {
            let mut lets = Lets { varying: &varying, found: Vec::new() };
            lets.visit_block(body);
            let new: Vec<String> = lets.found.into_iter().filter(|n| !varying.contains(n)).collect();
            if new.is_empty() {
                break;
            }
            varying.extend(new);
        }
        Uniform { varying }
    }

    /// The first varying name `e` mentions.
    fn depends(&self, e: &Expr) -> Option<String> {
        crate::syntax::tokens::ident_tokens(e.to_token_stream()).into_iter().map(|i| i.to_string()).find(|i| self.varying.contains(i))
    }
}

/// Names bound by `let`s (and loop patterns) that are varying: `mut` bindings, or values naming a varying name.
struct Lets<'a> {
    varying: &'a [String],
    found: Vec<String>,
}

impl Lets<'_> {
    fn bind(&mut self, pat: &syn::Pat, varying_value: bool) {
        let mut b = Bindings(Vec::new());
        b.visit_pat(pat);
        for (name, is_mut) in b.0 {
            if is_mut || varying_value {
                self.found.push(name);
            }
        }
    }

    fn names_varying<T: ToTokens>(&self, t: &T) -> bool {
        crate::syntax::tokens::ident_tokens(t.to_token_stream()).iter().any(|i| self.varying.contains(&i.to_string()))
    }
}

impl<'ast> Visit<'ast> for Lets<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let varying = l.init.as_ref().is_some_and(|i| self.names_varying(&i.expr));
        self.bind(&l.pat, varying);
        syn::visit::visit_local(self, l);
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        let varying = self.names_varying(&f.expr);
        self.bind(&f.pat, varying);
        syn::visit::visit_expr_for_loop(self, f);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The identifiers a pattern binds, each with whether it is `mut`.
#[derive(Default)]
pub(crate) struct Bindings(Vec<(String, bool)>);

impl Bindings {
    /// The bound names.
    pub(crate) fn names(self) -> impl Iterator<Item = String> {
        self.0.into_iter().map(|(n, _)| n)
    }
}

impl<'ast> Visit<'ast> for Bindings {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push((p.ident.to_string(), p.mutability.is_some()));
        syn::visit::visit_pat_ident(self, p);
    }
}

/// The roots of the places a body assigns to (`y[i] = ..`, `s += ..`).
struct Written(Vec<String>);

impl<'ast> Visit<'ast> for Written {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some(root) = crate::syntax::place::place_root(&a.left) {
            self.0.push(root.ident.to_string());
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if compound_op(&b.op).is_some() {
            if let Some(root) = crate::syntax::place::place_root(&b.left) {
                self.0.push(root.ident.to_string());
            }
        }
        syn::visit::visit_expr_binary(self, b);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The locals a body declares, with where (to refuse one that shadows a team-local array).
struct Declared(Vec<(String, Span)>);

impl<'ast> Visit<'ast> for Declared {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push((p.ident.to_string(), p.ident.span()));
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The binary operator of a compound assignment (`+=` gives `+`).
pub(crate) fn compound_op(op: &syn::BinOp) -> Option<TokenStream> {
    use syn::BinOp::*;
    Some(match op {
        AddAssign(_) => quote!(+),
        SubAssign(_) => quote!(-),
        MulAssign(_) => quote!(*),
        DivAssign(_) => quote!(/),
        RemAssign(_) => quote!(%),
        BitXorAssign(_) => quote!(^),
        BitAndAssign(_) => quote!(&),
        BitOrAssign(_) => quote!(|),
        ShlAssign(_) => quote!(<<),
        ShrAssign(_) => quote!(>>),
        _ => return None,
    })
}

/// `a[i][j]` with `a` one of `names`: the array's number and the indices, outermost first.
fn indexing<'e>(e: &'e Expr, names: &[String]) -> Option<(usize, Vec<&'e Expr>)> {
    let mut idx = Vec::new();
    let mut at = e;
    loop {
        match at {
            Expr::Index(i) => {
                idx.push(&*i.index);
                at = &i.expr;
            }
            Expr::Paren(p) if !idx.is_empty() => at = &p.expr,
            Expr::Path(p) if !idx.is_empty() && p.qself.is_none() => {
                let name = p.path.get_ident()?.to_string();
                let k = names.iter().position(|n| *n == name)?;
                idx.reverse();
                return Some((k, idx));
            }
            _ => return None,
        }
    }
}

/// `a[i].f.g` with `a` one of `names`: the element's place (`a[i]`) and the fields after it, in order. `None` for a
/// place without fields.
fn field_place<'e>(e: &'e Expr, names: &[String]) -> Option<(&'e Expr, Vec<&'e syn::Member>)> {
    let mut fields = Vec::new();
    let mut at = e;
    loop {
        match at {
            Expr::Field(f) => {
                fields.push(&f.member);
                at = &f.base;
            }
            Expr::Paren(p) => at = &p.expr,
            _ if !fields.is_empty() && indexing(at, names).is_some() => {
                fields.reverse();
                return Some((at, fields));
            }
            _ => return None,
        }
    }
}

/// `a[i].f = v` or `a[i].f += v` (a field of a team-local element assigned): the place, the value and the operator.
fn field_write<'e>(e: &'e Expr, names: &[String]) -> Option<(&'e Expr, &'e Expr, TokenStream)> {
    let (left, right, op) = match e {
        Expr::Assign(a) => (&*a.left, &*a.right, quote!(=)),
        Expr::Binary(b) if compound_op(&b.op).is_some() => (&*b.left, &*b.right, b.op.to_token_stream()),
        _ => return None,
    };
    field_place(left, names).map(|_| (left, right, op))
}

/// A path naming a team-local array.
fn names_array(e: &Expr, names: &[String]) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()).filter(|n| names.contains(n)),
        _ => None,
    }
}

/// The first pass: the team-local accesses of some barrier-free code, in the order [`Rewrite`] meets them.
struct Collect<'a> {
    names: &'a [String],
    scalar: &'a [bool],
    seg: usize,
    out: Vec<Access>,
    errors: Vec<(Span, String)>,
}

impl Collect<'_> {
    fn is_scalar(&self, name: &str) -> bool {
        self.names.iter().zip(self.scalar).any(|(n, s)| n == name && *s)
    }

    fn record(&mut self, array: usize, reads: bool, writes: bool) {
        self.out.push(Access { array, segment: self.seg, reads, writes });
    }
}

/// `#[omp::atomic] a[i] += v;` (or `-=`) on a team-local array.
struct TeamAtomic {
    /// The array's number.
    array: usize,
    indices: Vec<Expr>,
    value: Expr,
    subtracts: bool,
}

/// The team-local atomic update `stmt` is, or an error for other atomic forms on a team-local array.
fn team_atomic(stmt: &Stmt, names: &[String]) -> Option<Result<TeamAtomic, (Span, String)>> {
    let Ok(Some(crate::syntax::body::BodyDirective::Atomic(a))) = crate::syntax::body::statement_directive(stmt) else { return None };
    let (array, idx) = indexing(&a.target, names)?;
    let indices: Vec<Expr> = idx.into_iter().cloned().collect();
    use crate::syntax::body::AtomicOp;
    let update = |value: &Expr, subtracts| Some(Ok(TeamAtomic { array, indices: indices.clone(), value: value.clone(), subtracts }));
    match (a.kind, a.op, &a.value) {
        (crate::model::AtomicKind::Update, Some(op @ (AtomicOp::Add | AtomicOp::Sub)), Some(v)) => update(v, op == AtomicOp::Sub),
        (crate::model::AtomicKind::Update, None, Some(v)) => update(v, false),
        _ => Some(Err((
            stmt.span(),
            format!(
                "`#[omp::atomic]` on the team-local array `{}` adds (`+=`) or subtracts (`-=`); other atomic forms on \
                 team-local arrays are not supported",
                names[array]
            ),
        ))),
    }
}

impl<'ast> Visit<'ast> for Collect<'_> {
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match team_atomic(stmt, self.names) {
            Some(Ok(a)) => {
                // Atomic updates need no decision; their operands' accesses do, in the order the rewrite meets them.
                self.visit_expr(&a.value);
                a.indices.iter().for_each(|i| self.visit_expr(i));
            }
            Some(Err(e)) => self.errors.push(e),
            None => syn::visit::visit_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Assign(a) => {
                if let Some((k, idx)) = indexing(&a.left, self.names) {
                    self.visit_expr(&a.right);
                    idx.into_iter().for_each(|i| self.visit_expr(i));
                    self.record(k, false, true);
                    return;
                }
            }
            Expr::Binary(b) if compound_op(&b.op).is_some() => {
                if let Some((k, idx)) = indexing(&b.left, self.names) {
                    self.visit_expr(&b.right);
                    idx.into_iter().for_each(|i| self.visit_expr(i));
                    self.record(k, true, true);
                    return;
                }
            }
            _ => {}
        }
        // A field of an element assigned: the element is read, changed and written back.
        if let Some((place, value, _)) = field_write(e, self.names) {
            if let Some((element, _)) = field_place(place, self.names) {
                let (k, idx) = indexing(element, self.names).unwrap_or((0, Vec::new()));
                self.visit_expr(value);
                idx.into_iter().for_each(|i| self.visit_expr(i));
                self.record(k, true, true);
                return;
            }
        }
        match e {
            Expr::Index(_) => {
                if let Some((k, idx)) = indexing(e, self.names) {
                    idx.into_iter().for_each(|i| self.visit_expr(i));
                    self.record(k, true, false);
                    return;
                }
            }
            Expr::Reference(r) if r.mutability.is_some() && indexing(&r.expr, self.names).is_some() => {
                self.errors.push((
                    r.span(),
                    "a `&mut` borrow of a team-local array's element is not supported: assign the element instead \
                     (`tile[i] = v;`, `tile[i] += v;`)"
                        .into(),
                ));
                return;
            }
            Expr::MethodCall(m) if names_array(&m.receiver, self.names).is_some() => {
                if m.method == "len" && m.args.is_empty() {
                    return;
                }
                self.errors.push((
                    m.span(),
                    format!(
                        "a team-local array is used by indexing it (`{}[i]`) and `.len()`; `.{}()` is not supported",
                        names_array(&m.receiver, self.names).unwrap_or_default(),
                        m.method
                    ),
                ));
                return;
            }
            Expr::Path(_) => {
                if let Some(name) = names_array(e, self.names) {
                    self.errors.push((
                        e.span(),
                        format!(
                            "the team-local array `{name}` is used here as a whole; index it (`{name}[i]`), one element \
                             at a time, or pass it (`&mut {name}`, `&{name}[a..]`) to a function declared in the \
                             `#[omp::directives]` fn, which omp-rs inlines"
                        ),
                    ));
                    return;
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if barrier_macro(m) {
            return;
        }
        let mentioned =
            crate::syntax::tokens::ident_tokens(m.tokens.clone()).into_iter().map(|i| i.to_string()).find(|i| self.names.contains(i));
        if let Some(name) = mentioned {
            let msg = if self.is_scalar(&name) {
                format!("the team-local variable `{name}` inside a macro call: read it into a local first (`let v = {name};`)")
            } else {
                format!("the team-local array `{name}` inside a macro call: read the element into a local first (`let v = {name}[i];`)")
            };
            self.errors.push((m.span(), msg));
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The second pass: each team-local access becomes its handle call (`read` / `read_checked` / `write`), each
/// barrier `__omp_spmd_barrier(&mut phase)`.
struct Rewrite<'a> {
    names: &'a [String],
    /// Per array: whether its element type is a primitive scalar (`types::is_primitive`).
    primitive: &'a [bool],
    /// Per access in order: whether its read is checked.
    decisions: &'a [bool],
    next: usize,
}

impl Rewrite<'_> {
    /// Whether a method call's receiver is an element (or its field) of a team-local array of a type that may have
    /// `&mut self` methods (primitive numbers have none; wrapping them would hide blanket methods like `into`).
    fn wrapped_receiver(&self, receiver: &Expr) -> bool {
        let element = field_place(receiver, self.names).map(|(e, _)| e).unwrap_or(receiver);
        indexing(element, self.names).is_some_and(|(k, _)| !self.primitive[k])
    }

    fn read_call(&mut self) -> Ident {
        let checked = self.decisions.get(self.next).copied().unwrap_or(true);
        self.next += 1;
        Ident::new(if checked { "read_checked" } else { "read" }, Span::call_site())
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        for stmt in &mut block.stmts {
            if is_barrier(stmt) {
                let (barrier, phase) = (Ident::new(BARRIER, stmt.span()), Ident::new(PHASE, Span::call_site()));
                *stmt = syn::parse_quote!(#barrier(&mut #phase););
            } else if let Some(Ok(mut a)) = team_atomic(stmt, self.names) {
                self.visit_expr_mut(&mut a.value);
                a.indices.iter_mut().for_each(|i| self.visit_expr_mut(i));
                let span = stmt.span();
                let (name, phase) = (Ident::new(&self.names[a.array], span), Ident::new(PHASE, Span::call_site()));
                let f = Ident::new(if a.subtracts { "atomic_sub" } else { "atomic_add" }, span);
                let (value, idx) = (&a.value, &a.indices);
                *stmt = syn::parse_quote_spanned!(span=> { let __omp_v = #value; #name.#f(#phase, [#(#idx),*], __omp_v); });
            } else {
                self.visit_stmt_mut(stmt);
            }
        }
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let phase = Ident::new(PHASE, Span::call_site());
        let span = e.span();
        match e {
            Expr::Assign(a) if indexing(&a.left, self.names).is_some() => {
                self.visit_expr_mut(&mut a.right);
                let (k, _) = indexing(&a.left, self.names).unwrap_or((0, Vec::new()));
                let mut idx: Vec<Expr> = indexing(&a.left, self.names).map(|(_, i)| i.into_iter().cloned().collect()).unwrap_or_default();
                idx.iter_mut().for_each(|i| self.visit_expr_mut(i));
                self.next += 1;
                let name = Ident::new(&self.names[k], span);
                let value = &a.right;
                // The value first, then the place: Rust's order for `a[i] = v` on arrays of primitives.
                *e = syn::parse_quote_spanned!(span=> { let __omp_v = #value; #name.write(#phase, [#(#idx),*], __omp_v) });
            }
            Expr::Binary(b) if compound_op(&b.op).is_some() && indexing(&b.left, self.names).is_some() => {
                self.visit_expr_mut(&mut b.right);
                let (k, _) = indexing(&b.left, self.names).unwrap_or((0, Vec::new()));
                let mut idx: Vec<Expr> = indexing(&b.left, self.names).map(|(_, i)| i.into_iter().cloned().collect()).unwrap_or_default();
                idx.iter_mut().for_each(|i| self.visit_expr_mut(i));
                let read = self.read_call();
                let name = Ident::new(&self.names[k], span);
                let (value, op) = (&b.right, compound_op(&b.op).unwrap_or_default());
                *e = syn::parse_quote_spanned!(span=> {
                    let __omp_v = #value;
                    let __omp_k = [#(#idx),*];
                    #name.write(#phase, __omp_k, #name.#read(#phase, __omp_k) #op __omp_v)
                });
            }
            _ if field_write(e, self.names).is_some() => {
                // `a[i].f = v` (`+= v`): the element read, its field changed, the element written; the value first.
                let Some((left, right, op)) = field_write(e, self.names) else { return };
                let (mut left, mut right) = (left.clone(), right.clone());
                self.visit_expr_mut(&mut right);
                let Some((element, fields)) = field_place(&left, self.names) else { return };
                let (k, idx) = indexing(element, self.names).unwrap_or((0, Vec::new()));
                let mut idx: Vec<Expr> = idx.into_iter().cloned().collect();
                let fields: Vec<syn::Member> = fields.into_iter().cloned().collect();
                idx.iter_mut().for_each(|i| self.visit_expr_mut(i));
                let read = self.read_call();
                let name = Ident::new(&self.names[k], span);
                left = syn::parse_quote_spanned!(span=> __omp_e #(.#fields)*);
                *e = syn::parse_quote_spanned!(span=> {
                    let __omp_v = #right;
                    let __omp_k = [#(#idx),*];
                    let mut __omp_e = #name.#read(#phase, __omp_k);
                    #left #op __omp_v;
                    #name.write(#phase, __omp_k, __omp_e)
                });
            }
            Expr::MethodCall(m) if self.wrapped_receiver(&m.receiver) => {
                // The element is a copy: wrapped so that a method taking `&mut self` is a compile error at the call
                // rather than a change of a temporary the team never sees.
                self.visit_expr_mut(&mut m.receiver);
                m.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                let (element, receiver) = (Ident::new(ELEMENT, span), (*m.receiver).clone());
                *m.receiver = syn::parse_quote_spanned!(span=> #element(#receiver));
            }
            Expr::Index(_) if indexing(e, self.names).is_some() => {
                let (k, idx) = indexing(e, self.names).unwrap_or((0, Vec::new()));
                let mut idx: Vec<Expr> = idx.into_iter().cloned().collect();
                idx.iter_mut().for_each(|i| self.visit_expr_mut(i));
                let read = self.read_call();
                let name = Ident::new(&self.names[k], span);
                *e = syn::parse_quote_spanned!(span=> #name.#read(#phase, [#(#idx),*]));
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
