//! What the build decided for a region's kernel, confirmed by rustc at the region (`manifest::HostCheck`), and the
//! build's refusals as compile errors. Each check is spanned at the user's first use of the name it is about.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};

use crate::plan::manifest::{HostCheck, Refusal};

/// The first identifier `name` in `tokens` (its span), if any.
pub(crate) fn span_of(tokens: TokenStream, name: &str) -> Option<Span> {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) if i == name => return Some(i.span()),
            TokenTree::Group(g) => {
                if let Some(s) = span_of(g.stream(), name) {
                    return Some(s);
                }
            }
            _ => {}
        }
    }
    None
}

/// The refusals as `compile_error!`s, each at its name's first use in `body` (else at `at`).
pub(crate) fn refusals<'a>(refused: impl Iterator<Item = &'a Refusal>, body: &TokenStream, at: Span) -> TokenStream {
    let mut out = TokenStream::new();
    let mut seen: Vec<&str> = Vec::new();
    for r in refused {
        if seen.contains(&r.message.as_str()) {
            continue;
        }
        seen.push(&r.message);
        let span = r.name.as_deref().and_then(|n| span_of(body.clone(), n)).unwrap_or(at);
        let msg = format!("omp-rs: {}", r.message);
        out.extend(quote_spanned!(span=> ::core::compile_error!(#msg);));
    }
    out
}

/// The checks of one kernel, as statements.
pub(crate) fn host_checks(checks: &[HostCheck], body: &TokenStream, at: Span) -> TokenStream {
    let mut out = TokenStream::new();
    for c in checks {
        out.extend(match c {
            HostCheck::Const { expr, name, ty, items } => const_check(expr, name, ty, items, body, at),
            HostCheck::Fn { name, path } => {
                let (Ok(n), Ok(p)) = (syn::parse_str::<syn::Path>(name), syn::parse_str::<syn::Path>(path)) else { continue };
                let span = span_of(body.clone(), name.rsplit("::").next().unwrap_or(name)).unwrap_or(at);
                // Type-checked, never run.
                quote_spanned!(span=> let _ = || ::omp::__private::check::same_fn(#n, #p);)
            }
            HostCheck::Type { name, ty } => {
                let (Ok(n), Ok(t)) = (syn::parse_str::<syn::Type>(name), syn::parse_str::<syn::Type>(ty)) else { continue };
                let span = span_of(body.clone(), name).unwrap_or(at);
                quote_spanned!(span=> let _ = ::omp::__private::check::same_type::<#n, #t>;)
            }
            HostCheck::Cfg { pred, value } => {
                let Ok(p) = syn::parse_str::<syn::Meta>(pred) else { continue };
                let msg = format!(
                    "omp-rs: the device kernel of this target region was built with `cfg({pred})` {}, this code is \
                     compiled with it {}: rebuild the package so that its build script runs again",
                    if *value { "set" } else { "unset" },
                    if *value { "unset" } else { "set" }
                );
                quote_spanned!(at=> const _: () = ::core::assert!(::core::cfg!(#p) == #value, #msg);)
            }
            HostCheck::DebugAssertions { value } => {
                let msg = format!(
                    "omp-rs: the device kernel of this target region was built with debug assertions {}, this code \
                     without: rebuild the package so that its build script runs again",
                    if *value { "on" } else { "off" }
                );
                quote_spanned!(at=> const _: () = ::core::assert!(::core::cfg!(debug_assertions) == #value, #msg);)
            }
        });
    }
    out
}

/// `const _: () = assert!(expr == { items; name })`, comparing bit patterns for floats and element by element for
/// arrays (every type `resolve::kernel` lets through is a primitive or an array of one).
fn const_check(expr: &str, name: &str, ty: &str, items: &str, body: &TokenStream, at: Span) -> TokenStream {
    let (Ok(e), Ok(t), Ok(items)) = (syn::parse_str::<syn::Expr>(expr), syn::parse_str::<syn::Type>(ty), items.parse::<TokenStream>())
    else {
        return TokenStream::new();
    };
    let n = format_ident!("{}", name);
    let span = span_of(body.clone(), name).unwrap_or(at);
    let kernel = quote!({ #items #n });
    let (mut depth, mut elem) = (0usize, &t);
    while let syn::Type::Array(a) = elem {
        depth += 1;
        elem = &a.elem;
    }
    let float = matches!(elem, syn::Type::Path(p) if p.path.is_ident("f32") || p.path.is_ident("f64"));
    let same = |a: TokenStream, b: TokenStream| if float { quote!(#a.to_bits() == #b.to_bits()) } else { quote!(#a == #b) };
    let cmp = if depth == 0 {
        same(quote!((#e)), quote!((#kernel)))
    } else {
        let flat = (1..depth).fold(quote!(), |acc, _| quote!(#acc.as_flattened()));
        let elem_eq = same(quote!(__omp_a[__omp_i]), quote!(__omp_b[__omp_i]));
        quote!({
            let (__omp_a, __omp_b): (&[_], &[_]) = (&(#e)#flat, &(#kernel)#flat);
            let mut __omp_same = __omp_a.len() == __omp_b.len();
            let mut __omp_i = 0;
            while __omp_same && __omp_i < __omp_a.len() {
                __omp_same = #elem_eq;
                __omp_i += 1;
            }
            __omp_same
        })
    };
    let msg = format!(
        "omp-rs: the device kernel of this target region uses another `{expr}` than this code does (the build helper \
         copied the `{name}` its name resolution found, and rustc resolves `{expr}` here to a different value): name it \
         by a path (`crate::module::{name}`), or rename one of the two"
    );
    if expr.starts_with("Self") {
        // An item cannot name the enclosing impl's `Self`; an inline const can.
        return quote_spanned!(span=> let _: () = const { ::core::assert!(#cmp, #msg) };);
    }
    quote_spanned!(span=> const _: () = ::core::assert!(#cmp, #msg);)
}

/// `OMP_RS_CHECK=host` at a region's launch (`omp::__private::check::differential`): `before` snapshots the region's
/// inputs that it writes (host arrays) or that live on the device (the variables of an enclosing `target_data` block:
/// their device copies), `after` (once the device run is complete) re-runs `host`, the region's host lowering, on the
/// snapshots and compares with the device's results. `None` for regions on device memory (`is_device_ptr`), which the
/// host cannot read.
pub(crate) fn differential(
    plan: &crate::plan::kernel::KernelPlan,
    host: &TokenStream,
    types: &crate::analyze::types::CaptureTypes,
    kernel: &str,
) -> Option<(TokenStream, TokenStream)> {
    use crate::plan::kernel::{ArrayUse, KernelArg};
    let diff = quote!(::omp::__private::check::differential);
    let slice = quote!(::omp::__private::as_slice);
    if plan.args.iter().any(|a| matches!(a, KernelArg::DeviceBuffer { .. })) {
        return None;
    }
    // A captured atomic value depends on the order in which threads reach the atomic (tickets drawn from one
    // counter): two correct runs differ, so such a region is not compared.
    let captures = plan
        .analysis
        .directives
        .iter()
        .any(|d| matches!(d, crate::syntax::body::BodyDirective::Atomic(a) if matches!(a.kind, crate::model::AtomicKind::Capture)));
    if captures {
        return None;
    }
    let on = crate::names::hidden("__omp_diff");
    let mut before = quote!(let mut #on = #diff::enabled(););
    let (mut fetch, mut unpack, mut shadow, mut store, mut compare) =
        (TokenStream::new(), TokenStream::new(), TokenStream::new(), TokenStream::new(), TokenStream::new());
    for a in &plan.args {
        let KernelArg::Array { name, usage, scalar, elem, .. } = a else { continue };
        let var = name.to_string();
        let snap = crate::names::hidden(&format!("__omp_snap_{var}"));
        let written = *usage != ArrayUse::Read;
        if types.mapped.contains(&var) {
            // A block's variable: the device holds its current copy, before and after.
            let held = crate::names::hidden(&format!("__omp_held_{var}"));
            before.extend(quote! {
                let mut #snap: ::core::option::Option<::std::vec::Vec<#elem>> =
                    if #on { #diff::device_snapshot(#slice(&#name), __omp_dev) } else { ::core::option::Option::None };
                #on &= #snap.is_some();
            });
            unpack.extend(quote!(let mut #held: ::std::vec::Vec<#elem> = #snap.take().unwrap_or_default();));
            shadow.extend(quote!(#[allow(unused_mut)] let mut #name = &mut #held[..];));
            if written {
                compare.extend(quote! {
                    #diff::compare(#kernel, #var, &#diff::device_snapshot(#slice(&#name), __omp_dev).unwrap_or_default(), &#held);
                });
            }
        } else if *scalar {
            before.extend(quote!(let mut #snap: ::std::vec::Vec<#elem> = if #on { ::std::vec![#name] } else { ::std::vec::Vec::new() };));
            shadow.extend(quote!(#[allow(unused_mut)] let mut #name: #elem = #snap[0];));
            store.extend(quote!(#snap[0] = #name;));
            compare.extend(quote!(#diff::compare(#kernel, #var, &[#name], &#snap);));
        } else if written {
            let w = super::host::writable(name, types);
            before.extend(quote!(let mut #snap = if #on { #diff::snapshot(#slice(&#name)) } else { ::std::vec::Vec::new() };));
            fetch.extend(quote!(#diff::fetch(#w, #var, __omp_dev);));
            shadow.extend(quote!(#[allow(unused_mut)] let mut #name = &mut #snap[..];));
            compare.extend(quote!(#diff::compare(#kernel, #var, #slice(&#name), &#snap);));
        }
    }
    let (mut red_before, mut red_host) = (TokenStream::new(), TokenStream::new());
    for r in &plan.reductions {
        let v = &r.name;
        let (b, h) = (crate::names::hidden(&format!("__omp_before_{v}")), crate::names::hidden(&format!("__omp_host_{v}")));
        red_before.extend(quote!(let #b = #v;));
        shadow.extend(quote!(#[allow(unused_mut)] let mut #v = #b;));
        store.extend(quote!(#h = #v;));
        red_host.extend(quote!(#[allow(unused_assignments)] let mut #h = #b;));
        let var = v.to_string();
        compare.extend(quote!(#diff::compare_value(#kernel, #var, #v, #h);));
    }
    before.extend(red_before);
    let after = quote! {
        if #on {
            #diff::settle();
            #fetch
            #red_host
            #unpack
            {
                #shadow
                #host;
                #store
            }
            #compare
        }
    };
    Some((before, after))
}
