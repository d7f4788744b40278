//! Target regions for every construct omp-rs supports, each next to a sequential reference. `checks()` runs them
//! all on fresh random inputs; the `offload-suite` binary prints one line per check, and the tests run it under
//! `OMP_TARGET_OFFLOAD=MANDATORY` through libomptarget's host plugin.

pub mod adversarial;
pub mod devices;
pub mod generics;
pub mod meaning;
pub mod nd;
pub mod nested;
pub mod porting;
pub mod queued;
pub mod regions;
pub mod scan;
pub mod spmd;
pub mod structs;

use rand::{Rng, SeedableRng};

/// One check: name and the function that runs it (Err: what differed).
pub type Check = (&'static str, fn(&mut rand::rngs::StdRng) -> Result<(), String>);

/// Every check.
pub fn checks() -> Vec<Check> {
    regions::CHECKS
        .iter()
        .chain(adversarial::CHECKS)
        .chain(porting::CHECKS)
        .chain(structs::CHECKS)
        .chain(nd::CHECKS)
        .chain(nested::CHECKS)
        .chain(spmd::CHECKS)
        .chain(scan::CHECKS)
        .chain(generics::CHECKS)
        .chain(meaning::CHECKS)
        .chain(queued::CHECKS)
        .chain(devices::CHECKS)
        .copied()
        .collect()
}

/// A random vector.
pub fn vec_f64(rng: &mut impl Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

/// Exact equality with the index of the first difference.
pub fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} vs {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!("{what}[{i}] = {:?}, sequential {:?}", got[i], want[i])),
    }
}

/// Relative closeness of two reductions reassociated over `n` terms of magnitude up to `scale`.
pub fn close(what: &str, got: f64, want: f64, n: usize, scale: f64) -> Result<(), String> {
    let bound = (n as f64) * f64::EPSILON * scale.max(1e-300) * 4.0;
    if (got - want).abs() <= bound {
        Ok(())
    } else {
        Err(format!("{what} = {got:e}, sequential {want:e} (bound {bound:e})"))
    }
}

/// A generator from `OMP_SUITE_SEED` or a fresh seed (printed by the caller).
pub fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}
