//! Host lowering: a parallel loop becomes a call to `omp::__private::parallel_for`, which runs the chunks of the
//! flattened iteration space on a team of threads. Each [`Class`] of captured variable gets its race-free form:
//!
//! | class | before the loop | inside each thread |
//! |---|---|---|
//! | shared (read only) | – | captured by `&` (the closure is `Fn + Sync`, so nothing else can mutate it) |
//! | disjoint array | `DisjointMut::new(as_slice_mut(&mut y), ownership)`: the index form's run-time ownership, verified disjoint | the chunk's `ChunkView`, which reaches only owned elements |
//! | reduction | identity of the operator | private copy, combined in thread order after the loop |
//! | private / firstprivate | – | per iteration: `let mut x = x.clone();` |
//! | atomic | `AtomicRef`/`AtomicSlice` over `&mut x` / `as_slice_mut(&mut x)` | statements rewritten to atomic calls |
//! | critical | `CriticalCell` over `(&mut a, ...)` | block runs under the named lock |

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Stmt};

use crate::analyze::affine::{Coeff, IterVar, Poly, Witness};
use crate::analyze::types::CaptureTypes;
use crate::analyze::{Analysis, Class, DisjointArray};
use crate::model::{AtomicKind, Directive, ScheduleKind};
use crate::names::{self, rt};
use crate::syntax::body::{self, AtomicStmt, BodyDirective};
use crate::syntax::loops::{Adaptor, LoopDim, LoopNest};

/// `Dim::from(a..b).step_by(s).rev()` for one loop of the nest.
pub(crate) fn dim_expr(dim: &LoopDim) -> TokenStream {
    let rt = rt();
    let base = &dim.base;
    let mut out = quote!(#rt::Dim::from(#base));
    for a in &dim.adaptors {
        out = match a {
            Adaptor::StepBy(s) => quote!(#out.step_by(#s)),
            Adaptor::Rev => quote!(#out.rev()),
        };
    }
    out
}

/// The region configuration: team size, schedule, `if`.
fn region_config(d: &Directive) -> TokenStream {
    let rt = rt();
    let num_threads = match &d.settings.num_threads {
        Some(e) => quote!(::core::option::Option::Some(#rt::team_size(#e))),
        None => quote!(::core::option::Option::None),
    };
    let schedule = match &d.settings.schedule {
        None => quote!(#rt::Schedule::Static(::core::option::Option::None)),
        Some(s) => {
            let chunk = match &s.chunk {
                Some(c) => quote!(::core::option::Option::Some(#rt::chunk_size(#c))),
                None => quote!(::core::option::Option::None),
            };
            match s.kind {
                ScheduleKind::Static => quote!(#rt::Schedule::Static(#chunk)),
                ScheduleKind::Dynamic => quote!(#rt::Schedule::Dynamic(#chunk)),
                ScheduleKind::Guided => quote!(#rt::Schedule::Guided(#chunk)),
                ScheduleKind::Auto => quote!(#rt::Schedule::Auto),
                ScheduleKind::Runtime => quote!(#rt::Schedule::Runtime),
            }
        }
    };
    let active = match &d.settings.if_cond {
        Some(c) => quote!(#c),
        None => quote!(true),
    };
    quote!(#rt::RegionConfig { num_threads: #num_threads, schedule: #schedule, active: #active })
}

/// The product `lit · atom₁ · …` of a coefficient, as an `Option<i128>` (`None` when it leaves `i128`).
fn coeff_expr(c: &Coeff) -> TokenStream {
    let rt = rt();
    let lit = c.lit;
    let atoms = c.atoms.iter().map(|e| quote!(#rt::coefficient(#e)));
    quote!(#rt::form_product(#lit, &[#(#atoms),*]))
}

/// An `omp::__private::Affine` over the nest's dimensions for `form`; the `Dim`s of the sequential loops it uses
/// are added to `inner_lets` (once each).
fn affine_expr(form: &Poly, depth: usize, inner_lets: &mut Vec<(String, TokenStream)>) -> TokenStream {
    let rt = rt();
    let counts = (0..depth).map(|k| {
        let dim = names::dim(k);
        quote!(#dim.count())
    });
    let constant = form.constant_terms().into_iter().map(coeff_expr);
    let mut out = quote!(#rt::Affine::new(#rt::form_sum(&[#(#constant),*]), [#(#counts),*]));
    // A sequential loop's variable is one term whatever its coefficient: `ll * (nz + 1) * (nx + 1)` expands into four
    // monomials of `ll`, whose coefficients add up to its stride (the parallel terms add up per dimension in
    // `Affine::term`).
    let mut inner: Vec<(&String, Vec<TokenStream>)> = Vec::new();
    for (var, c) in form.var_terms() {
        let coeff = coeff_expr(c);
        match var {
            IterVar::Parallel(k) => {
                let dim = names::dim(*k);
                out = quote!(#out.term(#k, #coeff, &#dim));
            }
            IterVar::Inner { name, .. } => match inner.iter_mut().find(|(n, _)| *n == name) {
                Some((_, parts)) => parts.push(coeff),
                None => inner.push((name, vec![coeff])),
            },
        }
    }
    for (name, parts) in inner {
        let dim = names::inner_dim(name);
        if !inner_lets.iter().any(|(n, _)| n == name) {
            if let Some(d) = form.inner_ranges.get(name).and_then(inner_dim) {
                inner_lets.push((name.clone(), quote!(let #dim = #d;)));
            }
        }
        let coeff = match parts.as_slice() {
            [one] => one.clone(),
            _ => quote!(#rt::form_sum(&[#(#parts),*])),
        };
        out = quote!(#out.inner(#coeff, &#dim));
    }
    out
}

/// The run-time ownership of a disjointly written array: its index form with the loop bounds' values, verified
/// by `Affine::check` (which panics when two iterations could reach one element), after checking that the parts
/// computed in narrower types before a cast fit those types (`Affine::check_type`).
pub(super) fn ownership(name: &Ident, arr: &DisjointArray, depth: usize, types: &CaptureTypes) -> TokenStream {
    let rt = rt();
    let (array, index) = crate::names::nd::user_text(&name.to_string(), &arr.index);
    let array = types.shown.iter().find(|(n, _)| *name == n.as_str()).map_or(array, |(_, shown)| shown.clone());
    let mut inner_lets = Vec::new();
    let mut checks = TokenStream::new();
    for t in &arr.form.typed {
        let sub = affine_expr(&t.form, depth, &mut inner_lets);
        let bounds = match &t.witness {
            Witness::Parallel(k) => {
                let dim = names::dim(*k);
                quote!(#dim.type_bounds())
            }
            Witness::Inner(v) => {
                let dim = names::inner_dim(v);
                quote!(#dim.type_bounds())
            }
            Witness::Capture(v) => quote!(#rt::int_bounds(&(#v))),
            Witness::Type(ty) => quote!(#rt::type_bounds::<#ty>()),
        };
        let part = &t.text;
        checks.extend(quote!(#sub.check_type(#bounds, #array, #index, #part);));
    }
    let mut form = affine_expr(&arr.form, depth, &mut inner_lets);
    if !arr.offsets.is_empty() {
        // The iteration's accesses at loop-invariant offsets from the form (0: the form itself).
        let offsets = arr.offsets.iter().map(|o| {
            let parts = o.constant_terms().into_iter().map(coeff_expr);
            quote!(#rt::form_sum(&[#(#parts),*]))
        });
        form = quote!(#form.offsets(&[::core::option::Option::Some(0i128), #(#offsets),*]));
    }
    if arr.whole {
        form = quote!(#form.whole());
    }
    let lets = inner_lets.iter().map(|(_, l)| l);
    quote!({
        #(#lets)*
        #checks
        #form.check(#array, #index)
    })
}

/// A mutable borrow of captured variable `v` as a whole: a reborrow of a `&mut` reference (`&mut *out` for
/// `out: &mut Vec<usize>`, whose binding need not be `mut`), else `&mut v`.
pub(crate) fn place_mut(v: &Ident, types: &CaptureTypes) -> TokenStream {
    if types.mut_refs.contains(&v.to_string()) {
        quote!(&mut *#v)
    } else {
        quote!(&mut #v)
    }
}

/// The elements of captured array `v`, writable: a reborrow of a `&mut` reference, else `&mut v`. A generic call
/// (`as_slice_mut`), so only types that really are slices, arrays or `Vec`s compile: a user type keeps its own
/// `Index` meaning by not being rewritten at all.
pub(crate) fn writable(v: &Ident, types: &CaptureTypes) -> TokenStream {
    let rt = rt();
    if types.mut_refs.contains(&v.to_string()) {
        quote!(#rt::as_slice_mut(#v))
    } else {
        quote!(#rt::as_slice_mut(&mut #v))
    }
}

/// Lowers a parallel loop nest to host code.
/// `types`: what the declared types of the captures say (slice-like arrays may get row windows, see
/// [`super::window`]; `&mut` references are reborrowed).
/// `kernel_dims`: for a target region, the integer type its kernel counts each loop dimension in
/// (`target::dim_types`); rustc asserts that the loop variable here has that type.
pub(crate) fn parallel_loop(
    d: &Directive,
    nest: &LoopNest,
    analysis: &Analysis,
    types: &CaptureTypes,
    kernel_dims: Option<&[String]>,
) -> TokenStream {
    let rt = rt();
    let depth = nest.dims.len();
    let config = region_config(d);
    let config_v = names::hidden("__omp_config");
    let dim_lets = nest.dims.iter().enumerate().map(|(k, dim)| {
        let name = names::dim(k);
        let e = dim_expr(dim);
        // Spanned at the loop: a kernel of another loop type is a compile error there.
        let check = kernel_dims
            .and_then(|t| syn::parse_str::<syn::Type>(t.get(k)?).ok())
            .map(|t| quote_spanned!(dim.span=> #rt::check::kernel_loop_type::<#t, _>(&#name);));
        quote!(let #name = #e; #check)
    });
    let dim_names: Vec<Ident> = (0..depth).map(names::dim).collect();
    let (chunk, red, views, parts, part) = (
        names::hidden("__omp_chunk"),
        names::hidden("__omp_red"),
        names::hidden("__omp_views"),
        names::hidden("__omp_parts"),
        names::hidden("__omp_part"),
    );

    let mut setup = TokenStream::new();
    let mut per_thread = TokenStream::new();
    let mut per_iteration = TokenStream::new();
    let mut after = TokenStream::new();
    let mut red_vars: Vec<&Ident> = Vec::new();
    let mut red_inits: Vec<TokenStream> = Vec::new();
    let mut red_ops: Vec<TokenStream> = Vec::new();
    let mut critical_vars: std::collections::BTreeMap<String, Vec<Ident>> = Default::default();
    let (mut written, mut handles): (Vec<&Ident>, Vec<Ident>) = (Vec::new(), Vec::new());

    for cap in &analysis.captures {
        let v = &cap.name;
        match &cap.class {
            // A const or static: used as written.
            Class::Shared if types.items.contains(&v.to_string()) => {}
            Class::Shared if types.mapped.contains(&v.to_string()) => {
                // A `target_data` token: the region reads the variable's elements (as the user's code expects).
                per_thread.extend(quote!(let #v = #rt::as_slice(&#v);));
            }
            Class::Shared if !cap.whole_value_use && cap.indexed => {
                // An array only read: rebind it as a local slice (see `omp::__private::Probe`).
                per_thread.extend(quote!(let #v = (&#rt::Probe(&#v)).local();));
            }
            Class::Shared if cap.index_operand && !cap.indexed => {
                // A scalar in index arithmetic: a local copy (when `Copy`) keeps the index computation out of
                // memory, so it is not reloaded after every store.
                per_thread.extend(quote!(let #v = (&#rt::Probe(&#v)).value();));
            }
            Class::Shared => {}
            Class::Disjoint(arr) => {
                // The array goes to the runtime with the ownership of its elements; each chunk gets a view that
                // only reaches the elements its iterations own (so a wrong analysis panics, never races).
                let h = names::disjoint(v);
                let own = ownership(v, arr, depth, types);
                let slice = writable(v, types);
                setup.extend(quote!(let #h = #rt::DisjointMut::new(#slice, #own);));
                written.push(v);
                handles.push(h);
            }
            Class::Reduction(op) => {
                let op_ty = op.reducer(quote!(#rt::reduce));
                red_vars.push(v);
                // At a user-defined operator's name: a reducer of another type than the variable's is reported there.
                let span = match op {
                    crate::model::ReductionOp::User(name) => name.span(),
                    _ => proc_macro2::Span::call_site(),
                };
                red_inits.push(quote::quote_spanned!(span=> #rt::reduce::identity_of::<#op_ty, _>(&#v)));
                red_ops.push(op_ty);
            }
            Class::Private | Class::Firstprivate => {
                // Each iteration starts from the original value (a copy per iteration): what one iteration does to
                // its copy cannot reach another, whatever the schedule. (`private` is the same in safe Rust, which
                // has no uninitialised copy; the analysis refuses a private read before the iteration's write.)
                per_iteration.extend(quote!(#[allow(unused_mut)] let mut #v = ::core::clone::Clone::clone(&#v);));
                // The sequential code mutates the original; keep its `mut` from looking unused. (An array written only
                // at elements, as C's `double stencil[4]` + `private(stencil)`, may be declared either way.)
                let declared_mut = types.declared_mut.contains(&v.to_string());
                if cap.written || (cap.index_written && declared_mut) {
                    after.extend(quote!(let _ = &mut #v;));
                }
            }
            Class::Atomic { indexed } => {
                let h = names::atomic(v);
                if *indexed {
                    let slice = writable(v, types);
                    setup.extend(quote!(let #h = #rt::AtomicSlice::new(#slice);));
                } else {
                    let place = place_mut(v, types);
                    setup.extend(quote!(let #h = #rt::AtomicRef::new(#place);));
                }
                // Inside the loop the name refers to the atomic handle (which answers `.len()`), so no plain
                // access can reach the data.
                per_thread.extend(quote!(#[allow(unused_variables)] let #v = &#h;));
            }
            Class::Critical { name } => critical_vars.entry(name.clone()).or_default().push(v.clone()),
            Class::Unchecked { unsafe_token } => {
                // The user's `unsafe` opens the block, so `#![forbid(unsafe_code)]` points at the clause.
                let h = names::unchecked(v);
                let slice = writable(v, types);
                let span = unsafe_token.span;
                setup.extend(quote_spanned!(span=> let #h = unsafe { #rt::UncheckedSlice::new(#slice) };));
                per_thread.extend(quote!(#[allow(unused_mut)] let mut #v = #h;));
            }
        }
    }
    for (name, vars) in &critical_vars {
        let cell = names::critical(name);
        let places = vars.iter().map(|v| place_mut(v, types));
        setup.extend(quote!(let #cell = #rt::CriticalCell::new(#name, (#(#places,)*));));
    }

    // Body with atomic/critical statements rewritten, private copies first.
    let mut body = nest.body.clone();
    let mut rewriter = BodyRewriter { critical_vars: &critical_vars };
    rewriter.visit_block_mut(&mut body);
    if !per_iteration.is_empty() {
        let fresh: syn::Block = syn::parse_quote!({ #per_iteration });
        body.stmts.splice(0..0, fresh.stmts);
    }

    let windows = super::window::candidates(analysis, &types.slice_like);
    let iterate = iteration(nest, &windows, &body, &chunk);
    let (red_in, red_out) = if red_vars.is_empty() {
        (quote!(), quote!())
    } else {
        (quote!(#[allow(unused_mut)] let (#(mut #red_vars,)*) = *#red;), quote!(*#red = (#(#red_vars,)*);))
    };
    let combine = red_vars.iter().enumerate().map(|(i, v)| {
        let op = &red_ops[i];
        let idx = syn::Index::from(i);
        let f = analysis.combine_of(&v.to_string()).function(quote!(<#op as #rt::reduce::Reducer<_>>::combine));
        quote!(#v = (#f)(#v, #part.#idx);)
    });
    let combine_loop = if red_vars.is_empty() { quote!(let _ = #parts;) } else { quote!(for #part in #parts { #(#combine)* }) };
    let span = nest.dims[0].span;
    let team_body = crate::names::spmd::is_team_body(&nest.body);
    let spmd_imports = if team_body { crate::names::spmd::imports(quote!(#rt::spmd)) } else { quote!() };
    let body = quote_spanned! {span=>
        #[allow(unused_imports)]
        use #rt::{CopyValue as _, OmpAt as _, OmpAtMut as _, PickAny as _, PickSlice as _, RefLocal as _, RefRows as _, RefValue as _, SliceLocal as _, SliceRows as _};
        #spmd_imports
    };
    // A team body (an SPMD region with barriers or team-local arrays) runs each (team, thread) pair on its own
    // thread of a team of the region's size (`omp::__private::spmd::team_for`); other loops share out chunks.
    let team_dims_arg = if team_body {
        let k = nest.thread_dims();
        quote!(#k,)
    } else {
        quote!()
    };
    let (run, config_arg) =
        if team_body { (quote!(#rt::spmd::team_for), quote!()) } else { (quote!(#rt::parallel_for), quote!(&#config_v,)) };
    // Spanned at the `for`, so that type errors about the loop (a capture that is not `Sync`) point there.
    quote_spanned! {span=>
        {
            let #config_v = #config;
            #(#dim_lets)*
            #setup
            let #parts = #run(
                #config_arg
                [#(#dim_names.count()),*],
                #team_dims_arg
                (#(#red_inits,)*),
                (#(#handles,)*),
                |#chunk, #red, #views| {
                    #body
                    let _ = &#red;
                    #[allow(unused_mut)]
                    let (#(mut #written,)*) = #views;
                    #red_in
                    #per_thread
                    #iterate
                    #red_out
                },
            );
            #combine_loop
            #after
        }
    }
}

/// The loops over one chunk. The innermost dimension is a plain `for v in a..b` when its step is 1 (so it compiles
/// like the sequential loop and vectorises, with row windows when the body has affine accesses), else
/// `for k in ks { let v = dim.at(k); ... }`; outer dimensions of a collapsed nest come from the chunk's rows.
fn iteration(
    nest: &LoopNest,
    windows: &std::collections::BTreeMap<String, super::window::Kind>,
    body: &syn::Block,
    chunk: &Ident,
) -> TokenStream {
    let depth = nest.dims.len();
    let last = depth - 1;
    let stmts = &body.stmts;
    let pat = |d: usize| match &nest.dims[d].var {
        Some(v) => quote!(#v),
        None => quote!(_),
    };
    let inner_dim = names::dim(last);
    let inner_pat = pat(last);
    let k = names::k(last);
    let (values, row) = (names::hidden("__omp_values"), names::hidden("__omp_row"));
    let inner = |ks: TokenStream| {
        let unit = super::window::row(nest, windows, stmts, &values);
        quote! {
            match #inner_dim.unit_range(#ks) {
                ::core::option::Option::Some(#values) => { #unit }
                ::core::option::Option::None => {
                    for #k in #ks {
                        let #inner_pat = #inner_dim.at(#k);
                        #(#stmts)*
                    }
                }
            }
        }
    };
    if depth == 1 {
        return inner(quote!(#chunk.range()));
    }
    let outer_lets = (0..last).map(|d| {
        let p = pat(d);
        let dim = names::dim(d);
        quote!(let #p = #dim.at(#row.outer[#d]);)
    });
    let body = inner(quote!(#row.inner.clone()));
    quote! {
        for #row in #chunk.rows() {
            #(#outer_lets)*
            #body
        }
    }
}

/// `Dim` of an inner loop's range, if it is a canonical range.
fn inner_dim(range: &Expr) -> Option<TokenStream> {
    let cx = crate::ctxt::Ctxt::scratch();
    let f: syn::ExprForLoop = syn::parse_quote!(for __omp_inner in #range {});
    let nest = crate::syntax::loops::extract(&f, 1, None, "inner loop", &cx)?;
    Some(dim_expr(&nest.dims[0]))
}

/// Rewrites `#[omp::atomic]` and `#[omp::critical]` statements of a loop body into runtime calls.
struct BodyRewriter<'a> {
    critical_vars: &'a std::collections::BTreeMap<String, Vec<Ident>>,
}

impl VisitMut for BodyRewriter<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        for stmt in &mut block.stmts {
            if let Ok(Some(dir)) = body::statement_directive(stmt) {
                *stmt = match dir {
                    BodyDirective::Atomic(a) => atomic_stmt(&a),
                    BodyDirective::Critical(c) => {
                        let mut inner = c.block.clone();
                        self.visit_block_mut(&mut inner);
                        critical_stmt(c.name.as_deref().unwrap_or(""), inner, self.critical_vars)
                    }
                    BodyDirective::NestedLoop(l) => {
                        let mut inner = l.lowered();
                        self.visit_stmt_mut(&mut inner);
                        inner
                    }
                };
            } else {
                self.visit_stmt_mut(stmt);
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn atomic_stmt(a: &AtomicStmt) -> Stmt {
    let rt = rt();
    let root = crate::syntax::place::place_root(&a.target);
    let (var, index) = match &root {
        Some(r) => (r.ident.clone(), r.first_index.cloned()),
        None => return syn::parse_quote!(::core::compile_error!("unsupported atomic target");),
    };
    let h = names::atomic(&var);
    let idx = index.as_ref().map(|i| quote!(#i,));
    let value = &a.value;
    let call = match a.kind {
        AtomicKind::Read => quote!(#h.load(#idx)),
        AtomicKind::Write => quote!(#h.store(#idx #value)),
        AtomicKind::Update | AtomicKind::Capture | AtomicKind::Compare => {
            let op_ty = format_ident!("{}", a.op.map(|o| o.type_name()).unwrap_or("Add"));
            quote!(#h.apply::<#rt::atomic::#op_ty>(#idx #value))
        }
    };
    let call = match a.kind {
        AtomicKind::Capture if a.capture_old => quote!(#call.0),
        AtomicKind::Capture => quote!(#call.1),
        _ => call,
    };
    match (&a.let_pat, &a.capture_into) {
        (Some(pat), _) => syn::parse_quote!(let #pat = #call;),
        (None, Some(into)) => syn::parse_quote!(#into = #call;),
        (None, None) => syn::parse_quote!(let _ = #call;),
    }
}

fn critical_stmt(name: &str, mut block: syn::Block, vars: &std::collections::BTreeMap<String, Vec<Ident>>) -> Stmt {
    let rt = rt();
    match vars.get(name) {
        Some(vs) if !vs.is_empty() => {
            let cell = names::critical(name);
            let mut deref = DerefVars { vars: vs };
            deref.visit_block_mut(&mut block);
            let stmts = &block.stmts;
            let guard = names::hidden("__omp_guard");
            syn::parse_quote!({
                let mut #guard = #cell.lock();
                #[allow(unused_variables)]
                let (#(#vs,)*) = &mut *#guard;
                #(#stmts)*
            })
        }
        _ => {
            let stmts = &block.stmts;
            let guard = names::hidden("__omp_guard");
            syn::parse_quote!({
                let #guard = #rt::critical_lock(#name);
                #(#stmts)*
            })
        }
    }
}

/// Inside a critical block, `a` names a `&mut &mut A` from the guard: rewrite uses to `(**a)`.
struct DerefVars<'a> {
    vars: &'a [Ident],
}

impl VisitMut for DerefVars<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            if let Some(id) = p.path.get_ident() {
                if self.vars.contains(id) {
                    let id = id.clone();
                    *e = syn::parse_quote!((**#id));
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
