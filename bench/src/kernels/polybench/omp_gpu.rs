//! Polybench kernels, omp-rs target regions (Base_OpenMPTarget); see `stream/omp_gpu.rs` for
//! the pattern: arrays mapped by a `target_data` region around the timed rep loop. Indexing as
//! in `omp_cpu.rs`.

use super::{Atax, Gemm, Heat3d, Jacobi1d, Jacobi2d, PolybenchKernels};
use crate::timer::Timer;
use crate::variant::{OmpGpu, Outcome};

#[omp::directives]
fn atax(t: &mut Timer, reps: usize, n: usize, tmp: &mut [f64], x: &[f64], a: &[f64], y: &mut [f64]) {
    #[omp::target_data(map(tofrom: tmp, y), map(to: x, a))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                y[i] = 0.0;
                let mut dot = 0.0;
                for j in 0..n {
                    dot += a[j + i * n] * x[j];
                }
                tmp[i] = dot;
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for j in 0..n {
                let mut dot = y[j];
                for i in 0..n {
                    dot += a[j + i * n] * tmp[i];
                }
                y[j] = dot;
            }
        }
        t.stop();
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn gemm(t: &mut Timer, reps: usize, ni: usize, nj: usize, nk: usize, alpha: f64, a: &[f64], b: &[f64], c: &mut [f64]) {
    #[omp::target_data(map(to: a, b), map(tofrom: c))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(collapse(2), nowait)]
            for i in 0..ni {
                for j in 0..nj {
                    let mut dot = 0.0;
                    for k in 0..nk {
                        dot += alpha * a[k + i * nk] * b[j + k * nj];
                    }
                    c[j + i * nj] = dot;
                }
            }
        }
        t.stop();
    }
}

/// `collapse(3)`: one GPU thread per interior point. The two half-steps are written out (B from
/// A, then A from B): one index form per written array in each loop.
#[omp::directives]
fn heat_3d(t: &mut Timer, reps: usize, tsteps: usize, n: usize, a: &mut [f64], b: &mut [f64]) {
    #[omp::target_data(map(tofrom: a, b))]
    {
        t.start();
        for _ in 0..reps {
            for _ in 0..tsteps {
                #[omp::target_teams_distribute_parallel_for(collapse(3), nowait)]
                for i in 1..n - 1 {
                    for j in 1..n - 1 {
                        for k in 1..n - 1 {
                            let c = a[k + n * (j + n * i)];
                            b[k + n * (j + n * i)] = 0.125 * (a[k + n * (j + n * (i + 1))] - 2.0 * c + a[k + n * (j + n * (i - 1))])
                                + 0.125 * (a[k + n * (j + 1 + n * i)] - 2.0 * c + a[k + n * (j - 1 + n * i)])
                                + 0.125 * (a[k + 1 + n * (j + n * i)] - 2.0 * c + a[k - 1 + n * (j + n * i)])
                                + c;
                        }
                    }
                }
                #[omp::target_teams_distribute_parallel_for(collapse(3), nowait)]
                for i in 1..n - 1 {
                    for j in 1..n - 1 {
                        for k in 1..n - 1 {
                            let c = b[k + n * (j + n * i)];
                            a[k + n * (j + n * i)] = 0.125 * (b[k + n * (j + n * (i + 1))] - 2.0 * c + b[k + n * (j + n * (i - 1))])
                                + 0.125 * (b[k + n * (j + 1 + n * i)] - 2.0 * c + b[k + n * (j - 1 + n * i)])
                                + 0.125 * (b[k + 1 + n * (j + n * i)] - 2.0 * c + b[k - 1 + n * (j + n * i)])
                                + c;
                        }
                    }
                }
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn jacobi_1d(t: &mut Timer, reps: usize, tsteps: usize, a: &mut [f64], b: &mut [f64]) {
    let n = a.len();
    #[omp::target_data(map(tofrom: a, b))]
    {
        t.start();
        for _ in 0..reps {
            for _ in 0..tsteps {
                #[omp::target_teams_distribute_parallel_for(nowait)]
                for i in 1..n - 1 {
                    b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
                }
                #[omp::target_teams_distribute_parallel_for(nowait)]
                for i in 1..n - 1 {
                    a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
                }
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn jacobi_2d(t: &mut Timer, reps: usize, tsteps: usize, n: usize, a: &mut [f64], b: &mut [f64]) {
    #[omp::target_data(map(tofrom: a, b))]
    {
        t.start();
        for _ in 0..reps {
            for _ in 0..tsteps {
                #[omp::target_teams_distribute_parallel_for(collapse(2), nowait)]
                for i in 1..n - 1 {
                    for j in 1..n - 1 {
                        b[j + i * n] = 0.2 * (a[j + i * n] + a[j - 1 + i * n] + a[j + 1 + i * n] + a[j + (i + 1) * n] + a[j + (i - 1) * n]);
                    }
                }
                #[omp::target_teams_distribute_parallel_for(collapse(2), nowait)]
                for i in 1..n - 1 {
                    for j in 1..n - 1 {
                        a[j + i * n] = 0.2 * (b[j + i * n] + b[j - 1 + i * n] + b[j + 1 + i * n] + b[j + (i + 1) * n] + b[j + (i - 1) * n]);
                    }
                }
            }
        }
        t.stop();
    }
}

impl PolybenchKernels for OmpGpu {
    fn atax(&self, d: &mut Atax, reps: usize, t: &mut Timer) -> Outcome {
        let Atax { tmp, x, a, y, n, .. } = d;
        atax(t, reps, *n, tmp, x, a, y);
        Ok(())
    }

    fn gemm(&self, d: &mut Gemm, reps: usize, t: &mut Timer) -> Outcome {
        let Gemm { a, b, c, ni, nj, nk, .. } = d;
        gemm(t, reps, *ni, *nj, *nk, Gemm::ALPHA, a, b, c);
        Ok(())
    }

    fn heat_3d(&self, d: &mut Heat3d, reps: usize, t: &mut Timer) -> Outcome {
        heat_3d(t, reps, Heat3d::TSTEPS, d.n, &mut d.a, &mut d.b);
        Ok(())
    }

    fn jacobi_1d(&self, d: &mut Jacobi1d, reps: usize, t: &mut Timer) -> Outcome {
        jacobi_1d(t, reps, Jacobi1d::TSTEPS, &mut d.a, &mut d.b);
        Ok(())
    }

    fn jacobi_2d(&self, d: &mut Jacobi2d, reps: usize, t: &mut Timer) -> Outcome {
        jacobi_2d(t, reps, Jacobi2d::TSTEPS, d.n, &mut d.a, &mut d.b);
        Ok(())
    }
}
