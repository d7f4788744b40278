//! Outlining for the build helper: finds every target region of a package's source files exactly as the macros
//! will see them, and assembles the device crate (kernels plus the items they use). The macros and this module
//! run the same walk (`expand::collect_kernels`), so kernel names and slots agree.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Item, ItemFn};

use crate::analyze::resolve::cfg::CfgSet;
#[cfg(test)]
use crate::analyze::resolve::item_name;
use crate::analyze::resolve::Modules;
use crate::driver::expand;
use crate::lower::device;
use crate::model::ConstructKind;
use crate::plan::kernel::KernelPlan;
use crate::plan::manifest::{HostOnly, Refusal};
use crate::plan::struct_table::StructTable;
use crate::syntax::body::find_omp_attr;
use crate::syntax::keyword;

/// What the build helper compiles for one package.
#[derive(Debug, Default)]
pub struct Outline {
    /// Every kernel, in file and walk order.
    pub kernels: Vec<KernelPlan>,
    /// The file (as the user names it, e.g. `src/lib.rs`) of each kernel.
    pub files: Vec<String>,
    /// `#[omp::declare_target]` items, copied to the device crate's root.
    pub items: Vec<Item>,
    /// The package's structs (the types of field paths in target regions): fill it from every file before
    /// [`Outline::add_file`].
    pub structs: StructTable,
    /// The package's modules (name resolution for the kernels' items): fill it from every file before
    /// [`Outline::add_file_at`].
    pub modules: Modules,
    /// The host's `cfg` values (`CfgSet::from_build_env` in a build script).
    pub cfg: CfgSet,
    /// Regions whose meaning the device build cannot reproduce (they get no kernel; the macro reports each).
    pub refused: Vec<Refusal>,
    /// Generic regions that get no kernel and run on the host (`generic::host_only_reason`).
    pub host_only: Vec<HostOnly>,
    /// The names of the package's `#[omp::declare_target]` structs, with the module each is defined in.
    declare_target_structs: Vec<(String, String)>,
    /// Inherent, non-generic `impl`s of the package by the name of their type: those of `declare_target` structs
    /// are copied to the device crate with them (`settle_type_aliases`).
    inherent_impls: Vec<(String, syn::ItemImpl)>,
    /// The associated consts of the `impl` whose methods are being walked (`Self::N` in their regions).
    self_consts: Vec<syn::ImplItemConst>,
}

/// One source file of the generated device crate.
#[derive(Debug, Clone)]
pub struct CrateFile {
    /// Path relative to the crate's `src/`.
    pub path: String,
    /// Its text.
    pub text: String,
    /// The user's file it reports panics in (`--remap-path-prefix`), if any.
    pub remap_to: Option<String>,
}

impl Outline {
    /// Adds the target regions and declare-target items of one parsed file, taken as the root module of a crate;
    /// `path` names it in panic locations.
    pub fn add_file(&mut self, file: &syn::File, path: &str) {
        if self.modules.find(0, &[]).is_none() {
            self.modules.add_file(file, 0, &[]);
        }
        self.add_file_at(file, path, 0, &[]);
    }

    /// [`Outline::add_file`] for the file of module `module` of crate `krate` (registered in
    /// [`Outline::modules`] first).
    pub fn add_file_at(&mut self, file: &syn::File, path: &str, krate: usize, module: &[String]) {
        let Some(at) = self.modules.find(krate, module) else { return };
        let (before, host_only_before) = (self.kernels.len(), self.host_only.len());
        self.add_items(&file.items, at, path);
        self.files.extend(std::iter::repeat_n(path.to_string(), self.kernels.len() - before));
        for h in &mut self.host_only[host_only_before..] {
            h.file = path.to_string();
        }
    }

    /// `at`: the module the items are in; `module`: its name in the struct table (`src/lib.rs::grid`).
    fn add_items(&mut self, items: &[Item], at: usize, module: &str) {
        for item in items {
            match item {
                Item::Fn(f) => self.add_fn(f, at, None, module),
                Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let (krate, mut path) = (self.modules.modules[at].krate, self.modules.modules[at].path.clone());
                        path.push(m.ident.to_string().trim_start_matches("r#").to_string());
                        if let Some(child) = self.modules.find(krate, &path) {
                            self.add_items(inner, child, &format!("{module}::{}", m.ident));
                        }
                    }
                }
                // `#[omp::directives]` on the impl: every method is walked, the impl's type parameters count as the
                // methods' own (the macro on the impl sees them too).
                Item::Impl(imp) if find_omp_attr(&imp.attrs).is_some_and(|a| a.name == "directives") => {
                    self.self_consts = impl_consts(imp);
                    for ii in &imp.items {
                        if let syn::ImplItem::Fn(m) = ii {
                            self.add_method_of_directives_impl(&crate::syntax::body::method_as_fn(m), at, imp, module);
                        }
                    }
                }
                // A generic `impl` without the attribute: its type parameters are not the methods' own (the macro on a
                // method cannot see them, nor name their instances): its regions run on the host.
                Item::Impl(imp) if imp.generics.type_params().next().is_some() => {}
                Item::Impl(imp) => {
                    if let (None, syn::Type::Path(tp)) = (&imp.trait_, &*imp.self_ty) {
                        if let (None, Some(name)) = (&tp.qself, tp.path.get_ident()) {
                            self.inherent_impls.push((name.to_string(), imp.clone()));
                        }
                    }
                    // Methods too: a target region in a `&mut self` method reaches the struct's fields
                    // (`self.c[i] = self.a[i]`), typed from `Self`'s definition.
                    self.self_consts = impl_consts(imp);
                    for ii in &imp.items {
                        if let syn::ImplItem::Fn(m) = ii {
                            self.add_fn(&crate::syntax::body::method_as_fn(m), at, Some(&imp.self_ty), module);
                        }
                    }
                }
                Item::Struct(s) if declare_target(&s.attrs) => {
                    self.declare_target_structs.push((s.ident.to_string(), module.to_string()));
                    let mut s = s.clone();
                    s.attrs.retain(|a| !is_omp(a));
                    self.items.push(Item::Verbatim(crate::lower::device_struct::device(s)));
                }
                Item::Struct(_) | Item::Enum(_) | Item::Static(_) | Item::Const(_) | Item::Type(_) if declare_target(item_attrs(item)) => {
                    self.items.push(strip_omp(item.clone()));
                }
                _ => {}
            }
        }
    }

    /// A method of an `impl` that carries `#[omp::directives]`: walked like a `#[omp::directives]` fn, with the impl's
    /// type parameters.
    fn add_method_of_directives_impl(&mut self, f: &ItemFn, at: usize, imp: &syn::ItemImpl, module: &str) {
        let self_ty = &*imp.self_ty;
        let package = Some(expand::Package {
            structs: &self.structs,
            self_ty: Some(self_ty),
            directives_impl: Some((&imp.generics, self_ty)),
            module,
        });
        let kernels = expand::collect_kernels_in(f, None, package);
        let generics = [&imp.generics, &f.sig.generics];
        self.finish_kernels(kernels, at, &generics);
    }

    /// Resolves the items each kernel uses (`resolve::kernel`), then instantiates generic kernels. A kernel whose
    /// meaning the device build cannot reproduce is left out and its reasons kept in [`Outline::refused`].
    fn finish_kernels(&mut self, kernels: Vec<KernelPlan>, at: usize, generics: &[&syn::Generics]) {
        for mut k in kernels {
            // Functions the region calls are OpenMP 5's implicit `declare target`: a function of the same
            // compilation unit called in a target region is compiled for the device too (as are the consts it uses).
            crate::plan::copies::settle(&mut k, &self.modules, at, &self.cfg, &self.self_consts);
            k.refusals.extend(crate::plan::generic::unknown_bounds(&k, generics));
            if !k.refusals.is_empty() {
                self.refused.append(&mut k.refusals);
                continue;
            }
            // A generic function's kernels: one per instance of their type parameters, or none.
            if let Some(reason) = (!k.generics.is_empty()).then(|| crate::plan::generic::host_only_reason(&k)).flatten() {
                let line = k.region_line();
                self.host_only.push(HostOnly { kernel: k.name.clone(), file: String::new(), line, reason });
            }
            self.kernels.extend(crate::plan::generic::instantiate(k));
        }
    }

    fn add_fn(&mut self, f: &ItemFn, at: usize, self_ty: Option<&syn::Type>, module: &str) {
        let Some(attr) = find_omp_attr(&f.attrs) else { return };
        let name = attr.name.to_string();
        let mut plain = f.clone();
        plain.attrs.remove(attr.index);
        let package = Some(expand::Package { structs: &self.structs, self_ty, directives_impl: None, module });
        let kernels = match (name.as_str(), keyword::construct(&name)) {
            ("directives", _) => expand::collect_kernels_in(&plain, None, package),
            // Kernels name its reducer type: both go to the device crate's root.
            ("declare_reduction", _) if self_ty.is_none() => {
                if let Some(items) = crate::driver::declare_reduction::device_items(attr.args.clone(), &strip_omp_fn(plain)) {
                    self.items.push(Item::Verbatim(items));
                }
                return;
            }
            // A method with a receiver has no free-function form for the device crate.
            (_, Some(ConstructKind::DeclareTarget)) if plain.sig.receiver().is_some() => return,
            (_, Some(ConstructKind::DeclareTarget)) => {
                self.items.push(Item::Fn(strip_omp_fn(plain)));
                return;
            }
            (_, Some(ConstructKind::Executable(_))) => expand::collect_kernels_in(&plain, Some((&attr.name, attr.args.clone())), package),
            _ => Vec::new(),
        };
        self.finish_kernels(kernels, at, &[&f.sig.generics]);
    }

    /// The package's type aliases the kernels and `declare_target` items name (`type Real = f32;`), copied to the
    /// device crate's root, where the kernels' signatures and bodies and the items see them; each kernel gets a
    /// host check that the alias means at its region what the copy means. A name with two different aliases in
    /// the package is not copied (the device build then says which name it misses; it never takes one of them).
    /// Call once every file has been added.
    pub fn settle_type_aliases(&mut self) {
        self.refuse_ambiguous_structs();
        self.copy_declare_target_methods();
        let mut cfg = crate::analyze::resolve::cfg::Resolver::new(&self.cfg);
        let kernel_idents: Vec<std::collections::BTreeSet<String>> =
            self.kernels.iter().map(|k| crate::syntax::tokens::idents_in(device::kernel(k))).collect();
        let mut wanted: std::collections::BTreeSet<String> = kernel_idents.iter().flatten().cloned().collect();
        wanted.extend(self.items.iter().flat_map(|i| crate::syntax::tokens::idents_in(i.to_token_stream())));
        let defined: Vec<String> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Type(t) => Some(t.ident.to_string()),
                _ => None,
            })
            .collect();
        let mut copied: Vec<(String, String)> = Vec::new();
        let mut queue: Vec<String> = wanted.into_iter().collect();
        while let Some(name) = queue.pop() {
            if copied.iter().any(|(n, _)| *n == name) || defined.contains(&name) {
                continue;
            }
            let Some(def) = self.modules.unique_alias(&name, &mut cfg).cloned() else { continue };
            queue.extend(crate::syntax::tokens::idents_in(def.ty.to_token_stream()));
            copied.push((name, def.ty.to_token_stream().to_string()));
            let (ident, ty) = (&def.ident, &def.ty);
            self.items.push(syn::parse_quote!(pub type #ident = #ty;));
        }
        for (k, idents) in self.kernels.iter_mut().zip(&kernel_idents) {
            for (name, ty) in copied.iter().filter(|(n, _)| idents.contains(n)) {
                k.host_checks.push(crate::plan::manifest::HostCheck::Type { name: name.clone(), ty: ty.clone() });
            }
        }
    }

    /// `declare_target` structs live at the device crate's root, so two of one name (in two modules) cannot both be
    /// there: neither is copied, and every kernel that names one is refused (the macro reports it at the region),
    /// never compiled against the other struct of that name.
    fn refuse_ambiguous_structs(&mut self) {
        let mut twice: Vec<(String, Vec<String>)> = Vec::new();
        for (name, module) in &self.declare_target_structs {
            match twice.iter_mut().find(|(n, _)| n == name) {
                Some((_, modules)) => modules.push(module.clone()),
                None => twice.push((name.clone(), vec![module.clone()])),
            }
        }
        twice.retain(|(_, modules)| modules.len() > 1);
        if twice.is_empty() {
            return;
        }
        // The copies (`device_struct::device` output: the struct and what it derives).
        let defines_one = |item: &Item| {
            let named = |i: &Item| matches!(i, Item::Struct(s) if twice.iter().any(|(n, _)| s.ident == n));
            match item {
                Item::Verbatim(t) => syn::parse2::<syn::File>(t.clone()).is_ok_and(|f| f.items.iter().any(named)),
                other => named(other),
            }
        };
        self.items.retain(|i| !defines_one(i));
        let kernels = std::mem::take(&mut self.kernels);
        let files = std::mem::take(&mut self.files);
        for (k, f) in kernels.into_iter().zip(files) {
            let idents = crate::syntax::tokens::idents_in(device::kernel(&k));
            match twice.iter().find(|(n, _)| idents.contains(n)) {
                Some((name, modules)) => self.refused.push(Refusal {
                    kernel: k.name.clone(),
                    name: Some(name.clone()),
                    message: format!(
                        "two `#[omp::declare_target]` structs are named `{name}` (in {}): the device build keeps \
                         such structs under their name alone, so it cannot tell them apart; rename one",
                        modules.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" and ")
                    ),
                }),
                None => {
                    self.kernels.push(k);
                    self.files.push(f);
                }
            }
        }
    }

    /// The methods of `declare_target` structs (OpenMP compiles a declare-target class's member functions for the
    /// device): their inherent `impl`s go to the device crate beside the struct, as `declare_target` functions do (a
    /// method naming an item the device crate lacks is a device build error, as in such a function). Methods with
    /// omp directives stay host code; a struct name defined twice in the package gets no methods.
    fn copy_declare_target_methods(&mut self) {
        let impls = std::mem::take(&mut self.inherent_impls);
        for (name, imp) in &impls {
            if self.declare_target_structs.iter().filter(|(n, _)| n == name).count() != 1 {
                continue;
            }
            let mut imp = imp.clone();
            imp.attrs.retain(|a| !is_omp(a));
            let root: Vec<String> = self.items.iter().filter_map(root_item_name).collect();
            imp.items.retain(|ii| match ii {
                syn::ImplItem::Fn(m) => !crate::syntax::tokens::idents_in(m.to_token_stream()).contains("omp") && self_contained(m, &root),
                syn::ImplItem::Const(c) => names_only(&root, |v| {
                    syn::visit::Visit::visit_expr(v, &c.expr);
                    syn::visit::Visit::visit_type(v, &c.ty);
                }),
                _ => false,
            });
            if !imp.items.is_empty() {
                self.items.push(Item::Impl(imp));
            }
        }
    }

    /// What kernel `i` is compiled from (its device function, with the module consts copied into it), as text:
    /// two kernels of one name are the same kernel only when these are equal.
    pub fn kernel_source(&self, i: usize) -> String {
        device::kernel(&self.kernels[i]).to_string()
    }

    /// Kernel `i` as the device crate holds it, for `cargo omp explain`: its text (printed at the user's line numbers,
    /// as in the crate's `u<n>.rs`, from its first line on), that first line, and the names of its slot parameters
    /// (after `dyn_ptr`), read from the tokens the outliner generated rather than from printed text.
    pub fn kernel_listing(&self, i: usize) -> (String, usize, Vec<String>) {
        let tokens = positioned_kernel(&self.kernels[i]);
        let text = crate::lower::print::positioned("", tokens.clone());
        let blank = text.lines().take_while(|l| l.trim().is_empty()).count();
        let text: String = text.lines().skip(blank).collect::<Vec<_>>().join("\n");
        (text, blank + 1, kernel_params(tokens))
    }

    /// The device crate's `lib.rs`, one token-printed file (for tests and tools).
    pub fn crate_source(&self) -> String {
        let kernels: Vec<TokenStream> = self.kernels.iter().map(device::kernel).collect();
        device::crate_source(&self.items, &kernels)
    }

    /// The device crate as files: `lib.rs` (header, items, one module per user file) and `u<n>.rs` per user file
    /// holding that file's kernels, printed so that their bodies keep the user's line and column numbers (each maps
    /// to the user's file with `--remap-path-prefix`; rustc identifies files by that name, hence one per user file).
    pub fn crate_files(&self) -> Vec<CrateFile> {
        let mut lib = device::crate_source(&self.items, &[]);
        let mut groups: Vec<(&String, Vec<&KernelPlan>)> = Vec::new();
        for (k, path) in self.kernels.iter().zip(&self.files) {
            match groups.iter_mut().find(|(p, _)| *p == path) {
                Some((_, ks)) => ks.push(k),
                None => groups.push((path, vec![k])),
            }
        }
        let mut files = Vec::new();
        for (n, (path, kernels)) in groups.into_iter().enumerate() {
            let module = format!("u{n}");
            lib.push_str(&format!("#[path = \"{module}.rs\"]\nmod {module};\n"));
            let mut tokens = TokenStream::new();
            for k in kernels {
                tokens.extend(positioned_kernel(k));
            }
            let text = crate::lower::print::positioned(
                "#[allow(unused_imports)] use omp_device::prelude::*; #[allow(unused_imports)] use super::*;",
                tokens,
            );
            files.push(CrateFile { path: format!("{module}.rs"), text, remap_to: Some(path.clone()) });
        }
        files.insert(0, CrateFile { path: "lib.rs".into(), text: lib, remap_to: None });
        files
    }
}

/// A kernel's tokens for the positioned printer (`print::positioned`): items copied from elsewhere in the file would
/// drag the printer's position, so they print inline.
fn positioned_kernel(k: &KernelPlan) -> TokenStream {
    let mut plan = k.clone();
    plan.local_items = plan
        .local_items
        .iter()
        .map(|i| syn::parse2(crate::lower::print::unlocated(i.to_token_stream())).unwrap_or_else(|_| i.clone()))
        .collect();
    device::kernel(&plan)
}

/// The slot parameter names of the `kernel!` invocation in `tokens` (possibly inside a generic instance's module).
fn kernel_params(tokens: TokenStream) -> Vec<String> {
    fn in_items(items: &[Item]) -> Option<Vec<String>> {
        items.iter().find_map(|it| match it {
            Item::Macro(m) => {
                let f: ItemFn = syn::parse2(m.mac.tokens.clone()).ok()?;
                let names = f.sig.inputs.iter().skip(1).filter_map(|a| match a {
                    syn::FnArg::Typed(t) => match &*t.pat {
                        syn::Pat::Ident(p) => Some(p.ident.to_string()),
                        _ => None,
                    },
                    syn::FnArg::Receiver(_) => None,
                });
                Some(names.collect())
            }
            Item::Mod(m) => m.content.as_ref().and_then(|(_, inner)| in_items(inner)),
            _ => None,
        })
    }
    syn::parse2::<syn::File>(tokens).ok().and_then(|f| in_items(&f.items)).unwrap_or_default()
}

/// The associated consts of an `impl`.
fn impl_consts(imp: &syn::ItemImpl) -> Vec<syn::ImplItemConst> {
    imp.items.iter().filter_map(|ii| if let syn::ImplItem::Const(c) = ii { Some(c.clone()) } else { None }).collect()
}

/// The name an item of the device crate's root defines.
fn root_item_name(item: &Item) -> Option<String> {
    match item {
        Item::Struct(s) => Some(s.ident.to_string()),
        Item::Enum(e) => Some(e.ident.to_string()),
        Item::Fn(f) => Some(f.sig.ident.to_string()),
        Item::Const(c) => Some(c.ident.to_string()),
        Item::Static(s) => Some(s.ident.to_string()),
        Item::Type(t) => Some(t.ident.to_string()),
        Item::Verbatim(v) => syn::parse2::<syn::ItemStruct>(v.clone()).ok().map(|s| s.ident.to_string()).or_else(|| {
            // `device_struct::device` prints the struct followed by its layout checks.
            let text = v.to_string();
            let after = text.split("struct ").nth(1)?;
            after.split(|c: char| !c.is_alphanumeric() && c != '_').next().map(str::to_string)
        }),
        _ => None,
    }
}

/// Whether method `m` names nothing but its own locals, `self`/`Self`, the device crate's root items (`root`),
/// primitive types and `core`/`std` paths: such a method means the same at the device crate's root (the resolver
/// does not follow methods, so anything else would need the user's module there). No macros.
fn self_contained(m: &syn::ImplItemFn, root: &[String]) -> bool {
    names_only(root, |n| {
        for input in &m.sig.inputs {
            syn::visit::Visit::visit_fn_arg(n, input);
        }
        syn::visit::Visit::visit_block(n, &m.block);
        syn::visit::Visit::visit_return_type(n, &m.sig.output);
    })
}

/// Whether the code `visit` walks names only its own locals, `self`/`Self`, `root`'s items, primitives and
/// `core`/`std` paths, and calls no macro (see [`self_contained`]).
fn names_only(root: &[String], visit: impl FnOnce(&mut dyn for<'ast> syn::visit::Visit<'ast>)) -> bool {
    use syn::visit::Visit;
    struct Names<'a> {
        locals: std::collections::BTreeSet<String>,
        root: &'a [String],
        ok: bool,
    }
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.locals.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_macro(&mut self, _: &'ast syn::Macro) {
            self.ok = false;
        }
        fn visit_path(&mut self, p: &'ast syn::Path) {
            let first = p.segments.first().map(|s| s.ident.to_string()).unwrap_or_default();
            let allowed = first == "self"
                || first == "Self"
                || first == "core"
                || first == "std"
                || crate::analyze::types::SCALARS.contains(&first.as_str())
                || self.root.contains(&first)
                || (p.segments.len() == 1 && self.locals.contains(&first));
            if !allowed {
                self.ok = false;
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut n = Names { locals: Default::default(), root, ok: true };
    visit(&mut n);
    n.ok
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Struct(s) => &s.attrs,
        Item::Enum(e) => &e.attrs,
        Item::Static(s) => &s.attrs,
        Item::Const(c) => &c.attrs,
        Item::Type(t) => &t.attrs,
        Item::Fn(f) => &f.attrs,
        _ => &[],
    }
}

fn declare_target(attrs: &[Attribute]) -> bool {
    find_omp_attr(attrs).is_some_and(|a| a.name == "declare_target")
}

fn is_omp(a: &Attribute) -> bool {
    let segs: Vec<&syn::PathSegment> = a.path().segments.iter().collect();
    segs.len() == 2 && segs[0].ident == "omp"
}

fn strip_omp_fn(mut f: ItemFn) -> ItemFn {
    f.attrs.retain(|a| !is_omp(a));
    f
}

fn strip_omp(mut item: Item) -> Item {
    match &mut item {
        Item::Struct(s) => s.attrs.retain(|a| !is_omp(a)),
        Item::Enum(e) => e.attrs.retain(|a| !is_omp(a)),
        Item::Static(s) => s.attrs.retain(|a| !is_omp(a)),
        Item::Const(c) => c.attrs.retain(|a| !is_omp(a)),
        Item::Type(t) => t.attrs.retain(|a| !is_omp(a)),
        _ => {}
    }
    item
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn helpers_and_consts_follow_rusts_scoping() {
        let file: syn::File = syn::parse_quote! {
            const K: f64 = 1.0;
            fn sq(x: f64) -> f64 { x * x * K }
            fn unused() {}
            #[omp::target_teams_distribute_parallel_for]
            fn top(y: &mut [f64]) { for i in 0..y.len() { y[i] = sq(y[i]); } }
            mod own {
                const K: f64 = 2.0;
                #[omp::target_teams_distribute_parallel_for]
                fn inner(y: &mut [f64]) { for i in 0..y.len() { y[i] = K; } }
            }
            mod imported {
                use crate::elsewhere::K;
                #[omp::target_teams_distribute_parallel_for]
                fn inner(y: &mut [f64]) { for i in 0..y.len() { y[i] = K; } }
            }
            mod glob {
                use super::*;
                fn cube(x: f64) -> f64 { sq(x) * x }
                #[omp::target_teams_distribute_parallel_for]
                fn inner(y: &mut [f64]) { for i in 0..y.len() { y[i] = cube(y[i]); } }
            }
        };
        let mut o = Outline::default();
        o.add_file(&file, "src/lib.rs");
        let got: Vec<Vec<String>> = o.kernels.iter().map(|k| k.local_items.iter().filter_map(item_name).collect()).collect();
        // `top`: the helper and, through it, the const; not the unused fn.
        assert_eq!(got[0], ["sq", "K"]);
        // `own`: its own K (2.0), not the file's.
        assert_eq!(got[1], ["K"]);
        // `glob`: its helper, then the parent's through `use super::*`.
        assert_eq!(got[2], ["cube", "sq", "K"]);
        // `imported`: K comes from a module the package does not have: refused (never the file's K of another value).
        assert_eq!(o.kernels.len(), 3);
        assert_eq!(o.refused.len(), 1, "{:?}", o.refused);
        assert!(o.refused[0].kernel.starts_with("omp_inner_0_") && o.refused[0].name.as_deref() == Some("K"), "{:?}", o.refused);
        // The region's own names are confirmed at the region: the helper by its path, the const by value.
        let checks = &o.kernels[0].host_checks;
        assert!(checks.contains(&crate::plan::manifest::HostCheck::Fn { name: "sq".into(), path: "self::sq".into() }), "{checks:?}");
        assert!(!checks.iter().any(|c| matches!(c, crate::plan::manifest::HostCheck::Const { .. })), "K is the helper's, not the region's");
    }

    /// A `match` arm naming a const compares with it (a binding otherwise): the kernel must copy the const, or its
    /// arm would become a catch-all binding on the device.
    #[test]
    fn consts_in_patterns_are_copied() {
        let file: syn::File = syn::parse_quote! {
            const CALL: i32 = 0;
            const PUT: i32 = 1;
            #[omp::target_teams_distribute_parallel_for]
            fn price(kind: &[i32], y: &mut [f64]) {
                for i in 0..y.len() {
                    let k = kind[i];
                    y[i] = match k { CALL => 1.0, PUT => 2.0, other => other as f64 };
                }
            }
        };
        let mut o = Outline::default();
        o.add_file(&file, "src/lib.rs");
        let names: Vec<String> = o.kernels[0].local_items.iter().filter_map(item_name).collect();
        assert_eq!(names, ["CALL", "PUT"], "the bindings `k` and `other` are not items");
    }

    /// A type alias of the package named by a kernel or a `declare_target` struct is copied to the device crate's
    /// root, with a host check; two different aliases of one name are not.
    #[test]
    fn type_aliases_are_copied_to_the_device_crate() {
        let file: syn::File = syn::parse_quote! {
            type Real = f32;
            type Wide = Real;
            mod a { pub type Twice = f32; }
            mod b { pub type Twice = f64; }
            #[omp::declare_target]
            struct P { pos: [Wide; 3] }
            #[omp::target_teams_distribute_parallel_for]
            fn scale(x: &[Real], y: &mut [Real]) { for i in 0..y.len() { y[i] = x[i] * 2.0; } }
        };
        let mut o = Outline::default();
        o.add_file(&file, "src/lib.rs");
        o.settle_type_aliases();
        let src = o.crate_source();
        assert!(src.contains("pub type Real = f32"), "{src}");
        assert!(src.contains("pub type Wide = Real"), "{src}");
        assert!(!src.contains("Twice"), "{src}");
        assert!(o.kernels[0].host_checks.contains(&crate::plan::manifest::HostCheck::Type { name: "Real".into(), ty: "f32".into() }));
    }

    #[test]
    fn self_contained_methods_of_declare_target_structs_are_copied() {
        let file: syn::File = syn::parse_quote! {
            const SCALE: f64 = 2.0;
            fn helper(x: f64) -> f64 { x }
            #[omp::declare_target]
            #[derive(Clone, Copy)]
            struct P { x: f64, m: f64 }
            impl P {
                const HALF: f64 = 0.5;
                const SCALED: f64 = SCALE * 2.0;
                fn energy(&self) -> f64 { Self::HALF * self.m * self.x * self.x }
                fn twice(&self) -> P { P { x: 2.0 * self.x, m: self.m } }
                fn scaled(&self) -> f64 { SCALE * self.x }
                fn helped(&self) -> f64 { helper(self.x) }
                fn shown(&self) { println!("{}", self.x); }
            }
            struct Q { a: f64 }
            impl Q { fn get(&self) -> f64 { self.a } }
        };
        let mut o = Outline::default();
        o.add_file(&file, "src/lib.rs");
        o.settle_type_aliases();
        let src = o.crate_source();
        for kept in ["fn energy", "fn twice", "const HALF"] {
            assert!(src.contains(kept), "{kept}: {src}");
        }
        // A module item or a macro would need the user's module at the device crate's root; Q is not declare_target.
        for left in ["fn scaled", "fn helped", "fn shown", "const SCALED", "fn get"] {
            assert!(!src.contains(left), "{left}: {src}");
        }
    }

    #[test]
    fn two_declare_target_structs_of_one_name_refuse_the_kernels_that_name_them() {
        let file: syn::File = syn::parse_quote! {
            mod a {
                #[omp::declare_target]
                #[derive(Clone, Copy)]
                pub struct P { pub x: f64 }
                #[omp::directives]
                pub fn fa(p: &[P], y: &mut [f64]) {
                    #[omp::target_teams_distribute_parallel_for]
                    for i in 0..y.len() { y[i] = p[i].x; }
                }
            }
            mod b {
                #[omp::declare_target]
                #[derive(Clone, Copy)]
                pub struct P { pub x: f32, pub w: f32 }
                #[omp::directives]
                pub fn fb(p: &[P], y: &mut [f32]) {
                    #[omp::target_teams_distribute_parallel_for]
                    for i in 0..y.len() { y[i] = p[i].x * p[i].w; }
                }
            }
            #[omp::directives]
            fn plain(y: &mut [f64]) {
                #[omp::target_teams_distribute_parallel_for]
                for i in 0..y.len() { y[i] = 1.0; }
            }
        };
        let mut o = Outline::default();
        o.modules.add_file(&file, 0, &[]);
        o.add_file(&file, "src/lib.rs");
        o.settle_type_aliases();
        let names: Vec<&str> = o.kernels.iter().map(|k| k.name.as_str()).collect();
        assert!(names.len() == 1 && names[0].starts_with("omp_plain_0_"), "{names:?}");
        assert_eq!(o.refused.len(), 2, "{:?}", o.refused);
        assert!(o.refused.iter().all(|r| r.name.as_deref() == Some("P") && r.message.contains("rename one")), "{:?}", o.refused);
        assert!(!o.crate_source().contains("struct P"), "neither struct is copied: {}", o.crate_source());
    }

    #[test]
    fn own_local_items_win_over_module_items() {
        let file: syn::File = syn::parse_quote! {
            const N: usize = 5;
            #[omp::directives]
            fn f(y: &mut [usize]) {
                const N: usize = 7;
                #[omp::target_teams_distribute_parallel_for]
                for i in 0..y.len() { y[i] = N; }
            }
        };
        let mut o = Outline::default();
        o.add_file(&file, "src/lib.rs");
        let k = &o.kernels[0];
        let consts: Vec<String> = k.local_items.iter().map(|i| i.to_token_stream().to_string()).collect();
        assert_eq!(consts.len(), 1, "{consts:?}");
        assert!(consts[0].contains('7'), "{consts:?}");
    }

    /// Field paths in target regions are typed from the package's structs, in free functions and `&mut self`
    /// methods; a struct defined twice (or not at all) types nothing, so the region gets no kernel (the macro then
    /// asks for a typed local).
    #[test]
    fn field_paths_are_typed_from_the_package_structs() {
        let file: syn::File = syn::parse_quote! {
            struct Soa { a: Vec<f64>, c: Vec<f64>, k: f64 }
            mod one { pub struct Twice { pub x: Vec<f64> } }
            mod two { pub struct Twice { pub x: Vec<f32> } }
            #[omp::directives]
            fn free(s: &mut Soa) {
                #[omp::target_teams_distribute_parallel_for]
                for i in 0..s.a.len() { s.c[i] = s.k * s.a[i]; }
            }
            impl Soa {
                #[omp::directives]
                fn method(&mut self) {
                    #[omp::target_teams_distribute_parallel_for]
                    for i in 0..self.a.len() { self.c[i] = self.a[i]; }
                }
            }
            #[omp::directives]
            fn ambiguous(t: &mut Twice) {
                #[omp::target_teams_distribute_parallel_for]
                for i in 0..t.x.len() { t.x[i] = 1.0; }
            }
        };
        let mut o = Outline::default();
        o.structs.add_file(&file, "src/lib.rs");
        o.add_file(&file, "src/lib.rs");
        let typed: Vec<(String, Vec<(String, String)>)> = o.kernels.iter().map(|k| (k.function.clone(), k.field_types.clone())).collect();
        let pair = |l: &str, t: &str| (l.to_string(), t.to_string());
        assert_eq!(
            typed,
            vec![
                ("free".to_string(), vec![pair("s_a", "Vec < f64 >"), pair("s_c", "Vec < f64 >"), pair("s_k", "f64")]),
                ("method".to_string(), vec![pair("self_a", "Vec < f64 >"), pair("self_c", "Vec < f64 >")]),
            ]
        );
    }

    /// A generic region gets one kernel per instance (`f32`, `f64`) when its body compiles for them as far as it
    /// shows; one that calls a trait the device crate lacks (`T::zero()`, `x.norm()`, a helper) gets none.
    #[test]
    fn generic_regions_are_instantiated_when_their_body_allows() {
        let file: syn::File = syn::parse_quote! {
            #[omp::directives]
            fn triad<T: Copy + Add<Output = T>>(a: &mut [T], b: &[T], s: T) {
                #[omp::target_teams_distribute_parallel_for]
                for i in 0..a.len() { a[i] = b[i].sqrt() + s; }
            }
            #[omp::directives]
            fn zeroed<T: num_traits::Float>(a: &mut [T]) {
                #[omp::target_teams_distribute_parallel_for]
                for i in 0..a.len() { a[i] = T::zero(); }
            }
            #[omp::directives]
            fn normed<T: MyFloat>(a: &mut [T]) {
                #[omp::target_teams_distribute_parallel_for]
                for i in 0..a.len() { a[i] = a[i].norm(); }
            }
        };
        let mut o = Outline::default();
        o.add_file(&file, "src/lib.rs");
        let names: Vec<String> = o.kernels.iter().map(|k| k.name.clone()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names[0].starts_with("omp_triad_0_") && names[0].ends_with("_f32"), "{names:?}");
        assert!(names[1].ends_with("_f64"), "{names:?}");
        assert!(o.crate_source().contains("type T = f32"));
    }
}
