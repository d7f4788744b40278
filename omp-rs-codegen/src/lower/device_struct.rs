//! `#[omp::declare_target]` on a struct: a plain-data type that target regions take by value and in slices
//! (`p: Params`, `&[Particle]`, `&mut Vec<Particle>`).
//!
//! Such a struct is copied between host and device memory byte for byte, so both sides must agree on its layout
//! and every byte pattern the device writes must be a valid value on the host. Two guarantees, neither resting on
//! this module reading the user's tokens correctly:
//! - **Plain data** is `bytemuck`'s `Pod` derive (re-exported by `omp`): `repr(C)`, no padding, every field `Pod`
//!   (numbers, arrays of them, other such structs; no `bool`, references or pointers). omp-rs's own `Pod` bound
//!   on every mapping follows from it, so a struct without the attribute cannot be mapped at all.
//! - **One layout everywhere**: the struct is `repr(C)` on the host and in the device crate, and both compile the
//!   same assertions (size, alignment, each field's offset) against one expected layout, worked out here from the
//!   field types with C's rules and the sizes omp-rs's targets share (x86_64/aarch64 hosts, nvptx64, amdgcn).
//!   The device crate is built once per offload arch, so each arch is compared; a mismatch is a compile error
//!   naming the struct and the field, never a wrong copy.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::{Attribute, Fields, ItemStruct, Member, Type};

use crate::ctxt::Ctxt;

/// The host side: the struct as written, `repr(C)`, deriving `Pod` through `omp`, plus the layout assertions.
pub(crate) fn host(mut s: ItemStruct, cx: &Ctxt) -> TokenStream {
    let Some(repr) = check(&s, cx) else {
        return s.to_token_stream();
    };
    set_repr(&mut s.attrs, repr);
    let bytemuck = quote!(::omp::__private::bytemuck);
    let krate = format!("{bytemuck}").replace(' ', "");
    s.attrs.push(syn::parse_quote!(#[derive(#bytemuck::Pod, #bytemuck::Zeroable)]));
    s.attrs.push(syn::parse_quote!(#[bytemuck(crate = #krate)]));
    let layout = layout_assertions(&s, repr);
    // The same properties `Pod`'s derive checks, stated first in omp-rs's words (the derive's errors follow).
    let name = &s.ident;
    let fields: Vec<&Type> = s.fields.iter().map(|f| &f.ty).collect();
    let padding = format!(
        "omp-rs: `#[omp::declare_target]` struct `{name}` has padding (bytes that hold no field, uninitialised on the host): \
         order the fields from the largest alignment to the smallest, or add explicit padding fields"
    );
    quote! {
        #s
        const _: fn() = || { #(::omp::__private::offload::crosses_to_device::<#fields>();)* };
        const _: () = ::core::assert!(::core::mem::size_of::<#name>() == 0 #(+ ::core::mem::size_of::<#fields>())*, #padding);
        #layout
    }
}

/// The device crate's copy: `repr(C)` (with the struct's `align`), the derives `core` has (others name host
/// crates), field attributes dropped, and the same layout assertions, checked once per arch the device crate is
/// built for.
pub(crate) fn device(mut s: ItemStruct) -> TokenStream {
    s.attrs.retain(|a| a.path().is_ident("doc") || a.path().is_ident("repr") || a.path().is_ident("derive"));
    for a in &mut s.attrs {
        if a.path().is_ident("derive") {
            let kept: Vec<syn::Path> = a
                .parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
                .map(|paths| {
                    paths
                        .into_iter()
                        .filter(|p| p.segments.last().is_some_and(|l| CORE_DERIVES.contains(&l.ident.to_string().as_str())))
                        .collect()
                })
                .unwrap_or_default();
            *a = syn::parse_quote!(#[derive(#(#kept),*)]);
        }
    }
    // The host side refuses what `repr` does not parse; the copy takes what does.
    let repr = repr_of(&s.attrs).unwrap_or_default();
    set_repr(&mut s.attrs, repr);
    for f in s.fields.iter_mut() {
        f.attrs.retain(|a| a.path().is_ident("doc"));
    }
    let layout = layout_assertions(&s, repr);
    quote!(#s #layout)
}

/// Derives `core` provides (the device crate is `no_std` and depends on nothing else).
const CORE_DERIVES: &[&str] = &["Clone", "Copy", "Debug", "Default", "PartialEq", "Eq", "PartialOrd", "Ord", "Hash"];

/// What the layout check and the copy need: no generics, fields, and a `repr` of `C` and `align(N)` only (or no
/// `repr` at all: `C` is added). The struct's `repr` if so.
fn check(s: &ItemStruct, cx: &Ctxt) -> Option<Repr> {
    let name = &s.ident;
    if !s.generics.params.is_empty() {
        cx.error_spanned_by(
            &s.generics,
            format!("`#[omp::declare_target]` struct `{name}` cannot be generic: the device crate needs one concrete layout"),
        );
        return None;
    }
    if s.fields.is_empty() {
        cx.error_spanned_by(
            name,
            format!("`#[omp::declare_target]` struct `{name}` has no fields: there is nothing to copy to the device"),
        );
        return None;
    }
    match repr_of(&s.attrs) {
        Ok(repr) => Some(repr),
        Err(at) => {
            cx.error_spanned_by(
                at,
                format!(
                    "`#[omp::declare_target]` struct `{name}` must be `#[repr(C)]`, `#[repr(C, align(N))]` or `#[repr(align(N))]` \
                     (or have no `repr`: `C` is added), so that host and device lay it out alike"
                ),
            );
            None
        }
    }
}

/// What a struct's `repr` attributes ask for, of what host and device can share: C's layout (always) and a
/// minimum alignment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Repr {
    /// `align(N)`, if given.
    align: Option<u64>,
}

/// The `repr` of `attrs` (`C` and `align(N)`, in any number of `repr` attributes), or the attribute that asks
/// for something else (`packed`, `transparent`, an integer type, `Rust`).
fn repr_of(attrs: &[Attribute]) -> Result<Repr, &Attribute> {
    let mut repr = Repr::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let hints = a.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated).map_err(|_| a)?;
        for hint in hints {
            match hint {
                syn::Meta::Path(p) if p.is_ident("C") => {}
                syn::Meta::List(l) if l.path.is_ident("align") => {
                    let n = l.parse_args::<syn::LitInt>().and_then(|n| n.base10_parse::<u64>()).map_err(|_| a)?;
                    // Rust takes the largest of several `align`s.
                    repr.align = Some(repr.align.map_or(n, |m| m.max(n)));
                }
                _ => return Err(a),
            }
        }
    }
    Ok(repr)
}

/// `attrs` with their `repr`s replaced by the one `repr(C)` or `repr(C, align(N))` that `repr` says.
fn set_repr(attrs: &mut Vec<Attribute>, repr: Repr) {
    attrs.retain(|a| !a.path().is_ident("repr"));
    attrs.push(match repr.align {
        Some(n) => {
            let n = proc_macro2::Literal::u64_unsuffixed(n);
            syn::parse_quote!(#[repr(C, align(#n))])
        }
        None => syn::parse_quote!(#[repr(C)]),
    });
}

/// `(size, alignment)` of a field type as a const expression: a number for primitives and arrays of them (the
/// sizes every omp-rs target shares), else the type's own size on the target being compiled (a nested
/// `declare_target` struct, checked by its own assertions).
fn expected(ty: &Type) -> (TokenStream, TokenStream) {
    if let Some((size, align)) = primitive_layout(ty) {
        return (quote!(#size), quote!(#align));
    }
    match ty {
        Type::Array(a) => {
            let (size, align) = expected(&a.elem);
            let len = &a.len;
            (quote!((#size) * (#len)), align)
        }
        Type::Paren(p) => expected(&p.elem),
        Type::Group(g) => expected(&g.elem),
        _ => (quote!(::core::mem::size_of::<#ty>()), quote!(::core::mem::align_of::<#ty>())),
    }
}

/// The size and alignment of a primitive on every target omp-rs builds for (64-bit hosts, nvptx64, amdgcn).
fn primitive_layout(ty: &Type) -> Option<(usize, usize)> {
    let Type::Path(p) = ty else { return None };
    let n = p.path.get_ident()?.to_string();
    let size = match n.as_str() {
        "u8" | "i8" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" | "usize" | "isize" => 8,
        "u128" | "i128" => 16,
        _ => return None,
    };
    Some((size, size))
}

/// Const assertions that the struct has the layout C's rules give for its fields' expected sizes: each field's
/// offset, the size and the alignment (`repr`'s `align` raises the fields' largest). Emitted identically on the host
/// and in the device crate.
fn layout_assertions(s: &ItemStruct, repr: Repr) -> TokenStream {
    let name = &s.ident;
    let members: Vec<Member> = match &s.fields {
        Fields::Named(n) => n.named.iter().filter_map(|f| f.ident.clone().map(Member::Named)).collect(),
        _ => (0..s.fields.len()).map(|i| Member::Unnamed(syn::Index::from(i))).collect(),
    };
    let mut checks = TokenStream::new();
    let min_align = repr.align.map_or(1, |n| n as usize);
    let (mut end, mut align) = (quote!(0usize), quote!(#min_align));
    for (k, (field, member)) in s.fields.iter().zip(&members).enumerate() {
        let (size, field_align) = expected(&field.ty);
        let off = format_ident!("__OMP_OFFSET_{}", k);
        let field_name = member.to_token_stream().to_string();
        let msg = format!(
            "omp-rs: field `{field_name}` of `#[omp::declare_target]` struct `{name}` is not at the offset host and device \
             share on this target (repr(C) with 64-bit sizes)"
        );
        checks.extend(quote! {
            const #off: usize = __omp_align_up(#end, #field_align);
            ::core::assert!(::core::mem::offset_of!(#name, #member) == #off, #msg);
        });
        end = quote!((#off + (#size)));
        align = quote!(__omp_max(#align, #field_align));
    }
    let size_msg = format!("omp-rs: `#[omp::declare_target]` struct `{name}` does not have the size host and device share on this target");
    let align_msg =
        format!("omp-rs: `#[omp::declare_target]` struct `{name}` does not have the alignment host and device share on this target");
    quote! {
        #[allow(non_upper_case_globals)]
        const _: () = {
            const fn __omp_align_up(x: usize, a: usize) -> usize { x.div_ceil(a) * a }
            const fn __omp_max(a: usize, b: usize) -> usize { if a > b { a } else { b } }
            #checks
            const __OMP_ALIGN: usize = #align;
            ::core::assert!(::core::mem::align_of::<#name>() == __OMP_ALIGN, #align_msg);
            ::core::assert!(::core::mem::size_of::<#name>() == __omp_align_up(#end, __OMP_ALIGN), #size_msg);
        };
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn primitives_have_the_shared_lp64_layout() {
        assert_eq!(primitive_layout(&syn::parse_quote!(f64)), Some((8, 8)));
        assert_eq!(primitive_layout(&syn::parse_quote!(u16)), Some((2, 2)));
        assert_eq!(primitive_layout(&syn::parse_quote!(bool)), None);
        assert_eq!(primitive_layout(&syn::parse_quote!(Inner)), None);
    }

    #[test]
    fn other_reprs_and_generics_are_refused() {
        let cx = Ctxt::scratch();
        assert!(check(
            &syn::parse_quote!(
                #[repr(C, packed)]
                struct P {
                    a: f64,
                }
            ),
            &cx
        )
        .is_none());
        assert!(check(
            &syn::parse_quote!(
                struct P<T> {
                    a: T,
                }
            ),
            &cx
        )
        .is_none());
        assert!(check(
            &syn::parse_quote!(
                #[repr(C)]
                struct P {
                    a: f64,
                }
            ),
            &cx
        )
        .is_some());
        assert!(check(
            &syn::parse_quote!(
                struct P(f64, [u32; 2]);
            ),
            &cx
        )
        .is_some());
    }

    #[test]
    fn c_and_align_are_the_reprs_taken() {
        let repr = |s: ItemStruct| check(&s, &Ctxt::scratch());
        assert_eq!(
            repr(syn::parse_quote!(
                #[repr(align(8))]
                struct P {
                    x: f32,
                    y: f32,
                }
            )),
            Some(Repr { align: Some(8) })
        );
        assert_eq!(
            repr(syn::parse_quote!(
                #[repr(C, align(16))]
                struct P {
                    x: f32,
                }
            )),
            Some(Repr { align: Some(16) })
        );
        assert_eq!(
            repr(syn::parse_quote!(
                #[repr(C)]
                #[repr(align(4), align(8))]
                struct P {
                    x: f32,
                }
            )),
            Some(Repr { align: Some(8) })
        );
        assert_eq!(
            repr(syn::parse_quote!(
                struct P {
                    x: f32,
                }
            )),
            Some(Repr { align: None })
        );
        assert_eq!(
            repr(syn::parse_quote!(
                #[repr(C, align(x))]
                struct P {
                    x: f32,
                }
            )),
            None
        );
        assert_eq!(
            repr(syn::parse_quote!(
                #[repr(transparent)]
                struct P {
                    x: f32,
                }
            )),
            None
        );
        assert_eq!(
            repr(syn::parse_quote!(
                #[repr(u8)]
                struct P {
                    x: f32,
                }
            )),
            None
        );
        // One `repr(C, align(N))` replaces what the user wrote, so the device copy cannot lose the `C`.
        let mut attrs: Vec<Attribute> = vec![syn::parse_quote!(#[repr(align(8))])];
        set_repr(&mut attrs, Repr { align: Some(8) });
        assert_eq!(attrs.len(), 1);
        assert_eq!(attrs[0].to_token_stream().to_string(), "# [repr (C , align (8))]");
    }
}
