//! OpenMP runtime routines (`omp_get_thread_num()` → `omp::get_thread_num()`).

use std::sync::OnceLock;
use std::time::Instant;

use crate::host::position;
use crate::icv;

/// Elapsed wall-clock time in seconds since an arbitrary fixed point (`omp_get_wtime`).
pub fn get_wtime() -> f64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Resolution of [`get_wtime`] in seconds (`omp_get_wtick`).
pub fn get_wtick() -> f64 {
    1e-9
}

/// Number of threads in the current team; 1 outside parallel regions (`omp_get_num_threads`).
pub fn get_num_threads() -> usize {
    position().map_or(1, |p| p.num_threads)
}

/// Number of threads a parallel region without `num_threads` would get (`omp_get_max_threads`).
pub fn get_max_threads() -> usize {
    if position().is_some_and(|p| p.active_level > 0) {
        // Nested regions are serialised.
        1
    } else {
        icv::num_threads()
    }
}

/// The calling thread's number in its team, 0 ..= get_num_threads() - 1 (`omp_get_thread_num`).
pub fn get_thread_num() -> usize {
    position().map_or(0, |p| p.thread_num)
}

/// The calling thread's team number (`omp_get_team_num`): 0 on the host. In an SPMD region
/// (`#[omp::target_teams] { #[omp::parallel] { .. } }`) a call written `omp::get_team_num()` is the thread's team.
pub fn get_team_num() -> usize {
    0
}

/// Number of teams (`omp_get_num_teams`): 1 on the host. In an SPMD region a call written `omp::get_num_teams()` is
/// the region's `num_teams`.
pub fn get_num_teams() -> usize {
    1
}

/// Sets the team size of later parallel regions without `num_threads` (`omp_set_num_threads`).
pub fn set_num_threads(n: usize) {
    icv::set_num_threads(n);
}

/// Number of processors available to the program (`omp_get_num_procs`).
pub fn get_num_procs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether the caller is inside an active parallel region, one with more than one thread (`omp_in_parallel`).
pub fn in_parallel() -> bool {
    position().is_some_and(|p| p.active_level > 0)
}

/// Number of enclosing parallel regions (`omp_get_level`).
pub fn get_level() -> usize {
    position().map_or(0, |p| p.level)
}

/// Number of enclosing active parallel regions (`omp_get_active_level`).
pub fn get_active_level() -> usize {
    position().map_or(0, |p| p.active_level)
}
