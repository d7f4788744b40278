//! The attributes of omp-rs (use them through the `omp` crate: `#[omp::parallel_for]`). Each entry point is one
//! call into `omp_rs_codegen::driver::expand`, which parses, checks, analyses and lowers the directive.

use proc_macro::TokenStream;

macro_rules! directive {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[proc_macro_attribute]
        pub fn $name(args: TokenStream, item: TokenStream) -> TokenStream {
            omp_rs_codegen::driver::expand::attribute(stringify!($name), args.into(), item.into()).into()
        }
    )*};
}

directive! {
    /// `#pragma omp parallel for`: the loop's iterations run on a team of threads.
    /// Clauses: `reduction`, `schedule`, `collapse`, `num_threads`, `if`, `private`, `firstprivate`, `shared`, `default`.
    parallel_for;
    /// `#pragma omp parallel for simd` (the `simd` part is a hint).
    parallel_for_simd;
    /// `#pragma omp parallel loop`.
    parallel_loop;
    /// `#pragma omp simd`: a vectorisation hint; the loop stays sequential.
    simd;
    /// `#pragma omp target`: the function body (or block) is a target region; loops inside carry their own
    /// `teams_distribute_parallel_for`.
    target;
    /// `#pragma omp target teams`.
    target_teams;
    /// `#pragma omp target parallel`.
    target_parallel;
    /// `#pragma omp target parallel for`.
    target_parallel_for;
    /// `#pragma omp target parallel for simd`.
    target_parallel_for_simd;
    /// `#pragma omp target parallel loop`.
    target_parallel_loop;
    /// `#pragma omp target simd`.
    target_simd;
    /// `#pragma omp target teams distribute`.
    target_teams_distribute;
    /// `#pragma omp target teams distribute simd`.
    target_teams_distribute_simd;
    /// `#pragma omp target teams distribute parallel for`: the loop runs on the device (or on the host when there
    /// is none). Mappings come from the types: `&` → `to`, `&mut` → `tofrom`, `Copy` values → `firstprivate`.
    target_teams_distribute_parallel_for;
    /// `#pragma omp target teams distribute parallel for simd`.
    target_teams_distribute_parallel_for_simd;
    /// `#pragma omp target teams loop`.
    target_teams_loop;
    /// `#pragma omp teams distribute`.
    teams_distribute;
    /// `#pragma omp teams distribute parallel for` (inside a `target` region).
    teams_distribute_parallel_for;
    /// `#pragma omp teams distribute parallel for simd`.
    teams_distribute_parallel_for_simd;
    /// `#pragma omp teams loop`.
    teams_loop;
    /// `#pragma omp distribute parallel for`.
    distribute_parallel_for;
    /// `#pragma omp distribute parallel for simd`.
    distribute_parallel_for_simd;
    /// `#pragma omp target data`: on a block inside a `#[omp::directives]` fn.
    target_data;
    /// `#pragma omp atomic`: on a statement inside a parallel loop.
    atomic;
    /// `#pragma omp critical[(name)]`: on a block inside a parallel loop.
    critical;
    /// `#pragma omp declare target`: a function or type that kernels may use.
    declare_target;
}

/// `#pragma omp declare reduction`: on a combiner `fn name(a: T, b: T) -> T` with `identity = e` (OpenMP's
/// `initializer`), so that `reduction(name: v)` reduces a `T` with it, on the host and in target regions.
#[proc_macro_attribute]
pub fn declare_reduction(args: TokenStream, item: TokenStream) -> TokenStream {
    omp_rs_codegen::driver::declare_reduction::expand(args.into(), item.into()).into()
}

/// Enables statement-level directives inside a function on stable Rust:
/// `#[omp::parallel_for]`, `#[omp::target_data(...)] { ... }`, `omp::target_update!(...)`, ...
#[proc_macro_attribute]
pub fn directives(args: TokenStream, item: TokenStream) -> TokenStream {
    omp_rs_codegen::driver::expand::directives(args.into(), item.into()).into()
}

/// `#pragma omp target update`: `omp::target_update!(to: a)`, `omp::target_update!(from: a[0..n])`.
#[proc_macro]
pub fn target_update(input: TokenStream) -> TokenStream {
    omp_rs_codegen::driver::expand::standalone("target_update", input.into()).into()
}

/// `#pragma omp target enter data`: `omp::target_enter_data!(map(to: a))`.
#[proc_macro]
pub fn target_enter_data(input: TokenStream) -> TokenStream {
    omp_rs_codegen::driver::expand::standalone("target_enter_data", input.into()).into()
}

/// `#pragma omp target exit data`: `omp::target_exit_data!(map(from: a))`.
#[proc_macro]
pub fn target_exit_data(input: TokenStream) -> TokenStream {
    omp_rs_codegen::driver::expand::standalone("target_exit_data", input.into()).into()
}
