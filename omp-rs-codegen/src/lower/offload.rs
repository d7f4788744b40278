//! The host side of target constructs: decide where a region runs, then launch its kernel through
//! `omp::__private::offload` (images embedded from the build's manifest) or run the host lowering; data regions,
//! updates and unstructured mappings as runtime calls.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::Ident;

use crate::analyze::types::CaptureTypes;
use crate::analyze::Class;
use crate::model::{Directive, MapItem, MapKind};
use crate::plan::kernel::{ArrayUse, KernelArg, KernelPlan};
use crate::plan::manifest::{self, ManifestView};

fn off() -> TokenStream {
    quote!(::omp::__private::offload)
}

/// `Option<i64>` of `device(n)`.
fn device_expr(d: &Directive) -> TokenStream {
    match &d.settings.device {
        Some(e) => quote!(::core::option::Option::Some((#e) as i64)),
        None => quote!(::core::option::Option::None),
    }
}

/// The `if` condition (`true` without the clause).
fn if_expr(d: &Directive) -> TokenStream {
    match &d.settings.if_cond {
        Some(c) => quote!(#c),
        None => quote!(true),
    }
}

/// `static __OMP_IMAGES: ImageSet = ...` embedding every image of the manifest.
fn image_set(m: &ManifestView) -> TokenStream {
    let off = off();
    let images = m.images.iter().map(|i| {
        let kind = match i.kind {
            omp_rs_abi::ImageKind::Cubin => quote!(Cubin),
            omp_rs_abi::ImageKind::AmdCodeObject => quote!(AmdCodeObject),
            omp_rs_abi::ImageKind::HostSo => quote!(HostSo),
        };
        let arch = &i.arch;
        let path = m.dir.join(&i.file).to_string_lossy().into_owned();
        quote!(#off::Image { kind: #off::ImageKind::#kind, arch: #arch, bytes: ::core::include_bytes!(#path) })
    });
    let kernels = m.kernels.iter().map(|k| &k.name);
    let abi = omp_rs_abi::ABI_VERSION;
    quote! {
        // The runtime must launch with the ABI these kernels were generated for (one omp-rs version throughout).
        const _: () = ::core::assert!(
            #off::ABI_VERSION == #abi,
            "omp-rs: the omp runtime and omp-rs-macros speak different kernel ABIs; use one omp-rs version for both"
        );
        static __OMP_IMAGES: #off::ImageSet = #off::ImageSet::new(&[#(#images),*], &[#(#kernels),*], &[]);
        // The devices start before `main`, as in clang's offload binaries.
        ::omp::__omp_start_early!(__OMP_IMAGES);
    }
}

/// The slice an array capture passes: `&as_slice(&x)[..n]`, `&mut as_slice_mut(…)[..n]` (a section keeps the
/// array's start, so the kernel indexes it like the host). A generic call, so only real slices, arrays, `Vec`s
/// and data-region tokens compile.
fn slice_of(name: &Ident, section: Option<&crate::model::Section>, mutable: bool, types: &CaptureTypes) -> TokenStream {
    let range = match section {
        Some(s) => {
            let (_, b) = (&s.start, &s.end);
            match (b, s.inclusive) {
                (Some(b), true) => quote!(..=#b),
                (Some(b), false) => quote!(..#b),
                (None, _) => quote!(..),
            }
        }
        None => quote!(..),
    };
    if mutable {
        let w = super::host::writable(name, types);
        quote!(&mut #w[#range])
    } else {
        quote!(&::omp::__private::as_slice(&#name)[#range])
    }
}

/// A target loop region: the kernel launch when the build produced an image for it, else the host path.
pub(crate) fn target_loop(plan: &KernelPlan, host: TokenStream, types: &CaptureTypes) -> TokenStream {
    let off = off();
    let manifest = manifest::current();
    if let Some(why) = manifest.and_then(|m| m.mismatch()) {
        return quote!(::core::compile_error!(#why));
    }
    // A kernel the build had to name by its location (the same function in two modules, see `abi::located_name`)
    // is found under that name; the location is only worked out when the plain name is missing.
    let located = || crate::plan::abi::located_name_at(&plan.name, plan.nest.dims.first()?.span);
    let name = match manifest {
        Some(m) if !m.has_kernel(&plan.name) => located().filter(|l| m.has_kernel(l)).unwrap_or_else(|| plan.name.clone()),
        _ => plan.name.clone(),
    };
    let name = &name;
    let body_tokens = quote::ToTokens::to_token_stream(&plan.nest.body);
    let region_at = plan.nest.dims.first().map_or_else(proc_macro2::Span::call_site, |d| d.span);
    // The build could not reproduce this region's meaning on the device: say why, where (the host path keeps the
    // rest of the function compiling).
    if let Some(m) = manifest {
        let refused = super::checks::refusals(m.refusals(name), &body_tokens, region_at);
        if !refused.is_empty() {
            return quote!({ #refused #host });
        }
    }
    // A struct passed by value must be plain data (`omp::Pod`) whether or not this build has an image (with one, the
    // launch requires it of every array too). Not asked of arrays without an image: their element type may be a
    // type parameter of an enclosing `impl`, which the macro cannot see nor bound, and the host path needs nothing
    // of it.
    let mut plain_data = TokenStream::new();
    let mut checked: Vec<String> = Vec::new();
    for a in &plan.args {
        if let KernelArg::Array { elem, by_value: Some(_), .. } = a {
            let key = quote!(#elem).to_string();
            if !checked.contains(&key) {
                plain_data.extend(quote!(#off::crosses_to_device::<#elem>();));
                checked.push(key);
            }
        }
    }
    // A generic function's region has one kernel per instance of its type parameters (`generic`).
    let kernels: Vec<(Vec<(String, String)>, String)> = if plan.generics.is_empty() {
        vec![(Vec::new(), name.clone())]
    } else {
        crate::plan::generic::instances(&plan.generics)
            .into_iter()
            .map(|i| (i.clone(), crate::plan::generic::instance_name(name, &i)))
            .collect()
    };
    // Inside a `target_data` block, a region that runs on the host works on the host copies: the block's variables
    // whose current copy is on the device come back first and go again after (`MappedMut::host_region_begins`).
    let (mut host_begins, mut host_ends) = (TokenStream::new(), TokenStream::new());
    for a in plan.args.iter().filter(|a| types.mapped.contains(&a.name().to_string())) {
        let v = a.name();
        // A token reached through a shared borrow (`let src = &*a;`) cannot take the device's copy back.
        if types.shared_refs.contains(&v.to_string()) {
            host_begins.extend(quote!(#v.host_region_begins_shared();));
        } else {
            host_begins.extend(quote!(#v.host_region_begins();));
            host_ends.extend(quote!(#v.host_region_ends();));
        }
    }
    // `OMP_RS_CHECK=host` re-runs the plain host lowering on snapshots (never the block's tokens).
    let diff = manifest.is_some().then(|| super::checks::differential(plan, &host, types, name)).flatten();
    let host = quote!({
        #host_begins
        #host;
        #host_ends
    });
    let Some(m) = manifest.filter(|m| kernels.iter().any(|(_, k)| m.has_kernel(k))) else {
        let why = match manifest.and_then(|m| m.host_only(name)) {
            Some(reason) => quote!(::core::option::Option::Some(#reason)),
            None => quote!(::core::option::Option::None),
        };
        return quote!({
            #plain_data
            #off::region_without_image(#name, #why).unwrap_or_else(|e| ::core::panic!("{}", e));
            #host
        });
    };
    let images = image_set(m);
    let (diff_before, diff_after) = diff.unwrap_or_default();
    let checks = super::checks::host_checks(
        kernels.iter().find(|(_, k)| m.has_kernel(k)).map_or(&[][..], |(_, k)| m.checks(k)),
        &body_tokens,
        region_at,
    );
    let d = &plan.directive;
    let (device, cond) = (device_expr(d), if_expr(d));
    let rt = quote!(::omp::__private);

    let mut pack = quote!(#off::ArgPack::new());
    let (mut owned, mut n_owned) = (TokenStream::new(), 0usize);
    for arg in &plan.args {
        let var = arg.name().to_string();
        pack = match arg {
            // Typed: the kernel reads the slot as `ty`, so a variable of another type must not compile.
            KernelArg::Scalar { name, ty, inline_len: Some(n), .. } => {
                let ty: syn::Type = syn::parse_str(ty).unwrap_or_else(|_| syn::parse_quote!(f64));
                quote!(#pack.scalars::<#ty, #n>(&#name))
            }
            KernelArg::Scalar { name, ty, .. } => {
                let ty: syn::Type = syn::parse_str(ty).unwrap_or_else(|_| syn::parse_quote!(f64));
                quote!(#pack.scalar::<#ty>(#name))
            }
            KernelArg::Array { name, scalar: true, .. } => quote!(#pack.tofrom(::core::slice::from_mut(&mut #name))),
            KernelArg::Array { name, by_value: Some(_), .. } => quote!(#pack.value(&#name)),
            // A private / firstprivate array: initialised from the host's value (OpenMP's firstprivate on a target
            // construct), through the region's device copy. A shared array value is mapped: if `target_enter_data!`
            // made it present, the region reads the device's copy, as OpenMP says.
            KernelArg::Array { name, private_len: Some(_), .. } => quote!(#pack.value_array(&#name)),
            KernelArg::Array { name, map, explicit, usage, .. } => {
                let section = explicit.as_ref().and_then(|e| e.section.as_ref());
                // Inside `target_data` the variable is a mapping token, mutable only when the block writes it; the
                // mapping is present, so a read-only argument maps `to` (no copy either way).
                let map = match (map, usage) {
                    (_, ArrayUse::Read) if explicit.is_none() && types.mapped.contains(&var) => &MapKind::To,
                    _ => map,
                };
                match map {
                    MapKind::To => {
                        let s = slice_of(name, section, false, types);
                        quote!(#pack.to(#s))
                    }
                    MapKind::From => {
                        let s = slice_of(name, section, true, types);
                        quote!(#pack.from(#s))
                    }
                    MapKind::Alloc => {
                        let s = slice_of(name, section, true, types);
                        quote!(#pack.alloc(#s))
                    }
                    _ => {
                        let s = slice_of(name, section, true, types);
                        quote!(#pack.tofrom(#s))
                    }
                }
            }
            KernelArg::DeviceBuffer { name, usage: ArrayUse::Read, by_ref: true, .. } => quote!(#pack.device_buffer(&*#name)),
            KernelArg::DeviceBuffer { name, usage: ArrayUse::Read, .. } => quote!(#pack.device_buffer(&#name)),
            KernelArg::DeviceBuffer { name, by_ref: true, .. } => quote!(#pack.device_buffer_mut(&mut *#name)),
            KernelArg::DeviceBuffer { name, .. } => quote!(#pack.device_buffer_mut(&mut #name)),
        };
        if let KernelArg::Array { explicit: Some(e), .. } = arg {
            if e.always {
                pack = quote!(#pack.always());
            }
            if e.present {
                pack = quote!(#pack.require_present());
            }
        }
        pack = quote!(#pack.var(#var));
        // A `target_data` block's variable: the region must run on the block's device.
        if types.mapped.contains(&var) {
            // Read before the pack borrows the token.
            let (name, dev) = (arg.name(), crate::names::hidden(&format!("__omp_scope_dev_{var}")));
            owned.extend(quote!(let #dev = #name.owner_device();));
            pack = quote!(#pack.mapped_by(#var, #dev));
        }
        // A written array carries its verified ownership, which the kernel checks every write against: the same
        // check as the host path's, before this launch too.
        if let (Some(shape), Some(Class::Disjoint(arr))) = (arg.owner(), plan.analysis.get(&var).map(|c| &c.class)) {
            let own = crate::names::hidden(&format!("__omp_own{}", n_owned));
            n_owned += 1;
            let form = super::host::ownership(arg.name(), arr, plan.nest.dims.len(), types);
            owned.extend(quote!(let #own = #form;));
            let inner = shape.inner;
            pack = quote!(#pack.owned(&#own, #inner));
        }
    }
    let dims: Vec<Ident> = (0..plan.nest.dims.len()).map(crate::names::dim).collect();
    let dim_lets = plan.nest.dims.iter().zip(&dims).map(|(dim, n)| {
        let e = super::host::dim_expr(dim);
        quote!(let #n = #e;)
    });
    for (n, dim) in dims.iter().zip(&plan.nest.dims) {
        let add = if dim.counts_by_one() { quote!(unit_dim) } else { quote!(dim) };
        pack = quote!(#pack.#add(#n.slot_first(), #n.count(), #n.slot_step()));
    }
    if let (true, Some(last)) = (plan.walks_in_tiles(), dims.last()) {
        pack = quote!(#pack.walk(#last.count()));
    }
    if d.settings.nowait {
        pack = quote!(#pack.nowait());
    }
    if !plan.team_added().is_empty() {
        pack = quote!(#pack.team_adds());
    }
    let mut combine = TokenStream::new();
    for (i, r) in plan.reductions.iter().enumerate() {
        let t: syn::Type = syn::parse_str(&r.ty).unwrap_or_else(|_| syn::parse_quote!(f64));
        let op = r.op.reducer(quote!(#rt::reduce));
        let v = &r.name;
        if r.ty == "bool" {
            // bool partials travel as u8.
            pack = quote!(#pack.reduction::<u8>());
            combine.extend(quote! {
                #v = __omp_ran
                    .reduce::<u8>(#i, #v as u8, |a, b| <#op as #rt::reduce::Reducer<bool>>::combine(a != 0, b != 0) as u8)
                    .unwrap_or_else(|e| ::core::panic!("{}", e))
                    != 0;
            });
        } else {
            pack = quote!(#pack.reduction::<#t>());
            let f = plan.analysis.combine_of(&v.to_string()).function(quote!(<#op as #rt::reduce::Reducer<#t>>::combine));
            combine.extend(quote! {
                #v = __omp_ran
                    .reduce::<#t>(#i, #v, #f)
                    .unwrap_or_else(|e| ::core::panic!("{}", e));
            });
        }
    }
    let geometry_field = |e: &Option<syn::Expr>| match e {
        Some(e) => quote!(::core::option::Option::Some((#e) as i64)),
        None => quote!(::core::option::Option::None),
    };
    let (teams, limit) = (geometry_field(&d.settings.num_teams), geometry_field(&d.settings.thread_limit));
    let iterations = quote!(1u64 #(* #dims.count())*);
    // Where the body is, so that a device panic of a queued region names this region (the device records the
    // line of the panic).
    let brace = &plan.nest.body.brace_token.span;
    let (first, last) = (quote_spanned!(brace.open()=> ::core::line!()), quote_spanned!(brace.close()=> ::core::line!()));
    let body_lines = quote!(::core::option::Option::Some((::core::file!(), #first, #last)));
    // Spanned at the loop, so that the region's `Location` (errors, queued-region panics) is the loop's line rather
    // than the attribute's.
    let at = plan.nest.dims.first().map_or(brace.open(), |d| d.span);
    let launch = quote_spanned!(at=> ::omp::__private::offload::launch(__omp_kernel, __omp_dev, #pack, __omp_geometry));
    let decide = quote_spanned!(at=> ::omp::__private::offload::should_offload(__omp_kernel, #device, #cond));
    // One static per kernel; a generic region picks the instance whose types are the call's.
    let present: Vec<&(Vec<(String, String)>, String)> = kernels.iter().filter(|(_, k)| m.has_kernel(k)).collect();
    let statics = present.iter().enumerate().map(|(n, (_, k))| {
        let s = format_ident!("__OMP_KERNEL_{}", n);
        let layout = match m.layout(k) {
            Some(slots) => {
                let kinds = slots.iter().map(|s| format_ident!("{}", format!("{s:?}")));
                quote!(::core::option::Option::Some(&[#(#off::SlotKind::#kinds),*]))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!(static #s: #off::KernelRef = #off::KernelRef::with_layout(&__OMP_IMAGES, #k, #body_lines, #layout);)
    });
    let pick = present.iter().enumerate().rev().fold(quote!(::core::option::Option::None), |otherwise, (n, (instance, _))| {
        let s = format_ident!("__OMP_KERNEL_{}", n);
        if instance.is_empty() {
            return quote!(::core::option::Option::Some(&#s));
        }
        let params = instance.iter().map(|(p, _)| format_ident!("{}", p));
        let types = instance.iter().map(|(_, t)| format_ident!("{}", t));
        quote! {
            if ::core::any::TypeId::of::<(#(#params,)*)>() == ::core::any::TypeId::of::<(#(#types,)*)>() {
                ::core::option::Option::Some(&#s)
            } else {
                #otherwise
            }
        }
    });
    let no_instance = format!(
        "this generic region is called with types it has no kernel for (its kernels are compiled for {})",
        crate::plan::abi::INSTANCES.join(" and ")
    );
    quote!({
        #checks
        #plain_data
        #images
        #(#statics)*
        let __omp_kernel: ::core::option::Option<&'static #off::KernelRef> = #pick;
        let __omp_offloaded = match __omp_kernel {
            // A generic region called with types that have no kernel: as a region without an image.
            ::core::option::Option::None => {
                #off::region_without_image(#name, ::core::option::Option::Some(#no_instance))
                    .unwrap_or_else(|e| ::core::panic!("{}", e));
                false
            }
            ::core::option::Option::Some(__omp_kernel) => match #decide {
            ::core::result::Result::Ok(#off::Decision::Offload(__omp_dev)) => {
                #(#dim_lets)*
                #owned
                #diff_before
                let __omp_geometry = #off::Geometry { num_teams: #teams, thread_limit: #limit, iterations: #iterations };
                match #launch {
                    ::core::result::Result::Ok(#off::LaunchOutcome::Ran(__omp_ran)) => {
                        #combine
                        #diff_after
                        true
                    }
                    ::core::result::Result::Ok(#off::LaunchOutcome::NotOffloaded) => false,
                    ::core::result::Result::Err(e) => ::core::panic!("{}", e),
                }
            }
            ::core::result::Result::Ok(#off::Decision::Host(_)) => false,
            ::core::result::Result::Err(e) => ::core::panic!("{}", e),
            },
        };
        if !__omp_offloaded {
            #host
        }
    })
}

/// The range of a section (`..` for the whole variable), as written.
fn section_range(s: Option<&crate::model::Section>) -> TokenStream {
    let Some(s) = s else { return quote!(..) };
    let start = s.start.as_ref().map(|e| quote!((#e)));
    match (&s.end, s.inclusive) {
        (Some(b), true) => quote!(#start..=(#b)),
        (Some(b), false) => quote!(#start..(#b)),
        (None, _) => quote!(#start..),
    }
}

/// The `Modifiers` of a map clause.
fn modifiers(m: &crate::model::Map) -> TokenStream {
    let off = off();
    let (always, present) = (m.modifiers.always, m.modifiers.present);
    quote!(#off::Modifiers { always: #always, present: #present })
}

/// What a `target_data` block does with its variables, as far as the macro sees.
pub(crate) struct BlockUses<'u> {
    /// Written by the block's regions and updates, or passed as `&mut x` (their tokens are exclusive even for
    /// `to`/`alloc`).
    pub written: &'u [String],
    /// Copied back to the host by an update of the block.
    pub copied_back: &'u [String],
    /// Passed on as they are (`f(x)`, `S { x }`) to code that may write them.
    pub passed_on: &'u [String],
}

/// A `target_data` block: each mapped variable becomes a token of the same name (holding the variable's borrow,
/// mapping on creation, ending the mapping at the end of the block), so host code in the block cannot touch the
/// data and the borrow checker proves it. `types`: the declared types of the mapped variables.
pub(crate) fn data_region(d: &Directive, block: &syn::Block, types: &CaptureTypes, uses: BlockUses<'_>) -> TokenStream {
    let BlockUses { written, copied_back, passed_on } = uses;
    let off = off();
    let (device, cond) = (device_expr(d), if_expr(d));
    let (images, set) = crate_images();
    let scope = crate::names::hidden("__omp_data");
    let host_written = host_mut_receivers(block.to_token_stream());
    let mut tokens = TokenStream::new();
    for m in &d.settings.maps {
        let mods = modifiers(m);
        for MapItem { var, section } in &m.items {
            let name = var.to_string();
            // A scalar or a struct travels into each region by value: its map moves nothing, and the block's code uses
            // the variable itself (as `standalone` below).
            if section.is_none() && types.by_value(&name) {
                tokens.extend(quote!(let _ = &#var;));
                continue;
            }
            let host_write = host_written.iter().find(|v| **v == name);
            if let (Some(at), true) = (host_write, types.shared_refs.contains(&name)) {
                let msg = format!(
                    "`{name}.host_mut()` writes the host copy of `{name}`, which is borrowed shared here: take it as \
                     `&mut` to write it in the block (then `omp::target_update!(to: {name})` sends it), or read it \
                     with `{name}.host()`"
                );
                // The error alone: the rest of the expansion would only add errors about the same write.
                return syn::Error::new_spanned(at, msg).to_compile_error();
            }
            // `alloc:` is scratch space, which the functions the block hands it to (`f(x)`, read by no macro) may
            // write: its token is exclusive whenever the variable can be borrowed so.
            let writable = (types.mut_refs.contains(&name) || types.declared_mut.contains(&name)) && !types.shared_refs.contains(&name);
            let scratch = m.kind == MapKind::Alloc && writable && passed_on.contains(&name);
            let exclusive = m.kind.writes_host() || written.contains(&name) || host_write.is_some() || scratch;
            if m.kind == MapKind::To && written.contains(&name) && !copied_back.contains(&name) {
                // The device's writes would be dropped at the end of the block, the host fallback's kept (and
                // sequential Rust's): the same program would give two results. (`alloc` says "scratch": its contents
                // after the block are the program's to ignore.)
                let msg = format!(
                    "`{name}` is mapped `to:` (copied to the device, never back), but this block writes it: the \
                     writes would be lost on a GPU and kept on the host. Map it `tofrom:` to keep them, copy them \
                     back with `omp::target_update!(from: {name})`, or map it `alloc:` if it is scratch space whose \
                     contents after the block do not matter"
                );
                tokens.extend(syn::Error::new_spanned(var, msg).to_compile_error());
            }
            // Reported, and the token made whole, so that the block's uses of it raise nothing more.
            let nd_section = section.is_some() && types.nd.iter().any(|(n, _)| *n == name);
            if nd_section {
                tokens.extend(nd_section_error(var));
            }
            let range = section_range(section.as_ref().filter(|_| !nd_section));
            let kind = match m.kind {
                MapKind::To => quote!(To),
                MapKind::From => quote!(From),
                MapKind::Alloc => quote!(Alloc),
                _ => quote!(ToFrom),
            };
            // The elements the token maps, mutably and shared. An ndarray array: its standard-layout elements, and the
            // token keeps its extents for the block's regions (`u[[i, j]]`).
            let (elems_mut, elems, shape, shaped) = match types.nd.iter().find(|(n, _)| *n == name) {
                Some((_, by_ref)) => {
                    let nd = quote!(::omp::__private::nd);
                    let (shared, place) = if *by_ref { (quote!(&*#var), quote!(&mut *#var)) } else { (quote!(&#var), quote!(&mut #var)) };
                    let shape = format_ident!("__omp_shape_{}", var);
                    (
                        quote!(#nd::standard_mut(#nd::NdArrayMut::__omp_nd_flat_mut(#place), #name)),
                        quote!(#nd::standard(#nd::NdArray::__omp_nd_flat(#shared), #name)),
                        quote!(let #shape: ::std::vec::Vec<usize> = #nd::NdArray::__omp_nd_shape(#shared).to_vec();),
                        quote!(.shaped(&#shape)),
                    )
                }
                None => {
                    (super::host::writable(var, types), quote!(::omp::__private::as_slice(&#var)), TokenStream::new(), TokenStream::new())
                }
            };
            let token = if exclusive {
                quote!(#scope.map_mut(#elems_mut, #range, #off::MapKind::#kind, #mods, #name))
            } else {
                let to = m.kind == MapKind::To;
                quote!(#scope.map_ref(#elems, #range, #to, #mods, #name))
            };
            // The token itself has a name the block cannot write: the block holds a reference to it, so nothing the
            // block does (`std::mem::forget(a)`, moving `a` away) can skip its copy back and unmapping, which run
            // when the token drops at the end of the block.
            let held = crate::names::hidden(&format!("__omp_token_{var}"));
            tokens.extend(quote! {
                #shape
                #[allow(unused_mut, unused_variables)]
                let mut #held = #token.unwrap_or_else(|e| ::core::panic!("{}", e))#shaped;
                #[allow(unused_mut, unused_variables)]
                let mut #var = &mut #held;
            });
        }
    }
    let stmts = &block.stmts;
    // Spanned at the directive: the runtime's `Location::caller()` (logs, errors) then names the user's line.
    let at = d.construct.span;
    let begin = quote_spanned!(at=> ::omp::__private::offload::DataRegion::begin(#device, #cond, #set));
    quote!({
        #images
        let #scope = #begin.unwrap_or_else(|e| ::core::panic!("{}", e));
        #tokens
        #(#stmts)*
    })
}

/// The names `x` of the block's `x.host_mut()` calls, macro arguments included (their tokens are read as tokens):
/// a variable whose host copy the block writes needs an exclusive token, whatever its map kind.
fn host_mut_receivers(tokens: TokenStream) -> Vec<Ident> {
    use proc_macro2::TokenTree;
    let mut found = Vec::new();
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (k, t) in trees.iter().enumerate() {
        match (t, trees.get(k + 1), trees.get(k + 2)) {
            (TokenTree::Ident(v), Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(m))) if dot.as_char() == '.' && m == "host_mut" => {
                found.push(v.clone());
            }
            (TokenTree::Group(g), _, _) => found.extend(host_mut_receivers(g.stream())),
            _ => {}
        }
    }
    found
}

/// `target_update!`, `target_enter_data!`, `target_exit_data!` as runtime calls.
pub(crate) fn standalone(d: &Directive, types: &CaptureTypes) -> TokenStream {
    let off = off();
    let rt = quote!(::omp::__private);
    let (device, cond) = (device_expr(d), if_expr(d));
    let mut calls = Vec::new();
    // `x[a..b]` of the variable's elements (`slice`: the expression giving them).
    let section = |var: &syn::Ident, section: Option<&crate::model::Section>, slice: TokenStream| {
        let _ = var;
        let range = section_range(section);
        quote!(#slice[#range])
    };
    // A scalar or a struct travels into each region by value (firstprivate: OpenMP's default for scalars, and the
    // only way omp-rs passes them), so no region reads or writes a device copy of it: mapping or updating one moves
    // nothing, as C codes that write `target enter data map(to: n, h)` beside their arrays expect. A section of it
    // is left to the slice call, which refuses it.
    let by_value = |var: &syn::Ident, sec: &Option<crate::model::Section>| sec.is_none() && types.by_value(&var.to_string());
    let mut by_value_uses = Vec::new();
    for motion in &d.settings.motions {
        for MapItem { var, section: sec } in &motion.items {
            if sec.is_some() && types.nd_tokens.contains(&var.to_string()) {
                return nd_section_error(var);
            }
            if by_value(var, sec) {
                by_value_uses.push(quote!(let _ = &#var;));
                continue;
            }
            let name = var.to_string();
            calls.push(if motion.to {
                let x = section(var, sec.as_ref(), quote!(#rt::as_slice(&#var)));
                quote!(#off::update_to(&#x, #name, #device, #cond))
            } else {
                let w = super::host::writable(var, types);
                let x = section(var, sec.as_ref(), w);
                quote!(#off::update_from(&mut #x, #name, #device, #cond))
            });
        }
    }
    for m in &d.settings.maps {
        for MapItem { var, section: sec } in &m.items {
            if by_value(var, sec) {
                by_value_uses.push(quote!(let _ = &#var;));
                continue;
            }
            let name = var.to_string();
            let mods = modifiers(m);
            let read = section(var, sec.as_ref(), quote!(#rt::as_slice(&#var)));
            let read = quote!(&#read);
            calls.push(match (d.construct.kind, m.kind) {
                (crate::model::ConstructKind::TargetEnterData, MapKind::Alloc) => {
                    quote!(#off::enter_data(#read, false, #mods, #device, #cond))
                }
                (crate::model::ConstructKind::TargetEnterData, _) => quote!(#off::enter_data(#read, true, #mods, #device, #cond)),
                (_, MapKind::Delete) => quote!(#off::exit_data_release(#read, true, #name, #device, #cond)),
                (_, MapKind::Release | MapKind::To | MapKind::Alloc) => {
                    quote!(#off::exit_data_release(#read, false, #name, #device, #cond))
                }
                (_, _) => {
                    let w = super::host::writable(var, types);
                    let x = section(var, sec.as_ref(), w);
                    quote!(#off::exit_data_from(&mut #x, #name, #device, #cond))
                }
            });
        }
    }
    // The crate's images first when the directive may be the process's first offload operation (updates and exit
    // data act on data something mapped before, which registered them).
    let (images, set) = match d.construct.kind {
        crate::model::ConstructKind::TargetEnterData => crate_images(),
        _ => (TokenStream::new(), quote!(::core::option::Option::None)),
    };
    quote!({
        #images
        #off::register_images(#set, #cond);
        #( #by_value_uses )*
        #( #calls.unwrap_or_else(|e| ::core::panic!("{}", e)); )*
    })
}

/// A section of an ndarray array or an array of rows in a data region: its token's elements are the flat ones.
fn nd_section_error(var: &syn::Ident) -> TokenStream {
    let msg = format!(
        "a data region maps `{var}` (an array of rows or an ndarray array) whole, as its flat elements: map it without a \
         section (`map(to: {var})`) and update it whole (`omp::target_update!(from: {var})`), or give the region a \
         flat slice of the rows it needs"
    );
    syn::Error::new_spanned(var, msg).to_compile_error()
}

/// The crate's image set (`static __OMP_IMAGES`) and an `Option<&'static ImageSet>` naming it (`None` without images).
fn crate_images() -> (TokenStream, TokenStream) {
    match manifest::current().filter(|m| !m.images.is_empty()) {
        Some(m) => (image_set(m), quote!(::core::option::Option::Some(&__OMP_IMAGES))),
        None => (TokenStream::new(), quote!(::core::option::Option::None)),
    }
}
