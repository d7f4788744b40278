//! Name resolution for the outliner: which item a name in a target region denotes, by Rust's scoping rules, so that
//! the device kernel (rebuilt from the user's tokens in another crate) copies exactly the items rustc resolves.
//!
//! The scopes, innermost first, as rustc walks them for a path expression in a function body:
//! 1. the items of each enclosing block, wherever in the block they are declared, and the block's `use`s;
//! 2. the function's generic parameters (a `const W: usize` shadows a module `const W`);
//! 3. the module: its own items and named imports (`use a::X`), which shadow its glob imports (`use super::*`);
//! 4. the preludes (`Some`, `f64::max`, ...), which need no copy.
//!
//! An item found in another module keeps resolving its own names in *its* module ([`Home`]). Where the package's
//! sources cannot settle a name (a `#[cfg]` the build cannot know, a path through a type, two candidates) the answer
//! is [`Found::Undecidable`] and the caller refuses the kernel: it never guesses. What the resolution decided for
//! the names a region uses directly is also checked by rustc at the region (`HostCheck`, emitted by the host
//! expansion from the manifest), so a scope this model does not know (a macro defining items) cannot make the
//! kernel silently use another item.

pub mod cfg;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module of the package, as its source shows it.
#[derive(Debug, Clone)]
pub struct Module {
    /// The crate (target root) it belongs to.
    pub krate: usize,
    /// Its path from that crate's root (`["meaning", "scales"]`).
    pub path: Vec<String>,
    /// Its value items (`const`, `static`, `fn`), attributes kept (for `#[cfg]`).
    pub items: Vec<syn::Item>,
    /// Its `use` declarations.
    pub imports: Vec<Import>,
    /// Its type aliases (`type Real = f32;`).
    pub aliases: Vec<syn::ItemType>,
}

/// One name a `use` declaration brings into scope.
#[derive(Debug, Clone, PartialEq)]
pub enum Import {
    /// `use a::b::X;` (name `X`, path `a::b::X`) or `use a::b::Y as X;`.
    Named {
        /// The name in scope.
        name: String,
        /// The path as written (`crate`, `self`, `super` kept).
        path: Vec<String>,
        /// The `use` item's attributes (`#[cfg]`).
        attrs: Vec<syn::Attribute>,
    },
    /// `use a::b::*;`
    Glob {
        /// The module path.
        path: Vec<String>,
        /// The `use` item's attributes.
        attrs: Vec<syn::Attribute>,
    },
}

/// Where an item lives: the scope its own names resolve in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// An item of the enclosing block at this depth of the region's blocks (outermost 0).
    Block(usize),
    /// An item of a module (index into [`Modules::modules`]).
    Module(usize),
}

/// What a name denotes.
#[derive(Debug, Clone)]
pub enum Found {
    /// An item of the package.
    Item {
        /// Its scope.
        home: Home,
        /// The item as written.
        item: syn::Item,
        /// A path that names it from the scope that asked (for the host's checks): `self::X`, `super::X`, the path of
        /// a `use`; `None` for a block item (no path names it).
        via: Option<Vec<String>>,
        /// Whether the walk passed a block whose macros may define items (only rustc can then confirm the answer).
        unverified: bool,
    },
    /// An item of another crate (`std::f64::consts::PI`).
    Extern(Vec<String>),
    /// Nothing of that name is in the package's scopes (a prelude or local name; or one a macro defines).
    NotFound,
    /// A const generic parameter of the function.
    Generic,
    /// The sources cannot settle it; why.
    Undecidable(String),
}

/// The package's modules.
#[derive(Debug, Clone, Default)]
pub struct Modules {
    /// Every module seen, files and inline ones.
    pub modules: Vec<Module>,
    /// The library crate's name and index (`omp_offload_suite::x::Y` from the package's binaries and tests).
    lib: Option<(String, usize)>,
}

/// Resolution nests through imports; a cycle of globs (`a` and `b` importing each other) stops here.
const MAX_DEPTH: u32 = 16;

impl Modules {
    /// The package's type alias named `name` (`type Real = f32;`, no generics) among those `cfg` keeps, where all
    /// of them name the same type; `None` where there is none or two differ (the device crate gets no copy then).
    pub fn unique_alias(&self, name: &str, cfg: &mut cfg::Resolver<'_>) -> Option<&syn::ItemType> {
        let rhs = |t: &syn::ItemType| quote::ToTokens::to_token_stream(&t.ty).to_string();
        let mut found: Option<&syn::ItemType> = None;
        for a in self.modules.iter().flat_map(|m| &m.aliases) {
            if a.ident != name || !a.generics.params.is_empty() || cfg.keep(&a.attrs) != Some(true) {
                continue;
            }
            match found {
                Some(f) if rhs(f) != rhs(a) => return None,
                Some(_) => {}
                None => found = Some(a),
            }
        }
        found
    }

    /// Records the library crate's name (paths from the package's other crates start with it).
    pub fn set_lib(&mut self, name: &str, krate: usize) {
        self.lib = Some((name.replace('-', "_"), krate));
    }

    /// Adds the module of a file (at `path` in crate `krate`) and its inline modules.
    pub fn add_file(&mut self, file: &syn::File, krate: usize, path: &[String]) {
        self.add_module(&file.items, krate, path.to_vec());
    }

    fn add_module(&mut self, items: &[syn::Item], krate: usize, path: Vec<String>) {
        let mut module = Module { krate, path: path.clone(), items: Vec::new(), imports: Vec::new(), aliases: Vec::new() };
        for item in items {
            match item {
                syn::Item::Const(_) | syn::Item::Static(_) | syn::Item::Fn(_) => module.items.push(item.clone()),
                syn::Item::Use(u) => flatten_use(&u.tree, &mut Vec::new(), &u.attrs, &mut module.imports),
                syn::Item::Type(t) => module.aliases.push(t.clone()),
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let mut p = path.clone();
                        p.push(unraw(&m.ident));
                        self.add_module(inner, krate, p);
                    }
                }
                _ => {}
            }
        }
        if let Some(i) = self.find(krate, &path) {
            self.modules[i] = module;
        } else {
            self.modules.push(module);
        }
    }

    /// The module at `path` of crate `krate`.
    pub fn find(&self, krate: usize, path: &[String]) -> Option<usize> {
        self.modules.iter().position(|m| m.krate == krate && m.path == path)
    }

    fn parent(&self, m: usize) -> Option<usize> {
        let module = &self.modules[m];
        let (_, up) = module.path.split_last()?;
        self.find(module.krate, up)
    }

    /// What `name` denotes in module `m` (its items and imports, then its globs).
    pub fn lookup(&self, m: usize, name: &str, cfg: &mut cfg::Resolver<'_>) -> Found {
        self.lookup_at(m, name, cfg, 0)
    }

    fn lookup_at(&self, m: usize, name: &str, cfg: &mut cfg::Resolver<'_>, depth: u32) -> Found {
        if depth > MAX_DEPTH {
            return Found::Undecidable(format!("`{name}` is imported through a chain of more than {MAX_DEPTH} `use`s"));
        }
        let module = &self.modules[m];
        match declared(&module.items, name, cfg) {
            Ok(Some(item)) => {
                return Found::Item {
                    home: Home::Module(m),
                    item: item.clone(),
                    via: Some(vec!["self".into(), name.into()]),
                    unverified: false,
                };
            }
            Ok(None) => {}
            Err(why) => return Found::Undecidable(why),
        }
        for import in &module.imports {
            let Import::Named { name: n, path, attrs } = import else { continue };
            if n != name {
                continue;
            }
            match cfg.keep(attrs) {
                Some(true) => {}
                Some(false) => continue,
                None => return Found::Undecidable(format!("the `use` of `{name}` is under a `#[cfg]` the build script cannot evaluate")),
            }
            return match self.lookup_path_at(m, path, cfg, depth + 1) {
                Found::Item { home, item, unverified, .. } => Found::Item { home, item, via: Some(path.clone()), unverified },
                other => other,
            };
        }
        let mut hits = Vec::new();
        for import in &module.imports {
            let Import::Glob { path, attrs } = import else { continue };
            match cfg.keep(attrs) {
                Some(true) => {}
                Some(false) => continue,
                None => {
                    return Found::Undecidable(format!(
                        "a `use ...::*` that may import `{name}` is under a `#[cfg]` the build script cannot evaluate"
                    ))
                }
            }
            match self.module_at(m, path, depth + 1) {
                Some(ModRef::Local(g)) if g != m => match self.lookup_at(g, name, cfg, depth + 1) {
                    Found::Item { home, item, unverified, .. } => {
                        let mut via = path.clone();
                        via.push(name.into());
                        hits.push(Found::Item { home, item, via: Some(via), unverified });
                    }
                    Found::NotFound => {}
                    other => hits.push(other),
                },
                _ => {}
            }
        }
        match hits.len() {
            0 => Found::NotFound,
            1 => hits.remove(0),
            _ => Found::Undecidable(format!("`{name}` is imported by more than one `use ...::*`")),
        }
    }

    /// What a path (`a::b::X`, `super::X`, `X`) denotes from module `m`.
    pub fn lookup_path(&self, m: usize, path: &[String], cfg: &mut cfg::Resolver<'_>) -> Found {
        self.lookup_path_at(m, path, cfg, 0)
    }

    fn lookup_path_at(&self, m: usize, path: &[String], cfg: &mut cfg::Resolver<'_>, depth: u32) -> Found {
        match path {
            [] => Found::NotFound,
            [name] => self.lookup_at(m, name, cfg, depth),
            [prefix @ .., name] => match self.module_at(m, prefix, depth) {
                Some(ModRef::Local(g)) => self.lookup_at(g, name, cfg, depth + 1),
                Some(ModRef::Extern(mut p)) => {
                    p.push(name.clone());
                    Found::Extern(p)
                }
                None => Found::Undecidable(format!("`{}` goes through something that is not a module of this package", path.join("::"))),
            },
        }
    }

    /// What `path` (`a::b::X`) denotes when its prefix names a module of this package from module `m`; `None` when
    /// it does not (a type, an enum, another crate).
    pub fn lookup_in_module_path(&self, m: usize, path: &[String], cfg: &mut cfg::Resolver<'_>) -> Option<Found> {
        let (name, prefix) = path.split_last()?;
        match self.module_at(m, prefix, 0)? {
            ModRef::Local(g) => Some(self.lookup_at(g, name, cfg, 1)),
            ModRef::Extern(_) => None,
        }
    }

    /// The module a path names from module `m`.
    fn module_at(&self, m: usize, path: &[String], depth: u32) -> Option<ModRef> {
        if depth > MAX_DEPTH {
            return None;
        }
        let krate = self.modules[m].krate;
        let (first, rest) = path.split_first()?;
        let mut at = match first.as_str() {
            "crate" => self.find(krate, &[])?,
            "self" => m,
            "super" => self.parent(m)?,
            "std" | "core" | "alloc" => return Some(ModRef::Extern(path.to_vec())),
            name => {
                let mut child = self.modules[m].path.clone();
                child.push(name.to_string());
                if let Some(c) = self.find(krate, &child) {
                    c
                } else if let Some(target) = self.modules[m].imports.iter().find_map(|i| match i {
                    Import::Named { name: n, path, .. } if n == name => Some(path.clone()),
                    _ => None,
                }) {
                    // `use crate::grid;` then `grid::X`.
                    let mut full = target;
                    full.extend(rest.iter().cloned());
                    return self.module_at(m, &full, depth + 1);
                } else if self.lib.as_ref().is_some_and(|(n, _)| n == name) {
                    let (_, lib) = self.lib.as_ref()?;
                    self.find(*lib, &[])?
                } else {
                    return Some(ModRef::Extern(path.to_vec()));
                }
            }
        };
        for seg in rest {
            at = match seg.as_str() {
                "super" => self.parent(at)?,
                "self" => at,
                _ => {
                    let mut child = self.modules[at].path.clone();
                    child.push(seg.clone());
                    match self.find(self.modules[at].krate, &child) {
                        Some(c) => c,
                        None => {
                            // A re-export of a module (`pub use inner::grid;`).
                            let target = self.modules[at].imports.iter().find_map(|i| match i {
                                Import::Named { name, path, .. } if name == seg => Some(path.clone()),
                                _ => None,
                            })?;
                            match self.module_at(at, &target, depth + 1)? {
                                ModRef::Local(c) => c,
                                ext => return Some(ext),
                            }
                        }
                    }
                }
            };
        }
        Some(ModRef::Local(at))
    }
}

/// A module a path reaches.
#[derive(Debug, Clone)]
enum ModRef {
    Local(usize),
    Extern(Vec<String>),
}

/// The items and imports of one block enclosing a region.
#[derive(Debug, Clone, Default)]
pub struct BlockScope {
    /// Value items declared anywhere in the block.
    pub items: Vec<syn::Item>,
    /// The block's `use` declarations.
    pub imports: Vec<Import>,
    /// Whether a statement of the block is a macro call that may declare items (anything but the std macros that
    /// only compute, print or assert).
    pub opaque: bool,
}

impl BlockScope {
    /// The scope of a block's statements.
    pub fn of(stmts: &[syn::Stmt]) -> BlockScope {
        let mut scope = BlockScope::default();
        for s in stmts {
            match s {
                syn::Stmt::Item(it @ (syn::Item::Const(_) | syn::Item::Static(_) | syn::Item::Fn(_))) => scope.items.push(it.clone()),
                syn::Stmt::Item(syn::Item::Use(u)) => flatten_use(&u.tree, &mut Vec::new(), &u.attrs, &mut scope.imports),
                syn::Stmt::Item(syn::Item::Macro(m)) if m.ident.is_none() => scope.opaque |= !is_plain_macro(&m.mac.path),
                syn::Stmt::Macro(m) => scope.opaque |= !is_plain_macro(&m.mac.path),
                _ => {}
            }
        }
        scope
    }
}

/// Macros that never declare items: the std macros of expressions, and omp's own statements.
fn is_plain_macro(path: &syn::Path) -> bool {
    const PLAIN: &[&str] = &[
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "println",
        "print",
        "eprintln",
        "eprint",
        "panic",
        "todo",
        "unimplemented",
        "unreachable",
        "write",
        "writeln",
        "format",
        "vec",
        "dbg",
        "matches",
        "cfg",
        "env",
        "concat",
        "stringify",
        "line",
        "file",
        "column",
        "include_str",
        "include_bytes",
        "target_update",
        "target_enter_data",
        "target_exit_data",
        "taskwait",
    ];
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [name] => PLAIN.contains(&name.as_str()),
        [krate, name] => matches!(krate.as_str(), "std" | "core" | "omp") && PLAIN.contains(&name.as_str()),
        _ => false,
    }
}

/// Where a region stands: its enclosing blocks (outermost first), its function's generic parameters, its module.
#[derive(Debug, Clone, Copy)]
pub struct RegionScope<'a> {
    /// The blocks around the region.
    pub blocks: &'a [BlockScope],
    /// Const generic parameters of the function.
    pub const_generics: &'a [String],
    /// The module of the function.
    pub module: usize,
}

impl Modules {
    /// What `name` denotes at a region (or, `depth` < the region's blocks, at an item of block `depth`).
    pub fn lookup_in_region(&self, scope: RegionScope<'_>, name: &str, cfg: &mut cfg::Resolver<'_>) -> Found {
        let mut unverified = false;
        for (level, b) in scope.blocks.iter().enumerate().rev() {
            match declared(&b.items, name, cfg) {
                Ok(Some(item)) => return Found::Item { home: Home::Block(level), item: item.clone(), via: None, unverified },
                Ok(None) => {}
                Err(why) => return Found::Undecidable(why),
            }
            for import in &b.imports {
                match import {
                    Import::Named { name: n, path, attrs } if n == name && cfg.keep(attrs) != Some(false) => {
                        return match self.lookup_path(scope.module, path, cfg) {
                            Found::Item { home, item, .. } => Found::Item { home, item, via: Some(path.clone()), unverified },
                            other => other,
                        };
                    }
                    Import::Glob { .. } => {
                        return Found::Undecidable(format!("a `use ...::*` in the function body may import `{name}`"));
                    }
                    _ => {}
                }
            }
            unverified |= b.opaque;
        }
        if scope.const_generics.iter().any(|g| g == name) {
            return Found::Generic;
        }
        match self.lookup(scope.module, name, cfg) {
            Found::Item { home, item, via, unverified: u } => Found::Item { home, item, via, unverified: unverified || u },
            other => other,
        }
    }
}

/// The one item of `items` named `name` that the host's `cfg`s keep (`Err`: why that cannot be told).
fn declared<'i>(items: &'i [syn::Item], name: &str, cfg: &mut cfg::Resolver<'_>) -> Result<Option<&'i syn::Item>, String> {
    let mut own = Vec::new();
    for item in items.iter().filter(|i| item_name(i).as_deref() == Some(name)) {
        match cfg.keep(cfg::item_attrs(item)) {
            Some(true) => own.push(item),
            Some(false) => {}
            None => return Err(format!("`{name}` is declared under a `#[cfg]` the build script cannot evaluate")),
        }
    }
    match own.as_slice() {
        [] => Ok(None),
        [item] => Ok(Some(item)),
        _ => Err(format!("`{name}` is declared more than once in one scope")),
    }
}

/// Adds the names of a `use` tree to `out`.
fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, attrs: &[syn::Attribute], out: &mut Vec<Import>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(unraw(&p.ident));
            flatten_use(&p.tree, prefix, attrs, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = unraw(&n.ident);
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.push(Import::Named { name: last.clone(), path: prefix.clone(), attrs: attrs.to_vec() });
                }
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(Import::Named { name, path, attrs: attrs.to_vec() });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(unraw(&r.ident));
            out.push(Import::Named { name: unraw(&r.rename), path, attrs: attrs.to_vec() });
        }
        syn::UseTree::Glob(_) => out.push(Import::Glob { path: prefix.clone(), attrs: attrs.to_vec() }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, attrs, out);
            }
        }
    }
}

fn unraw(i: &syn::Ident) -> String {
    let s = i.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// The name a value item defines (consts, statics, fns).
pub fn item_name(item: &syn::Item) -> Option<String> {
    match item {
        syn::Item::Const(c) => Some(unraw(&c.ident)),
        syn::Item::Static(s) => Some(unraw(&s.ident)),
        syn::Item::Fn(f) => Some(unraw(&f.sig.ident)),
        _ => None,
    }
}

/// The names code refers to, each once, in order: `paths` are the first segments of paths (`X`, `X(..)`,
/// `m::X` gives `m` with the whole path), `loose` the identifiers inside macro calls, whose syntax is unknown.
#[derive(Debug, Default, Clone)]
pub struct Names {
    /// Single-segment value paths (`X`, `f(..)`).
    pub paths: Vec<String>,
    /// Multi-segment value paths (`scales::SCALE`, `Self::N`, `std::f64::consts::PI`), as written.
    pub long_paths: Vec<Vec<String>>,
    /// Identifiers in macro calls and other token trees.
    pub loose: Vec<String>,
    /// Names the code itself declares (its own items, `mut`/`ref` bindings, closure parameters): never outer items.
    pub declared: Vec<String>,
    /// Plain identifier patterns (`x` in `let x`, `CALL =>` in a `match`): a binding, unless the name is a const in
    /// scope, which makes the pattern compare with the const (Rust's rule). Resolved like paths, they are bindings
    /// where nothing of that name is found.
    pub patterns: Vec<String>,
}

impl Names {
    /// The names of a block of code.
    pub fn of_block(b: &syn::Block) -> Names {
        let mut n = Names::default();
        n.visit_block(b);
        n
    }

    /// The names an item's code refers to (not its own name or generic parameters).
    pub fn of_item(item: &syn::Item) -> Names {
        let mut n = Names::default();
        n.visit_item(item);
        n
    }

    /// Every name to resolve, paths first.
    pub fn all(&self) -> impl Iterator<Item = &String> {
        self.paths.iter().chain(self.loose.iter()).filter(move |n| !self.declared.contains(n))
    }

    fn push(v: &mut Vec<String>, s: String) {
        if !v.contains(&s) {
            v.push(s);
        }
    }

    fn loose_tokens(&mut self, ts: TokenStream) {
        for tt in ts {
            match tt {
                TokenTree::Ident(i) => Self::push(&mut self.loose, unraw(&i)),
                TokenTree::Group(g) => self.loose_tokens(g.stream()),
                _ => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none() {
            let segs: Vec<String> = p.path.segments.iter().map(|s| unraw(&s.ident)).collect();
            match segs.len() {
                1 if p.path.leading_colon.is_none() => Self::push(&mut self.paths, segs[0].clone()),
                1 => {}
                _ => {
                    if !self.long_paths.contains(&segs) {
                        self.long_paths.push(segs);
                    }
                }
            }
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.loose_tokens(m.tokens.clone());
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        let name = unraw(&p.ident);
        if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() {
            Self::push(&mut self.patterns, name);
        } else {
            Self::push(&mut self.declared, name);
        }
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        Self::push(&mut self.declared, unraw(&c.ident));
        syn::visit::visit_item_const(self, c);
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        Self::push(&mut self.declared, unraw(&s.ident));
        syn::visit::visit_item_static(self, s);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        for g in &f.sig.generics.params {
            if let syn::GenericParam::Const(c) = g {
                Self::push(&mut self.declared, unraw(&c.ident));
            }
        }
        syn::visit::visit_item_fn(self, f);
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn modules(file: syn::File) -> Modules {
        let mut m = Modules::default();
        m.add_file(&file, 0, &[]);
        m
    }

    fn found(m: &Modules, module: &[&str], name: &str) -> String {
        let set = cfg::CfgSet::with(&[], &["on"]);
        let mut cfg = cfg::Resolver::new(&set);
        let path: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        let at = m.find(0, &path).expect("module");
        describe(&m.lookup(at, name, &mut cfg), m)
    }

    fn describe(f: &Found, m: &Modules) -> String {
        match f {
            Found::Item { home: Home::Module(i), item, via, .. } => {
                let value = match item {
                    syn::Item::Const(c) => quote::ToTokens::to_token_stream(&c.expr).to_string(),
                    _ => String::new(),
                };
                format!(
                    "{}::{} = {value} via {}",
                    m.modules[*i].path.join("::"),
                    item_name(item).unwrap_or_default(),
                    via.as_ref().map(|v| v.join("::")).unwrap_or_default()
                )
            }
            Found::Item { home: Home::Block(l), .. } => format!("block {l}"),
            Found::Extern(p) => format!("extern {}", p.join("::")),
            Found::NotFound => "not found".into(),
            Found::Generic => "generic".into(),
            Found::Undecidable(w) => format!("undecidable: {w}"),
        }
    }

    #[test]
    fn named_imports_shadow_globs_and_own_items_shadow_both() {
        let m = modules(syn::parse_quote! {
            const S: f64 = 2.0;
            const P: f64 = 9.0;
            mod scales { pub const S: f64 = 3.0; pub mod deep { pub const S: f64 = 4.0; } }
            mod explicit { use super::*; use crate::scales::S; }
            mod renamed { use super::*; use super::scales::deep::S as T; }
            mod own { use super::*; const S: f64 = 5.0; }
            mod through { use super::*; }
            mod std_import { use std::f64::consts::PI; }
            mod via_module { use crate::scales; use scales::deep; }
            #[cfg(feature = "on")] const C: u32 = 1;
            #[cfg(not(feature = "on"))] const C: u32 = 2;
            #[cfg(test)] const U: u32 = 1;
        });
        assert_eq!(found(&m, &["explicit"], "S"), "scales::S = 3.0 via crate::scales::S");
        assert_eq!(found(&m, &["explicit"], "P"), "::P = 9.0 via super::P");
        assert_eq!(found(&m, &["renamed"], "T"), "scales::deep::S = 4.0 via super::scales::deep::S");
        assert_eq!(found(&m, &["renamed"], "S"), "::S = 2.0 via super::S");
        assert_eq!(found(&m, &["own"], "S"), "own::S = 5.0 via self::S");
        assert_eq!(found(&m, &["through"], "S"), "::S = 2.0 via super::S");
        assert_eq!(found(&m, &["std_import"], "PI"), "extern std::f64::consts::PI");
        assert_eq!(found(&m, &["std_import"], "S"), "not found");
        assert_eq!(found(&m, &[], "C"), "::C = 1 via self::C");
        assert!(found(&m, &[], "U").starts_with("undecidable"), "{}", found(&m, &[], "U"));
        let set = cfg::CfgSet::with(&[], &[]);
        let mut cfg = cfg::Resolver::new(&set);
        let at = m.find(0, &["via_module".to_string()]).expect("module");
        let path: Vec<String> = ["deep", "S"].iter().map(|s| s.to_string()).collect();
        assert_eq!(describe(&m.lookup_path(at, &path, &mut cfg), &m), "scales::deep::S = 4.0 via self::S");
    }

    #[test]
    fn block_items_anywhere_in_the_block_and_const_generics_come_first() {
        let m = modules(syn::parse_quote! { const LATE: f64 = 1.0; const W: usize = 2; });
        let body: syn::Block = syn::parse_quote!({
            let y = LATE;
            const LATE: f64 = 4.0;
            mystery!();
        });
        let blocks = [BlockScope::of(&body.stmts)];
        assert!(blocks[0].opaque);
        let scope = RegionScope { blocks: &blocks, const_generics: &["W".to_string()], module: 0 };
        let set = cfg::CfgSet::with(&[], &[]);
        let mut cfg = cfg::Resolver::new(&set);
        assert_eq!(describe(&m.lookup_in_region(scope, "LATE", &mut cfg), &m), "block 0");
        assert!(matches!(m.lookup_in_region(scope, "W", &mut cfg), Found::Generic));
        let inner = [BlockScope::default(), BlockScope::of(&body.stmts)];
        let none = RegionScope { blocks: &inner[..1], const_generics: &[], module: 0 };
        assert!(matches!(m.lookup_in_region(none, "LATE", &mut cfg), Found::Item { unverified: false, .. }));
        let behind_macro = RegionScope { blocks: &[BlockScope { opaque: true, ..BlockScope::default() }], const_generics: &[], module: 0 };
        assert!(matches!(m.lookup_in_region(behind_macro, "W", &mut cfg), Found::Item { unverified: true, .. }));
    }

    #[test]
    fn names_are_paths_macro_tokens_and_declarations() {
        let b: syn::Block = syn::parse_quote!({
            let t = K * f(x);
            y[i] = scales::S + t;
            assert!(LIMIT > 0);
            const OWN: f64 = 1.0;
        });
        let n = Names::of_block(&b);
        assert_eq!(n.paths, ["K", "f", "x", "y", "i", "t"]);
        assert_eq!(n.long_paths, [vec!["scales".to_string(), "S".to_string()]]);
        assert_eq!(n.loose, ["LIMIT"]);
        assert_eq!(n.declared, ["OWN"]);
        assert_eq!(n.patterns, ["t"], "a plain `let t` may be a const pattern: resolved like a path");
    }
}
