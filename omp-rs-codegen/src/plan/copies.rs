//! What a kernel copies, and what the host must confirm: resolves every name of a target region (and of the items
//! it copies, each in its own home) with [`Modules`], evaluates the `cfg`s of that code for the host, and records in
//! the plan the items to copy (`local_items`), the checks the host expansion emits (`host_checks`) and, where the
//! meaning cannot be reproduced, why (`refusals`: the macro makes each a compile error at the region).
//!
//! The kernel holds its copies in one flat scope (the kernel function's body). Two different items of one name can
//! therefore not both be copied: such a kernel is refused, never given the wrong one.

use quote::{format_ident, ToTokens};
use syn::visit_mut::VisitMut;

use crate::analyze::resolve::cfg::{CfgSet, Resolver};
use crate::analyze::resolve::{Found, Home, Modules, Names, RegionScope};
use crate::plan::kernel::KernelPlan;
use crate::plan::manifest::{HostCheck, Refusal};

/// The scope a name is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// The region itself.
    Region,
    /// An item of the region's block at this depth.
    Block(usize),
    /// An item of a module.
    Module(usize),
}

/// What a name stands for in the kernel's flat scope.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    /// A copied item: where it lives and its name.
    Item(Home, String),
    /// A `use` of a `core` path.
    Extern(String),
    /// Nothing copied (a prelude, local or device-crate name).
    Nothing,
}

/// Types whose consts the host can compare with the kernel's copy in a `const` (their values, bit for bit).
const COMPARABLE: &[&str] =
    &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char"];

/// Resolves the names of `plan` (a region of module `module`) and fills its `local_items`, `host_checks` and
/// `refusals`; the region's code and the copies get their `cfg`s evaluated for `set`.
pub(crate) fn settle(plan: &mut KernelPlan, modules: &Modules, module: usize, set: &CfgSet, self_consts: &[syn::ImplItemConst]) {
    let mut cfg = Resolver::new(set);
    cfg.block(&mut plan.nest.body);
    let mut names = Names::of_block(&plan.nest.body);
    for a in &plan.args {
        if let crate::plan::kernel::KernelArg::Array { private_len: Some(len), .. } = a {
            let mut n = Names::default();
            syn::visit::Visit::visit_expr(&mut n, len);
            names.paths.extend(n.paths);
        }
    }
    // The region's locals (its kernel parameters) shadow items; the analysis's other captures are items.
    let captures: Vec<String> =
        plan.args.iter().map(|a| a.name().to_string()).chain(plan.reductions.iter().map(|r| r.name.to_string())).collect();
    let mut w = Work {
        plan_scopes: plan.scopes.clone(),
        const_generics: plan.const_generics.clone(),
        module,
        self_consts: self_consts.to_vec(),
        ..Work::default()
    };
    // A plain identifier pattern is a const pattern when a const of that name is in scope (`CALL =>`), else a binding.
    w.patterns(modules, &mut cfg, Ctx::Region, &mut names, &captures);
    let skip = |n: &String| captures.contains(n) || names.declared.contains(n);
    for n in names.paths.iter().filter(|n| !skip(n)) {
        w.name(modules, &mut cfg, Ctx::Region, n, true, true);
    }
    for n in names.loose.iter().filter(|n| !skip(n) && !names.paths.contains(n)) {
        w.name(modules, &mut cfg, Ctx::Region, n, true, false);
    }
    for p in &names.long_paths {
        w.long_path(modules, &mut cfg, Ctx::Region, p, true);
    }
    // The copies' own names, each in its home, until nothing new is copied.
    let mut done = 0;
    while done < w.copies.len() {
        let (ctx, mut item) = w.copies[done].clone();
        // The copy's own `cfg`s, evaluated here (the device crate has another target's).
        cfg.item(&mut item);
        w.copies[done].1 = item.clone();
        done += 1;
        let mut n = Names::of_item(&item);
        w.patterns(modules, &mut cfg, ctx, &mut n, &[]);
        for name in n.paths.iter().filter(|x| !n.declared.contains(x)) {
            w.name(modules, &mut cfg, ctx, name, false, true);
        }
        for name in n.loose.iter().filter(|x| !n.declared.contains(x) && !n.paths.contains(x)) {
            w.name(modules, &mut cfg, ctx, name, false, false);
        }
        for p in &n.long_paths {
            w.long_path(modules, &mut cfg, ctx, p, false);
        }
    }
    // Paths the kernel cannot spell become the copy's name; `std` is `core` on the device.
    let mut rewrite = PathRewrite { to_name: w.rewrites.clone() };
    rewrite.visit_block_mut(&mut plan.nest.body);
    let mut items: Vec<syn::Item> = w.externs.clone();
    for (_, mut item) in w.copies.clone() {
        rewrite.visit_item_mut(&mut item);
        items.push(item);
    }
    let all_items: String = items.iter().map(|i| i.to_token_stream().to_string()).collect::<Vec<_>>().join(" ");
    let kernel = plan.name.clone();
    let mut checks = Vec::new();
    for c in &w.first_consts {
        checks.push(HostCheck::Const { expr: c.0.clone(), name: c.1.clone(), ty: c.2.clone(), items: all_items.clone() });
    }
    checks.extend(w.first_fns.iter().map(|(name, path)| HostCheck::Fn { name: name.clone(), path: path.clone() }));
    for e in &cfg.evaluated {
        checks.push(HostCheck::Cfg { pred: e.pred.clone(), value: e.value });
    }
    if let Some(value) = set.debug_assertions() {
        checks.push(HostCheck::DebugAssertions { value });
    }
    for pred in &cfg.unknown {
        w.refusals.push((
            None,
            format!(
                "this target region's code depends on `cfg({pred})`, which the device build (a build script) cannot \
                 evaluate: compute the value outside the region (`let on = cfg!({pred});`) and use that"
            ),
        ));
    }
    plan.local_items = items;
    plan.host_checks = checks;
    plan.refusals = w.refusals.into_iter().map(|(name, message)| Refusal { kernel: kernel.clone(), name, message }).collect();
}

#[derive(Default)]
struct Work {
    plan_scopes: Vec<crate::analyze::resolve::BlockScope>,
    const_generics: Vec<String>,
    module: usize,
    /// Items copied, with the scope their own names resolve in.
    copies: Vec<(Ctx, syn::Item)>,
    /// `use core::...;` items.
    externs: Vec<syn::Item>,
    /// What each name of the flat scope stands for.
    chosen: Vec<(String, Key)>,
    /// The region's consts: (as written, copy's name, type).
    first_consts: Vec<(String, String, String)>,
    /// The region's functions: (name, path from the region's module).
    first_fns: Vec<(String, String)>,
    /// Paths of the code (as segments) that become a copy's name.
    rewrites: Vec<(Vec<String>, String)>,
    refusals: Vec<(Option<String>, String)>,
    /// The associated consts of the `impl` the region's method is in (`Self::N`).
    self_consts: Vec<syn::ImplItemConst>,
}

impl Work {
    fn found(&self, modules: &Modules, cfg: &mut Resolver<'_>, ctx: Ctx, name: &str) -> Found {
        match ctx {
            Ctx::Region => modules.lookup_in_region(
                RegionScope { blocks: &self.plan_scopes, const_generics: &self.const_generics, module: self.module },
                name,
                cfg,
            ),
            // An item of a block sees that block and the ones around it, not the function's generics.
            Ctx::Block(level) => modules.lookup_in_region(
                RegionScope {
                    blocks: &self.plan_scopes[..=level.min(self.plan_scopes.len().saturating_sub(1))],
                    const_generics: &[],
                    module: self.module,
                },
                name,
                cfg,
            ),
            Ctx::Module(m) => modules.lookup(m, name, cfg),
        }
    }

    /// Resolves the plain identifier patterns of `names`: those that name a const in scope are taken as paths (the
    /// const is copied, so the kernel compares with it as the host does), the others become bindings (`declared`).
    fn patterns(&mut self, modules: &Modules, cfg: &mut Resolver<'_>, ctx: Ctx, names: &mut Names, locals: &[String]) {
        for p in std::mem::take(&mut names.patterns) {
            let is_const = !locals.contains(&p)
                && matches!(self.found(modules, cfg, ctx, &p), Found::Item { item: syn::Item::Const(_) | syn::Item::Static(_), .. });
            if is_const {
                if !names.paths.contains(&p) {
                    names.paths.push(p);
                }
            } else if !names.declared.contains(&p) {
                names.declared.push(p);
            }
        }
    }

    fn refuse(&mut self, name: &str, message: String) {
        if !self.refusals.iter().any(|(_, m)| *m == message) {
            self.refusals.push((Some(name.to_string()), message));
        }
    }

    /// Binds `name` in the kernel's flat scope to `key`; false (and a refusal) when it is bound to another already.
    fn bind(&mut self, name: &str, key: Key) -> bool {
        match self.chosen.iter().find(|(n, _)| n == name) {
            Some((_, k)) if *k == key => false,
            Some(_) => {
                self.refuse(
                    name,
                    format!(
                        "this target region's kernel would need two different items named `{name}` (the region and an \
                         item it uses resolve `{name}` differently): rename one of them"
                    ),
                );
                false
            }
            None => {
                self.chosen.push((name.to_string(), key));
                true
            }
        }
    }

    fn name(&mut self, modules: &Modules, cfg: &mut Resolver<'_>, ctx: Ctx, name: &str, first: bool, is_path: bool) {
        let found = self.found(modules, cfg, ctx, name);
        self.take(modules, cfg, name, name, found, first, is_path);
    }

    /// Records what `found` (for `name`, written `written` in the code) means for the kernel; `modules` and `cfg`
    /// resolve the type of a const it copies.
    #[allow(clippy::too_many_arguments)]
    fn take(&mut self, modules: &Modules, cfg: &mut Resolver<'_>, name: &str, written: &str, found: Found, first: bool, is_path: bool) {
        match found {
            Found::NotFound => {
                self.bind(name, Key::Nothing);
            }
            Found::Generic => self.refuse(
                name,
                format!(
                    "`{name}` is a const parameter of the function, which the device kernel (compiled before the function \
                     is instantiated) cannot see: bind it to a typed local before the region (`let {l}: usize = {name};`) and use \
                     the local",
                    l = name.to_lowercase()
                ),
            ),
            Found::Undecidable(why) => self.refuse(
                name,
                format!("the device build cannot tell which item `{name}` is in this target region ({why}): {}", FIX_PASS_VALUE),
            ),
            Found::Extern(path) => {
                let Some(core_path) = core_path(&path) else {
                    if is_path {
                        self.refuse(
                            name,
                            format!(
                                "`{name}` is `{}`, from outside this package; the device kernel holds only this package's \
                                 code and `core`: {}",
                                path.join("::"),
                                FIX_PASS_VALUE
                            ),
                        );
                    }
                    return;
                };
                if self.bind(name, Key::Extern(core_path.join("::"))) {
                    let p: Vec<syn::Ident> = core_path.iter().map(|s| format_ident!("{}", s)).collect();
                    let last = p.last().cloned();
                    let rename = (last.as_ref().map(|l| l.to_string()).as_deref() != Some(name)).then(|| format_ident!("{}", name));
                    let item: syn::Item = match rename {
                        Some(r) => syn::parse_quote!(use #(#p)::* as #r;),
                        None => syn::parse_quote!(use #(#p)::*;),
                    };
                    self.externs.push(item);
                }
            }
            Found::Item { home, item, via, unverified } => {
                let omp_attrs = match &item {
                    syn::Item::Fn(f) => Some(&f.attrs),
                    syn::Item::Static(s) => Some(&s.attrs),
                    _ => None,
                };
                if omp_attrs.is_some_and(|a| crate::syntax::body::find_omp_attr(a).is_some()) {
                    // `declare_target` functions and statics are at the device crate's root already.
                    self.bind(name, Key::Nothing);
                    return;
                }
                if let syn::Item::Static(st) = &item {
                    if !matches!(st.mutability, syn::StaticMutability::None) {
                        self.refuse(
                            name,
                            format!(
                                "the target region reads the `static mut` `{name}`: the kernel's copy would be another \
                                 object than the host's; pass its value in a local (`let v = ...;`) before the region"
                            ),
                        );
                        return;
                    }
                }
                if unverified && !first {
                    self.refuse(
                        name,
                        format!(
                            "a macro in a block around this target region may declare `{name}`, which an item the region \
                             uses refers to; the device build cannot see macro-made items: declare `{name}` without the macro"
                        ),
                    );
                    return;
                }
                let key = Key::Item(home, name.to_string());
                if first {
                    // A read-only static is copied like a const (a table of values; the kernel's copy holds the same
                    // values, which the host check compares like a const's).
                    let value_item = match &item {
                        syn::Item::Const(c) => Some(&c.ty),
                        syn::Item::Static(s) => Some(&s.ty),
                        _ => None,
                    };
                    match (&item, value_item) {
                        (_, Some(item_ty)) => {
                            let ty = item_ty.to_token_stream().to_string();
                            // The value's type as the check compares it (a type alias's, whose copy the device
                            // crate gets with a host check of its own).
                            let plain = through_aliases(modules, cfg, item_ty, 0);
                            if comparable(&plain) {
                                self.first_consts.push((written.to_string(), name.to_string(), plain.to_token_stream().to_string()));
                            } else {
                                self.refuse(
                                    name,
                                    format!(
                                        "the target region uses `{written}` of type `{ty}`; the device build can only \
                                         confirm with rustc that it copied the const or static the region means for \
                                         numbers, `bool`, `char` and arrays of them: bind it to a local before the \
                                         region (`let v = {written};`) and use the local"
                                    ),
                                );
                                return;
                            }
                        }
                        (syn::Item::Fn(f), None) => {
                            let generic = f.sig.generics.params.iter().any(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
                            match (&via, generic) {
                                (Some(path), false) => self.first_fns.push((written.to_string(), path.join("::"))),
                                (None, _) if unverified => {
                                    self.refuse(
                                        name,
                                        format!(
                                            "a macro in a block around this target region may declare another `{name}`; \
                                             the device build cannot see macro-made items: declare it without the macro"
                                        ),
                                    );
                                    return;
                                }
                                _ => {}
                            }
                        }
                        _ => {}
                    }
                }
                if self.bind(name, key) {
                    let mut item = item;
                    strip_omp_attrs(&mut item);
                    let home = match home {
                        Home::Block(level) => Ctx::Block(level),
                        Home::Module(m) => Ctx::Module(m),
                    };
                    self.copies.push((home, item));
                }
            }
        }
    }

    /// `m::X`, `crate::m::X`, `std::f64::consts::PI`: a path into one of this package's modules is copied under its
    /// last name (and the path rewritten to it); `std` paths are `core`'s on the device; others (types, enums,
    /// primitives) are left as written.
    fn long_path(&mut self, modules: &Modules, cfg: &mut Resolver<'_>, ctx: Ctx, path: &[String], first: bool) {
        let Some(first_seg) = path.first() else { return };
        if first_seg == "std" {
            match core_path(path) {
                Some(p) => self.rewrites.push((path.to_vec(), p.join("::"))),
                None if first => self.refuse(
                    first_seg,
                    format!(
                        "the target region uses `{}`, which the device (it has `core`, not `std`) does not have: {FIX_PASS_VALUE}",
                        path.join("::")
                    ),
                ),
                None => {}
            }
            return;
        }
        if first_seg == "Self" && first && path.len() == 2 {
            // An associated const of the method's own `impl` whose value names nothing (`const N: usize = 64;`): a
            // copy under a name of its own, checked on the host like a module const.
            let found = self.self_consts.iter().find(|c| c.ident == path[1].as_str()).cloned();
            if let Some(c) = found.filter(|c| !token_names(&c.expr)) {
                let copy = format!("__omp_Self_{}", path[1]);
                let (written, ty) = (path.join("::"), c.ty.to_token_stream().to_string());
                if !comparable(&c.ty) {
                    self.refuse(first_seg, format!("the target region uses `{written}` of type `{ty}`: bind it to a local before the region (`let v = {written};`)"));
                    return;
                }
                if !self.rewrites.iter().any(|(p, _)| p.as_slice() == path) {
                    let (ident, cty, expr) = (quote::format_ident!("{}", copy), &c.ty, &c.expr);
                    self.copies.push((Ctx::Module(self.module), syn::parse_quote!(const #ident: #cty = #expr;)));
                    self.rewrites.push((path.to_vec(), copy.clone()));
                    self.first_consts.push((written, copy, ty));
                }
                return;
            }
        }
        if first_seg == "Self" && first {
            let name = path.join("::");
            self.refuse(
                first_seg,
                format!(
                    "the target region uses `{name}`, an item of `Self`, which the device kernel cannot see (it is not a \
                     method of the type): bind it to a local before the region (`let v = {name};`) and use the local"
                ),
            );
            return;
        }
        let module = match ctx {
            Ctx::Module(m) => m,
            _ => self.module,
        };
        // A block item or a local named like the first segment would make this something else: only plain module
        // paths are followed.
        let Some(found) = modules.lookup_in_module_path(module, path, cfg) else { return };
        let Some(name) = path.last().cloned() else { return };
        let written = path.join("::");
        if matches!(found, Found::Item { .. }) {
            self.rewrites.push((path.to_vec(), name.clone()));
        }
        self.take(modules, cfg, &name, &written, found, first, true);
    }
}

const FIX_PASS_VALUE: &str = "compute what the region needs before it and pass the value in a local (`let v = ...;`), \
     or mark a helper `#[omp::declare_target]`";

/// Modules of `std` that are `core`'s (re-exported as they are), which the device crate has.
const CORE_MODULES: &[&str] = &[
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "cmp",
    "mem",
    "ops",
    "num",
    "convert",
    "iter",
    "option",
    "result",
    "hint",
    "array",
    "char",
    "primitive",
    "marker",
    "default",
    "clone",
];

/// `core`'s spelling of a std path the device can use (`std::f64::consts::PI` -> `core::f64::consts::PI`).
fn core_path(path: &[String]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let in_core = rest.first().is_some_and(|m| CORE_MODULES.contains(&m.as_str()));
    match first.as_str() {
        "std" | "core" if in_core => Some(std::iter::once("core".to_string()).chain(rest.iter().cloned()).collect()),
        _ => None,
    }
}

/// Whether an expression names anything (a path: a const, a function, `Self`): a literal value does not.
fn token_names(e: &syn::Expr) -> bool {
    crate::syntax::tokens::ident_tokens(e.to_token_stream()).iter().any(|i| {
        let i = i.to_string();
        !matches!(i.as_str(), "as" | "true" | "false") && !crate::analyze::types::SCALARS.contains(&i.as_str())
    })
}

/// `ty` with the package's type aliases replaced by the types they name (`[RealType; 3]` is `[f32; 3]` after
/// `type RealType = f32;`): the aliases the device crate gets copies of (`Modules::unique_alias`, as
/// `outline::settle_type_aliases` copies them). A name without such an alias stays as written.
fn through_aliases(modules: &Modules, cfg: &mut Resolver<'_>, ty: &syn::Type, depth: usize) -> syn::Type {
    match ty {
        syn::Type::Array(a) => {
            let mut a = a.clone();
            *a.elem = through_aliases(modules, cfg, &a.elem, depth);
            syn::Type::Array(a)
        }
        syn::Type::Paren(p) => through_aliases(modules, cfg, &p.elem, depth),
        syn::Type::Path(p) if p.qself.is_none() && depth < 8 => {
            let alias = p.path.get_ident().and_then(|name| modules.unique_alias(&name.to_string(), cfg));
            match alias {
                Some(a) => through_aliases(modules, cfg, &a.ty, depth + 1),
                None => ty.clone(),
            }
        }
        _ => ty.clone(),
    }
}

fn comparable(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.qself.is_none() && p.path.get_ident().is_some_and(|i| COMPARABLE.contains(&i.to_string().as_str())),
        syn::Type::Array(a) => comparable(&a.elem),
        syn::Type::Paren(p) => comparable(&p.elem),
        _ => false,
    }
}

fn strip_omp_attrs(item: &mut syn::Item) {
    let is_omp = |a: &syn::Attribute| {
        let segs: Vec<&syn::PathSegment> = a.path().segments.iter().collect();
        segs.len() == 2 && segs[0].ident == "omp"
    };
    match item {
        syn::Item::Const(c) => c.attrs.retain(|a| !is_omp(a)),
        syn::Item::Fn(f) => f.attrs.retain(|a| !is_omp(a)),
        _ => {}
    }
}

/// Replaces the listed paths by single names (or `core` paths).
struct PathRewrite {
    to_name: Vec<(Vec<String>, String)>,
}

impl VisitMut for PathRewrite {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some((_, to)) = self.to_name.iter().find(|(from, _)| *from == segs) {
                if let Ok(path) = syn::parse_str::<syn::Path>(to) {
                    // Keep the written span, so errors and panics still point at the user's code.
                    let span = p.path.segments.first().map(|s| s.ident.span());
                    p.path = path;
                    if let Some(span) = span {
                        for s in &mut p.path.segments {
                            s.ident.set_span(span);
                        }
                    }
                }
            }
        }
        syn::visit_mut::visit_expr_path_mut(self, p);
    }
}
