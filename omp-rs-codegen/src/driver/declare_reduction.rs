//! `#[omp::declare_reduction(identity = e)]` on a combiner fn: OpenMP's `declare reduction`.
//!
//! ```text
//! #pragma omp declare reduction(minloc : MinLoc : omp_out = minloc(omp_out, omp_in)) \
//!                     initializer(omp_priv = MinLoc{INFINITY, -1})
//! ```
//! is written
//! ```text
//! #[omp::declare_reduction(identity = MinLoc { val: f64::INFINITY, idx: usize::MAX })]
//! fn minloc(a: MinLoc, b: MinLoc) -> MinLoc { if b.val < a.val { b } else { a } }
//! ```
//! and used as `reduction(minloc: best)`. The fn stays as written; beside it the attribute declares a type of the
//! same name (a braced struct lives in the type namespace only, so `use m::minloc` brings both) implementing the
//! reducer trait with the identity and the fn as `combine`. A `reduction(minloc: ..)` clause names that type where
//! it would name `Add` or `Max`, so the host path, the partials' fold after a launch and the kernels
//! (`device_items`: the same two items in the device crate) combine with the user's fn. Like a `declare_target` fn,
//! the device copy compiles at the device crate's root: the combiner and the identity name their parameters, the
//! reduced type, `declare_target` items and `core` paths.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Token, Type};

use crate::ctxt::Ctxt;

/// The attribute's arguments: `identity = <expr>`.
struct Args {
    identity: Expr,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Args> {
        let key: Ident = input.parse().map_err(|e| syn::Error::new(e.span(), IDENTITY_NEEDED))?;
        if key != "identity" {
            return Err(syn::Error::new(key.span(), IDENTITY_NEEDED));
        }
        input.parse::<Token![=]>()?;
        let identity = input.parse()?;
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the identity: `declare_reduction` takes only `identity = e`"));
        }
        Ok(Args { identity })
    }
}

const IDENTITY_NEEDED: &str = "expected `identity = e`: the value each thread's copy starts from (OpenMP's \
                               `initializer(omp_priv = e)`), which combined with any `x` gives `x`";

/// A checked declaration: the combiner and the reduced type.
struct Declared {
    name: Ident,
    ty: Type,
    identity: Expr,
}

/// Reads the attribute and its fn, reporting at the user's spans what does not make a reduction.
fn declared(args: TokenStream, f: &ItemFn, cx: &Ctxt) -> Option<Declared> {
    let args = match syn::parse2::<Args>(args) {
        Ok(a) => a,
        Err(e) => {
            cx.syn_error(e);
            return None;
        }
    };
    let sig = &f.sig;
    let fix = format!("a `declare_reduction` fn combines two partial results of one type: `fn {}(a: T, b: T) -> T`", sig.ident);
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.unsafety.is_some() || sig.variadic.is_some() {
        cx.error_spanned_by(&sig.ident, format!("{fix}, not generic, `async` or `unsafe`"));
        return None;
    }
    let types: Vec<&Type> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(t) if matches!(&*t.pat, Pat::Ident(_) | Pat::Wild(_)) => Some(&*t.ty),
            _ => None,
        })
        .collect();
    let ReturnType::Type(_, ret) = &sig.output else {
        cx.error_spanned_by(&sig.ident, format!("{fix}: it returns the combined value"));
        return None;
    };
    let same = |t: &Type| quote!(#t).to_string() == quote!(#ret).to_string();
    if types.len() != 2 || sig.inputs.len() != 2 || !types.iter().all(|t| same(t)) {
        cx.error_spanned_by(&sig.inputs, format!("{fix}, where `T` is its return type"));
        return None;
    }
    if matches!(&**ret, Type::Reference(_)) {
        cx.error_spanned_by(ret, format!("{fix}: a value type, not a reference"));
        return None;
    }
    Some(Declared { name: sig.ident.clone(), ty: (**ret).clone(), identity: args.identity })
}

/// The reducer type and its impl of `reducer_trait` (the host's or the device crate's trait).
fn reducer(d: &Declared, vis: &syn::Visibility, reducer_trait: TokenStream) -> TokenStream {
    let Declared { name, ty, identity } = d;
    let doc = format!(" The reduction operator `reduction({name}: ..)` names (`#[omp::declare_reduction]` on `fn {name}`).");
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy)]
        #vis struct #name {}
        impl #reducer_trait<#ty> for #name {
            #[inline(always)]
            fn identity() -> #ty {
                #identity
            }
            #[inline(always)]
            fn combine(a: #ty, b: #ty) -> #ty {
                #name(a, b)
            }
        }
    }
}

/// The macro's expansion: the fn as written and its reducer type.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let f = match syn::parse2::<ItemFn>(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            cx.error_spanned_by(&item, "`#[omp::declare_reduction(identity = e)]` goes on a fn `fn name(a: T, b: T) -> T`");
            return crate::driver::expand::with_errors(item, cx);
        }
    };
    // `declared` reports every `None` it returns: the fn alone, with the errors, then.
    let out = declared(args, &f, &cx).map(|d| reducer(&d, &f.vis, quote!(::omp::__private::reduce::Reducer)));
    let errors = cx.check().err().map(|e| e.to_compile_error());
    quote!(#errors #f #out)
}

/// The device crate's copies (at its root, where kernels see them): `plain`, the fn without its omp attributes, and
/// the reducer type implementing `omp_device::reduce::Reducer`. `None` when the attribute is malformed (the macro
/// reports it).
pub fn device_items(args: TokenStream, plain: &ItemFn) -> Option<TokenStream> {
    let d = declared(args, plain, &Ctxt::scratch())?;
    // The user's visibility, as on the host: the kernels' modules see the crate root's items (`use super::*`).
    let items = reducer(&d, &plain.vis, quote!(omp_device::reduce::Reducer));
    Some(quote!(#plain #items))
}
