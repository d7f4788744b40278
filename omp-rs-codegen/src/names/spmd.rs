//! The names an SPMD region's rewrite gives the team and thread numbers and the team body's runtime functions
//! (`__omp_spmd_*`: the user cannot mean them), shared by the rewrite (`desugar::spmd`), the lowerings that bind
//! them, and the messages that show them as the routine calls they replace.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, Stmt};

/// The names the nest binds (`__omp_spmd_*`: the user cannot mean them). Team and thread numbers are `usize`, as
/// `omp::get_thread_num()` is on the host.
pub(crate) const TEAM: &str = "__omp_spmd_team";
pub(crate) const TEAMS: &str = "__omp_spmd_teams";
pub(crate) const THREAD: &str = "__omp_spmd_thread";
pub(crate) const THREADS: &str = "__omp_spmd_threads";

/// The device routines an SPMD body may call, and the name each becomes.
pub(crate) const ROUTINES: &[(&str, &str)] =
    &[("get_team_num", TEAM), ("get_num_teams", TEAMS), ("get_thread_num", THREAD), ("get_num_threads", THREADS)];

/// The nest's names for a team or thread number the body only divides and takes the remainder of by one `E`
/// (`omp::get_team_num() / nb`, `% nb`): the quotient's and the remainder's loops (the rewrite's `Split`).
pub(crate) const TEAM_HI: &str = "__omp_spmd_team_hi";
pub(crate) const TEAM_LO: &str = "__omp_spmd_team_lo";
pub(crate) const THREAD_HI: &str = "__omp_spmd_thread_hi";
pub(crate) const THREAD_LO: &str = "__omp_spmd_thread_lo";

/// How messages spell the split names.
const SPLIT_NAMES: &[(&str, &str)] = &[
    (TEAM_HI, "omp::get_team_num() / .."),
    (TEAM_LO, "omp::get_team_num() % .."),
    (THREAD_HI, "omp::get_thread_num() / .."),
    (THREAD_LO, "omp::get_thread_num() % .."),
];

/// A message of the analyses with the nest's names written as the routine calls they replace (the loop analysis
/// knows them as loop variables of a collapsed nest, which the user did not write).
pub(crate) fn in_user_terms(msg: String) -> String {
    if !msg.contains("__omp_spmd_") {
        return msg;
    }
    let mut msg = msg.replace(" or reduce `collapse`", "");
    for (bound, text) in SPLIT_NAMES {
        msg = msg.replace(bound, text);
    }
    // `__omp_spmd_teams` before its prefix `__omp_spmd_team`.
    let mut names = ROUTINES.to_vec();
    names.sort_by_key(|(_, bound)| std::cmp::Reverse(bound.len()));
    for (routine, bound) in names {
        msg = msg.replace(bound, &format!("omp::{routine}()"));
    }
    msg
}

/// The names a team body binds. The host and device lowerings import the three functions under these names (`omp::__private::spmd`, `omp_device::spmd`).
pub(crate) const ARENA: &str = "__omp_spmd_arena";
pub(crate) const PHASE: &str = "__omp_spmd_phase";
pub(crate) const NEW_ARENA: &str = "__omp_spmd_new_arena";
pub(crate) const BYTES: &str = "__omp_spmd_bytes";
pub(crate) const BARRIER: &str = "__omp_spmd_barrier";
pub(crate) const ELEMENT: &str = "__omp_spmd_TeamLocalElement";

/// The `use` that gives a team body its three functions and the element type, from `module` (`::omp::__private::spmd`).
pub(crate) fn imports(module: TokenStream) -> TokenStream {
    let [new_arena, bytes, barrier, element] = [NEW_ARENA, BYTES, BARRIER, ELEMENT].map(|n| Ident::new(n, Span::call_site()));
    quote!(#[allow(unused_imports)] use #module::{
        new_arena as #new_arena, bytes as #bytes, barrier as #barrier, TeamLocalElement as #element
    };)
}

/// Whether a loop body is an SPMD region's team body (the region has barriers or team-local arrays): its first
/// statement makes the team's arena. Such a nest runs one thread per (team, thread) pair, every thread of a team
/// at once (`omp::__private::spmd::team_for`, `omp_device::spmd::each_thread`).
pub(crate) fn is_team_body(body: &syn::Block) -> bool {
    match body.stmts.first() {
        Some(Stmt::Local(l)) => matches!(&l.pat, syn::Pat::Ident(p) if p.ident == ARENA),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_routines_not_the_nest() {
        assert_eq!(
            in_user_terms(
                "iterations that differ only in `__omp_spmd_team` write `y[__omp_spmd_thread + __omp_spmd_teams]`; include \
                 `__omp_spmd_team` in the index or reduce `collapse`"
                    .into()
            ),
            "iterations that differ only in `omp::get_team_num()` write `y[omp::get_thread_num() + omp::get_num_teams()]`; \
             include `omp::get_team_num()` in the index"
        );
    }
}
