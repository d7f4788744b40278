//! Entry points used by the proc macros: parse the directive, find what it applies to, analyse, lower.
//! On any error the user's code is emitted unchanged (omp attributes removed, loops sequential) next to the
//! errors, so one mistake does not set off a cascade of follow-on errors and IDEs keep working.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ExprForLoop, Ident, Item, ItemFn, Stmt};

use crate::analyze;
use crate::analyze::types::{self, TypeEnv};
use crate::ctxt::Ctxt;
use crate::lower::{host, offload};
use crate::model::{Construct, ConstructKind, Directive};
use crate::plan::abi;
use crate::plan::kernel::{self, FnInfo, KernelPlan};
use crate::plan::struct_table::StructTable;
use crate::syntax::body::{self, find_omp_attr, stmt_attrs};
use crate::syntax::loops;
use crate::syntax::parse;

/// `#[omp::<name>(args)]` on a `fn` (or, on nightly, directly on a statement).
pub fn attribute(name: &str, args: TokenStream, item: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let ident = Ident::new(name, Span::call_site());
    let Some(construct) = parse::construct(&ident, &cx) else { return with_errors(item, cx) };
    let directive = parse::directive(construct, args, &cx);
    if let (ConstructKind::DeclareTarget, Ok(s)) = (&directive.construct.kind, syn::parse2::<syn::ItemStruct>(item.clone())) {
        let out = crate::lower::device_struct::host(s, &cx);
        return match cx.check() {
            Ok(()) => out,
            Err(e) => {
                let errors = e.to_compile_error();
                quote!(#errors #item)
            }
        };
    }
    if let Ok(f) = syn::parse2::<ItemFn>(item.clone()) {
        let original = f.clone();
        let mut kernels = Vec::new();
        let out = fn_directive(&directive, f, &cx, &mut kernels, None);
        return finish(out, &original, cx);
    }
    match syn::parse2::<Stmt>(item.clone()) {
        Ok(stmt) => {
            // A statement attribute (nightly): no enclosing fn is visible, so no kernel name; host path only.
            let mut kernels = Vec::new();
            let mut lowerer = Lowerer::new(&cx, None, &mut kernels);
            let out = lowerer.statement(&directive, stmt.clone());
            match cx.check() {
                Ok(()) => out,
                Err(e) => {
                    let mut plain = stmt;
                    strip_omp_attrs(&mut plain);
                    let errors = e.to_compile_error();
                    quote!(#errors #plain)
                }
            }
        }
        Err(_) => {
            cx.error_at(Span::call_site(), format!("`#[omp::{name}]` goes on a `fn` (or on a statement inside a `#[omp::directives]` fn)"));
            with_errors(item, cx)
        }
    }
}

/// `#[omp::directives]`: lowers every statement directive inside the function body (stable Rust has no
/// attribute macros on statements, so this outer attribute does it for them).
pub fn directives(args: TokenStream, item: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    if !args.is_empty() {
        cx.error_spanned_by(&args, "`#[omp::directives]` takes no arguments");
    }
    if let Ok(imp) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        return directives_impl(imp, cx);
    }
    let mut f: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            cx.syn_error(syn::Error::new(e.span(), "`#[omp::directives]` goes on a `fn` or an `impl` block"));
            return with_errors(item, cx);
        }
    };
    let original = f.clone();
    orphaned_barriers(&mut f.block);
    let mut kernels = Vec::new();
    Lowerer::for_fn(&cx, &f, &mut kernels).visit_block_mut(&mut f.block);
    crate::plan::generic::add_bounds(&mut f, &kernels);
    finish(f.into_token_stream(), &original, cx)
}

/// `omp::barrier!()` among the fn's own statements, outside every region: an orphaned barrier, which OpenMP binds to
/// the parallel region around the call when the fn runs. On the initial thread (a team of one) it waits for nothing;
/// called from a host team's thread it panics (`omp::__private::orphaned_barrier`). Barriers inside regions and in
/// functions declared in the fn (team functions) are the regions' own and are left to them.
fn orphaned_barriers(block: &mut syn::Block) {
    for s in &mut block.stmts {
        let barrier = body::statement_macro(s).filter(|m| body::omp_macro(m, "barrier") && m.tokens.is_empty());
        if let Some(m) = barrier {
            let span = syn::spanned::Spanned::span(&m.path);
            *s = syn::parse_quote_spanned!(span=> ::omp::__private::orphaned_barrier(););
        }
    }
}

/// `#[omp::directives]` on an `impl` block: every method is lowered as if it carried the attribute, and the impl's
/// type parameters count as the methods' own (`impl<T> Stream<T>`: a region over `self.a: Vec<T>` is compiled per
/// instance of `T`; the bounds the launch needs go on each method's `where` clause).
fn directives_impl(mut imp: syn::ItemImpl, cx: Ctxt) -> TokenStream {
    let original = imp.clone();
    for item in &mut imp.items {
        let syn::ImplItem::Fn(m) = item else { continue };
        let mut f = body::method_as_fn(m);
        orphaned_barriers(&mut f.block);
        let mut kernels = Vec::new();
        Lowerer::for_method(&cx, &f, &mut kernels, &imp.generics, &imp.self_ty).visit_block_mut(&mut f.block);
        crate::plan::generic::add_bounds(&mut f, &kernels);
        m.sig = f.sig;
        m.block = *f.block;
    }
    match cx.check() {
        Ok(()) => imp.into_token_stream(),
        Err(e) => {
            let mut plain = original;
            for item in &mut plain.items {
                if let syn::ImplItem::Fn(m) = item {
                    let mut f = body::method_as_fn(m);
                    strip_omp_attrs_fn(&mut f);
                    m.block = *f.block;
                }
            }
            let errors = e.to_compile_error();
            quote!(#errors #plain)
        }
    }
}

/// The kernels of the target regions of a function, as the macro expanding `attr` on it would plan them
/// (`attr`: the directive on the fn, `None` for the function-level walk of `#[omp::directives]`). Used by the
/// build helper to outline exactly what the macro launches. Regions with errors are left out (the macro
/// reports them).
pub fn collect_kernels(f: &ItemFn, attr: Option<(&Ident, TokenStream)>) -> Vec<KernelPlan> {
    collect_kernels_in(f, attr, None)
}

/// What the build helper knows beyond the function it outlines: the package's structs (the types of field paths in
/// target regions) and, for a method, its `Self` type.
#[derive(Debug, Clone, Copy)]
pub struct Package<'a> {
    /// Every struct of the package.
    pub structs: &'a StructTable,
    /// The `Self` type of the `impl` the function is a method of.
    pub self_ty: Option<&'a syn::Type>,
    /// That `impl`'s generics and `Self` when it carries `#[omp::directives]` (its type parameters count as the
    /// method's own, and both are part of its kernels' names: `abi::method_hash`).
    pub directives_impl: Option<(&'a syn::Generics, &'a syn::Type)>,
    /// The file and inline modules the function is in (a struct defined there wins over others of its name).
    pub module: &'a str,
}

/// [`collect_kernels`] with the package's view (the build helper's entry point).
pub fn collect_kernels_in(f: &ItemFn, attr: Option<(&Ident, TokenStream)>, package: Option<Package<'_>>) -> Vec<KernelPlan> {
    // Regions with errors are left out; the macros report them.
    let cx = Ctxt::scratch();
    let mut kernels = Vec::new();
    match attr {
        Some((name, args)) => {
            if let Some(construct) = parse::construct(name, &cx) {
                let d = parse::directive(construct, args, &cx);
                fn_directive(&d, f.clone(), &cx, &mut kernels, package);
            }
        }
        None => {
            let mut f = f.clone();
            orphaned_barriers(&mut f.block);
            let mut lowerer = match package.and_then(|p| p.directives_impl) {
                Some((generics, self_ty)) => Lowerer::for_method(&cx, &f, &mut kernels, generics, self_ty),
                None => Lowerer::for_fn(&cx, &f, &mut kernels),
            };
            lowerer.package = package;
            lowerer.visit_block_mut(&mut f.block);
        }
    }
    kernels
}

fn finish(out: TokenStream, original: &ItemFn, cx: Ctxt) -> TokenStream {
    match cx.check() {
        Ok(()) => out,
        Err(e) => {
            let mut plain = original.clone();
            strip_omp_attrs_fn(&mut plain);
            let errors = e.to_compile_error();
            quote!(#errors #plain)
        }
    }
}

pub(crate) fn with_errors(item: TokenStream, cx: Ctxt) -> TokenStream {
    let errors = cx.check().err().map(|e| e.to_compile_error());
    match syn::parse2::<ItemFn>(item.clone()) {
        Ok(mut f) => {
            strip_omp_attrs_fn(&mut f);
            quote!(#errors #f)
        }
        Err(_) => quote!(#errors #item),
    }
}

/// A directive on a whole function.
fn fn_directive(d: &Directive, mut f: ItemFn, cx: &Ctxt, kernels: &mut Vec<KernelPlan>, package: Option<Package<'_>>) -> TokenStream {
    let info = fn_info(&f);
    let mut lowerer = Lowerer::new(cx, Some(info), kernels);
    lowerer.package = package;
    lowerer.types.bind_params(&f.sig);
    if d.construct.name == "parallel" {
        refuse_parallel_block(&d.construct, cx);
        return f.to_token_stream();
    }
    match d.construct.kind {
        ConstructKind::Executable(_) if d.construct.is_loop() => {
            // The function's one top-level `for` loop is the region; statements before and after run on the host.
            let loops: Vec<usize> =
                f.block.stmts.iter().enumerate().filter(|(_, s)| matches!(s, Stmt::Expr(Expr::ForLoop(_), _))).map(|(i, _)| i).collect();
            match loops.as_slice() {
                [i] => {
                    // Statements before the loop bring their `let` types and items into view.
                    let i = *i;
                    lowerer.types.push();
                    lowerer.scopes.push(crate::analyze::resolve::BlockScope::of(&f.block.stmts));
                    for stmt in &f.block.stmts[..i] {
                        lowerer.note_declaration(stmt);
                    }
                    let Stmt::Expr(Expr::ForLoop(fl), semi) = f.block.stmts[i].clone() else { unreachable_loop() };
                    let lowered = lowerer.for_loop(d, &fl);
                    let semi = semi.map(|_| quote!(;));
                    lowerer.scopes.pop();
                    lowerer.types.pop();
                    f.block.stmts[i] = as_stmt(quote!(#lowered #semi));
                }
                [] => cx.error_at(
                    d.construct.span,
                    format!("`#[omp::{}]` on a fn needs a `for` loop in the function body (at its top level)", d.construct.name),
                ),
                [_, second, ..] => cx.error_spanned_by(
                    &f.block.stmts[*second],
                    format!(
                        "`#[omp::{}]` on a fn applies to exactly one `for` loop, but this function has several; \
                         use `#[omp::directives]` on the fn and put the directive on each loop",
                        d.construct.name
                    ),
                ),
            }
        }
        ConstructKind::Executable(_) => match serial_target(d, &f.block, cx) {
            Err(()) => {}
            Ok(Some((serial, fl))) => {
                lowerer.types.push();
                lowerer.scopes.push(crate::analyze::resolve::BlockScope::of(&f.block.stmts));
                let lowered = lowerer.for_loop(&serial, &fl);
                lowerer.scopes.pop();
                lowerer.types.pop();
                f.block.stmts = vec![as_stmt(quote!(#lowered;))];
            }
            Ok(None) => {
                // `target` (or `target_teams`, `target_parallel`) on a fn: the whole body is the region.
                lowerer.in_target = d.construct.is_target();
                lowerer.visit_block_mut(&mut f.block);
            }
        },
        ConstructKind::DeclareTarget => {}
        _ => cx.error_at(
            d.construct.span,
            format!("`#[omp::{}]` goes on a statement inside a `#[omp::directives]` fn, not on a fn", d.construct.name),
        ),
    }
    drop(lowerer);
    crate::plan::generic::add_bounds(&mut f, kernels);
    f.to_token_stream()
}

/// OpenMP's serial target region: `#[omp::target]` on a block (or fn) with no directive inside runs its statements
/// on one device thread. It is lowered as the combined construct over the one-iteration loop `for _ in 0..1 { .. }`
/// with the region's clauses: its one iteration owns the arrays it writes whole (`analyze::single_iteration`), so
/// the statements index them as the sequential code does. `Ok(None)` when the region is not serial (its loop
/// directives are the kernels, `target::plan`); `Err(())` for a serial body that ends in a value (reported to `cx`).
fn serial_target(d: &Directive, block: &syn::Block, cx: &Ctxt) -> Result<Option<(Directive, ExprForLoop)>, ()> {
    fn names_omp(ts: TokenStream) -> bool {
        let mut prev_omp = false;
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => prev_omp = i == "omp",
                proc_macro2::TokenTree::Punct(p) if prev_omp && p.as_char() == ':' => return true,
                proc_macro2::TokenTree::Group(g) => {
                    if names_omp(g.stream()) {
                        return true;
                    }
                    prev_omp = false;
                }
                _ => prev_omp = false,
            }
        }
        false
    }
    if d.construct.name != "target" || names_omp(block.to_token_stream()) {
        return Ok(None);
    }
    if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
        if !matches!(tail, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::If(_) | Expr::Match(_) | Expr::Block(_)) {
            cx.error_spanned_by(
                tail,
                "a serial `#[omp::target]` region runs on the device and yields no value: end this expression with `;` \
                 and bring results back through a mapped array",
            );
            return Err(());
        }
    }
    let Some((name, kind)) = crate::syntax::keyword::CONSTRUCTS.iter().find(|(n, _)| *n == "target_teams_distribute_parallel_for") else {
        return Ok(None);
    };
    let construct = Construct { name, kind: *kind, span: d.construct.span };
    let serial = Directive { construct, ..d.clone() };
    let stmts = &block.stmts;
    Ok(syn::parse2::<ExprForLoop>(quote!(for _ in 0..1 { #(#stmts)* })).ok().map(|fl| (serial, fl)))
}

/// OpenMP's split form, as RAJAPerf writes every kernel: `target` with its clauses (`map`, `is_device_ptr`, `device`,
/// `if`, `nowait`, ...) whose body is one loop directive (`teams distribute parallel for`, `parallel for`, ...) means
/// the combined construct with both directives' clauses. The statement that results, when `stmt` is that form.
fn fuse_split_target(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::Expr(Expr::Block(b), semi) = stmt else { return None };
    let outer = find_omp_attr(&b.attrs)?;
    if outer.name != "target" || b.block.stmts.len() != 1 {
        return None;
    }
    let Stmt::Expr(Expr::ForLoop(f), _) = &b.block.stmts[0] else { return None };
    let inner = find_omp_attr(&f.attrs)?;
    let name = format!("target_{}", inner.name);
    // A loop directive without `target` of its own, whose combination with it exists.
    let inner_kind = crate::syntax::keyword::construct(&inner.name.to_string())?;
    if !matches!(inner_kind, ConstructKind::Executable(l) if !l.contains(crate::model::Leaves::TARGET)) {
        return None;
    }
    crate::syntax::keyword::construct(&name)?;
    let (a, i) = (&outer.args, &inner.args);
    let args = match (a.is_empty(), i.is_empty()) {
        (true, _) => i.clone(),
        (_, true) => a.clone(),
        _ => quote!(#a, #i),
    };
    let ident = Ident::new(&name, inner.name.span());
    let mut fl = f.clone();
    fl.attrs.remove(inner.index);
    fl.attrs.insert(0, syn::parse_quote!(#[omp::#ident(#args)]));
    let mut other: Vec<syn::Attribute> = b.attrs.clone();
    other.remove(outer.index);
    fl.attrs.extend(other);
    Some(Stmt::Expr(Expr::ForLoop(fl), *semi))
}

/// Puts what a rewrite made of statement `index` in its place; a refused one (reported) is dropped, so that rustc adds
/// no errors of its own (an `omp::barrier!()`, an `omp::scan!`). Whether it was dropped.
fn rewrite_in_place(block: &mut syn::Block, index: usize, rewritten: Option<Result<Vec<Stmt>, ()>>) -> bool {
    match rewritten {
        Some(Ok(stmts)) => {
            block.stmts.splice(index..=index, stmts);
            false
        }
        Some(Err(())) => {
            block.stmts.remove(index);
            true
        }
        None => false,
    }
}

/// A `parallel` directive that is neither a host `parallel` block (`crate::desugar::host_parallel`) nor an SPMD region's:
/// on a fn, or inside another target region.
fn refuse_parallel_block(construct: &Construct, cx: &Ctxt) {
    cx.error_at(
        construct.span,
        "`#[omp::parallel]` stands on a block: in a `#[omp::directives]` fn (a host `parallel` region) or as the whole \
         body of a `#[omp::target_teams(num_teams(..), thread_limit(..))]` block (an SPMD region); inside another \
         target region it is not supported",
    );
}

fn unreachable_loop() -> ! {
    // `loops` only holds indices of `for` statements.
    unreachable!("index of a for loop")
}

fn fn_info(f: &ItemFn) -> FnInfo {
    let generics = f.sig.generics.type_params().map(|p| p.ident.to_string()).collect();
    let const_generics = f.sig.generics.const_params().map(|p| p.ident.to_string()).collect();
    FnInfo { name: f.sig.ident.to_string(), hash: abi::fn_hash(&f.sig, &f.block), generics, const_generics }
}

/// Lowers statement directives, recursively, keeping track of what the device side needs: the types of the
/// variables in view, the items declared so far, whether we are inside a `target` region, and the region count.
struct Lowerer<'a> {
    cx: &'a Ctxt,
    /// The enclosing function (kernel names need it).
    func: Option<FnInfo>,
    types: TypeEnv,
    /// The blocks around the statement being lowered, outermost first (their items are visible in the whole block,
    /// before their declaration too: `resolve`).
    scopes: Vec<crate::analyze::resolve::BlockScope>,
    in_target: bool,
    /// Target loop regions met so far (the region index of the next one).
    region: u32,
    kernels: &'a mut Vec<KernelPlan>,
    /// Variables the regions and updates lowered so far write (a `target_data` block maps those mutably).
    written: Vec<String>,
    /// Variables that updates lowered so far copy back to the host (`target_update!(from: x)`, exit data).
    copied_back: Vec<String>,
    /// `target_data` variables passed on as they are (`f(x)`, `S { x }`): the callee may write them.
    passed_on: Vec<String>,
    /// The build helper's view of the package (`None` in the macros, which read field types from the manifest).
    package: Option<Package<'a>>,
}

impl<'a> Lowerer<'a> {
    fn new(cx: &'a Ctxt, func: Option<FnInfo>, kernels: &'a mut Vec<KernelPlan>) -> Self {
        Lowerer {
            cx,
            func,
            types: TypeEnv::default(),
            scopes: Vec::new(),
            in_target: false,
            region: 0,
            kernels,
            written: Vec::new(),
            copied_back: Vec::new(),
            passed_on: Vec::new(),
            package: None,
        }
    }

    fn for_fn(cx: &'a Ctxt, f: &ItemFn, kernels: &'a mut Vec<KernelPlan>) -> Self {
        let mut l = Lowerer::new(cx, Some(fn_info(f)), kernels);
        l.types.bind_params(&f.sig);
        l
    }

    /// [`Lowerer::for_fn`] for a method of an `impl` that carries `#[omp::directives]`: the impl's type parameters
    /// count as the method's own, and the impl is part of the kernels' names (`abi::method_hash`).
    fn for_method(cx: &'a Ctxt, f: &ItemFn, kernels: &'a mut Vec<KernelPlan>, generics: &syn::Generics, self_ty: &syn::Type) -> Self {
        let mut l = Lowerer::for_fn(cx, f, kernels);
        if let Some(func) = l.func.as_mut() {
            func.generics.extend(generics.type_params().map(|p| p.ident.to_string()));
            func.const_generics.extend(generics.const_params().map(|p| p.ident.to_string()));
            func.hash = abi::method_hash(&f.sig, &f.block, generics, self_ty);
        }
        l
    }

    /// Records the variable (with its annotated type) or the item a statement declares.
    fn note_declaration(&mut self, stmt: &Stmt) {
        if let Stmt::Local(l) = stmt {
            // An unannotated `let x = <expr>;` gets its type when the initialiser makes it evident.
            let inferred = match (&l.pat, &l.init) {
                (syn::Pat::Ident(_) | syn::Pat::Tuple(_), Some(init)) => types::init_type_of(&init.expr, &self.types),
                _ => None,
            };
            self.types.bind_pattern(&l.pat, inferred.as_ref());
            if let (syn::Pat::Ident(p), Some(init)) = (&l.pat, &l.init) {
                if matches!(&*init.expr, Expr::Closure(_)) {
                    self.types.mark_closure(&p.ident.to_string());
                }
            }
            if l.init.is_none() {
                let mut names = Vec::new();
                crate::analyze::walk::pat_idents(&l.pat, &mut names);
                for n in names {
                    self.types.mark_uninit(&n.to_string());
                }
            }
            // Untyped locals taken from struct fields (`let a = &mut self.a;`, `let (nx, nz) = (g.nx, g.nz);`):
            // a target region types them as it types the field paths it uses (`target_loop_with_fields`).
            let Some(init) = &l.init else { return };
            let pairs: Vec<(&syn::Pat, &Expr)> = match (&l.pat, &*init.expr) {
                (syn::Pat::Tuple(p), Expr::Tuple(t)) if p.elems.len() == t.elems.len() => p.elems.iter().zip(&t.elems).collect(),
                (p, e) => vec![(p, e)],
            };
            for (pat, e) in pairs {
                let syn::Pat::Ident(pi) = pat else { continue };
                let name = pi.ident.to_string();
                if self.types.lookup(&name).flatten().is_some() {
                    continue;
                }
                if let Some((path, binding)) = crate::analyze::types::alias_of_init(e) {
                    self.types.bind_alias(&name, path, binding);
                }
            }
        }
    }

    /// A statement of a `target` region outside its loop directives. omp-rs runs only the loop directives on the
    /// device; OpenMP runs the rest of the region there too, with the device's copies of the data and the region's
    /// own copies of scalars. So only what means the same on the host may stay: items, `let`s and control flow
    /// (`if`, `match`, blocks) that read no array. Anything else is refused (it would run on the host and see, or
    /// change, other data than the device would).
    fn refuse_host_statement_in_target(&self, stmt: &Stmt) -> bool {
        let reads_array = |tokens: TokenStream| {
            let ids = crate::syntax::tokens::ident_tokens(tokens);
            let t = types::CaptureTypes::of(&ids, &self.types);
            ids.into_iter().find(|i| t.slice_like.contains(&i.to_string()) || t.mapped.contains(&i.to_string()))
        };
        let why = match stmt {
            Stmt::Item(_) => return false,
            Stmt::Local(l) => match l.init.as_ref().and_then(|init| reads_array(init.expr.to_token_stream())) {
                None => return false,
                Some(a) => format!("this `let` reads `{a}`"),
            },
            Stmt::Expr(Expr::Block(_), _) => return false,
            Stmt::Expr(Expr::If(i), _) => match reads_array(i.cond.to_token_stream()) {
                None => return false,
                Some(a) => format!("this condition reads `{a}`"),
            },
            Stmt::Expr(Expr::Match(m), _) => match reads_array(m.expr.to_token_stream()) {
                None => return false,
                Some(a) => format!("this `match` reads `{a}`"),
            },
            Stmt::Expr(Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_), _) => "this loop has no loop directive".to_string(),
            _ => "this statement is not a loop directive".to_string(),
        };
        self.cx.error_spanned_by(
            stmt,
            format!(
                "{why}: omp-rs runs only the loop directives of a `target` region on the device, so it would run on the \
                 host, where OpenMP runs it on the device (with the device's copies of the data, and the region's own \
                 copies of scalars). Move it before or after the region, or make it a one-iteration loop directive \
                 (`#[omp::teams_distribute_parallel_for] for _ in 0..1 {{ ... }}`)"
            ),
        );
        true
    }

    fn for_loop(&mut self, d: &Directive, f: &ExprForLoop) -> TokenStream {
        if !d.construct.is_parallel_loop() {
            // `simd` alone: a vectorisation hint on a sequential loop.
            let mut plain = f.clone();
            self.visit_expr_for_loop_mut(&mut plain);
            return plain.into_token_stream();
        }
        // After an error in the directive itself, analysing the loop would only report its consequences.
        if self.cx.has_errors() {
            return sequential(f);
        }
        // `private(ind)` set first thing in every iteration (`ind = k * nx + i;`): a `let` of the body.
        if let Some((d, f, vars)) = crate::desugar::private_lets::rewrite(d, f, &self.types) {
            let lowered = self.for_loop(&d, &f);
            // The variable is the user's still: its `mut` and its value must not look unused.
            let uses =
                vars.iter().filter(|v| !self.types.is_uninit(&v.to_string())).map(|v| match self.types.is_declared_mut(&v.to_string()) {
                    true => quote!(let _ = &mut #v;),
                    false => quote!(let _ = &#v;),
                });
            return quote!({ #lowered; #(#uses)* });
        }
        // A C port's `int ind;` + `private(ind)`: each iteration's copy starts from the variable's value, which a
        // declaration without one does not have (rustc would say "used binding isn't initialized" in the copy).
        for v in d.settings.private.iter().chain(&d.settings.firstprivate) {
            if self.types.is_uninit(&v.to_string()) {
                let ty = self.types.lookup(&v.to_string()).flatten().map_or_else(|| "T".to_string(), |t| t.to_token_stream().to_string());
                self.cx.error_spanned_by(
                    v,
                    format!(
                        "`{v}` is declared without a value, and each iteration's private copy starts from the variable's \
                         value: declare it inside the loop body instead (`let {v} = ...;`, then no clause is needed), \
                         or give it one (`let mut {v}: {ty} = 0;`)"
                    ),
                );
                return sequential(f);
            }
        }
        // ndarray variables (`a[[i, j]]`) become a flat slice and extents bound before the loop (see `ndarrays`).
        if let Some(lowered) = self.with_ndarrays(f, |this, rewritten| this.for_loop(d, rewritten)) {
            return lowered;
        }
        // Host loops: field paths (`self.c[i]`) become locals bound before the loop (see `fields`).
        if !(d.construct.is_target() || self.in_target) {
            if let Some((hoisted, rewritten)) = crate::desugar::fields::hoist(f, &self.types) {
                self.types.push();
                for h in &hoisted {
                    // A field indexed `[[i, j]]` is an ndarray array (the macro cannot see its declared type, the
                    // `NdArray` trait the rewrite calls checks that it is one); its element type stays rustc's.
                    let ty = match crate::desugar::ndarrays::axes_indexed(&rewritten, &h.local.to_string()) {
                        Some(axes) if h.declared_type().is_some() => {
                            let ix = format_ident!("Ix{}", axes);
                            let array: syn::Type = syn::parse_quote!(Array<_, #ix>);
                            Some(h.typed(&array))
                        }
                        _ => h.declared_type(),
                    };
                    self.types.bind(&h.local.to_string(), ty);
                    self.show_as_written(h);
                }
                let lowered = self
                    .with_ndarrays(&rewritten, |this, flat| this.parallel_loop(d, flat))
                    .unwrap_or_else(|| self.parallel_loop(d, &rewritten));
                self.types.pop();
                let lets = hoisted.iter().map(|h| h.projection_check.clone()).chain(hoisted.iter().map(|h| h.binding_stmt()));
                return quote!({ #(#lets)* #lowered });
            }
        } else {
            let aliases = self.field_aliases(f);
            match crate::desugar::fields::hoist(f, &self.types) {
                Some((mut hoisted, rewritten)) => {
                    hoisted.extend(aliases);
                    return self.target_loop_with_fields(d, f, &hoisted, &rewritten);
                }
                None if !aliases.is_empty() => return self.target_loop_with_fields(d, f, &aliases, f),
                None => {}
            }
        }
        self.parallel_loop(d, f)
    }

    /// The untyped locals the loop uses that were declared from struct field paths (`TypeEnv::alias_of`).
    fn field_aliases(&self, f: &ExprForLoop) -> Vec<crate::desugar::fields::Hoisted> {
        let names = crate::syntax::tokens::ident_tokens(f.body.to_token_stream());
        let mut out: Vec<crate::desugar::fields::Hoisted> = Vec::new();
        for n in names {
            // Inside a `target_data` block such a local is the block's token: it is typed here too (the kernel
            // needs its elements' type) but keeps its binding (see `target_loop_with_fields`).
            if out.iter().any(|h| h.local == n) || self.types.lookup(&n.to_string()).flatten().is_some() {
                continue;
            }
            if let Some((path, binding)) = self.types.alias_of(&n.to_string()) {
                out.push(crate::desugar::fields::Hoisted::alias(n, path, binding));
            }
        }
        out
    }

    /// A target loop whose body uses struct fields (`sd.num_nucs[j]`, `self.c[i]`): each field path becomes a local
    /// of the field's type, bound before the region. The build reads the types from the package's structs and
    /// records them in the manifest; the macro binds the locals with the manifest's types (a wrong one is a type
    /// error). Without a device build there is no kernel to type: the region runs on the host.
    fn target_loop_with_fields(
        &mut self,
        d: &Directive,
        f: &ExprForLoop,
        hoisted: &[crate::desugar::fields::Hoisted],
        rewritten: &ExprForLoop,
    ) -> TokenStream {
        let Some(func) = self.func.clone() else { return self.parallel_loop(d, f) };
        let name = abi::kernel_name(func.name.trim_start_matches("r#"), self.region, func.hash);
        // A `target_data` token keeps its binding (it holds the mapping); only its type is learnt here.
        let mapped: Vec<bool> = hoisted.iter().map(|h| self.types.is_mapped(&h.local.to_string())).collect();
        let types: Option<Vec<syn::Type>> = match self.package {
            Some(p) => hoisted
                .iter()
                .map(|h| {
                    let (root, members) = h.root_and_members()?;
                    let root_ty = if root == "self" { p.self_ty.cloned() } else { self.types.lookup(&root).flatten().cloned() }?;
                    p.structs.field_type(&root_ty, &members, p.module)
                })
                .collect(),
            None => crate::plan::manifest::current().and_then(|m| {
                // A generic region's kernels are its instances (`<name>_f32`, ...), which all record the same types.
                let instance = || {
                    m.kernels
                        .iter()
                        .find(|k| {
                            k.name
                                .strip_prefix(name.as_str())
                                .and_then(|r| r.strip_prefix('_'))
                                .is_some_and(|r| r.split('_').all(|t| crate::plan::abi::INSTANCES.contains(&t)))
                        })
                        .map(|k| k.fields.as_slice())
                };
                let recorded =
                    m.field_types(&name).or_else(|| m.field_types(&abi::located_name_at(&name, f.for_token.span)?)).or_else(instance)?;
                hoisted
                    .iter()
                    .map(|h| recorded.iter().find(|r| h.local == r.local.as_str()).and_then(|r| syn::parse_str(&r.ty).ok()))
                    .collect()
            }),
        };
        let Some(types) = types else {
            // A region the build refused records no field types: its refusal is the error to report.
            if let Some(m) = crate::plan::manifest::current().filter(|m| self.package.is_none() && m.refusals(&name).next().is_some()) {
                let refused = crate::lower::checks::refusals(m.refusals(&name), &f.body.to_token_stream(), f.for_token.span);
                return quote!({ #refused });
            }
            if self.package.is_some() || crate::plan::manifest::current().is_some() {
                // The build could not type a field path (its struct is not defined in this package, or twice) and
                // recorded no types for the region, so every path it reads is named: say what to write instead of
                // running the region on the host unannounced.
                let h = &hoisted[0];
                let paths: Vec<String> = hoisted.iter().map(|h| format!("`{}`", h.path_text())).collect();
                self.cx.error_spanned_by(
                    &h.path,
                    format!(
                        "the device kernel of this target region needs the types of {}, and the device build could not \
                         read them from a single struct definition in this package: bind each to a local with its type \
                         written before the loop (`let nz: usize = g.nz;`, `let v: &[f64] = &g.v;`) and use that",
                        paths.join(", ")
                    ),
                );
                return sequential(f);
            }
            // No device build: the host runs the region, as any region without an image.
            self.types.push();
            for (h, &m) in hoisted.iter().zip(&mapped) {
                self.bind_hoisted(h, h.declared_type(), m);
            }
            self.region += 1;
            let lowered = self.host_loop(d, rewritten);
            self.types.pop();
            let kept: Vec<&crate::desugar::fields::Hoisted> = hoisted.iter().zip(&mapped).filter(|(_, &m)| !m).map(|(h, _)| h).collect();
            let lets = kept.iter().map(|h| h.projection_check.clone()).chain(kept.iter().map(|h| h.binding_stmt()));
            let off = quote!(::omp::__private::offload);
            return quote!({
                #(#lets)*
                #off::region_without_image(#name, ::core::option::Option::None).unwrap_or_else(|e| ::core::panic!("{}", e));
                #lowered
            });
        };
        self.types.push();
        for ((h, ty), &m) in hoisted.iter().zip(&types).zip(&mapped) {
            self.bind_hoisted(h, Some(h.typed(ty)), m);
        }
        let planned = self.kernels.len();
        // A field of an ndarray type (`self.v[[i, j]]`) is known as one only now that its local is typed.
        let lowered =
            self.with_ndarrays(rewritten, |this, flat| this.parallel_loop(d, flat)).unwrap_or_else(|| self.parallel_loop(d, rewritten));
        self.types.pop();
        let field_types: Vec<(String, String)> =
            hoisted.iter().zip(&types).map(|(h, ty)| (h.local.to_string(), ty.to_token_stream().to_string())).collect();
        if let Some(plan) = self.kernels.get_mut(planned) {
            plan.field_types = field_types;
        }
        let kept: Vec<(&crate::desugar::fields::Hoisted, &syn::Type)> =
            hoisted.iter().zip(&types).zip(&mapped).filter(|(_, &m)| !m).map(|(p, _)| p).collect();
        let lets = kept.iter().map(|(h, _)| h.projection_check.clone()).chain(kept.iter().map(|(h, ty)| h.typed_binding_stmt(ty)));
        quote!({ #(#lets)* #lowered })
    }

    /// When `f` indexes ndarray variables (`a[[i, j]]`): `lower` run on the loop whose arrays are a flat slice and
    /// extents each, with their bindings before it (see `ndarrays`).
    fn with_ndarrays(&mut self, f: &ExprForLoop, lower: impl FnOnce(&mut Self, &ExprForLoop) -> TokenStream) -> Option<TokenStream> {
        let (arrays, rewritten) = crate::desugar::ndarrays::rewrite(f, &self.types)?;
        self.types.push();
        for a in &arrays {
            let shown = self.types.shown(&a.var.to_string()).unwrap_or_else(|| a.var.to_string());
            for (name, ty) in a.types() {
                self.types.bind(&name, Some(ty));
            }
            // Messages name the flat slice as the array (`v`, `self.v`), its index as written (`ndarrays::user_text`).
            self.types.show_as(&a.flat.to_string(), shown);
            if a.mapped {
                self.types.bind_mapped(&a.var.to_string());
            }
        }
        let lowered = lower(self, &rewritten);
        self.types.pop();
        let lets = arrays.iter().map(|a| a.bindings());
        Some(quote!({ #(#lets)* #lowered }))
    }

    /// Declares hoisted local `h` with type `ty` for the region's lowering; a `target_data` token (`token`) stays
    /// the block's token.
    /// Messages, compile-time and run-time, name a hoisted field's local as the field path the user wrote (`self.v`).
    fn show_as_written(&mut self, h: &crate::desugar::fields::Hoisted) {
        let (local, shown) = (h.local.to_string(), h.path_text());
        self.cx.show_as(&local, &shown);
        self.types.show_as(&local, shown);
    }

    fn bind_hoisted(&mut self, h: &crate::desugar::fields::Hoisted, ty: Option<syn::Type>, token: bool) {
        let local = h.local.to_string();
        self.types.bind(&local, ty);
        self.show_as_written(h);
        if token {
            self.types.bind_mapped(&local);
        }
    }

    /// A parallel loop (after `for_loop`'s checks): analysis, then the host and, for target regions, device
    /// lowering.
    fn parallel_loop(&mut self, d: &Directive, f: &ExprForLoop) -> TokenStream {
        self.lower_loop(d, f, true)
    }

    /// A target loop's host path only (no kernel to plan: see `target_loop_with_fields`).
    fn host_loop(&mut self, d: &Directive, f: &ExprForLoop) -> TokenStream {
        self.lower_loop(d, f, false)
    }

    fn lower_loop(&mut self, d: &Directive, f: &ExprForLoop, plan_kernel: bool) -> TokenStream {
        let Some(mut nest) = loops::extract(f, d.settings.collapse.depth, d.settings.collapse.span, d.construct.name, self.cx) else {
            return sequential(f);
        };
        // Rows written as `c[i][j]` under `collapse`: the loops of the second index run inside each iteration.
        let rows = loops::rows_depth(&nest);
        if rows < nest.dims.len() {
            nest = match loops::extract(f, rows as u32, d.settings.collapse.span, d.construct.name, self.cx) {
                Some(n) => n,
                None => return sequential(f),
            };
        }
        let mut analysis = analyze::parallel_loop(d, &nest, self.cx);
        let env = &self.types;
        if !self.cx.has_errors() {
            // How reductions combine follows the body's form (after the analysis's own reports on the updates).
            analysis.settle_combines(&nest, |v| env.lookup(v).flatten().and_then(types::scalar_name), self.cx);
        }
        if self.cx.has_errors() {
            return sequential(f);
        }
        let types = types::CaptureTypes::of(analysis.captures.iter().map(|c| &c.name), &self.types);
        self.written.extend(analysis.captures.iter().filter(|c| c.class.writes()).map(|c| c.name.to_string()));
        let target = plan_kernel && (d.construct.is_target() || self.in_target) && self.func.is_some();
        // The loop type the kernel counts in is confirmed where there is a kernel (an image in this build).
        let embedded = self.func.as_ref().is_some_and(|func| {
            let name = abi::kernel_name(func.name.trim_start_matches("r#"), self.region, func.hash);
            let located = nest.dims.first().and_then(|dim| abi::located_name_at(&name, dim.span));
            crate::plan::manifest::current().is_some_and(|m| m.has_region(&name, located.as_deref()))
        });
        let kernel_dims = (target && embedded).then(|| kernel::dim_types(&nest, &self.types));
        let host = host::parallel_loop(d, &nest, &analysis, &types, kernel_dims.as_deref());
        if !target {
            return host;
        }
        // A target region: plan its kernel (the build helper compiles the same plan).
        let region = self.region;
        self.region += 1;
        let Some(func) = self.func.clone() else { return host };
        let plan = kernel::plan(d, &nest, &analysis, &self.types, &func, region, self.scopes.clone(), self.cx);
        if self.cx.has_errors() {
            return sequential(f);
        }
        // Device memory (`is_device_ptr`) cannot be touched by the host path: such a region must offload.
        let host = match plan.args.iter().find(|a| matches!(a, kernel::KernelArg::DeviceBuffer { .. })) {
            Some(a) => {
                let msg = format!(
                    "omp: target region `{}` uses device memory `{}` (is_device_ptr) and cannot run on the host; \
                     it needs a device and a device image",
                    plan.name,
                    a.name()
                );
                quote!(::core::panic!(#msg))
            }
            None => host,
        };
        let out = offload::target_loop(&plan, host, &types);
        self.kernels.push(plan);
        out
    }

    /// A statement carrying a directive.
    fn statement(&mut self, d: &Directive, mut stmt: Stmt) -> TokenStream {
        let construct: &Construct = &d.construct;
        if construct.name == "parallel" {
            refuse_parallel_block(construct, self.cx);
            strip_omp_attrs(&mut stmt);
            return stmt.into_token_stream();
        }
        if let (ConstructKind::Executable(_), Stmt::Expr(Expr::Block(b), semi)) = (&construct.kind, &stmt) {
            let semi = semi.map(|_| quote!(;));
            match serial_target(d, &b.block, self.cx) {
                Ok(Some((serial, fl))) => {
                    let out = self.for_loop(&serial, &fl);
                    return quote!(#out #semi);
                }
                Err(()) => return quote!(#b #semi),
                Ok(None) => {}
            }
        }
        match (&construct.kind, stmt) {
            (ConstructKind::Executable(_), Stmt::Expr(Expr::ForLoop(f), semi)) if construct.is_loop() => {
                let out = self.for_loop(d, &f);
                let semi = semi.map(|_| quote!(;));
                quote!(#out #semi)
            }
            (ConstructKind::Executable(_), stmt) if construct.is_loop() => {
                self.cx.error_spanned_by(&stmt, format!("`#[omp::{}]` applies to a `for` loop over a range", construct.name));
                stmt.into_token_stream()
            }
            (ConstructKind::TargetData, Stmt::Expr(Expr::Block(mut b), semi)) => {
                b.attrs.clear();
                // The block's regions and updates decide which variables its tokens must hold mutably.
                let vars: Vec<Ident> = d.settings.mapped().map(|i| i.var.clone()).collect();
                crate::analyze::token_use::refuse_slice_methods(&b.block, &vars, self.cx);
                let types = types::CaptureTypes::of(&vars, &self.types);
                let (written_before, copied_before, passed_before) = (self.written.len(), self.copied_back.len(), self.passed_on.len());
                self.types.push();
                // Scalars and structs travel into the block's regions by value: no token stands for them.
                for v in vars.iter().filter(|v| !types.by_value(&v.to_string())) {
                    self.types.bind_mapped(&v.to_string());
                }
                self.visit_block_mut(&mut b.block);
                self.types.pop();
                let written: Vec<String> = self.written[written_before..].to_vec();
                let copied_back: Vec<String> = self.copied_back[copied_before..].to_vec();
                let passed_on: Vec<String> = self.passed_on[passed_before..].to_vec();
                let semi = semi.map(|_| quote!(;));
                let uses = offload::BlockUses { written: &written, copied_back: &copied_back, passed_on: &passed_on };
                let out = offload::data_region(d, &b.block, &types, uses);
                quote!(#out #semi)
            }
            (ConstructKind::Executable(_), Stmt::Expr(Expr::Block(mut b), semi)) => {
                b.attrs.clear();
                // The clauses of a `target` block reach its loop directive in the split form only (one loop
                // directive as its body, fused before this point); anywhere else they would be dropped.
                if let (true, Some(c)) = (construct.is_target(), d.clauses.first()) {
                    self.cx.error_at(
                        c.span,
                        format!(
                            "`{}` on a `#[omp::target]` block reaches its loop directive only when the block is that one \
                             directive (OpenMP's split form: `#[omp::target({0}(..))] {{ #[omp::teams_distribute_parallel_for] \
                             for .. }}`); here the block holds more: put the clause on the loop directive it is for",
                            c.name.as_str()
                        ),
                    );
                }
                let outer = self.in_target;
                self.in_target |= construct.is_target();
                self.visit_block_mut(&mut b.block);
                self.in_target = outer;
                let semi = semi.map(|_| quote!(;));
                quote!(#b #semi)
            }
            (ConstructKind::Executable(_) | ConstructKind::TargetData, stmt) => {
                self.cx.error_spanned_by(&stmt, format!("`#[omp::{}]` applies to a block: `{{ ... }}`", construct.name));
                stmt.into_token_stream()
            }
            (ConstructKind::Atomic, mut stmt) | (ConstructKind::Critical, mut stmt) => {
                // Outside a parallel loop there is nothing to synchronise with: the statement runs as written.
                strip_omp_attrs(&mut stmt);
                stmt.into_token_stream()
            }
            (_, stmt) => {
                self.cx.error_spanned_by(
                    &stmt,
                    format!("`{}` is written as a macro statement: `omp::{}!(...);`", construct.name, construct.name),
                );
                stmt.into_token_stream()
            }
        }
    }
}

impl VisitMut for Lowerer<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.types.push();
        self.scopes.push(crate::analyze::resolve::BlockScope::of(&block.stmts));
        let mut index = 0;
        while index < block.stmts.len() {
            // `#[omp::target_teams(..)] { #[omp::parallel(..)] { .. } }` is a loop nest over its teams and threads.
            let scope = || crate::desugar::spmd::inline::Scope::of(&self.scopes, &self.types);
            if rewrite_in_place(block, index, crate::desugar::spmd::fuse(&block.stmts[index], scope, self.cx)) {
                continue;
            }
            // `#[omp::parallel(..)] { .. }` on the host: a loop over its threads, or its worksharing steps in order.
            if !self.in_target && rewrite_in_place(block, index, crate::desugar::host_parallel::rewrite(&block.stmts[index], self.cx)) {
                continue;
            }
            // `#[omp::target(..)] { #[omp::teams_distribute_parallel_for(..)] for .. }` is the combined construct.
            if let Some(fused) = fuse_split_target(&block.stmts[index]) {
                block.stmts[index] = fused;
            }
            // `reduction(max: d[0])`: a scalar per element, combined into the array after the loop.
            if rewrite_in_place(
                block,
                index,
                crate::desugar::element_reduction::rewrite(&block.stmts[index], &self.types, self.in_target, self.cx),
            ) {
                continue;
            }
            // `reduction(inscan, ..)` with `omp::scan!` in the body: two loops around the prefix (crate::desugar::scan),
            // the split form fused first.
            if rewrite_in_place(block, index, crate::desugar::scan::split(&block.stmts[index], &self.types, self.cx)) {
                continue;
            }
            // A `nowait` target loop takes the statements after it into a data block (crate::desugar::nowait).
            crate::desugar::nowait::defer_at(block, index, &self.types);
            let stmt = &mut block.stmts[index];
            index += 1;
            let declared = stmt.clone();
            if let Some(attr) = find_omp_attr(stmt_attrs(stmt)) {
                let Some(construct) = parse::construct(&attr.name, self.cx) else { continue };
                let d = parse::directive(construct, attr.args.clone(), self.cx);
                let mut s = stmt.clone();
                body::remove_omp_attr(&mut s);
                let out = self.statement(&d, s);
                *stmt = as_stmt(out);
            } else if let Some(mac) = standalone_macro(stmt) {
                let types = crate::driver::standalone::parse(&mac.0, mac.1.clone(), &Ctxt::scratch())
                    .map(|d| {
                        let back: Vec<String> = crate::driver::standalone::written(&d).into_iter().map(|v| v.to_string()).collect();
                        self.written.extend(back.iter().cloned());
                        self.copied_back.extend(back);
                        types::CaptureTypes::of(crate::driver::standalone::vars(&d), &self.types)
                    })
                    .unwrap_or_default();
                let out = crate::driver::standalone::lower(&mac.0, mac.1, &types, self.cx);
                *stmt = as_stmt(out);
            } else {
                // A refused statement is not looked into: its own statements would only repeat the error.
                if !(self.in_target && self.refuse_host_statement_in_target(stmt)) {
                    self.visit_stmt_mut(stmt);
                }
            }
            self.note_declaration(&declared);
        }
        crate::desugar::spmd::inline::remaining_calls(block, self.cx);
        self.scopes.pop();
        self.types.pop();
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        self.types.push();
        let ty = match &*f.expr {
            Expr::Range(r) => types::range_type(r, &self.types).and_then(|t| syn::parse_str::<syn::Type>(&t).ok()),
            _ => None,
        };
        self.types.bind_pattern(&f.pat, ty.as_ref());
        self.visit_block_mut(&mut f.body);
        self.types.pop();
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.types.push();
        for p in &c.inputs {
            self.types.bind_pattern(p, None);
        }
        self.visit_expr_mut(&mut c.body);
        self.types.pop();
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        self.types.push();
        self.types.bind_pattern(&arm.pat, None);
        if let Some((_, g)) = &mut arm.guard {
            self.visit_expr_mut(g);
        }
        self.visit_expr_mut(&mut arm.body);
        self.types.pop();
    }

    fn visit_expr_let_mut(&mut self, l: &mut syn::ExprLet) {
        self.visit_expr_mut(&mut l.expr);
        self.types.bind_pattern(&l.pat, None);
    }

    fn visit_expr_reference_mut(&mut self, r: &mut syn::ExprReference) {
        // `f(&mut x)` with `x` mapped by an enclosing `target_data`: `f`'s regions may write it, so its token must
        // be the exclusive one (`omp::MappedMut`).
        if let (Some(_), Expr::Path(p)) = (r.mutability, &*r.expr) {
            if let Some(id) = p.path.get_ident().map(|i| i.to_string()).filter(|n| self.types.is_mapped(n)) {
                self.written.push(id);
            }
        }
        visit_mut::visit_expr_reference_mut(self, r);
    }

    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        for a in &c.args {
            self.note_passed_on(a);
        }
        visit_mut::visit_expr_call_mut(self, c);
    }

    fn visit_expr_method_call_mut(&mut self, c: &mut syn::ExprMethodCall) {
        for a in &c.args {
            self.note_passed_on(a);
        }
        visit_mut::visit_expr_method_call_mut(self, c);
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        for f in &s.fields {
            self.note_passed_on(&f.expr);
        }
        visit_mut::visit_expr_struct_mut(self, s);
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}

impl Lowerer<'_> {
    /// `f(x)` / `S { x }` with `x` mapped by an enclosing `target_data`: the token goes on as it is, to a function
    /// the macro cannot read, which may write it.
    fn note_passed_on(&mut self, arg: &Expr) {
        if let Expr::Path(p) = arg {
            if let Some(id) = p.path.get_ident().map(|i| i.to_string()).filter(|n| self.types.is_mapped(n)) {
                self.passed_on.push(id);
            }
        }
    }
}

/// Lowered tokens as one statement (a block); never panics: tokens that do not parse become an empty block (their
/// error was reported already).
fn as_stmt(tokens: TokenStream) -> Stmt {
    syn::parse2::<Stmt>(tokens.clone()).or_else(|_| syn::parse2::<Stmt>(quote!({ #tokens }))).unwrap_or_else(|_| {
        Stmt::Expr(
            Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: syn::Block { brace_token: Default::default(), stmts: Vec::new() },
            }),
            None,
        )
    })
}

/// `omp::target_update!(...)` and friends used as statements.
fn standalone_macro(stmt: &Stmt) -> Option<(Ident, TokenStream)> {
    let mac = body::statement_macro(stmt)?;
    let segs: Vec<&syn::PathSegment> = mac.path.segments.iter().collect();
    if segs.len() == 2 && segs[0].ident == "omp" && crate::driver::standalone::is_standalone(&segs[1].ident.to_string()) {
        Some((segs[1].ident.clone(), mac.tokens.clone()))
    } else {
        None
    }
}

/// The loop as plain sequential Rust (used next to errors).
fn sequential(f: &ExprForLoop) -> TokenStream {
    let mut plain = Stmt::Expr(Expr::ForLoop(f.clone()), None);
    strip_omp_attrs(&mut plain);
    plain.into_token_stream()
}

/// Removes every `#[omp::…]` attribute inside a statement (so fallback code compiles on stable).
fn strip_omp_attrs(stmt: &mut Stmt) {
    StripOmp.visit_stmt_mut(stmt);
}

fn strip_omp_attrs_fn(f: &mut ItemFn) {
    f.attrs.retain(|a| !is_omp_attr(a));
    StripOmp.visit_block_mut(&mut f.block);
}

fn is_omp_attr(a: &syn::Attribute) -> bool {
    let segs: Vec<&syn::PathSegment> = a.path().segments.iter().collect();
    segs.len() == 2 && segs[0].ident == "omp"
}

struct StripOmp;

impl VisitMut for StripOmp {
    fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
        attrs.retain(|a| !is_omp_attr(a));
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        // `omp::target_update!(...)` and friends would report their errors a second time; `omp::barrier!()` and
        // `omp::scan!(..)` (refused by crate::desugar::spmd, crate::desugar::scan) expand to errors of their own.
        let marker = body::statement_macro(s).is_some_and(|m| {
            let path: Vec<String> = m.path.segments.iter().map(|s| s.ident.to_string()).collect();
            path == ["omp", "barrier"] || path == ["omp", "scan"]
        });
        if standalone_macro(s).is_some() || marker {
            *s = syn::parse_quote!({});
            return;
        }
        if let Stmt::Local(l) = s {
            l.attrs.retain(|a| !is_omp_attr(a));
        }
        if let Stmt::Macro(m) = s {
            m.attrs.retain(|a| !is_omp_attr(a));
        }
        visit_mut::visit_stmt_mut(self, s);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some(attrs) = body::expr_attrs_mut(e) {
            attrs.retain(|a| !is_omp_attr(a));
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

/// `omp::target_update!(...)` (and enter/exit data) used outside a `#[omp::directives]` fn.
pub fn standalone(name: &str, tokens: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let out = crate::driver::standalone::lower(&Ident::new(name, Span::call_site()), tokens, &types::CaptureTypes::default(), &cx);
    match cx.check() {
        Ok(()) => out,
        Err(e) => e.to_compile_error(),
    }
}
