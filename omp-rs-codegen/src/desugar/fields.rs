//! Struct fields in host parallel loops: `self.c[i] = self.a[i]` (BabelStream's class pattern), `s.a[i] = x[i]`
//! (a struct of arrays).
//!
//! The loop is rewritten before it is analysed: every field path it uses (`self.c`, `s.grid.u`) becomes a local
//! bound just before the loop — `let self_c = &mut self.c;` when the loop writes into it, `let self_a = &self.a;`
//! when it only indexes or calls methods on it, `let self_n = self.n;` when it reads it as a value — and the
//! analysis then sees ordinary captured arrays and scalars. Rust's borrow checker keeps the rewrite honest: while
//! `self_c` borrows `self.c`, nothing else can reach that field (a use the rewrite missed, such as `foo(&self)`,
//! is a compile error, never a second path to the data), and a field the loop assigns as a whole
//! (`self.n = 3`) or a root the loop rebinds is left as written, so the analysis reports it as before.
//!
//! Roots are `self` and variables whose declared type is a plain struct (`S`, `&S`, `&mut S`): field access
//! through them is a built-in projection, evaluated once before the loop or once per use alike. Smart pointers
//! (`Box`, `Rc`, ... whose `Deref` is user code) and roots of unknown type are not rewritten; a type alias is taken
//! for the struct it names (an alias of a pointer with a side-effecting `Deref` would see it run once, not per
//! access).
//!
//! Target regions are rewritten the same way, but the kernel needs each local's type: the build helper reads the
//! fields' types from the package's struct definitions (`struct_table`), records them in the manifest, and the
//! macro binds each local with that type (`Hoisted::typed_binding_stmt`), so that a wrong entry is a type error.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, ExprForLoop, Ident, Member};

use crate::analyze::types::{FieldBinding, TypeEnv};
use crate::analyze::walk::MUTATING_METHODS;
use crate::syntax::tokens::idents_in;

/// One hoisted field path.
#[derive(Debug, Clone)]
pub(crate) struct Hoisted {
    /// The local that stands for it in the rewritten loop.
    pub local: Ident,
    /// The path as written (`self.c`).
    pub path: Expr,
    /// How it is bound.
    pub binding: FieldBinding,
    /// `let S { c: _, .. } = &root;`: rustc's confirmation that the path's first field is a field of the root's own
    /// struct (reached by a built-in projection, not through a user `Deref` that would then run once instead of per
    /// access: a type with no such field is a compile error here). Emitted before every binding (it borrows the
    /// root as a whole).
    pub projection_check: TokenStream,
    /// The user's own local, declared from the path before the region (`let a = &mut self.a;`, see
    /// [`alias_of_init`](crate::analyze::types::alias_of_init)): it is rebound from itself (a reborrow), not from the path, which it still borrows.
    pub alias: bool,
}

impl Hoisted {
    /// A local the user declared from field path `path` (`let a = &mut self.a;`, `let (nx, nz) = (g.nx, g.nz);`):
    /// typed at a target region like a hoisted path.
    pub(crate) fn alias(local: Ident, path: Expr, binding: FieldBinding) -> Hoisted {
        Hoisted { local, path, binding, projection_check: TokenStream::new(), alias: true }
    }

    /// The `let` that binds it.
    pub(crate) fn binding_stmt(&self) -> TokenStream {
        let (local, path) = (&self.local, &self.path);
        if self.alias {
            return TokenStream::new();
        }
        match self.binding {
            FieldBinding::Shared => quote::quote!(let #local = &#path;),
            FieldBinding::Mut => quote::quote!(let #local = &mut #path;),
            FieldBinding::Value => quote::quote!(let #local = #path;),
        }
    }

    /// The `let` that binds it with the field's type (`field`), for target regions: the kernel decodes the local as
    /// that type, and this binding makes any other a type error.
    pub(crate) fn typed_binding_stmt(&self, field: &syn::Type) -> TokenStream {
        let (local, path, ty) = (&self.local, &self.path, self.typed(field));
        if self.alias {
            return match self.binding {
                FieldBinding::Shared => quote::quote!(let #local: #ty = &*#local;),
                FieldBinding::Mut => quote::quote!(let #local: #ty = &mut *#local;),
                FieldBinding::Value => quote::quote!(let #local: #ty = #local;),
            };
        }
        match self.binding {
            FieldBinding::Shared => quote::quote!(let #local: #ty = &#path;),
            FieldBinding::Mut => quote::quote!(let #local: #ty = &mut #path;),
            FieldBinding::Value => quote::quote!(let #local: #ty = #path;),
        }
    }

    /// The field path as the user wrote it, for messages (`self.v`).
    pub(crate) fn path_text(&self) -> String {
        self.path.to_token_stream().to_string().replace(' ', "")
    }

    /// The local's type when the field's is `field`.
    pub(crate) fn typed(&self, field: &syn::Type) -> syn::Type {
        match self.binding {
            FieldBinding::Shared => syn::parse_quote!(&#field),
            FieldBinding::Mut => syn::parse_quote!(&mut #field),
            FieldBinding::Value => field.clone(),
        }
    }

    /// The root variable and the field names of the path (`sd.grid.u` → `sd`, [`grid`, `u`]).
    pub(crate) fn root_and_members(&self) -> Option<(String, Vec<String>)> {
        let (root, key) = field_path(&self.path)?;
        Some((root, key.split('.').skip(1).map(str::to_string).collect()))
    }

    /// The type the lowering should assume for the local (`&mut _` makes writes reborrow it).
    pub(crate) fn declared_type(&self) -> Option<syn::Type> {
        match self.binding {
            FieldBinding::Mut => Some(syn::parse_quote!(&mut _)),
            FieldBinding::Shared => Some(syn::parse_quote!(&_)),
            FieldBinding::Value => None,
        }
    }
}

/// The field paths of `f` (range and body) that can be bound before the loop, and the loop with each replaced by
/// its local; `None` when there is none.
pub(crate) fn hoist(f: &ExprForLoop, types: &TypeEnv) -> Option<(Vec<Hoisted>, ExprForLoop)> {
    let mut uses = Uses::default();
    uses.visit_expr_for_loop(f);
    let taken = idents_in(f.to_token_stream());
    let mut hoisted: BTreeMap<String, Hoisted> = BTreeMap::new();
    for (key, u) in &uses.paths {
        let root = &u.root;
        if uses.rebound.contains(root) || uses.in_macros.contains(root) || uses.root_written.contains(root) {
            continue;
        }
        let Some(struct_name) = plain_root(root, types) else { continue };
        if u.whole_write {
            continue;
        }
        let binding = if u.value_use {
            if u.written {
                continue;
            }
            FieldBinding::Value
        } else if u.written {
            FieldBinding::Mut
        } else {
            FieldBinding::Shared
        };
        let mut name = key.replace('.', "_");
        while taken.contains(&name) || hoisted.values().any(|h| h.local == name) {
            name.push('_');
        }
        let projection_check = match first_member(&u.path) {
            Some((root_expr, member)) => {
                // Spanned at the user's field, so that "no field named `a`" points at it.
                let span = match &member {
                    Member::Named(i) => i.span(),
                    Member::Unnamed(i) => i.span,
                };
                quote::quote_spanned!(span=> let #struct_name { #member: _, .. } = &#root_expr;)
            }
            None => TokenStream::new(),
        };
        hoisted.insert(
            key.clone(),
            Hoisted { local: Ident::new(&name, Span::call_site()), path: u.path.clone(), binding, projection_check, alias: false },
        );
    }
    if hoisted.is_empty() {
        return None;
    }
    let mut out = f.clone();
    let mut rw = Rewrite { hoisted: &hoisted };
    rw.visit_expr_mut(&mut out.expr);
    rw.visit_block_mut(&mut out.body);
    Some((hoisted.into_values().collect(), out))
}

/// `self`, or a variable declared as `S`, `&S` or `&mut S` with `S` a one-segment path that is not a standard smart
/// pointer or cell.
/// The root and the first field of a field path (`sd` and `grid` of `sd.grid.u`), as written.
fn first_member(path: &Expr) -> Option<(Expr, Member)> {
    let Expr::Field(f) = path else { return None };
    match &*f.base {
        Expr::Path(_) => Some(((*f.base).clone(), f.member.clone())),
        Expr::Paren(p) => first_member(&Expr::Field(syn::ExprField { base: p.expr.clone(), ..f.clone() })),
        base @ Expr::Field(_) => first_member(base),
        _ => None,
    }
}

/// Its struct's name (`Self` for `self`), for the projection check.
fn plain_root(root: &str, types: &TypeEnv) -> Option<Ident> {
    if root == "self" {
        return Some(Ident::new("Self", Span::call_site()));
    }
    let Some(Some(mut ty)) = types.lookup(root) else { return None };
    while let syn::Type::Reference(r) = ty {
        ty = &r.elem;
    }
    match ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let ident = &p.path.segments[0].ident;
            let name = ident.to_string();
            let smart = ["Box", "Rc", "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Cow", "Vec", "String", "Option"];
            (!smart.contains(&name.as_str())).then(|| ident.clone())
        }
        _ => None,
    }
}

/// A field path's uses in the loop.
#[derive(Debug)]
struct PathUses {
    root: String,
    path: Expr,
    /// Written through: an element assigned, `&mut` taken, a mutating method called on an element.
    written: bool,
    /// Assigned (or compound-assigned, or `&mut`-borrowed) as a whole.
    whole_write: bool,
    /// Used as a value (not indexed, not a method receiver, not borrowed).
    value_use: bool,
}

#[derive(Default)]
struct Uses {
    paths: BTreeMap<String, PathUses>,
    /// Names the loop binds (patterns): a root with such a name may mean something else inside.
    rebound: BTreeSet<String>,
    /// Names a macro of the loop mentions: a macro may assign or rebind them.
    in_macros: BTreeSet<String>,
    /// Roots assigned or `&mut`-borrowed as a whole (`*s = …`, `s = …`).
    root_written: BTreeSet<String>,
}

/// `base.f1.f2…` rooted at a plain variable: (root, key `root.f1.f2`).
fn field_path(e: &Expr) -> Option<(String, String)> {
    match e {
        Expr::Field(f) => {
            let member = match &f.member {
                Member::Named(i) => i.to_string(),
                Member::Unnamed(i) => i.index.to_string(),
            };
            let (root, key) = match &*f.base {
                Expr::Path(p) if p.qself.is_none() => {
                    let id = p.path.get_ident()?.to_string();
                    (id.clone(), id)
                }
                base @ Expr::Field(_) => field_path(base)?,
                _ => return None,
            };
            Some((root, format!("{key}.{member}")))
        }
        _ => None,
    }
}

/// The outermost field path at the root of a place (`self.c[i][j]` → `self.c`), and whether the place is the path
/// itself.
fn place_path(e: &Expr) -> Option<(String, bool)> {
    match e {
        Expr::Paren(p) => place_path(&p.expr),
        Expr::Index(ix) => place_path(&ix.expr).map(|(k, _)| (k, false)),
        Expr::Field(_) => field_path(e).map(|(_, key)| (key, true)),
        _ => None,
    }
}

fn root_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => root_ident(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => root_ident(&u.expr),
        _ => None,
    }
}

impl Uses {
    fn note(&mut self, e: &Expr, value_use: bool) {
        if let Some((root, key)) = field_path(e) {
            let entry = self.paths.entry(key).or_insert_with(|| PathUses {
                root,
                path: e.clone(),
                written: false,
                whole_write: false,
                value_use: false,
            });
            entry.value_use |= value_use;
        }
    }

    fn write_to(&mut self, place: &Expr) {
        if let Some(r) = root_ident(place) {
            self.root_written.insert(r);
        }
        if let Some((key, whole)) = place_path(place) {
            if let Some(u) = self.paths.get_mut(&key) {
                u.written = true;
                u.whole_write |= whole;
            }
        }
    }
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            // The parts below the outermost field are no paths of their own (`self.grid` in `self.grid.u`).
            Expr::Field(_) if field_path(e).is_some() => self.note(e, true),
            Expr::Index(ix) if field_path(&ix.expr).is_some() => {
                self.note(&ix.expr, false);
                self.visit_expr(&ix.index);
            }
            Expr::MethodCall(m) if field_path(&m.receiver).is_some() => {
                self.note(&m.receiver, false);
                for a in &m.args {
                    self.visit_expr(a);
                }
            }
            Expr::Reference(r) if field_path(&r.expr).is_some() => {
                self.note(&r.expr, false);
                if r.mutability.is_some() {
                    // `&mut self.c`: the whole field, mutably (a reborrow of the local would do, but keep it simple).
                    self.write_to(&r.expr);
                }
            }
            _ => syn::visit::visit_expr(self, e),
        }
        // Writes are recorded after the walk above noted the path (so the entry exists).
        match e {
            Expr::Assign(a) => self.write_to(&a.left),
            Expr::Binary(b) if crate::syntax::place::is_compound_assign(&b.op) => self.write_to(&b.left),
            Expr::Reference(r) if r.mutability.is_some() => self.write_to(&r.expr),
            Expr::MethodCall(m) if MUTATING_METHODS.contains(&m.method.to_string().as_str()) => {
                if let Some((_, key)) = field_path(&m.receiver) {
                    // `self.v.push(x)` changes the field as a whole: left to the analysis (a race in every
                    // iteration).
                    if let Some(u) = self.paths.get_mut(&key) {
                        u.whole_write = true;
                    }
                } else if matches!(&*m.receiver, Expr::Index(_)) {
                    self.write_to(&m.receiver);
                } else if let Some(r) = root_ident(&m.receiver) {
                    // `s.push(x)` on the root itself changes it.
                    self.root_written.insert(r);
                }
            }
            _ => {}
        }
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.rebound.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.in_macros.extend(idents_in(m.tokens.clone()));
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Replaces hoisted field paths by their locals.
struct Rewrite<'a> {
    hoisted: &'a BTreeMap<String, Hoisted>,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some((_, key)) = field_path(e) {
            if let Some(h) = self.hoisted.get(&key) {
                let local = &h.local;
                *e = syn::parse_quote!(#local);
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
