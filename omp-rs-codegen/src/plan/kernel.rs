//! A target loop region as both sides of the offload boundary see it: kernel name, argument slots in ABI
//! order, and the mapping of every captured variable (explicit `map` clauses win; otherwise `&` → `to`,
//! `&mut`/written → `tofrom`, scalars → `firstprivate`). Built once by the macro walk and used by the host
//! expansion (the launch) and by the build helper (the kernel source).

use proc_macro2::Span;
use quote::ToTokens;
use syn::{Ident, Type};

use crate::analyze::affine::{Coeff, IterVar};
use crate::analyze::types::{self, DeviceType, TypeEnv};
use crate::analyze::{Analysis, Class};
use crate::ctxt::Ctxt;
use crate::model::{Directive, MapKind, ReductionOp, Section};
use crate::plan::abi::{self, SlotKind};
use crate::syntax::loops::LoopNest;

/// How the kernel uses an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayUse {
    /// Only read: a read-only slice (`ld.global.nc` on NVIDIA).
    Read,
    /// Written at one disjoint index per iteration: a bounds-checked view.
    Disjoint,
    /// Updated by `#[omp::atomic]`.
    Atomic,
    /// Listed in `unsafe(disjoint(..))`: a bounds-checked view without ownership (the user's promise).
    Unchecked,
}

/// A captured variable of a kernel.
#[derive(Debug, Clone)]
pub enum KernelArg {
    /// A scalar passed by value (`firstprivate`, also `private`): one slot.
    Scalar {
        /// Its name.
        name: Ident,
        /// Its primitive type (`f64`, `usize`, ...).
        ty: String,
        /// Whether the body mutates its private copy.
        private_mut: bool,
        /// A small fixed-size array of such scalars (`taps: [f64; 16]`) passed element by element, one slot each:
        /// kernel parameters, which GPUs read from their constant bank (CUDA's `__constant__` coefficients), not
        /// from device memory.
        inline_len: Option<usize>,
    },
    /// An array (or a scalar updated atomically, mapped as one element): base and length slots.
    Array {
        /// Its name.
        name: Ident,
        /// Element type.
        elem: Type,
        /// How the body uses it.
        usage: ArrayUse,
        /// Map type.
        map: MapKind,
        /// `always` / `present` modifiers and the section, from an explicit `map` clause.
        explicit: Option<ExplicitMap>,
        /// A scalar updated atomically (mapped as a one-element array).
        scalar: bool,
        /// A disjointly written array: its ownership's shape (the kernel ABI slots after base and length).
        owner: Option<OwnerShape>,
        /// A `private` / `firstprivate` array of this length (`[T; N]`): passed like a read-only array, and each
        /// iteration works on its own copy of it (the same per-iteration copy as the host path).
        private_len: Option<syn::Expr>,
        /// A plain-data struct captured by value (`p: Params`): passed like a read-only one-element array, and the
        /// kernel works on its own copy; `Some(true)` when the body changes that copy (`firstprivate` / `private`).
        by_value: Option<bool>,
    },
    /// `is_device_ptr(b)` with `b: omp::DeviceBuffer<T>`: device pointer and length slots.
    DeviceBuffer {
        /// Its name.
        name: Ident,
        /// Element type.
        elem: Type,
        /// How the body uses it.
        usage: ArrayUse,
        /// Whether the variable is a reference to the buffer (`&DeviceBuffer<T>`) rather than the buffer.
        by_ref: bool,
        /// Written disjointly: its ownership's shape.
        owner: Option<OwnerShape>,
    },
}

/// The shape of a written array's ownership slots: the nest's depth and the number of sequential-loop terms of
/// its index form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnerShape {
    /// Parallel dimensions.
    pub depth: usize,
    /// Sequential-loop terms.
    pub inner: usize,
}

/// What an explicit `map` clause said about a variable.
#[derive(Debug, Clone, Default)]
pub struct ExplicitMap {
    /// `always`
    pub always: bool,
    /// `present`
    pub present: bool,
    /// `x[a..b]`
    pub section: Option<Section>,
}

impl KernelArg {
    /// The variable.
    pub fn name(&self) -> &Ident {
        match self {
            KernelArg::Scalar { name, .. } | KernelArg::Array { name, .. } | KernelArg::DeviceBuffer { name, .. } => name,
        }
    }

    /// Its slots, in order.
    pub fn slots(&self) -> Vec<SlotKind> {
        match self {
            KernelArg::Scalar { ty, inline_len, .. } => vec![abi::scalar_slot(ty); inline_len.unwrap_or(1)],
            KernelArg::Array { owner, .. } | KernelArg::DeviceBuffer { owner, .. } => {
                let mut s = vec![SlotKind::ArrayBase, SlotKind::ArrayLen];
                if let Some(o) = owner {
                    s.extend(abi::owner_slots(o.depth, o.inner));
                }
                s
            }
        }
    }

    /// The ownership shape of a disjointly written array.
    pub fn owner(&self) -> Option<OwnerShape> {
        match self {
            KernelArg::Array { owner, .. } | KernelArg::DeviceBuffer { owner, .. } => *owner,
            KernelArg::Scalar { .. } => None,
        }
    }
}

/// A reduction variable of a kernel.
#[derive(Debug, Clone)]
pub struct KernelReduction {
    /// Its name.
    pub name: Ident,
    /// Its primitive type.
    pub ty: String,
    /// The operator.
    pub op: ReductionOp,
}

/// One mapping decision, for `cargo omp explain` and the docs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MapDecision {
    /// The variable.
    pub var: String,
    /// `to`, `from`, `tofrom`, `alloc`, `firstprivate`, `reduction(+)`, `device pointer`.
    pub map: String,
    /// Why.
    pub why: String,
}

/// Everything about one target loop region that both sides of the offload boundary need.
#[derive(Debug, Clone)]
pub struct KernelPlan {
    /// Kernel symbol name (the kernel ABI).
    pub name: String,
    /// The user function holding the region.
    pub function: String,
    /// Region index within the function.
    pub region: u32,
    /// The directive.
    pub directive: Directive,
    /// The loop nest.
    pub nest: LoopNest,
    /// The body's analysis.
    pub analysis: Analysis,
    /// Captured variables in slot order.
    pub args: Vec<KernelArg>,
    /// Integer type of each loop dimension.
    pub dim_types: Vec<String>,
    /// Reductions in slot order.
    pub reductions: Vec<KernelReduction>,
    /// The items the kernel copies (consts, helper functions, `use`s of `core` paths), as the build's name
    /// resolution chose them (`outline`; empty in the macros' plan).
    pub local_items: Vec<syn::Item>,
    /// The blocks enclosing the region, outermost first: their items and imports, for name resolution.
    pub scopes: Vec<crate::analyze::resolve::BlockScope>,
    /// The function's const generic parameters (a name the kernel cannot see).
    pub const_generics: Vec<String>,
    /// What the host expansion has rustc confirm about the build's choices for this kernel (`outline`).
    pub host_checks: Vec<crate::plan::manifest::HostCheck>,
    /// Why the build cannot reproduce the region's meaning on the device, if it cannot (`outline`): the macro makes
    /// each a compile error at the region.
    pub refusals: Vec<crate::plan::manifest::Refusal>,
    /// Mapping decisions.
    pub maps: Vec<MapDecision>,
    /// Struct field paths the region uses, as (local, type of the field): the build resolves them from the package's
    /// struct definitions (`struct_table`), the manifest hands them to the macro, which binds each local with that
    /// type before the launch.
    pub field_types: Vec<(String, String)>,
    /// The generic type parameters of the function that the region's values use (`T` of `a: &mut [T]`): the kernel
    /// is compiled once per instance of them, each a type alias in the device crate (`generic`).
    pub generics: Vec<String>,
    /// This kernel's instance (`[("T", "f32")]`) when it is one (the build's copies; the macro's plan has none).
    pub instance: Vec<(String, String)>,
}

impl KernelPlan {
    /// All slots after `dyn_ptr`, in order: captures, loop dimensions (first, trips, step), the walk of a collapsed
    /// nest (tile rows, tiles per row, tiles), reduction partials.
    pub fn slots(&self) -> Vec<SlotKind> {
        let mut s: Vec<SlotKind> = self.args.iter().flat_map(KernelArg::slots).collect();
        for _ in &self.dim_types {
            s.extend([SlotKind::LoopFirst, SlotKind::LoopTrips, SlotKind::LoopStep]);
        }
        if self.walks_in_tiles() {
            s.extend([SlotKind::WalkTileRows, SlotKind::WalkTilesPerRow, SlotKind::WalkTiles]);
        }
        s.extend(self.reductions.iter().map(|_| SlotKind::ReductionPartials));
        s
    }

    /// Whether the kernel may walk its nest in tiles (`omp_device::launch::Walk`): a collapsed nest whose body runs
    /// a loop of its own, so that neighbouring rows of a tile reuse what that loop reads (a row × column product,
    /// H200 2026-12-01: GEMM 2.01 -> 1.72 x CUDA). Bodies of one short iteration lose more to the tile arithmetic
    /// than they gain (JACOBI_2D 1.53 -> 1.91, NESTED_INIT 1.83 -> 2.48): they walk flat. Speed only: both walks run
    /// every iteration once.
    pub fn walks_in_tiles(&self) -> bool {
        struct FindLoop(bool);
        impl<'ast> syn::visit::Visit<'ast> for FindLoop {
            fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {
                self.0 = true;
            }
            fn visit_expr_while(&mut self, _: &'ast syn::ExprWhile) {
                self.0 = true;
            }
            fn visit_expr_loop(&mut self, _: &'ast syn::ExprLoop) {
                self.0 = true;
            }
        }
        let mut f = FindLoop(false);
        syn::visit::Visit::visit_block(&mut f, &self.nest.body);
        // A team body's threads are its (team, thread) pairs, in order: a flat walk.
        self.nest.dims.len() >= 2 && f.0 && !self.is_team_body()
    }

    /// The line of a region's `for` (1-based): in a build script always, in a proc macro on rustc 1.88 and later
    /// (0 before).
    pub fn region_line(&self) -> usize {
        self.nest.dims.first().map_or(0, |d| d.span.start().line)
    }

    /// Whether the kernel is an SPMD region's team body (barriers or team-local arrays, see `spmd::team`): one
    /// thread per (team, thread) pair, the grid exactly the region's teams of its team size.
    pub fn is_team_body(&self) -> bool {
        crate::names::spmd::is_team_body(&self.nest.body)
    }

    /// Whether the kernel's flat walk puts neighbouring threads on neighbouring outer iterations
    /// (`omp_device::launch::Walk::flat_outer_first`): a collapsed nest, not tiled, every loop counting by one,
    /// whose every written array's index moves by exactly ±1 with the second-innermost loop and by anything else
    /// (a row length, a literal other than ±1) with the innermost, as `t[col * nr + row]` under
    /// `for row { for col { .. } }` (HeCBench laplace as written): row-major threads would write elements `nr`
    /// apart, which no warp coalesces. Speed only: every walk runs each iteration once.
    pub fn lanes_follow_outer(&self) -> bool {
        let depth = self.nest.dims.len();
        if depth < 2 || self.walks_in_tiles() || self.is_team_body() || !self.nest.dims.iter().all(|d| d.counts_by_one()) {
            return false;
        }
        let unit = |c: &Coeff| c.atoms.is_empty() && c.lit.abs() == 1;
        let mut written = 0;
        for c in &self.analysis.captures {
            let Class::Disjoint(arr) = &c.class else { continue };
            if arr.whole {
                return false;
            }
            written += 1;
            let terms = arr.form.var_terms();
            let coeffs = |d: usize| -> Vec<&Coeff> {
                terms.iter().filter(|(v, _)| matches!(v, IterVar::Parallel(x) if *x == d)).map(|(_, c)| *c).collect()
            };
            let (outer, inner) = (coeffs(depth - 2), coeffs(depth - 1));
            let outer_is_unit = matches!(outer[..], [c] if unit(c));
            let inner_is_unit = matches!(inner[..], [c] if unit(c));
            if !outer_is_unit || inner_is_unit || inner.is_empty() {
                return false;
            }
        }
        written > 0
    }

    /// Whether the loop is `for _ in 0..1` (a serial `#[omp::target]` region, `expand::serial_target`): one
    /// iteration, so the kernel's one working thread may see its written arrays as plain slices.
    pub fn is_serial(&self) -> bool {
        let lit = |e: &Option<Box<syn::Expr>>, v: u64| matches!(e.as_deref(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) if i.base10_parse::<u64>().ok() == Some(v));
        match &self.nest.dims[..] {
            [d] => {
                d.var.is_none()
                    && d.adaptors.is_empty()
                    && matches!(d.base.limits, syn::RangeLimits::HalfOpen(_))
                    && lit(&d.base.start, 0)
                    && lit(&d.base.end, 1)
            }
            _ => false,
        }
    }

    /// The atomic arrays the kernel only adds to (`#[omp::atomic] x[i] += v` / `-=`, nothing else): GPU teams may
    /// combine their additions in shared memory first (`omp_device::view::TeamAdds`), and the launch then gives
    /// each thread several iterations, as for reductions (`ArgPack::team_adds`).
    pub fn team_added(&self) -> Vec<&Ident> {
        /// Each atomic statement's root variable, and whether it is an addition.
        struct Atomics(Vec<(Ident, bool)>);
        impl<'ast> syn::visit::Visit<'ast> for Atomics {
            fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
                if let Ok(Some(crate::syntax::body::BodyDirective::Atomic(a))) = crate::syntax::body::statement_directive(stmt) {
                    if let Some(root) = crate::syntax::place::place_root(&a.target) {
                        let adds = a.kind == crate::model::AtomicKind::Update
                            && matches!(
                                a.op.unwrap_or(crate::syntax::body::AtomicOp::Add),
                                crate::syntax::body::AtomicOp::Add | crate::syntax::body::AtomicOp::Sub
                            );
                        self.0.push((root.ident.clone(), adds));
                    }
                    return;
                }
                syn::visit::visit_stmt(self, stmt);
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        if self.is_team_body() {
            // Its teams' shared memory belongs to the team-local arrays, and its grid is the region's.
            return Vec::new();
        }
        let mut found = Atomics(Vec::new());
        syn::visit::Visit::visit_block(&mut found, &self.nest.body);
        self.args
            .iter()
            .filter_map(|a| match a {
                KernelArg::Array { name, usage: ArrayUse::Atomic, .. } | KernelArg::DeviceBuffer { name, usage: ArrayUse::Atomic, .. } => {
                    let mut uses = found.0.iter().filter(|(v, _)| v == name).peekable();
                    (uses.peek().is_some() && uses.all(|(_, adds)| *adds)).then_some(name)
                }
                _ => None,
            })
            .collect()
    }
}

/// Macros of `std` that a kernel cannot run (the device has no allocator; `dbg!` returns its value), each reported at
/// its use instead of failing the device build. `println!` and kin print through the device's printf
/// (`omp_device::print`).
const HOST_ONLY_MACROS: &[&str] = &["dbg", "format", "vec"];

fn host_only_macros(body: &syn::Block, cx: &Ctxt) {
    struct Find<'c>(&'c Ctxt);
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let Some(name) = m.path.segments.last().map(|s| s.ident.to_string()) else { return };
            if HOST_ONLY_MACROS.contains(&name.as_str()) {
                let msg = if name == "dbg" {
                    "`dbg!` cannot run in a target region: print the value with `println!(\"{:?}\", x)`, which prints \
                     from the device"
                        .to_string()
                } else {
                    format!(
                        "`{name}!` cannot run in a target region: it allocates, and the device has no allocator. Compute \
                         into an array and use it after the region (or run the region on the host with `if(false)` while \
                         debugging)"
                    )
                };
                self.0.error_spanned_by(&m.path, msg);
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    syn::visit::Visit::visit_block(&mut Find(cx), body);
}

/// `N` of a fixed-size array type `[T; N]`.
/// Elements a fixed-size array value (`[f64; 16]`, not a reference) may pass as kernel parameters: a literal
/// length up to this, of a primitive of at most 8 bytes (one slot each).
const INLINE_ELEMENTS: usize = 32;

/// The length of an array value passed element by element ([`KernelArg::Scalar::inline_len`]), if it qualifies.
fn inline_len(ty: &Type, elem: &Type) -> Option<usize> {
    let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) = fixed_len(ty)? else { return None };
    let n: usize = n.base10_parse().ok()?;
    // The numeric scalars (a `bool` array stays a mapped array).
    let scalar = matches!(elem, Type::Path(p) if p.path.get_ident().is_some_and(|i| {
        let i = i.to_string();
        i != "bool" && types::SCALARS.contains(&i.as_str())
    }));
    (scalar && (1..=INLINE_ELEMENTS).contains(&n)).then_some(n)
}

fn fixed_len(ty: &Type) -> Option<syn::Expr> {
    match ty {
        Type::Array(a) => Some(a.len.clone()),
        Type::Paren(p) => fixed_len(&p.elem),
        Type::Group(g) => fixed_len(&g.elem),
        _ => None,
    }
}

/// The function a region lives in.
#[derive(Debug, Clone)]
pub struct FnInfo {
    /// Its name.
    pub name: String,
    /// Hash of its signature and body.
    pub hash: u64,
    /// Its generic type parameters (`T` of `fn triad<T: ...>`): a target region's values of these types are device
    /// scalars, and its kernel is compiled once per instance (`generic::INSTANCES`).
    pub generics: Vec<String>,
    /// Its const generic parameters (`W` of `fn f<const W: usize>`).
    pub const_generics: Vec<String>,
}

/// Builds the plan of a target loop region, reporting what cannot go to the device.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    d: &Directive,
    nest: &LoopNest,
    analysis: &Analysis,
    env: &TypeEnv,
    f: &FnInfo,
    region: u32,
    scopes: Vec<crate::analyze::resolve::BlockScope>,
    cx: &Ctxt,
) -> KernelPlan {
    host_only_macros(&nest.body, cx);
    let mut args = Vec::new();
    let mut reductions = Vec::new();
    let mut maps = Vec::new();
    let explicit = explicit_maps(d);
    let device_ptrs: Vec<String> = d.settings.is_device_ptr.iter().map(|i| i.to_string()).collect();

    for cap in &analysis.captures {
        let name = cap.name.clone();
        let key = name.to_string();
        let ty = match env.lookup(&key) {
            Some(Some(t)) => t.clone(),
            Some(None) if env.is_closure(&key) => {
                cx.error_spanned_by(
                    &name,
                    format!(
                        "the closure `{key}` cannot go to the device (a kernel takes arrays and values, not closures): \
                         write it as a `fn` of the module (plain functions called in a target region are compiled for \
                         the device) and pass it what it captured"
                    ),
                );
                continue;
            }
            Some(None) => {
                cx.error_spanned_by(
                    &name,
                    format!(
                        "the device kernel of this target region needs the type of `{key}`, which its declaration \
                         does not show: annotate it (e.g. `let {key}: f64 = ...`, `let {key}: usize = ...`, \
                         `let {key}: Vec<f64> = ...`)"
                    ),
                );
                continue;
            }
            None if key == "self" => {
                cx.error_spanned_by(
                    &name,
                    "a target region cannot take `self` as a whole (a method call on it, `&self`): use its fields \
                     (`self.a[i]`), which become arrays and values of the kernel",
                );
                continue;
            }
            // Not a local variable: a const, static or fn the kernel sees as an item.
            None => continue,
        };
        let generic = match &ty {
            Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()).filter(|n| f.generics.contains(n)),
            _ => None,
        };
        let dtype = match generic.map(DeviceType::Scalar).map_or_else(|| types::device_type(&ty), Ok) {
            Ok(t) => t,
            Err(why) => {
                cx.error_spanned_by(&name, format!("`{key}` cannot be used in a target region: {why}"));
                continue;
            }
        };
        let usage = match &cap.class {
            Class::Disjoint(_) => ArrayUse::Disjoint,
            Class::Atomic { .. } => ArrayUse::Atomic,
            Class::Unchecked { .. } => ArrayUse::Unchecked,
            _ => ArrayUse::Read,
        };
        let owner = match &cap.class {
            // One more sequential-loop-like term when the iteration also owns accesses at offsets (`Affine::offsets`).
            Class::Disjoint(arr) => Some(OwnerShape {
                depth: nest.dims.len(),
                inner: arr.form.inner_ranges.len() + usize::from(!arr.offsets.is_empty() || arr.whole),
            }),
            _ => None,
        };
        match (&cap.class, dtype) {
            (Class::Critical { .. }, _) => {
                cx.error_spanned_by(&name, "`#[omp::critical]` is not supported in target regions: use `#[omp::atomic]`");
            }
            (Class::Reduction(op), DeviceType::Scalar(t)) => {
                maps.push(MapDecision { var: key, map: format!("reduction({})", op.spelling()), why: "reduction clause".into() });
                reductions.push(KernelReduction { name, ty: t, op: op.clone() });
            }
            // A user-defined reduction of a `#[omp::declare_target]` struct: its partials travel as plain data (the
            // launch's `Pod` bound says whether the type is one).
            (Class::Reduction(op), DeviceType::Value(t)) if op.is_user() => {
                maps.push(MapDecision { var: key, map: format!("reduction({})", op.spelling()), why: "reduction clause".into() });
                reductions.push(KernelReduction { name, ty: t.to_token_stream().to_string(), op: op.clone() });
            }
            (Class::Reduction(_), _) => {
                // `type Real = f32;`: the macro reads the declaration's words, not what an alias stands for.
                let alias = match &ty {
                    Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
                    _ => None,
                };
                let why = match alias {
                    Some(a) => format!(
                        "; its type `{a}` is not a primitive type name (a `type` alias is not followed into the kernel): \
                         declare it with the primitive type `{a}` stands for (`let mut {key}: f32 = 0.0;` for \
                         `type {a} = f32;`)"
                    ),
                    None => String::new(),
                };
                cx.error_spanned_by(&name, format!("reduction variable `{key}` must be a primitive scalar{why}"))
            }
            (Class::Atomic { indexed: false }, DeviceType::Scalar(t)) => {
                maps.push(MapDecision { var: key, map: "tofrom".into(), why: "updated by `#[omp::atomic]`".into() });
                let elem: Type = syn::parse_str(&t).unwrap_or_else(|_| ty.clone());
                args.push(KernelArg::Array {
                    name,
                    elem,
                    usage,
                    map: MapKind::ToFrom,
                    explicit: None,
                    scalar: true,
                    owner: None,
                    private_len: None,
                    by_value: None,
                });
            }
            (Class::Private | Class::Firstprivate | Class::Shared, DeviceType::Scalar(t)) => {
                let private_mut = matches!(cap.class, Class::Private | Class::Firstprivate) && cap.written;
                maps.push(MapDecision { var: key, map: "firstprivate".into(), why: format!("`{t}` passed by value") });
                args.push(KernelArg::Scalar { name, ty: t, private_mut, inline_len: None });
            }
            // A small array passed by value, one slot per element, unless a `target_data` block maps it (the region
            // then uses the block's device copy, as an array).
            (Class::Private | Class::Firstprivate | Class::Shared, DeviceType::Array { elem, .. })
                if inline_len(&ty, &elem).is_some() && !env.is_mapped(&key) =>
            {
                // Each iteration's own copy (an element write may not count as writing the variable).
                let private_mut = matches!(cap.class, Class::Private | Class::Firstprivate);
                let n = inline_len(&ty, &elem).unwrap_or(0);
                maps.push(MapDecision {
                    var: key,
                    map: "firstprivate".into(),
                    why: format!("`{}` passed by value, one kernel parameter per element", ty.to_token_stream()),
                });
                args.push(KernelArg::Scalar { name, ty: elem.to_token_stream().to_string(), private_mut, inline_len: Some(n) });
            }
            (Class::Private | Class::Firstprivate, DeviceType::Array { elem, .. }) if fixed_len(&ty).is_some() => {
                maps.push(MapDecision { var: key, map: "to".into(), why: "private array: each iteration works on a copy".into() });
                let private_len = fixed_len(&ty);
                args.push(KernelArg::Array {
                    name,
                    elem,
                    usage: ArrayUse::Read,
                    map: MapKind::To,
                    explicit: None,
                    scalar: false,
                    owner: None,
                    private_len,
                    by_value: None,
                });
            }
            (Class::Private | Class::Firstprivate | Class::Shared, DeviceType::Value(elem)) => {
                let changed = matches!(cap.class, Class::Private | Class::Firstprivate) && cap.written;
                maps.push(MapDecision { var: key, map: "firstprivate".into(), why: format!("`{}` passed by value", ty.to_token_stream()) });
                args.push(KernelArg::Array {
                    name,
                    elem,
                    usage: ArrayUse::Read,
                    map: MapKind::To,
                    explicit: None,
                    scalar: false,
                    owner: None,
                    private_len: None,
                    by_value: Some(changed),
                });
            }
            (_, DeviceType::Value(_)) => cx.error_spanned_by(
                &name,
                format!(
                    "`{key}` is passed to the target region by value: the region may read it, or change its own copy \
                     with `firstprivate({key})`; to write results back, use an array (`&mut [T]`)"
                ),
            ),
            (Class::Private | Class::Firstprivate, _) => cx.error_spanned_by(
                &name,
                format!(
                    "`{key}`: only scalars and fixed-size arrays (`[T; N]`) can be private in a target region; declare \
                     other arrays inside the loop body"
                ),
            ),
            (_, DeviceType::DeviceBuffer { elem }) => {
                if !device_ptrs.contains(&key) {
                    cx.error_spanned_by(
                        &name,
                        format!("`{key}` is an `omp::DeviceBuffer`: list it in `is_device_ptr({key})` to use its device memory"),
                    );
                }
                maps.push(MapDecision { var: key, map: "device pointer".into(), why: "is_device_ptr".into() });
                let by_ref = matches!(ty, Type::Reference(_));
                args.push(KernelArg::DeviceBuffer { name, elem, usage, by_ref, owner });
            }
            (_, DeviceType::Array { elem, mutable }) => {
                let written = usage != ArrayUse::Read;
                let (map, why) = match explicit.iter().find(|(n, _, _)| *n == key) {
                    Some((_, kind, _)) => (*kind, "explicit map clause".to_string()),
                    None if written => (MapKind::ToFrom, "written by the region".to_string()),
                    // `&mut` maps `tofrom` (DESIGN.md: mappings come from the types); an owned array or `Vec` the
                    // region only reads is copied in only.
                    None if mutable && is_reference(&ty) => (MapKind::ToFrom, format!("`{}` (mutable)", ty.to_token_stream())),
                    None => (MapKind::To, format!("`{}` (read only)", ty.to_token_stream())),
                };
                if written && !mutable {
                    cx.error_spanned_by(
                        &name,
                        format!("`{key}` is written by the region but its type `{}` is a shared borrow", ty.to_token_stream()),
                    );
                }
                if written && map == MapKind::To {
                    // The device's writes would be dropped at the end of the region, the host fallback's kept: one
                    // program, two results (a `target_data` block refuses the same).
                    cx.error_spanned_by(
                        &name,
                        format!(
                            "`{key}` is mapped `to:` (copied to the device, never back), but this region writes it: the \
                             writes would be lost on a GPU and kept on the host. Map it `tofrom:` (or leave the map out: \
                             a written array is `tofrom`), or `alloc:` if it is scratch space whose contents after the \
                             region do not matter"
                        ),
                    );
                }
                let ex = explicit.iter().find(|(n, _, _)| *n == key).map(|(_, _, e)| e.clone());
                if let Some(crate::model::Section { end: Some(end), .. }) = ex.as_ref().and_then(|e| e.section.as_ref()) {
                    section_len_uses(&nest.body, &name, end, cx);
                }
                maps.push(MapDecision { var: key, map: map_name(map).into(), why });
                args.push(KernelArg::Array {
                    name,
                    elem,
                    usage,
                    map,
                    explicit: ex,
                    scalar: false,
                    owner,
                    private_len: None,
                    by_value: None,
                });
            }
            (_, DeviceType::Scalar(_)) => {}
        }
    }
    // Reductions after every other slot (the kernel ABI).
    let dim_types = dim_types(nest, env);
    // The generic parameters the kernel's values are typed with.
    let mut typed: Vec<String> = Vec::new();
    for a in &args {
        match a {
            KernelArg::Scalar { ty, .. } => typed.push(ty.clone()),
            KernelArg::Array { elem, .. } | KernelArg::DeviceBuffer { elem, .. } => typed.push(elem.to_token_stream().to_string()),
        }
    }
    typed.extend(reductions.iter().map(|r| r.ty.clone()));
    let used_generics: Vec<String> = f
        .generics
        .iter()
        .filter(|g| typed.iter().any(|t| t.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == g.as_str())))
        .cloned()
        .collect();
    // A type parameter only the body names (`T::default()` with no value of type `T`) has no instance to compile.
    for g in f.generics.iter().filter(|g| !used_generics.contains(g)) {
        let ident = Ident::new(g, proc_macro2::Span::call_site());
        if crate::syntax::loops::mentions(nest.body.to_token_stream(), &ident) {
            cx.error_spanned_by(
                &nest.body,
                format!(
                    "this target region names the type parameter `{g}`, but none of its values has that type: its kernel \
                     is compiled per instance of the parameters its arrays and scalars are typed with"
                ),
            );
        }
    }
    let fn_name = f.name.trim_start_matches("r#");
    KernelPlan {
        name: abi::kernel_name(fn_name, region, f.hash),
        function: f.name.clone(),
        region,
        directive: d.clone(),
        nest: nest.clone(),
        analysis: analysis.clone(),
        args,
        dim_types,
        reductions,
        local_items: Vec::new(),
        scopes,
        const_generics: f.const_generics.clone(),
        host_checks: Vec::new(),
        refusals: Vec::new(),
        maps,
        field_types: Vec::new(),
        generics: used_generics,
        instance: Vec::new(),
    }
}

/// `x.len()` / `x.is_empty()` in the body of a region that maps only the section `x[..end]`: on the device `x` holds
/// the section's elements, on the host all of them, so the two paths would read different lengths.
fn section_len_uses(body: &syn::Block, var: &Ident, end: &syn::Expr, cx: &Ctxt) {
    struct Find<'a> {
        var: &'a Ident,
        end: &'a syn::Expr,
        cx: &'a Ctxt,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let on_var = matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident(self.var));
            if on_var && (m.method == "len" || m.method == "is_empty") {
                let (v, e) = (self.var.to_string(), self.end.to_token_stream().to_string());
                self.cx.error_spanned_by(
                    m,
                    format!(
                        "`{v}` is mapped as a section ending at `{e}`: in the device kernel `{v}` holds that section, on \
                         the host the whole variable, so `{v}.{}()` would differ between them. Use the section's bound \
                         (`{e}`) instead, or map all of `{v}`",
                        m.method
                    ),
                );
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    syn::visit::Visit::visit_block(&mut Find { var, end, cx }, body);
}

/// The integer type of each loop dimension of a kernel: the bounds' type where it is evident, else the type rustc
/// would infer for unsuffixed literal bounds, as far as the body shows it: `usize` when the variable indexes an
/// array directly (`y[i]`, `y[i * n + j]`), else `i32` (a negative bound, or no use that fixes it). This is a guess
/// that cannot change meaning: the host expansion asserts at compile time that rustc gave the loop variable this
/// type (`omp::__private::check::kernel_loop_type`), so another inference is a compile error naming the fix.
pub fn dim_types(nest: &LoopNest, env: &TypeEnv) -> Vec<String> {
    nest.dims
        .iter()
        .map(|dim| {
            if let Some(t) = types::range_type(&dim.base, env) {
                return t;
            }
            let negative = [&dim.base.start, &dim.base.end]
                .into_iter()
                .flatten()
                .any(|e| matches!(&**e, syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), .. })));
            let indexes = dim.var.as_ref().is_some_and(|v| indexes_directly(&nest.body, v));
            if indexes && !negative { "usize" } else { "i32" }.to_string()
        })
        .collect()
}

/// Whether `v` appears in an index expression (`a[..v..]`) outside any cast.
fn indexes_directly(body: &syn::Block, v: &Ident) -> bool {
    struct Find<'a> {
        v: &'a Ident,
        in_index: u32,
        in_cast: u32,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
            self.visit_expr(&e.expr);
            // An index fixes its own variables' type, whatever the expression around it does with the element.
            let cast = std::mem::take(&mut self.in_cast);
            self.in_index += 1;
            self.visit_expr(&e.index);
            self.in_index -= 1;
            self.in_cast = cast;
        }
        fn visit_expr_cast(&mut self, c: &'ast syn::ExprCast) {
            self.in_cast += 1;
            syn::visit::visit_expr_cast(self, c);
            self.in_cast -= 1;
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            // `x.get(i)`, `x.get_mut(i)`, `v.swap(i, j)` take `usize` indices too.
            self.visit_expr(&m.receiver);
            let index_like = matches!(m.method.to_string().as_str(), "get" | "get_mut" | "swap");
            self.in_index += u32::from(index_like);
            for a in &m.args {
                self.visit_expr(a);
            }
            self.in_index -= u32::from(index_like);
        }
        fn visit_ident(&mut self, i: &'ast Ident) {
            if i == self.v && self.in_index > 0 && self.in_cast == 0 {
                self.found = true;
            }
        }
    }
    // `let indt = ll * nz * nx + k * nx + i; tend[indt]`: a local computed from `v` by arithmetic has `v`'s type,
    // so an index by it fixes `v`'s type too (to a fixed point: locals computed from such locals).
    let mut names = vec![v.clone()];
    loop {
        let mut lets = SameType { names: &names, found: Vec::new() };
        syn::visit::Visit::visit_block(&mut lets, body);
        let new: Vec<Ident> = lets.found.into_iter().filter(|n| !names.contains(n)).collect();
        if new.is_empty() {
            break;
        }
        names.extend(new);
    }
    names.iter().any(|v| {
        let mut f = Find { v, in_index: 0, in_cast: 0, found: false };
        syn::visit::Visit::visit_block(&mut f, body);
        f.found
    })
}

/// The untyped `let x = <arithmetic>` bindings whose value has the type of one of `names`: an arithmetic tree
/// (`+ - * / %`, parentheses, negation) with one of them as an operand (Rust's arithmetic takes one type on both
/// sides; a shift, a cast or a call does not carry the type).
struct SameType<'a> {
    names: &'a [Ident],
    found: Vec<Ident>,
}

impl SameType<'_> {
    fn carries(&self, e: &syn::Expr) -> bool {
        use syn::BinOp::*;
        match e {
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| self.names.contains(i)),
            syn::Expr::Paren(p) => self.carries(&p.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => self.carries(&u.expr),
            syn::Expr::Binary(b) if matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_)) => {
                self.carries(&b.left) || self.carries(&b.right)
            }
            _ => false,
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for SameType<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let (syn::Pat::Ident(p), Some(init)) = (&l.pat, &l.init) {
            if p.subpat.is_none() && self.carries(&init.expr) {
                self.found.push(p.ident.clone());
            }
        }
        syn::visit::visit_local(self, l);
    }
}

fn explicit_maps(d: &Directive) -> Vec<(String, MapKind, ExplicitMap)> {
    d.settings
        .maps
        .iter()
        .flat_map(|m| {
            m.items.iter().map(move |it| {
                (
                    it.var.to_string(),
                    m.kind,
                    ExplicitMap { always: m.modifiers.always, present: m.modifiers.present, section: it.section.clone() },
                )
            })
        })
        .collect()
}

/// OpenMP's spelling of a map type.
pub fn map_name(k: MapKind) -> &'static str {
    match k {
        MapKind::To => "to",
        MapKind::From => "from",
        MapKind::ToFrom => "tofrom",
        MapKind::Alloc => "alloc",
        MapKind::Release => "release",
        MapKind::Delete => "delete",
    }
}

/// Span of the first dimension (for messages about the whole region).
pub fn region_span(nest: &LoopNest) -> Span {
    nest.dims.first().map_or_else(Span::call_site, |d| d.span)
}

/// Whether a declared type is a borrow (`&T`, `&mut T`), seen through parentheses.
fn is_reference(ty: &Type) -> bool {
    match ty {
        Type::Reference(_) => true,
        Type::Paren(p) => is_reference(&p.elem),
        Type::Group(g) => is_reference(&g.elem),
        _ => false,
    }
}

#[cfg(test)]
mod test {
    /// A loop whose bounds do not say their type (`0..4`, `0..NUM_VARS`) takes `usize` when its variable reaches an
    /// index, directly or through locals computed from it (miniWeather's `let indt = ll * nz * nx + k * nx + i;
    /// tend[indt]`); a shift or a cast does not carry the type.
    #[test]
    fn loop_types_follow_locals_into_indices() {
        let indexes = |body: &str| {
            let b: syn::Block = syn::parse_str(&format!("{{ {body} }}")).unwrap_or_else(|e| panic!("{e}"));
            super::indexes_directly(&b, &syn::parse_quote!(ll))
        };
        assert!(indexes("let ind = ll * n + k; t[ind] = a[k];"));
        assert!(indexes("let base = ll * n; let ind = base + k; t[ind] = a[k];"));
        assert!(!indexes("let ind = (ll as usize) * n + k; t[ind] = a[k];"));
        assert!(!indexes("let bit = 1usize << ll; t[k] = bit as f64;"));
    }
}
