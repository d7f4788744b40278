//! Device lowering: a [`KernelPlan`] becomes the Rust source of one kernel in the generated `no_std` device crate
//! (`omp_device::kernel! { ... }`), following the kernel ABI slot by slot. Every GPU thread walks the flattened
//! iteration space grid-stride; the body is the user's loop body with the same data-sharing treatment as on the
//! host (views for disjoint writes, private reduction copies, atomics), so its panics (bounds checks) point at the
//! user's code.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Ident, Stmt};

use crate::model::AtomicKind;
use crate::names;
use crate::plan::abi::{self, SlotKind};
use crate::plan::kernel::{ArrayUse, KernelArg, KernelPlan};
use crate::syntax::body::{self, AtomicOp, AtomicStmt, BodyDirective};

/// The header of a generated device crate (features and lints; see `omp_device`'s docs).
pub(crate) const CRATE_HEADER: &str = "\
#![no_std]
#![cfg_attr(any(target_arch = \"nvptx64\", target_arch = \"amdgpu\"), feature(abi_gpu_kernel))]
#![deny(unsafe_op_in_unsafe_fn)]
#![allow(unused_imports, unused_unsafe, unused_mut, unused_variables, unused_parens, unknown_lints)]
#![allow(improper_gpu_kernel_arg, improper_ctypes_definitions, unstable_name_collisions, non_snake_case)]
#![allow(dead_code, clippy::all)]
extern crate omp_device;
use omp_device::prelude::*;
";

fn base(v: &Ident) -> Ident {
    format_ident!("__omp_a_{}", v)
}

fn len(v: &Ident) -> Ident {
    format_ident!("__omp_n_{}", v)
}

fn partials(v: &Ident) -> Ident {
    format_ident!("__omp_r_{}", v)
}

/// A generated use of a user's name, without the user's span (only the copied body keeps its positions).
fn fresh(v: &Ident) -> Ident {
    // `set_span`, not `Ident::new(&v.to_string())`: a raw identifier (`r#type`) is no valid name for `Ident::new`.
    let mut v = v.clone();
    v.set_span(proc_macro2::Span::call_site());
    v
}

fn fresh_ty(t: &syn::Type) -> TokenStream {
    super::print::unlocated(quote!(#t))
}

/// A kernel's parameters after `dyn_ptr`, each with the slot of the kernel ABI it receives. The plan's layout
/// ([`KernelPlan::slots`], which the manifest carries and the host packs) is the one source of the order: [`kernel`]
/// compares the two and refuses to print a kernel whose parameters do not follow it.
#[derive(Default)]
struct Params(Vec<(SlotKind, TokenStream)>);

impl Params {
    fn push(&mut self, kind: SlotKind, param: TokenStream) {
        self.0.push((kind, param));
    }

    /// An array capture's base parameter (`param`) and its length `len`.
    fn array(&mut self, param: TokenStream, len: &Ident) {
        self.push(SlotKind::ArrayBase, param);
        self.push(SlotKind::ArrayLen, quote!(#len: u64));
    }

    fn kinds(&self) -> Vec<SlotKind> {
        self.0.iter().map(|(k, _)| *k).collect()
    }
}

impl quote::ToTokens for Params {
    fn to_tokens(&self, out: &mut TokenStream) {
        let params = self.0.iter().map(|(_, p)| p);
        out.extend(quote!(#(#params),*));
    }
}

/// The `omp_device::kernel! { ... }` item of one kernel.
pub(crate) fn kernel(plan: &KernelPlan) -> TokenStream {
    let name = format_ident!("{}", plan.name);
    let mut params = Params::default();
    let mut setup = TokenStream::new();
    let mut per_iteration = TokenStream::new();
    // Each iteration's views of the written arrays, for the loop's general copy (`Disjoint::at`) and its fast copy
    // (`Disjoint::at_fast`), and the launch's test for the fast one.
    let (mut general_views, mut fast_views, mut fast_tests) = (TokenStream::new(), TokenStream::new(), Vec::new());
    // By-value structs, read from their one mapped element once the slices are set up.
    let mut value_copies = TokenStream::new();
    // Atomic arrays the kernel only adds to: combined per team (`TeamAdds`), set up once the walk is known.
    let team_added: Vec<Ident> = plan.team_added().into_iter().map(fresh).collect();
    let (mut team_begin, mut team_end) = (TokenStream::new(), TokenStream::new());
    if !team_added.is_empty() {
        team_begin.extend(quote!(
            let mut __omp_arena = omp_device::team::TeamArena::new();
            let __omp_units_per_team: u64 = __omp_units.div_ceil(omp_device::launch::num_teams() as u64);
        ));
    }
    let depth = plan.dim_types.len();
    let serial = plan.is_serial();
    for arg in &plan.args {
        match arg {
            KernelArg::Scalar { name, ty, private_mut, inline_len: Some(n) } => {
                // One parameter per element: the array is rebuilt from the kernel's parameters (constant bank).
                let name = &fresh(name);
                let t: syn::Type = syn::parse_str(ty).unwrap_or_else(|_| syn::parse_quote!(u64));
                let slots: Vec<Ident> = (0..*n).map(|k| format_ident!("__omp_e{}_{}", k, name)).collect();
                for s in &slots {
                    params.push(abi::scalar_slot(ty), quote!(#s: u64));
                }
                setup.extend(quote!(let #name: [#t; #n] = [#(omp_device::abi::from_slot::<#t>(#slots)),*];));
                if *private_mut {
                    per_iteration.extend(quote!(#[allow(unused_mut)] let mut #name: [#t; #n] = #name;));
                }
            }
            KernelArg::Scalar { name, ty, private_mut, inline_len: None } => {
                let name = &fresh(name);
                let t: syn::Type = syn::parse_str(ty).unwrap_or_else(|_| syn::parse_quote!(u64));
                params.push(abi::scalar_slot(ty), quote!(#name: u64));
                setup.extend(quote!(let #name: #t = omp_device::abi::from_slot(#name);));
                if *private_mut {
                    // Each iteration starts from the value passed in (the host lowering makes rustc reject a
                    // `private` read before its write), so no value travels between iterations of a thread.
                    per_iteration.extend(quote!(let mut #name: #t = #name;));
                }
            }
            KernelArg::Array { name, elem, usage, .. } | KernelArg::DeviceBuffer { name, elem, usage, .. } => {
                let (name, elem) = (&fresh(name), &fresh_ty(elem));
                let (b, n) = (base(name), len(name));
                if let KernelArg::Array { private_len: Some(len), .. } = arg {
                    // Each iteration's own copy of the private array (the host passes an array of this very type).
                    per_iteration.extend(
                        quote!(#[allow(unused_mut)] let mut #name: [#elem; #len] = core::array::from_fn(|__omp_k| #name[__omp_k]);),
                    );
                }
                if let KernelArg::Array { by_value: Some(changed), .. } = arg {
                    // The value is the one element the host mapped; a body that changes it changes its own copy.
                    value_copies.extend(quote!(let #name: #elem = #name[0];));
                    if *changed {
                        per_iteration.extend(quote!(let mut #name: #elem = #name;));
                    }
                }
                // The kernel's own unsafe: rebuilding the host runtime's (pointer, length, ownership) slots. The loop
                // body itself stays safe code (`deny(unsafe_op_in_unsafe_fn)` in the crate header).
                match usage {
                    ArrayUse::Read => {
                        params.array(quote!(#b: &[#elem; 0]), &n);
                        setup.extend(quote!(
                            // SAFETY: the runtime passes `len` initialised elements that no thread writes.
                            let #name: &[#elem] = unsafe { omp_device::view::ro_slice(#b, #n) };
                        ));
                    }
                    ArrayUse::Disjoint => {
                        params.array(quote!(#b: &mut [#elem; 0]), &n);
                        let shape = arg.owner().unwrap_or(crate::plan::kernel::OwnerShape { depth, inner: 0 });
                        let slot = |tag: &str, k: usize| format_ident!("__omp_o{}_{}_{}", tag, k, name);
                        let (mode, origin, width) = (slot("m", 0), slot("o", 0), slot("w", 0));
                        params.push(SlotKind::OwnerMode, quote!(#mode: u64));
                        params.push(SlotKind::OwnerOrigin, quote!(#origin: u64));
                        params.push(SlotKind::OwnerWidth, quote!(#width: u64));
                        let strides: Vec<Ident> = (0..shape.depth).map(|k| slot("s", k)).collect();
                        for s in &strides {
                            params.push(SlotKind::OwnerStride, quote!(#s: u64));
                        }
                        let inner: Vec<(Ident, Ident)> = (0..shape.inner).map(|k| (slot("is", k), slot("ic", k))).collect();
                        for (s, c) in &inner {
                            params.push(SlotKind::OwnerInnerStride, quote!(#s: u64));
                            params.push(SlotKind::OwnerInnerCount, quote!(#c: u64));
                        }
                        let plain =
                            matches!(arg, KernelArg::Array { private_len: None, by_value: None, .. } | KernelArg::DeviceBuffer { .. });
                        if serial && plain {
                            // One iteration, so one thread: the whole array as a plain slice, without the per-access
                            // ownership test (the ownership slots stay: the kernel ABI is the same).
                            per_iteration.extend(quote!(
                                // SAFETY: the runtime passes the device base and length of a `&mut` capture's data, and
                                // `serial_slice` checks that the kernel has one iteration, run by one thread.
                                #[allow(unused_mut)]
                                let mut #name: &mut [#elem] = unsafe { omp_device::view::serial_slice(#b.as_mut_ptr(), #n, __omp_units) };
                            ));
                            continue;
                        }
                        let pairs = inner.iter().map(|(s, c)| quote!([#s, #c]));
                        let h = names::disjoint(name);
                        let (d, i) = (shape.depth, shape.inner);
                        setup.extend(quote!(
                            // SAFETY: the runtime passes the array's device base and length and the ownership it
                            // verified disjoint for this launch's iteration space.
                            let #h = unsafe {
                                omp_device::view::Disjoint::<#elem, #d, #i>::new(
                                    omp_device::View::<#elem>::from_base(#b, #n),
                                    omp_device::view::Owner::from_slots(#mode, #origin, #width, [#(#strides),*], [#(#pairs),*]),
                                )
                            };
                        ));
                        general_views.extend(quote!(#[allow(unused_mut)] let mut #name = #h.at(__omp_ks);));
                        fast_views.extend(quote!(#[allow(unused_mut)] let mut #name = #h.at_fast(__omp_ks);));
                        fast_tests.push(quote!(#h.fast()));
                    }
                    ArrayUse::Unchecked => {
                        params.array(quote!(#b: *mut #elem), &n);
                        setup.extend(quote!(
                            // SAFETY: the runtime passes the device base and length; that no element is written by
                            // one iteration and touched by another is the user's `unsafe(disjoint(..))` promise
                            // (spelled with `unsafe` in the user's crate, where `forbid(unsafe_code)` refuses it).
                            #[allow(unused_mut)]
                            let mut #name = unsafe { omp_device::View::<#elem>::from_raw_parts(#b, #n as usize) };
                        ));
                    }
                    ArrayUse::Atomic if team_added.iter().any(|v| v == name) => {
                        params.array(quote!(#b: *mut #elem), &n);
                        let h = names::atomic(name);
                        team_begin.extend(quote!(
                            // SAFETY: the runtime passes the device base and length; the body only adds to it with
                            // `#[omp::atomic]`, and every thread reaches the `finish` after the loop (no early exit).
                            let #h = unsafe {
                                omp_device::view::TeamAdds::<#elem>::new(
                                    omp_device::View::<#elem>::from_raw_parts(#b, #n as usize), &mut __omp_arena, __omp_units_per_team,
                                )
                            };
                            let #name = #h;
                        ));
                        team_end.extend(quote!(#h.finish();));
                    }
                    ArrayUse::Atomic => {
                        params.array(quote!(#b: *mut #elem), &n);
                        let h = names::atomic(name);
                        setup.extend(quote!(
                            // SAFETY: the runtime passes the device base and length; the body only updates it with
                            // `#[omp::atomic]` (the name is the atomic view, which has no plain access).
                            let #h = unsafe { omp_device::view::AtomicView::<#elem>::new(omp_device::View::<#elem>::from_raw_parts(#b, #n as usize)) };
                        ));
                        // The name itself answers `.len()` (other uses were rejected by the analysis).
                        setup.extend(quote!(let #name = #h;));
                    }
                }
            }
        }
    }
    setup.extend(value_copies);
    let (firsts, trips, steps): (Vec<Ident>, Vec<Ident>, Vec<Ident>) = (
        (0..depth).map(|k| format_ident!("__omp_f{}", k)).collect(),
        (0..depth).map(|k| format_ident!("__omp_t{}", k)).collect(),
        (0..depth).map(|k| format_ident!("__omp_s{}", k)).collect(),
    );
    for k in 0..depth {
        let (f, t, s) = (&firsts[k], &trips[k], &steps[k]);
        params.push(SlotKind::LoopFirst, quote!(#f: u64));
        params.push(SlotKind::LoopTrips, quote!(#t: u64));
        params.push(SlotKind::LoopStep, quote!(#s: u64));
    }
    // Collapsed nests: the tiling the runtime chose with the launch geometry (`ArgPack::walk`; rows 0 = flat).
    let tiled = plan.walks_in_tiles();
    if tiled {
        params.push(SlotKind::WalkTileRows, quote!(__omp_tile_rows: u64));
        params.push(SlotKind::WalkTilesPerRow, quote!(__omp_tiles_inner: u64));
        params.push(SlotKind::WalkTiles, quote!(__omp_tiles: u64));
    }
    let mut red_init = TokenStream::new();
    let mut red_out = TokenStream::new();
    for r in &plan.reductions {
        let v = &fresh(&r.name);
        let p = partials(v);
        let t: syn::Type = syn::parse_str(&r.ty).unwrap_or_else(|_| syn::parse_quote!(f64));
        let op = r.op.reducer(quote!(omp_device::reduce));
        // bool partials travel as u8 (the host reads them as plain bytes).
        let (slot_t, store) = if r.ty == "bool" { (quote!(u8), quote!(__omp_v as u8)) } else { (quote!(#t), quote!(__omp_v)) };
        params.push(SlotKind::ReductionPartials, quote!(#p: *mut #slot_t));
        red_init.extend(quote!(let mut #v: #t = <#op as Reducer<#t>>::identity();));
        // Every thread reaches this point (no early exit from the loop), as team_reduce requires.
        red_out.extend(quote! {
            if let ::core::option::Option::Some(__omp_v) = omp_device::reduce::team_reduce::<#op, #t>(#v) {
                // SAFETY: the runtime's partials buffer holds one value per team.
                unsafe { *#p.add(omp_device::launch::team_id() as usize) = #store };
            }
        });
    }

    // The walk's unit gives (outer, innermost); the outer number decodes into one index per outer dimension,
    // innermost fastest.
    let ks: Vec<Ident> = (0..depth).map(names::k).collect();
    let (outer, inner) = match trips.split_last() {
        Some((last, rest)) if !rest.is_empty() => (quote!(1u64 #(* #rest)*), quote!(#last)),
        Some((only, _)) => (quote!(#only), quote!(1u64)),
        None => (quote!(0u64), quote!(1u64)),
    };
    let walk = if tiled {
        quote!(omp_device::launch::Walk::new(#outer, #inner, __omp_tile_rows, __omp_tiles_inner, __omp_tiles))
    } else if plan.lanes_follow_outer() {
        quote!(omp_device::launch::Walk::flat_outer_first(#outer, #inner))
    } else {
        quote!(omp_device::launch::Walk::flat(#outer, #inner))
    };
    let located = match depth {
        0 => quote!(_),
        1 => quote!((__omp_rest, _)),
        _ => {
            let last = &ks[depth - 1];
            quote!((__omp_rest, #last))
        }
    };
    let mut decode = quote!(let ::core::option::Option::Some(#located) = __omp_walk.locate(__omp_unit) else { continue; };);
    if depth >= 3 {
        decode.extend(quote!(let mut __omp_rest = __omp_rest;));
    }
    let outer_dims = if depth >= 2 { depth - 1 } else { depth };
    for k in (0..outer_dims).rev() {
        let (kk, t) = (&ks[k], &trips[k]);
        if k == 0 {
            decode.extend(quote!(let #kk = __omp_rest;));
        } else {
            decode.extend(quote!(let (__omp_q, #kk) = __omp_walk.divmod(__omp_rest, #t); __omp_rest = __omp_q;));
        }
    }
    decode.extend(quote!(let __omp_ks: [u64; #depth] = [#(#ks),*];));
    // The loop variables, in the general copy and in the fast one. The fast copy computes a 64-bit variable that
    // the body divides (`i % 97`, `i / n`) in 32 bits (`loop_value_u32`) where every value of its dimension lies
    // in `0..2^32` (one uniform test per launch), so that LLVM knows it fits and divides in 32 bits: a 64-bit
    // remainder is some twenty instructions on the GPU, a 32-bit one five. Other variables stay 64-bit: there the
    // test costs more than the narrower additions and multiplies save.
    let divided = divided_names(&plan.nest.body);
    let (mut general_lets, mut fast_lets) = (Vec::new(), Vec::new());
    for (k, dim) in plan.nest.dims.iter().enumerate() {
        let ty = plan.dim_types[k].as_str();
        let t: syn::Type = syn::parse_str(ty).unwrap_or_else(|_| syn::parse_quote!(usize));
        let (f, kk, trip) = (&firsts[k], &ks[k], &trips[k]);
        // The literal step saves a 64-bit multiply per dimension and thread; the launch checks the step it passes
        // (`LoopDim::counts_by_one`), so a misread header stops the launch instead of walking the wrong values.
        let step = &steps[k];
        let s = if dim.counts_by_one() { quote!(1u64) } else { quote!(#step) };
        let Some(v) = dim.var.as_ref().map(fresh) else {
            general_lets.push(quote!(let _ = #kk;));
            fast_lets.push(quote!(let _ = #kk;));
            continue;
        };
        general_lets.push(quote!(let #v: #t = omp_device::abi::loop_value(#f, #s, #kk);));
        if matches!(ty, "usize" | "u64" | "isize" | "i64") && divided.contains(&v.to_string()) {
            fast_lets.push(quote!(let #v: #t = omp_device::abi::loop_value_u32(#f, #s, #kk);));
            fast_tests.push(quote!(omp_device::abi::values_fit_u32(#f, #s, #trip)));
        } else {
            fast_lets.push(quote!(let #v: #t = omp_device::abi::loop_value(#f, #s, #kk);));
        }
    }
    let mut body = plan.nest.body.clone();
    AtomicRewriter.visit_block_mut(&mut body);
    DeviceBelow.visit_block_mut(&mut body);
    // Read-only captures are plain slices in the kernel (private arrays are per-iteration copies, not slices).
    let read_only = plan.args.iter().filter_map(|a| match a {
        KernelArg::Array { name, usage: ArrayUse::Read, private_len: None, by_value: None, .. }
        | KernelArg::DeviceBuffer { name, usage: ArrayUse::Read, .. } => Some(fresh(name).to_string()),
        _ => None,
    });
    super::affine::AffineReads::new(read_only).visit_block_mut(&mut body);
    let stmts = &body.stmts;
    let items = &plan.local_items;
    let doc = format!(" `{}` region {} of `fn {}`", plan.directive.construct.name, plan.region, plan.function);
    // The loop, with the written arrays' views made by `view`: at most one unit per thread (the default grid up
    // to 128 teams per SM) runs without a loop, so the compiler sets up no strided increments (some fifty
    // instructions per thread on sm_90, more than the iteration itself when the data sits in L2). `while` with a
    // flag, so that `continue` in the body means what it means in the loop below.
    let walk_loop = |var_lets: &[TokenStream], views: &TokenStream| {
        quote! {
            if __omp_units <= __omp_stride {
                let mut __omp_once = __omp_next < __omp_units;
                while __omp_once {
                    __omp_once = false;
                    let __omp_unit = __omp_next;
                    #decode
                    #(#var_lets)*
                    #per_iteration
                    #views
                    #(#stmts)*
                }
            } else {
                while __omp_next < __omp_units {
                    let __omp_unit = __omp_next;
                    // Advance first: `continue` in the body must not skip it.
                    __omp_next += __omp_stride;
                    #decode
                    #(#var_lets)*
                    #per_iteration
                    #views
                    #(#stmts)*
                }
            }
        }
    };
    // A team body: every thread runs its own (team, thread) pair, all of a team at once (`spmd::each_thread`
    // checks that the launch is that grid; on the host plugin it runs the team's threads as OS threads).
    let team_body = plan.is_team_body();
    let thread_trips = &trips[trips.len().saturating_sub(plan.nest.thread_dims())..];
    let team_size = quote!(1u64 #(* #thread_trips)*);
    // Its (team, thread) pair is the unit's position: the nest's two indices without decoding the unit.
    let team_decode = match &ks[..] {
        [k0, k1] => quote!(let #k0: u64 = __omp_team; let #k1: u64 = __omp_thread; let __omp_ks: [u64; 2] = [#k0, #k1];),
        _ => decode.clone(),
    };
    let team_walk = |var_lets: &[TokenStream], views: &TokenStream| {
        quote! {
            omp_device::spmd::each_thread(__omp_units, #team_size, |__omp_unit: u64, __omp_team: u64, __omp_thread: u64| {
                let mut __omp_once = true;
                while __omp_once {
                    __omp_once = false;
                    #team_decode
                    #(#var_lets)*
                    #per_iteration
                    #views
                    #(#stmts)*
                }
            });
        }
    };
    let walk_loop = |var_lets: &[TokenStream], views: &TokenStream| {
        if team_body {
            team_walk(var_lets, views)
        } else {
            walk_loop(var_lets, views)
        }
    };
    let general = walk_loop(&general_lets, &general_views);
    // Where the launch's ownership of every written array has the common form (`Owner::fast`) and the 64-bit loop
    // variables' values fit in 32 bits, a second copy of the loop checks ownership in straight-line code that LLVM
    // folds across accesses and computes those variables in 32 bits; the branch is uniform.
    let walks = if fast_tests.is_empty() {
        general
    } else {
        let fast = walk_loop(&fast_lets, &fast_views);
        quote!(if #(#fast_tests)&&* { #fast } else { #general })
    };
    let spmd_imports = if team_body { crate::names::spmd::imports(quote!(omp_device::spmd)) } else { quote!() };
    if params.kinds() != plan.slots() {
        // Never reached while the two follow one layout; a kernel that would misread its arguments is not printed.
        let msg = format!(
            "omp-rs internal error: the device parameters of `{}` do not follow its slot layout: {:?} against {:?}",
            plan.name,
            params.kinds(),
            plan.slots()
        );
        return quote!(::core::compile_error!(#msg););
    }
    let kernel = quote! {
        omp_device::kernel! {
            #[doc = #doc]
            pub unsafe fn #name(_dyn: *mut u8, #params) {
                #spmd_imports
                #(#items)*
                #setup
                #red_init
                let __omp_walk = #walk;
                let __omp_units: u64 = __omp_walk.units();
                let __omp_stride: u64 = __omp_walk.step();
                let mut __omp_next: u64 = __omp_walk.first();
                #team_begin
                #walks
                #team_end
                #red_out
            }
        }
    };
    crate::plan::generic::in_instance_module(plan, kernel)
}

/// The names the body divides or takes a remainder of (`i % 97`, `(i as u64) / n`, `i %= m`), casts and
/// parentheses peeled.
fn divided_names(body: &syn::Block) -> Vec<String> {
    struct Divided(Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Divided {
        fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
            use syn::BinOp::{Div, DivAssign, Rem, RemAssign};
            if matches!(e.op, Div(_) | Rem(_) | DivAssign(_) | RemAssign(_)) {
                let mut operand = &*e.left;
                while let syn::Expr::Paren(syn::ExprParen { expr, .. }) | syn::Expr::Cast(syn::ExprCast { expr, .. }) = operand {
                    operand = expr;
                }
                if let syn::Expr::Path(p) = operand {
                    if let Some(name) = p.path.get_ident() {
                        self.0.push(name.to_string());
                    }
                }
            }
            syn::visit::visit_expr_binary(self, e);
        }
    }
    let mut divided = Divided(Vec::new());
    syn::visit::Visit::visit_block(&mut divided, body);
    divided.0
}

/// The whole `lib.rs` of the device crate: header, items the kernels use, kernels.
pub(crate) fn crate_source(items: &[syn::Item], kernels: &[TokenStream]) -> String {
    let mut out = String::from(CRATE_HEADER);
    for it in items {
        out.push_str(&quote!(#it).to_string());
        out.push('\n');
    }
    for k in kernels {
        out.push_str(&k.to_string());
        out.push('\n');
    }
    out
}

/// Rewrites `#[omp::atomic]` statements into `omp_device::atomic` calls on bounds-checked element pointers, and
/// drops the directive of a loop nested in the body (`body::NestedLoop`: it runs sequentially).
struct AtomicRewriter;

impl VisitMut for AtomicRewriter {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        for stmt in &mut block.stmts {
            match body::statement_directive(stmt) {
                Ok(Some(BodyDirective::Atomic(a))) => *stmt = atomic_stmt(&a),
                Ok(Some(BodyDirective::NestedLoop(l))) => {
                    *stmt = l.lowered();
                    self.visit_stmt_mut(stmt);
                }
                _ => self.visit_stmt_mut(stmt),
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn atomic_stmt(a: &AtomicStmt) -> Stmt {
    let Some(root) = crate::syntax::place::place_root(&a.target) else {
        return syn::parse_quote!(::core::compile_error!("unsupported atomic target"););
    };
    let var = root.ident.clone();
    let h = names::atomic(&var);
    // Safe calls on the atomic view: the user's index and value expressions stay outside any `unsafe`.
    let idx = match root.first_index {
        Some(i) => quote!((#i) as usize),
        None => quote!(0usize),
    };
    let value = &a.value;
    let call = match a.kind {
        AtomicKind::Read => quote!(#h.load(#idx)),
        AtomicKind::Write => quote!(#h.store(#idx, #value)),
        AtomicKind::Update | AtomicKind::Compare => {
            let f = match a.op.unwrap_or(AtomicOp::Add) {
                AtomicOp::Add => Some(quote!(add)),
                AtomicOp::Sub => Some(quote!(sub)),
                AtomicOp::Min => Some(quote!(min)),
                AtomicOp::Max => Some(quote!(max)),
                AtomicOp::BitAnd => Some(quote!(and)),
                AtomicOp::BitOr => Some(quote!(or)),
                AtomicOp::BitXor => Some(quote!(xor)),
                AtomicOp::Mul | AtomicOp::Div | AtomicOp::IfLess | AtomicOp::IfGreater => None,
            };
            match f {
                Some(f) => quote!(#h.#f(#idx, #value)),
                None => {
                    let op = apply(a.op.unwrap_or(AtomicOp::Add), quote!(__omp_o), quote!(__omp_v));
                    quote!({ let __omp_v = #value; #h.update(#idx, |__omp_o| #op); })
                }
            }
        }
        AtomicKind::Capture => {
            let op = a.op.unwrap_or(AtomicOp::Add);
            let update = apply(op, quote!(__omp_o), quote!(__omp_v));
            let new = if a.capture_old { quote!(__omp_old) } else { apply(op, quote!(__omp_old), quote!(__omp_v)) };
            quote!({
                let __omp_v = #value;
                let __omp_old = #h.update(#idx, |__omp_o| #update);
                #new
            })
        }
    };
    match (&a.let_pat, &a.capture_into) {
        (Some(pat), _) => syn::parse_quote!(let #pat = #call;),
        (None, Some(into)) => syn::parse_quote!(#into = #call;),
        (None, None) => syn::parse_quote!(#call;),
    }
}

fn apply(op: AtomicOp, old: TokenStream, v: TokenStream) -> TokenStream {
    match op {
        AtomicOp::Add => quote!(#old + #v),
        AtomicOp::Sub => quote!(#old - #v),
        AtomicOp::Mul => quote!(#old * #v),
        AtomicOp::Div => quote!(#old / #v),
        AtomicOp::BitAnd => quote!(#old & #v),
        AtomicOp::BitOr => quote!(#old | #v),
        AtomicOp::BitXor => quote!(#old ^ #v),
        AtomicOp::Min => quote!(#old.min(#v)),
        AtomicOp::Max => quote!(#old.max(#v)),
        AtomicOp::IfLess => quote!(if #old < #v { #v } else { #old }),
        AtomicOp::IfGreater => quote!(if #old > #v { #v } else { #old }),
    }
}

/// Kernel bodies call the device library's per-axis check instead of the host's.
struct DeviceBelow;

impl VisitMut for DeviceBelow {
    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        syn::visit_mut::visit_expr_call_mut(self, c);
        if crate::names::nd::is_below(&c.func) {
            *c.func = syn::parse_quote!(omp_device::nd::below);
        }
    }
}
