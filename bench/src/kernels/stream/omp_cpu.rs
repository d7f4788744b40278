//! Stream kernels, omp-rs on the host: `#[omp::parallel_for]` inside the rep loop, as
//! `csrc/omp/stream.c` has `#pragma omp parallel for` (Base_OpenMP).

use super::{Add, Copy, Dot, Mul, StreamKernels, Triad};
use crate::timer::Timer;
use crate::variant::{OmpCpu, Outcome};

#[omp::directives]
fn copy(reps: usize, a: &[f64], c: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..c.len() {
            c[i] = a[i];
        }
    }
}

#[omp::directives]
fn mul(reps: usize, alpha: f64, b: &mut [f64], c: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..b.len() {
            b[i] = alpha * c[i];
        }
    }
}

#[omp::directives]
fn add(reps: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..c.len() {
            c[i] = a[i] + b[i];
        }
    }
}

#[omp::directives]
fn triad(reps: usize, alpha: f64, a: &mut [f64], b: &[f64], c: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..a.len() {
            a[i] = b[i] + alpha * c[i];
        }
    }
}

/// Returns `m_dot` plus the `reps` dot products.
#[omp::directives]
fn dot(reps: usize, a: &[f64], b: &[f64], mut m_dot: f64) -> f64 {
    for _ in 0..reps {
        let mut dot: f64 = 0.0;
        #[omp::parallel_for(reduction(+: dot))]
        for i in 0..a.len() {
            dot += a[i] * b[i];
        }
        m_dot += dot;
    }
    m_dot
}

impl StreamKernels for OmpCpu {
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| copy(reps, &d.a, &mut d.c));
        Ok(())
    }

    fn mul(&self, d: &mut Mul, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| mul(reps, d.alpha, &mut d.b, &d.c));
        Ok(())
    }

    fn add(&self, d: &mut Add, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| add(reps, &d.a, &d.b, &mut d.c));
        Ok(())
    }

    fn triad(&self, d: &mut Triad, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| triad(reps, d.alpha, &mut d.a, &d.b, &d.c));
        Ok(())
    }

    fn dot(&self, d: &mut Dot, reps: usize, t: &mut Timer) -> Outcome {
        d.m_dot = t.time(|| dot(reps, &d.a, &d.b, d.m_dot));
        Ok(())
    }
}
