//! The field types of a package's structs, for struct fields in target regions (`sd.num_nucs[i]`,
//! `self.c[i] = self.a[i]`).
//!
//! A kernel needs the type of every value it receives, and a proc macro sees only the function it expands. The build
//! helper sees every source file: it reads the field types here, the outliner types the field paths a region uses
//! with them (`fields::hoist`), and the manifest hands them to the macros, which bind each path to a local *of that
//! type* before the launch (`let sd_num_nucs: &Vec<i32> = &sd.num_nucs;`). A wrong answer from this table (two
//! structs of one name, a type alias that the table reads differently) is therefore a type error in the user's
//! crate, never a kernel decoding memory as another type. Ambiguous names resolve to nothing.

use std::collections::HashMap;

use syn::{Fields, Item, Type};

/// One struct definition: where it is, its type parameters and its fields.
#[derive(Debug, Clone)]
struct Def {
    /// The file and inline modules it is defined in (`src/lib.rs::grid`).
    module: String,
    params: Vec<String>,
    fields: Vec<(String, Type)>,
}

/// Struct name → each definition of that name (several definitions: ambiguous, never used).
#[derive(Debug, Default, Clone)]
pub struct StructTable {
    structs: HashMap<String, Vec<Def>>,
}

impl StructTable {
    /// Adds the structs of a parsed file (nested inline modules included); `path` names the file.
    pub fn add_file(&mut self, file: &syn::File, path: &str) {
        self.add_items(&file.items, path);
    }

    fn add_items(&mut self, items: &[Item], module: &str) {
        for item in items {
            match item {
                Item::Struct(s) => {
                    let fields = match &s.fields {
                        Fields::Named(n) => n.named.iter().filter_map(|f| Some((f.ident.as_ref()?.to_string(), f.ty.clone()))).collect(),
                        Fields::Unnamed(u) => u.unnamed.iter().enumerate().map(|(i, f)| (i.to_string(), f.ty.clone())).collect(),
                        Fields::Unit => Vec::new(),
                    };
                    // Type parameters, resolved from the root's type arguments; lifetimes are erased from the field
                    // types (a struct of slices, `Views<'a> { x: &'a [f64] }`); a const parameter: never resolved.
                    let params: Option<Vec<String>> = s
                        .generics
                        .params
                        .iter()
                        .filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
                        .map(|p| match p {
                            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                            _ => None,
                        })
                        .collect();
                    let defs = self.structs.entry(s.ident.to_string()).or_default();
                    let module = module.to_string();
                    match params {
                        Some(params) => defs.push(Def { module, params, fields }),
                        None => {
                            let unusable = Def { module, params: Vec::new(), fields: Vec::new() };
                            defs.extend([unusable.clone(), unusable]);
                        }
                    }
                }
                Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        self.add_items(inner, &format!("{module}::{}", m.ident));
                    }
                }
                _ => {}
            }
        }
    }

    /// The type of `root.f1.f2…` given the root's declared type (`S`, `&S`, `&mut S`, `S<T>`), when every step
    /// names a field of a struct defined once in `module` (where the region is) or, failing that, once in the
    /// package. A generic struct's parameters are replaced by the root's type arguments (`Stream<U>`'s `a: Vec<T>`
    /// is a `Vec<U>`).
    pub fn field_type(&self, root: &Type, members: &[String], module: &str) -> Option<Type> {
        let mut ty = root.clone();
        for m in members {
            let (name, args) = struct_name(&ty)?;
            let defs = self.structs.get(&name)?;
            let here: Vec<&Def> = defs.iter().filter(|d| d.module == module).collect();
            let def = match (here.as_slice(), defs.as_slice()) {
                ([d], _) => *d,
                ([], [d]) => d,
                _ => return None,
            };
            if def.params.len() != args.len() {
                return None;
            }
            let field = def.fields.iter().find(|(f, _)| f == m)?.1.clone();
            ty = erase_lifetimes(substitute(&field, &def.params, &args));
        }
        Some(ty)
    }
}

/// The struct a type names and its type arguments: `S`, `&S`, `&mut S`, `S<T, f64>` (one-segment paths).
fn struct_name(ty: &Type) -> Option<(String, Vec<Type>)> {
    match ty {
        Type::Reference(r) => struct_name(&r.elem),
        Type::Paren(p) => struct_name(&p.elem),
        Type::Group(g) => struct_name(&g.elem),
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let seg = &p.path.segments[0];
            let args = match &seg.arguments {
                syn::PathArguments::None => Vec::new(),
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter(|g| !matches!(g, syn::GenericArgument::Lifetime(_)))
                    .map(|g| match g {
                        syn::GenericArgument::Type(t) => Some(t.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<Type>>>()?,
                syn::PathArguments::Parenthesized(_) => return None,
            };
            Some((seg.ident.to_string(), args))
        }
        _ => None,
    }
}

/// `ty` with every named lifetime written `'_` (the struct's `'a` means nothing where the field's type is used).
fn erase_lifetimes(mut ty: Type) -> Type {
    struct Erase;
    impl syn::visit_mut::VisitMut for Erase {
        fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
            l.ident = proc_macro2::Ident::new("_", l.ident.span());
        }
    }
    syn::visit_mut::VisitMut::visit_type_mut(&mut Erase, &mut ty);
    ty
}

/// `ty` with each of `params` (single-identifier type paths) replaced by the matching `args`.
fn substitute(ty: &Type, params: &[String], args: &[Type]) -> Type {
    struct Subst<'a>(&'a [String], &'a [Type]);
    impl syn::visit_mut::VisitMut for Subst<'_> {
        fn visit_type_mut(&mut self, t: &mut Type) {
            if let Type::Path(p) = t {
                if let Some(i) = p.path.get_ident().and_then(|id| self.0.iter().position(|n| id == n)) {
                    if p.qself.is_none() {
                        *t = self.1[i].clone();
                        return;
                    }
                }
            }
            syn::visit_mut::visit_type_mut(self, t);
        }
    }
    let mut out = ty.clone();
    syn::visit_mut::VisitMut::visit_type_mut(&mut Subst(params, args), &mut out);
    out
}

#[cfg(test)]
mod test {
    use super::*;

    fn table() -> StructTable {
        let mut t = StructTable::default();
        t.add_file(
            &syn::parse_quote! {
                struct Sim { num_nucs: Vec<i32>, grid: Grid, n: usize }
                mod local { pub struct Grid { pub u: Vec<f32> } }
                struct Grid { u: Vec<f64>, w: (f64, f64) }
                mod a { pub struct Twice { x: f64 } }
                mod b { pub struct Twice { x: f32 } }
                struct Gen<T> { x: T }
                struct Views<'a, T> { x: &'a [T], y: &'a mut [f64] }
            },
            "src/lib.rs",
        );
        t
    }

    #[test]
    fn resolves_nested_paths_through_references() {
        let t = table();
        let got = |root: Type, path: &[&str]| {
            t.field_type(&root, &path.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "src/lib.rs")
                .map(|ty| quote::quote!(#ty).to_string())
        };
        assert_eq!(got(syn::parse_quote!(&Sim), &["num_nucs"]).as_deref(), Some("Vec < i32 >"));
        // Two `Grid`s: the one of the region's module wins.
        assert_eq!(got(syn::parse_quote!(&mut Sim), &["grid", "u"]).as_deref(), Some("Vec < f64 >"));
        assert_eq!(
            t.field_type(&syn::parse_quote!(Grid), &["u".to_string()], "src/lib.rs::local")
                .map(|ty| quote::quote!(#ty).to_string())
                .as_deref(),
            Some("Vec < f32 >")
        );
        assert_eq!(got(syn::parse_quote!(Sim), &["n"]).as_deref(), Some("usize"));
        // A generic struct's fields take the root's type arguments.
        assert_eq!(got(syn::parse_quote!(&mut Gen<U>), &["x"]).as_deref(), Some("U"));
        // A struct of slices: its lifetimes are skipped among the arguments and erased from the field types.
        assert_eq!(got(syn::parse_quote!(&mut Views<'_, f32>), &["x"]).as_deref(), Some("& '_ [f32]"));
        assert_eq!(got(syn::parse_quote!(Views<'static, f32>), &["y"]).as_deref(), Some("& '_ mut [f64]"));
        // Ambiguous, arguments missing, unknown: nothing.
        assert_eq!(got(syn::parse_quote!(&Twice), &["x"]), None);
        assert_eq!(got(syn::parse_quote!(&Gen), &["x"]), None);
        assert_eq!(got(syn::parse_quote!(&Sim), &["missing"]), None);
        assert_eq!(got(syn::parse_quote!(Box<Sim>), &["n"]), None);
    }
}
