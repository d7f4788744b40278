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

/// Struct name → the fields of each definition of that name (several definitions: ambiguous, never used).
#[derive(Debug, Default, Clone)]
pub struct StructTable {
    structs: HashMap<String, Vec<Vec<(String, Type)>>>,
}

impl StructTable {
    /// Adds the structs of a parsed file (nested inline modules included).
    pub fn add_file(&mut self, file: &syn::File) {
        self.add_items(&file.items);
    }

    fn add_items(&mut self, items: &[Item]) {
        for item in items {
            match item {
                Item::Struct(s) if s.generics.params.is_empty() => {
                    let fields = match &s.fields {
                        Fields::Named(n) => n.named.iter().filter_map(|f| Some((f.ident.as_ref()?.to_string(), f.ty.clone()))).collect(),
                        Fields::Unnamed(u) => u.unnamed.iter().enumerate().map(|(i, f)| (i.to_string(), f.ty.clone())).collect(),
                        Fields::Unit => Vec::new(),
                    };
                    self.structs.entry(s.ident.to_string()).or_default().push(fields);
                }
                Item::Struct(s) => {
                    // Generic structs: known by name (so that the name is not taken for another), never resolved.
                    self.structs.entry(s.ident.to_string()).or_default().extend([Vec::new(), Vec::new()]);
                }
                Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        self.add_items(inner);
                    }
                }
                _ => {}
            }
        }
    }

    /// The type of `root.f1.f2…` given the root's declared type (`S`, `&S`, `&mut S`), when every step names a
    /// field of a struct defined exactly once in the package.
    pub fn field_type(&self, root: &Type, members: &[String]) -> Option<Type> {
        let mut ty = root.clone();
        for m in members {
            let name = struct_name(&ty)?;
            let [fields] = self.structs.get(&name)?.as_slice() else { return None };
            ty = fields.iter().find(|(f, _)| f == m)?.1.clone();
        }
        Some(ty)
    }
}

/// The struct a type names: `S`, `&S`, `&mut S` (one-segment paths without generics).
fn struct_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(r) => struct_name(&r.elem),
        Type::Paren(p) => struct_name(&p.elem),
        Type::Group(g) => struct_name(&g.elem),
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 && p.path.segments[0].arguments.is_empty() => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn table() -> StructTable {
        let mut t = StructTable::default();
        t.add_file(&syn::parse_quote! {
            struct Sim { num_nucs: Vec<i32>, grid: Grid, n: usize }
            struct Grid { u: Vec<f64>, w: (f64, f64) }
            mod a { pub struct Twice { x: f64 } }
            mod b { pub struct Twice { x: f32 } }
            struct Gen<T> { x: T }
        });
        t
    }

    #[test]
    fn resolves_nested_paths_through_references() {
        let t = table();
        let got = |root: Type, path: &[&str]| {
            t.field_type(&root, &path.iter().map(|s| s.to_string()).collect::<Vec<_>>()).map(|ty| quote::quote!(#ty).to_string())
        };
        assert_eq!(got(syn::parse_quote!(&Sim), &["num_nucs"]).as_deref(), Some("Vec < i32 >"));
        assert_eq!(got(syn::parse_quote!(&mut Sim), &["grid", "u"]).as_deref(), Some("Vec < f64 >"));
        assert_eq!(got(syn::parse_quote!(Sim), &["n"]).as_deref(), Some("usize"));
        // Ambiguous, generic, unknown: nothing.
        assert_eq!(got(syn::parse_quote!(&Twice), &["x"]), None);
        assert_eq!(got(syn::parse_quote!(&Gen), &["x"]), None);
        assert_eq!(got(syn::parse_quote!(&Sim), &["missing"]), None);
        assert_eq!(got(syn::parse_quote!(Box<Sim>), &["n"]), None);
    }
}
