//! What every example shares: fresh random inputs, timing, and the verification line against the sequential
//! reference.

use std::time::Instant;

use rand::{Rng, SeedableRng};

/// A fresh random generator; the seed is printed so a failing run can be repeated (`OMP_EXAMPLE_SEED`).
pub fn rng() -> rand::rngs::StdRng {
    let seed = std::env::var("OMP_EXAMPLE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random::<u64>);
    println!("seed {seed}");
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// `n` values uniform in `[lo, hi)`.
pub fn random_vec(rng: &mut impl Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.gen_range(lo..hi)).collect()
}

/// Runs `f` `reps` times and returns the best time in seconds (the first call also warms up caches and threads).
pub fn best_time(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Largest relative difference between two arrays (absolute where the reference is tiny).
pub fn max_rel_diff(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "result length");
    got.iter().zip(want).map(|(g, w)| (g - w).abs() / w.abs().max(1e-300).max(1.0)).fold(0.0, f64::max)
}

/// Prints the verification line and the timing against the sequential loop; exits with status 1 on failure.
pub fn report(name: &str, error: f64, tolerance: f64, seq_seconds: f64, omp_seconds: f64) {
    let threads = omp::get_max_threads();
    println!(
        "{name}: sequential {:.3} ms, omp-rs {:.3} ms on {threads} threads (speed-up {:.2}x)",
        seq_seconds * 1e3,
        omp_seconds * 1e3,
        seq_seconds / omp_seconds
    );
    if error <= tolerance {
        println!("verification: PASSED (max relative difference {error:.3e} <= {tolerance:.0e})");
    } else {
        println!("verification: FAILED (max relative difference {error:.3e} > {tolerance:.0e})");
        std::process::exit(1);
    }
}
