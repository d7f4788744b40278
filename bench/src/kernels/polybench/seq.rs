//! Polybench kernels, sequential (Base_Seq).

use super::{Atax, Gemm, Heat3d, Jacobi1d, Jacobi2d, PolybenchKernels};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

/// One HEAT_3D half-step: `dst` interior from `src`.
pub(super) fn heat_3d_point(src: &[f64], n: usize, i: usize, j: usize, k: usize) -> f64 {
    let at = |i: usize, j: usize, k: usize| k + n * (j + n * i);
    let c = src[at(i, j, k)];
    0.125 * (src[at(i + 1, j, k)] - 2.0 * c + src[at(i - 1, j, k)])
        + 0.125 * (src[at(i, j + 1, k)] - 2.0 * c + src[at(i, j - 1, k)])
        + 0.125 * (src[at(i, j, k + 1)] - 2.0 * c + src[at(i, j, k - 1)])
        + c
}

/// One JACOBI_2D point from `src`.
pub(super) fn jacobi_2d_point(src: &[f64], n: usize, i: usize, j: usize) -> f64 {
    let at = |i: usize, j: usize| j + i * n;
    0.2 * (src[at(i, j)]
        + src[at(i, j - 1)]
        + src[at(i, j + 1)]
        + src[at(i + 1, j)]
        + src[at(i - 1, j)])
}

impl PolybenchKernels for Seq {
    fn atax(&self, d: &mut Atax, reps: usize, t: &mut Timer) -> Outcome {
        let Atax {
            tmp, x, a, y, n, ..
        } = d;
        let n = *n;
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    y[i] = 0.0;
                    let mut dot = 0.0;
                    for j in 0..n {
                        dot += a[j + i * n] * x[j];
                    }
                    tmp[i] = dot;
                }
                for j in 0..n {
                    let mut dot = y[j];
                    for i in 0..n {
                        dot += a[j + i * n] * tmp[i];
                    }
                    y[j] = dot;
                }
            }
        });
        Ok(())
    }

    fn gemm(&self, d: &mut Gemm, reps: usize, t: &mut Timer) -> Outcome {
        let Gemm {
            a,
            b,
            c,
            ni,
            nj,
            nk,
            ..
        } = d;
        let (ni, nj, nk) = (*ni, *nj, *nk);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..ni {
                    for j in 0..nj {
                        // RAJAPerf first scales C by beta, then overwrites it with the dot.
                        let mut dot = 0.0;
                        for k in 0..nk {
                            dot += Gemm::ALPHA * a[k + i * nk] * b[j + k * nj];
                        }
                        c[j + i * nj] = dot;
                    }
                }
            }
        });
        Ok(())
    }

    fn heat_3d(&self, d: &mut Heat3d, reps: usize, t: &mut Timer) -> Outcome {
        let Heat3d { a, b, n, .. } = d;
        let n = *n;
        let at = |i: usize, j: usize, k: usize| k + n * (j + n * i);
        t.time(|| {
            for _ in 0..reps {
                for _ in 0..Heat3d::TSTEPS {
                    for i in 1..n - 1 {
                        for j in 1..n - 1 {
                            for k in 1..n - 1 {
                                b[at(i, j, k)] = heat_3d_point(a, n, i, j, k);
                            }
                        }
                    }
                    for i in 1..n - 1 {
                        for j in 1..n - 1 {
                            for k in 1..n - 1 {
                                a[at(i, j, k)] = heat_3d_point(b, n, i, j, k);
                            }
                        }
                    }
                }
            }
        });
        Ok(())
    }

    fn jacobi_1d(&self, d: &mut Jacobi1d, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b) = (&mut d.a, &mut d.b);
        let n = a.len();
        t.time(|| {
            for _ in 0..reps {
                for _ in 0..Jacobi1d::TSTEPS {
                    for i in 1..n - 1 {
                        b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
                    }
                    for i in 1..n - 1 {
                        a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
                    }
                }
            }
        });
        Ok(())
    }

    fn jacobi_2d(&self, d: &mut Jacobi2d, reps: usize, t: &mut Timer) -> Outcome {
        let Jacobi2d { a, b, n, .. } = d;
        let n = *n;
        t.time(|| {
            for _ in 0..reps {
                for _ in 0..Jacobi2d::TSTEPS {
                    for i in 1..n - 1 {
                        for j in 1..n - 1 {
                            b[j + i * n] = jacobi_2d_point(a, n, i, j);
                        }
                    }
                    for i in 1..n - 1 {
                        for j in 1..n - 1 {
                            a[j + i * n] = jacobi_2d_point(b, n, i, j);
                        }
                    }
                }
            }
        });
        Ok(())
    }
}
