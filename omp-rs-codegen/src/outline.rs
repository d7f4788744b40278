//! Outlining for the build helper: finds every target region of a package's source files exactly as the macros
//! will see them, and assembles the device crate (kernels plus the items they use). The macros and this module
//! run the same walk (`expand::collect_kernels`), so kernel names and slots agree.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Item, ItemFn};

use crate::body::find_omp_attr;
use crate::expand;
use crate::keyword;
use crate::lower::device;
use crate::model::ConstructKind;
use crate::target::KernelPlan;

/// What the build helper compiles for one package.
#[derive(Debug, Default)]
pub struct Outline {
    /// Every kernel, in file and walk order.
    pub kernels: Vec<KernelPlan>,
    /// The file (as the user names it, e.g. `src/lib.rs`) of each kernel.
    pub files: Vec<String>,
    /// `#[omp::declare_target]` items, copied to the device crate's root.
    pub items: Vec<Item>,
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
    /// Adds the target regions and declare-target items of one parsed file; `path` names it in panic locations.
    pub fn add_file(&mut self, file: &syn::File, path: &str) {
        let consts: Vec<Item> = file.items.iter().filter(|i| matches!(i, Item::Const(_))).cloned().collect();
        let before = self.kernels.len();
        self.add_items(&file.items, &consts);
        self.files.extend(std::iter::repeat_n(path.to_string(), self.kernels.len() - before));
    }

    fn add_items(&mut self, items: &[Item], consts: &[Item]) {
        for item in items {
            match item {
                Item::Fn(f) => self.add_fn(f, consts),
                Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let mut scope: Vec<Item> = consts.to_vec();
                        scope.extend(inner.iter().filter(|i| matches!(i, Item::Const(_))).cloned());
                        self.add_items(inner, &scope);
                    }
                }
                Item::Impl(imp) => {
                    for ii in &imp.items {
                        if let syn::ImplItem::Fn(m) = ii {
                            let has_self = m.sig.receiver().is_some();
                            if !has_self {
                                let f = ItemFn { attrs: m.attrs.clone(), vis: m.vis.clone(), sig: m.sig.clone(), block: Box::new(m.block.clone()) };
                                self.add_fn(&f, consts);
                            }
                        }
                    }
                }
                Item::Struct(_) | Item::Enum(_) | Item::Static(_) | Item::Const(_) | Item::Type(_) => {
                    if declare_target(item_attrs(item)) {
                        self.items.push(strip_omp(item.clone()));
                    }
                }
                _ => {}
            }
        }
    }

    fn add_fn(&mut self, f: &ItemFn, consts: &[Item]) {
        let Some(attr) = find_omp_attr(&f.attrs) else { return };
        let name = attr.name.to_string();
        let mut plain = f.clone();
        plain.attrs.remove(attr.index);
        let mut kernels = match (name.as_str(), keyword::construct(&name)) {
            ("directives", _) => expand::collect_kernels(&plain, None),
            (_, Some(ConstructKind::DeclareTarget)) => {
                self.items.push(Item::Fn(strip_omp_fn(plain)));
                return;
            }
            (_, Some(ConstructKind::Executable(_))) => expand::collect_kernels(&plain, Some((&attr.name, attr.args.clone()))),
            _ => Vec::new(),
        };
        // Module-level consts the kernel names: copied into the kernel (no clash between modules).
        for k in &mut kernels {
            let used = idents(k.nest.body.to_token_stream());
            for c in consts {
                if let Item::Const(ic) = c {
                    if used.contains(&ic.ident.to_string()) && !k.local_items.iter().any(|i| same_name(i, &ic.ident)) {
                        k.local_items.insert(0, c.clone());
                    }
                }
            }
        }
        self.kernels.extend(kernels);
    }

    /// What kernel `i` is compiled from (its device function, with the module consts copied into it), as text:
    /// two kernels of one name are the same kernel only when these are equal.
    pub fn kernel_source(&self, i: usize) -> String {
        device::kernel(&self.kernels[i]).to_string()
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
                let mut plan = k.clone();
                // Items copied from elsewhere in the file would drag the printer's position: print them inline.
                plan.local_items = plan
                    .local_items
                    .iter()
                    .map(|i| syn::parse2(crate::lower::print::unlocated(i.to_token_stream())).unwrap_or_else(|_| i.clone()))
                    .collect();
                tokens.extend(device::kernel(&plan));
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

fn same_name(item: &Item, ident: &syn::Ident) -> bool {
    matches!(item, Item::Const(c) if c.ident == *ident)
}

fn idents(ts: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    fn walk(ts: TokenStream, out: &mut BTreeSet<String>) {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => {
                    out.insert(i.to_string());
                }
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    walk(ts, &mut out);
    out
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
