//! Stream kernels, omp-rs target regions (Base_OpenMPTarget). Each function maps its arrays with
//! a `target_data` region around the rep loop: the copies in happen before the timer starts, the
//! copies out (`tofrom` arrays) when the block ends, after the timer stopped. Inside, every rep
//! is one `target_teams_distribute_parallel_for(nowait)` launch on resident data: RAJAPerf's CUDA
//! variant launches asynchronously and synchronises once per rep loop (in `stopTimer`), which is
//! what `nowait` plus the timer's `taskwait` spell in OpenMP. Without a device the same regions run
//! on the host cores.

use super::{Add, Copy, Dot, Mul, StreamKernels, Triad};
use crate::timer::Timer;
use crate::variant::{OmpGpu, Outcome};

#[omp::directives]
fn copy(t: &mut Timer, reps: usize, a: &[f64], c: &mut [f64]) {
    #[omp::target_data(map(to: a), map(tofrom: c))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..c.len() {
                c[i] = a[i];
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn mul(t: &mut Timer, reps: usize, alpha: f64, b: &mut [f64], c: &[f64]) {
    #[omp::target_data(map(tofrom: b), map(to: c))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..b.len() {
                b[i] = alpha * c[i];
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn add(t: &mut Timer, reps: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    #[omp::target_data(map(to: a, b), map(tofrom: c))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..c.len() {
                c[i] = a[i] + b[i];
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn triad(t: &mut Timer, reps: usize, alpha: f64, a: &mut [f64], b: &[f64], c: &[f64]) {
    #[omp::target_data(map(tofrom: a), map(to: b, c))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..a.len() {
                a[i] = b[i] + alpha * c[i];
            }
        }
        t.stop();
    }
}

/// Returns `m_dot` plus the `reps` dot products. Each rep's reduction result comes back to the
/// host (as in RAJAPerf, where `m_dot += dot` runs on the host after every launch).
#[omp::directives]
fn dot(t: &mut Timer, reps: usize, a: &[f64], b: &[f64], mut m_dot: f64) -> f64 {
    #[omp::target_data(map(to: a, b))]
    {
        t.start();
        for _ in 0..reps {
            let mut dot: f64 = 0.0;
            #[omp::target_teams_distribute_parallel_for(reduction(+: dot))]
            for i in 0..a.len() {
                dot += a[i] * b[i];
            }
            m_dot += dot;
        }
        t.stop();
    }
    m_dot
}

impl StreamKernels for OmpGpu {
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        copy(t, reps, &d.a, &mut d.c);
        Ok(())
    }

    fn mul(&self, d: &mut Mul, reps: usize, t: &mut Timer) -> Outcome {
        mul(t, reps, d.alpha, &mut d.b, &d.c);
        Ok(())
    }

    fn add(&self, d: &mut Add, reps: usize, t: &mut Timer) -> Outcome {
        add(t, reps, &d.a, &d.b, &mut d.c);
        Ok(())
    }

    fn triad(&self, d: &mut Triad, reps: usize, t: &mut Timer) -> Outcome {
        triad(t, reps, d.alpha, &mut d.a, &d.b, &d.c);
        Ok(())
    }

    fn dot(&self, d: &mut Dot, reps: usize, t: &mut Timer) -> Outcome {
        d.m_dot = dot(t, reps, &d.a, &d.b, d.m_dot);
        Ok(())
    }
}
