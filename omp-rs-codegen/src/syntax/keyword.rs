//! The one table of directive and clause spellings (serde's `symbol.rs`): nothing else matches on bare strings.
//!
//! Directive names are OpenMP 5.2's with spaces turned into `_`, so a port is a mechanical edit:
//! `#pragma omp target teams distribute parallel for` → `#[omp::target_teams_distribute_parallel_for]`.

use crate::model::{ClauseName, ConstructKind, Leaves};

/// Every directive omp-rs knows, with what it is made of.
pub const CONSTRUCTS: &[(&str, ConstructKind)] = &[
    ("parallel_for", ConstructKind::Executable(Leaves::PARALLEL.with(Leaves::FOR))),
    ("parallel_for_simd", ConstructKind::Executable(Leaves::PARALLEL.with(Leaves::FOR).with(Leaves::SIMD))),
    ("parallel_loop", ConstructKind::Executable(Leaves::PARALLEL.with(Leaves::LOOP))),
    ("simd", ConstructKind::Executable(Leaves::SIMD)),
    // Only as the body of an SPMD `target_teams` block (`desugar::spmd`).
    ("parallel", ConstructKind::Executable(Leaves::PARALLEL)),
    ("target", ConstructKind::Executable(Leaves::TARGET)),
    ("target_teams", ConstructKind::Executable(Leaves::TARGET.with(Leaves::TEAMS))),
    ("target_parallel", ConstructKind::Executable(Leaves::TARGET.with(Leaves::PARALLEL))),
    ("target_parallel_for", ConstructKind::Executable(Leaves::TARGET.with(Leaves::PARALLEL).with(Leaves::FOR))),
    ("target_parallel_for_simd", ConstructKind::Executable(Leaves::TARGET.with(Leaves::PARALLEL).with(Leaves::FOR).with(Leaves::SIMD))),
    ("target_parallel_loop", ConstructKind::Executable(Leaves::TARGET.with(Leaves::PARALLEL).with(Leaves::LOOP))),
    ("target_simd", ConstructKind::Executable(Leaves::TARGET.with(Leaves::SIMD))),
    ("target_teams_distribute", ConstructKind::Executable(Leaves::TARGET.with(Leaves::TEAMS).with(Leaves::DISTRIBUTE))),
    (
        "target_teams_distribute_simd",
        ConstructKind::Executable(Leaves::TARGET.with(Leaves::TEAMS).with(Leaves::DISTRIBUTE).with(Leaves::SIMD)),
    ),
    (
        "target_teams_distribute_parallel_for",
        ConstructKind::Executable(Leaves::TARGET.with(Leaves::TEAMS).with(Leaves::DISTRIBUTE).with(Leaves::PARALLEL).with(Leaves::FOR)),
    ),
    (
        "target_teams_distribute_parallel_for_simd",
        ConstructKind::Executable(
            Leaves::TARGET.with(Leaves::TEAMS).with(Leaves::DISTRIBUTE).with(Leaves::PARALLEL).with(Leaves::FOR).with(Leaves::SIMD),
        ),
    ),
    ("target_teams_loop", ConstructKind::Executable(Leaves::TARGET.with(Leaves::TEAMS).with(Leaves::LOOP))),
    ("teams_distribute", ConstructKind::Executable(Leaves::TEAMS.with(Leaves::DISTRIBUTE))),
    (
        "teams_distribute_parallel_for",
        ConstructKind::Executable(Leaves::TEAMS.with(Leaves::DISTRIBUTE).with(Leaves::PARALLEL).with(Leaves::FOR)),
    ),
    (
        "teams_distribute_parallel_for_simd",
        ConstructKind::Executable(Leaves::TEAMS.with(Leaves::DISTRIBUTE).with(Leaves::PARALLEL).with(Leaves::FOR).with(Leaves::SIMD)),
    ),
    ("teams_loop", ConstructKind::Executable(Leaves::TEAMS.with(Leaves::LOOP))),
    ("distribute_parallel_for", ConstructKind::Executable(Leaves::DISTRIBUTE.with(Leaves::PARALLEL).with(Leaves::FOR))),
    (
        "distribute_parallel_for_simd",
        ConstructKind::Executable(Leaves::DISTRIBUTE.with(Leaves::PARALLEL).with(Leaves::FOR).with(Leaves::SIMD)),
    ),
    ("target_data", ConstructKind::TargetData),
    ("target_update", ConstructKind::TargetUpdate),
    ("target_enter_data", ConstructKind::TargetEnterData),
    ("target_exit_data", ConstructKind::TargetExitData),
    ("atomic", ConstructKind::Atomic),
    ("critical", ConstructKind::Critical),
    ("declare_target", ConstructKind::DeclareTarget),
];

/// Looks a directive name up.
pub fn construct(name: &str) -> Option<ConstructKind> {
    CONSTRUCTS.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
}

/// The names of all directives, for "did you mean" messages.
pub fn construct_names() -> impl Iterator<Item = &'static str> {
    CONSTRUCTS.iter().map(|(n, _)| *n)
}

/// Clause spellings (OpenMP's), in the order they are listed to users.
pub const CLAUSES: &[(&str, ClauseName)] = &[
    ("collapse", ClauseName::Collapse),
    ("reduction", ClauseName::Reduction),
    ("map", ClauseName::Map),
    ("schedule", ClauseName::Schedule),
    ("dist_schedule", ClauseName::DistSchedule),
    ("num_threads", ClauseName::NumThreads),
    ("num_teams", ClauseName::NumTeams),
    ("thread_limit", ClauseName::ThreadLimit),
    ("if", ClauseName::If),
    ("device", ClauseName::Device),
    ("nowait", ClauseName::Nowait),
    ("depend", ClauseName::Depend),
    ("is_device_ptr", ClauseName::IsDevicePtr),
    ("private", ClauseName::Private),
    ("firstprivate", ClauseName::Firstprivate),
    ("shared", ClauseName::Shared),
    ("default", ClauseName::Default),
    ("simdlen", ClauseName::Simdlen),
    ("safelen", ClauseName::Safelen),
    ("proc_bind", ClauseName::ProcBind),
    ("order", ClauseName::Order),
    ("to", ClauseName::To),
    ("from", ClauseName::From),
    ("read", ClauseName::Read),
    ("write", ClauseName::Write),
    ("update", ClauseName::Update),
    ("compare", ClauseName::Compare),
    ("capture", ClauseName::Capture),
    ("seq_cst", ClauseName::SeqCst),
    ("acq_rel", ClauseName::AcqRel),
    ("acquire", ClauseName::Acquire),
    ("release", ClauseName::Release),
    ("relaxed", ClauseName::Relaxed),
    ("hint", ClauseName::Hint),
    ("unsafe", ClauseName::UnsafeDisjoint),
];

/// OpenMP clauses that omp-rs recognises but does not implement: a clear "not supported" beats "unknown".
pub const UNSUPPORTED_CLAUSES: &[&str] = &[
    "lastprivate",
    "linear",
    "aligned",
    "ordered",
    "copyin",
    "copyprivate",
    "allocate",
    "uses_allocators",
    "in_reduction",
    "task_reduction",
    "has_device_addr",
    "use_device_ptr",
    "use_device_addr",
    "defaultmap",
    "nontemporal",
    "bind",
];

/// Looks a clause name up.
pub fn clause(name: &str) -> Option<ClauseName> {
    CLAUSES.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

impl ClauseName {
    /// The OpenMP spelling.
    pub fn as_str(self) -> &'static str {
        CLAUSES.iter().find(|(_, c)| *c == self).map(|(n, _)| *n).unwrap_or("?")
    }
}

/// Reduction operator spellings accepted in `reduction(op: vars)`.
pub const REDUCTION_OPERATORS: &str = "`+`, `*`, `min`, `max`, `&`, `|`, `^`, `&&`, `||` or the name of a `#[omp::declare_reduction]` fn";
