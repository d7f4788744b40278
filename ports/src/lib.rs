//! What the ports share: the original programs' small helpers (a wall-clock timer, argument parsing), written once.
//!
//! Every port is `src/bin/<program>.rs`, the OpenMP-offload version of the program (`<program>-omp` in HeCBench)
//! ported as written: the same kernels, data regions, sizes, timers and verification. Its header says where the
//! original is, what had to change to port it (each such change is porting friction omp-rs should remove), and two
//! lines the panel reads:
//! - `//! panel-args: ...` the arguments of the small run the tests make (CPU path and libomptarget's host plugin),
//! - `//! device-args: ...` the arguments of the run against the CUDA original on the H200.
//!
//! A port prints the original's output, `PASS` when its own verification passes (and `FAIL` otherwise, exiting
//! with status 1), and `kernel time: <seconds> s` for the time its original's timer measures.

use std::time::Instant;

/// `omp_get_wtime()`-style seconds since `start`.
pub fn seconds_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

/// Positional argument `i` (after the program name) parsed as `T`, or `default` when it is absent.
///
/// # Panics
/// When the argument is there but does not parse (the originals exit with a usage message).
pub fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    match std::env::args().nth(i) {
        Some(a) => a.parse().unwrap_or_else(|_| panic!("argument {i} ({a}) is not valid")),
        None => default,
    }
}

/// Prints `PASS` or `FAIL` as the originals do and exits with status 1 on failure.
pub fn verdict(ok: bool) {
    println!("{}", if ok { "PASS" } else { "FAIL" });
    if !ok {
        std::process::exit(1);
    }
}

/// Prints the time of the region the original times, in the panel's format.
pub fn kernel_time(seconds: f64) {
    println!("kernel time: {seconds:.6} s");
}
