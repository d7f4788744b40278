//! The typed directive model: what a parsed `#[omp::…]` means, independent of how it is lowered.
//!
//! Parsing gives the clauses as written (each with its span, for the checks' messages); once checked, they are read
//! into [`Settings`], the typed fields every later stage (analysis, host and device lowering) uses.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, Ident};

/// The leaf constructs a combined OpenMP construct is made of (`target teams distribute parallel for`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Leaves(u8);

impl Leaves {
    /// `target`: the region runs on the device.
    pub const TARGET: Leaves = Leaves(1);
    /// `teams`: a league of teams.
    pub const TEAMS: Leaves = Leaves(2);
    /// `distribute`: iterations spread over teams.
    pub const DISTRIBUTE: Leaves = Leaves(4);
    /// `parallel`: a team of threads.
    pub const PARALLEL: Leaves = Leaves(8);
    /// `for`: iterations spread over the threads of a team.
    pub const FOR: Leaves = Leaves(16);
    /// `simd`: vectorisation hint.
    pub const SIMD: Leaves = Leaves(32);
    /// `loop`: iterations may run concurrently, the implementation picks how.
    pub const LOOP: Leaves = Leaves(64);

    /// The union of two sets.
    pub const fn with(self, other: Leaves) -> Leaves {
        Leaves(self.0 | other.0)
    }

    /// Whether every leaf of `other` is in `self`.
    pub const fn contains(self, other: Leaves) -> bool {
        self.0 & other.0 == other.0
    }

    /// Iterator over the single leaves.
    pub fn iter(self) -> impl Iterator<Item = Leaves> {
        (0..7).map(|b| Leaves(1 << b)).filter(move |l| self.contains(*l))
    }
}

/// What kind of directive a name denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstructKind {
    /// An executable construct made of leaves (`parallel_for`, `target`, `target_teams_distribute_parallel_for`, ...).
    Executable(Leaves),
    /// `target data`: a structured data region.
    TargetData,
    /// `target update`: copy between host and device inside a data region.
    TargetUpdate,
    /// `target enter data`: unstructured mapping start.
    TargetEnterData,
    /// `target exit data`: unstructured mapping end.
    TargetExitData,
    /// `atomic` statement.
    Atomic,
    /// `critical` block.
    Critical,
    /// `declare target` on a fn, struct or static.
    DeclareTarget,
}

/// A directive name as written, with its kind.
#[derive(Debug, Clone)]
pub struct Construct {
    /// The OpenMP spelling with `_` (`target_teams_distribute_parallel_for`).
    pub name: &'static str,
    /// What it is.
    pub kind: ConstructKind,
    /// Span of the name in the attribute.
    pub span: Span,
}

impl Construct {
    /// Leaves of an executable construct (empty for the others).
    pub fn leaves(&self) -> Leaves {
        match self.kind {
            ConstructKind::Executable(l) => l,
            _ => Leaves(0),
        }
    }

    /// Whether the construct offloads to a device (`target…`).
    pub fn is_target(&self) -> bool {
        self.leaves().contains(Leaves::TARGET)
    }

    /// Whether the construct applies to a loop nest.
    pub fn is_loop(&self) -> bool {
        let l = self.leaves();
        [Leaves::FOR, Leaves::DISTRIBUTE, Leaves::SIMD, Leaves::LOOP].iter().any(|x| l.contains(*x))
    }

    /// Whether the iterations of the loop are spread over threads/teams (`simd` alone is not).
    pub fn is_parallel_loop(&self) -> bool {
        let l = self.leaves();
        [Leaves::FOR, Leaves::DISTRIBUTE, Leaves::LOOP].iter().any(|x| l.contains(*x))
    }

    /// Comma-separated list of the clauses this construct takes, for messages.
    pub fn allowed_list(&self) -> String {
        let names: Vec<String> = self
            .allowed_clauses()
            .iter()
            .map(|c| match c {
                ClauseName::UnsafeDisjoint => "`unsafe(disjoint(..))`".to_string(),
                c => format!("`{}`", c.as_str()),
            })
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    }

    /// Clauses OpenMP allows on this construct (the union over its leaves).
    pub fn allowed_clauses(&self) -> Vec<ClauseName> {
        use ClauseName::*;
        let mut out: Vec<ClauseName> = Vec::new();
        let mut add = |cs: &[ClauseName]| {
            for c in cs {
                if !out.contains(c) {
                    out.push(*c);
                }
            }
        };
        match self.kind {
            ConstructKind::Executable(leaves) => {
                for leaf in leaves.iter() {
                    match leaf {
                        Leaves::TARGET => add(&[If, Device, Map, Private, Firstprivate, IsDevicePtr, Nowait, Depend, ThreadLimit]),
                        Leaves::TEAMS => add(&[NumTeams, ThreadLimit, Default, Private, Firstprivate, Shared, Reduction, If]),
                        Leaves::DISTRIBUTE => add(&[Private, Firstprivate, Collapse, DistSchedule, Order]),
                        Leaves::PARALLEL => add(&[If, NumThreads, Default, Private, Firstprivate, Shared, Reduction, ProcBind]),
                        Leaves::FOR => add(&[Private, Firstprivate, Reduction, Schedule, Collapse, Order, Nowait, UnsafeDisjoint]),
                        Leaves::SIMD => add(&[Private, Reduction, Collapse, Safelen, Simdlen, If, Order]),
                        Leaves::LOOP => add(&[Collapse, Order, Private, Reduction]),
                        _ => {}
                    }
                }
                // `nowait` on a combined `parallel for` is not OpenMP; only target constructs take it.
                if leaves.contains(Leaves::PARALLEL) && !leaves.contains(Leaves::TARGET) {
                    out.retain(|c| *c != Nowait);
                }
            }
            ConstructKind::TargetData => add(&[If, Device, Map]),
            ConstructKind::TargetUpdate => add(&[If, Device, To, From, Nowait, Depend]),
            ConstructKind::TargetEnterData | ConstructKind::TargetExitData => add(&[If, Device, Map, Nowait, Depend]),
            ConstructKind::Atomic => add(&[Read, Write, Update, Capture, Compare, SeqCst, AcqRel, Acquire, Release, Relaxed, Hint]),
            ConstructKind::Critical => add(&[Hint]),
            ConstructKind::DeclareTarget => {}
        }
        out
    }
}

/// Clause names (see `keyword::CLAUSES` for spellings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ClauseName {
    Collapse,
    Reduction,
    Map,
    Schedule,
    DistSchedule,
    NumThreads,
    NumTeams,
    ThreadLimit,
    If,
    Device,
    Nowait,
    Depend,
    IsDevicePtr,
    Private,
    Firstprivate,
    Shared,
    Default,
    Simdlen,
    Safelen,
    ProcBind,
    Order,
    To,
    From,
    Read,
    Write,
    Update,
    Capture,
    Compare,
    SeqCst,
    AcqRel,
    Acquire,
    Release,
    Relaxed,
    Hint,
    /// `unsafe(disjoint(vars))`: omp-rs's escape hatch (not OpenMP), see [`ClauseValue::UnsafeDisjoint`].
    UnsafeDisjoint,
}

impl ClauseName {
    /// Clauses that may appear more than once on one directive.
    pub fn repeatable(self) -> bool {
        use ClauseName::*;
        matches!(self, Reduction | Map | Depend | IsDevicePtr | Private | Firstprivate | Shared | To | From | UnsafeDisjoint)
    }
}

/// Reduction operators (`reduction(op: vars)`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReductionOp {
    /// `+` (also OpenMP's deprecated `-`, which means `+`).
    Add,
    /// `*`
    Mul,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&&`
    LogAnd,
    /// `||`
    LogOr,
    /// A user-defined reduction: a `#[omp::declare_reduction]` fn of this name, in scope where the clause is (OpenMP's
    /// `declare reduction`). The attribute also declares a type of the same name implementing `Reducer`.
    User(Ident),
}

impl ReductionOp {
    /// The operator as a `reduction` clause spells it.
    pub fn spelling(&self) -> String {
        let builtin = match self {
            ReductionOp::Add => "+",
            ReductionOp::Mul => "*",
            ReductionOp::Min => "min",
            ReductionOp::Max => "max",
            ReductionOp::BitAnd => "&",
            ReductionOp::BitOr => "|",
            ReductionOp::BitXor => "^",
            ReductionOp::LogAnd => "&&",
            ReductionOp::LogOr => "||",
            ReductionOp::User(name) => return name.to_string(),
        };
        builtin.to_string()
    }

    /// The type implementing `Reducer` for this operator: a marker type of `builtins` (`omp::__private::reduce` on
    /// the host, `omp_device::reduce` in kernels), or the user's reducer type as the clause names it.
    pub fn reducer(&self, builtins: TokenStream) -> TokenStream {
        let name = match self {
            ReductionOp::Add => "Add",
            ReductionOp::Mul => "Mul",
            ReductionOp::Min => "Min",
            ReductionOp::Max => "Max",
            ReductionOp::BitAnd => "BitAnd",
            ReductionOp::BitOr => "BitOr",
            ReductionOp::BitXor => "BitXor",
            ReductionOp::LogAnd => "LogAnd",
            ReductionOp::LogOr => "LogOr",
            ReductionOp::User(name) => return quote!(#name),
        };
        let name = Ident::new(name, Span::call_site());
        quote!(#builtins::#name)
    }

    /// Whether this is a user-defined reduction (`#[omp::declare_reduction]`).
    pub fn is_user(&self) -> bool {
        matches!(self, ReductionOp::User(_))
    }
}

/// `reduction(op: a, b)`.
#[derive(Debug, Clone)]
pub struct Reduction {
    /// The operator.
    pub op: ReductionOp,
    /// The reduced variables.
    pub vars: Vec<Ident>,
}

/// Map types (`map(kind: …)`), plus the motion directions of `target update`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// Copy to the device on entry.
    To,
    /// Copy back to the host on exit.
    From,
    /// Both.
    ToFrom,
    /// Device storage only.
    Alloc,
    /// Decrement the reference count (exit data).
    Release,
    /// Force the reference count to zero (exit data).
    Delete,
}

impl MapKind {
    /// Whether the host copy is written (when the mapping ends, or by `target update from`).
    pub fn writes_host(self) -> bool {
        matches!(self, MapKind::From | MapKind::ToFrom)
    }
}

/// Map-type modifiers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MapModifiers {
    /// `always`: copy even if the data is already present.
    pub always: bool,
    /// `close`: a placement hint (accepted, no effect).
    pub close: bool,
    /// `present`: error if the data is not already mapped.
    pub present: bool,
}

/// An array section written with Rust range syntax: `x[a..b]`, `x[..n]`, `x[a..=b]`, `x[..]`.
#[derive(Debug, Clone)]
pub struct Section {
    /// First element (default 0).
    pub start: Option<Expr>,
    /// End bound (default: the length).
    pub end: Option<Expr>,
    /// `..=`
    pub inclusive: bool,
}

/// One item of a map/motion list: a variable, optionally with a section.
#[derive(Debug, Clone)]
pub struct MapItem {
    /// The mapped variable.
    pub var: Ident,
    /// The section, if any.
    pub section: Option<Section>,
}

/// `map([modifiers,] kind: items)`.
#[derive(Debug, Clone)]
pub struct Map {
    /// The map type.
    pub kind: MapKind,
    /// Its modifiers.
    pub modifiers: MapModifiers,
    /// Mapped items.
    pub items: Vec<MapItem>,
}

/// Schedule kinds (`schedule(kind[, chunk])`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleKind {
    /// Contiguous blocks (round-robin chunks with a chunk size).
    Static,
    /// Chunks handed out on demand.
    Dynamic,
    /// Shrinking chunks on demand.
    Guided,
    /// Implementation's choice (static here).
    Auto,
    /// From `OMP_SCHEDULE` at run time.
    Runtime,
}

/// `schedule(kind[, chunk])`.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// Kind.
    pub kind: ScheduleKind,
    /// Chunk size expression.
    pub chunk: Option<Expr>,
}

/// `depend(kind: vars)` kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DependKind {
    /// `in`
    In,
    /// `out`
    Out,
    /// `inout`
    InOut,
}

/// `default(...)`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultKind {
    /// `default(shared)`
    Shared,
    /// `default(none)`: every captured variable must be listed in a data-sharing clause.
    None,
    /// `default(firstprivate)`
    Firstprivate,
    /// `default(private)`
    Private,
}

/// `atomic` forms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AtomicKind {
    /// `x op= e` (default)
    #[default]
    Update,
    /// `v = x`
    Read,
    /// `x = e`
    Write,
    /// `let v = (x op= e);` (the new value)
    Capture,
    /// `if x < e { x = e; }` / `if x > e { x = e; }` (OpenMP 5.1's `atomic compare`, the min / max forms)
    Compare,
}

/// A clause with its parsed value.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum ClauseValue {
    Collapse(u32),
    Reduction(Reduction),
    Map(Map),
    Schedule(Schedule),
    DistSchedule(Option<Expr>),
    NumThreads(Expr),
    NumTeams(Expr),
    ThreadLimit(Expr),
    If {
        modifier: Option<Ident>,
        cond: Expr,
    },
    Device(Expr),
    Nowait,
    Depend {
        kind: DependKind,
        vars: Vec<Ident>,
    },
    IsDevicePtr(Vec<Ident>),
    Private(Vec<Ident>),
    Firstprivate(Vec<Ident>),
    Shared(Vec<Ident>),
    Default(DefaultKind),
    Simdlen(Expr),
    Safelen(Expr),
    ProcBind(Ident),
    Order(Ident),
    To(Vec<MapItem>),
    From(Vec<MapItem>),
    Atomic(AtomicKind),
    MemoryOrder(Ident),
    Hint(Expr),
    /// `unsafe(disjoint(a, b))` on a host parallel loop: the user asserts that no element of these arrays is
    /// written by one iteration and read or written by another; the loop reaches them unchecked (bounds still
    /// checked). `unsafe_token` is the user's `unsafe`, which the expansion's unsafe block carries, so that
    /// `#![forbid(unsafe_code)]` points at the clause.
    UnsafeDisjoint {
        unsafe_token: syn::token::Unsafe,
        vars: Vec<Ident>,
    },
}

/// A clause as written.
#[derive(Debug, Clone)]
pub struct Clause {
    /// Its name.
    pub name: ClauseName,
    /// Span of the whole clause (name and arguments).
    pub span: Span,
    /// Span of the name alone.
    pub name_span: Span,
    /// The value.
    pub value: ClauseValue,
}

/// `collapse(n)`: how many loops of the nest are spread over threads (1 when the clause is absent).
#[derive(Debug, Clone, Copy)]
pub struct Collapse {
    /// The count.
    pub depth: u32,
    /// Span of the clause, if written.
    pub span: Option<Span>,
}

impl Default for Collapse {
    fn default() -> Self {
        Collapse { depth: 1, span: None }
    }
}

/// One `to(..)` or `from(..)` list of `target update`, in source order.
#[derive(Debug, Clone)]
pub struct Motion {
    /// `to` (host to device) or `from`.
    pub to: bool,
    /// The items moved.
    pub items: Vec<MapItem>,
}

/// What a directive's clauses say, read once when it is parsed and checked ([`Settings::of`]): later stages read
/// these fields instead of searching the clause list. A clause the construct does not take was refused by then,
/// so a field is set only where it applies.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `collapse(n)`.
    pub collapse: Collapse,
    /// `schedule(kind[, chunk])`.
    pub schedule: Option<Schedule>,
    /// `num_threads(n)`.
    pub num_threads: Option<Expr>,
    /// `num_teams(n)`.
    pub num_teams: Option<Expr>,
    /// `thread_limit(n)`.
    pub thread_limit: Option<Expr>,
    /// `if(cond)` (a directive-name modifier, if any, was checked to apply to this construct).
    pub if_cond: Option<Expr>,
    /// `device(n)`.
    pub device: Option<Expr>,
    /// `nowait`.
    pub nowait: bool,
    /// `reduction(op: vars)`, in order.
    pub reductions: Vec<Reduction>,
    /// `map([modifiers,] kind: items)`, in order.
    pub maps: Vec<Map>,
    /// `to(..)` / `from(..)` of `target update`, in order.
    pub motions: Vec<Motion>,
    /// `private(vars)`.
    pub private: Vec<Ident>,
    /// `firstprivate(vars)`.
    pub firstprivate: Vec<Ident>,
    /// `is_device_ptr(vars)`.
    pub is_device_ptr: Vec<Ident>,
    /// `unsafe(disjoint(vars))`: each variable with the user's `unsafe` keyword.
    pub disjoint: Vec<(syn::token::Unsafe, Ident)>,
    /// The `atomic` form (update when none is written).
    pub atomic: AtomicKind,
}

impl Settings {
    /// Reads the (checked) clauses of a directive.
    pub fn of(clauses: &[Clause]) -> Settings {
        let mut s = Settings::default();
        for c in clauses {
            match &c.value {
                ClauseValue::Collapse(n) => s.collapse = Collapse { depth: *n, span: Some(c.span) },
                ClauseValue::Reduction(r) => s.reductions.push(r.clone()),
                ClauseValue::Map(m) => s.maps.push(m.clone()),
                ClauseValue::Schedule(x) => s.schedule = Some(x.clone()),
                ClauseValue::NumThreads(e) => s.num_threads = Some(e.clone()),
                ClauseValue::NumTeams(e) => s.num_teams = Some(e.clone()),
                ClauseValue::ThreadLimit(e) => s.thread_limit = Some(e.clone()),
                ClauseValue::If { cond, .. } => s.if_cond = Some(cond.clone()),
                ClauseValue::Device(e) => s.device = Some(e.clone()),
                ClauseValue::Nowait => s.nowait = true,
                ClauseValue::IsDevicePtr(v) => s.is_device_ptr.extend(v.iter().cloned()),
                ClauseValue::Private(v) => s.private.extend(v.iter().cloned()),
                ClauseValue::Firstprivate(v) => s.firstprivate.extend(v.iter().cloned()),
                ClauseValue::To(items) => s.motions.push(Motion { to: true, items: items.clone() }),
                ClauseValue::From(items) => s.motions.push(Motion { to: false, items: items.clone() }),
                ClauseValue::Atomic(k) => s.atomic = *k,
                ClauseValue::UnsafeDisjoint { unsafe_token, vars } => s.disjoint.extend(vars.iter().map(|v| (*unsafe_token, v.clone()))),
                // Accepted and checked; no later stage acts on them: dependences are met by the runtime's ordering of
                // launches on common data; data sharing follows from the types and uses (`default(..)` and
                // `shared(..)` change nothing: a variable the loop writes still needs its clause); the rest are
                // hints.
                ClauseValue::DistSchedule(_)
                | ClauseValue::Depend { .. }
                | ClauseValue::Shared(_)
                | ClauseValue::Default(_)
                | ClauseValue::Simdlen(_)
                | ClauseValue::Safelen(_)
                | ClauseValue::ProcBind(_)
                | ClauseValue::Order(_)
                | ClauseValue::MemoryOrder(_)
                | ClauseValue::Hint(_) => {}
            }
        }
        s
    }

    /// The reduced variables with their operators, in order.
    pub fn reduced(&self) -> impl Iterator<Item = (&Ident, ReductionOp)> {
        self.reductions.iter().flat_map(|r| r.vars.iter().map(move |v| (v, r.op.clone())))
    }

    /// Every mapped variable, in order.
    pub fn mapped(&self) -> impl Iterator<Item = &MapItem> {
        self.maps.iter().flat_map(|m| m.items.iter())
    }
}

/// A parsed directive: construct, clauses as written (for messages) and what they say.
#[derive(Debug, Clone)]
pub struct Directive {
    /// The construct.
    pub construct: Construct,
    /// Clauses in source order (already checked against the construct); only the checks read them.
    pub clauses: Vec<Clause>,
    /// What the clauses say.
    pub settings: Settings,
    /// `critical(name)`.
    pub critical_name: Option<Ident>,
}
