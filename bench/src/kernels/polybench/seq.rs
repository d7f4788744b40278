//! Polybench kernels, sequential (Base_Seq).

use super::{Atax, Gemm, Heat3d, Jacobi1d, Jacobi2d, PolybenchKernels};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

/// One HEAT_3D line (fixed i, j; k = 1..n-1): `dst` from the centre line `c` and the lines at
/// i+1, i-1, j+1, j-1. Slices make the k loop free of bounds checks.
#[inline(always)]
pub(super) fn heat_3d_line(dst: &mut [f64], c: &[f64], ip: &[f64], im: &[f64], jp: &[f64], jm: &[f64]) {
    let n = dst.len();
    let (c, ip, im, jp, jm) = (&c[..n], &ip[..n], &im[..n], &jp[..n], &jm[..n]);
    for k in 1..n - 1 {
        let a = c[k];
        dst[k] = 0.125 * (ip[k] - 2.0 * a + im[k]) + 0.125 * (jp[k] - 2.0 * a + jm[k]) + 0.125 * (c[k + 1] - 2.0 * a + c[k - 1]) + a;
    }
}

/// HEAT_3D plane i of `dst` (n*n values) from `src`.
#[inline(always)]
pub(super) fn heat_3d_plane(dst_plane: &mut [f64], src: &[f64], n: usize, i: usize) {
    let line = |i: usize, j: usize| &src[n * (j + n * i)..][..n];
    for j in 1..n - 1 {
        let dst = &mut dst_plane[n * j..][..n];
        heat_3d_line(dst, line(i, j), line(i + 1, j), line(i - 1, j), line(i, j + 1), line(i, j - 1));
    }
}

/// One JACOBI_2D row: `dst[j] = 0.2*(mid[j] + mid[j-1] + mid[j+1] + down[j] + up[j])`,
/// where up/mid/down are rows i-1, i, i+1 of the source.
#[inline(always)]
pub(super) fn jacobi_2d_row(dst: &mut [f64], up: &[f64], mid: &[f64], down: &[f64]) {
    let n = dst.len();
    let (up, mid, down) = (&up[..n], &mid[..n], &down[..n]);
    for j in 1..n - 1 {
        dst[j] = 0.2 * (mid[j] + mid[j - 1] + mid[j + 1] + down[j] + up[j]);
    }
}

/// One JACOBI_1D sweep over the interior of `dst`.
#[inline(always)]
pub(super) fn jacobi_1d_sweep(dst: &mut [f64], src: &[f64]) {
    let n = dst.len();
    let src = &src[..n];
    for i in 1..n - 1 {
        dst[i] = 0.33333 * (src[i - 1] + src[i] + src[i + 1]);
    }
}

impl PolybenchKernels for Seq {
    fn atax(&self, d: &mut Atax, reps: usize, t: &mut Timer) -> Outcome {
        let Atax { tmp, x, a, y, n, .. } = d;
        let n = *n;
        let (tmp, x, y) = (&mut tmp[..n], &x[..n], &mut y[..n]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    y[i] = 0.0;
                    let row = &a[i * n..][..n];
                    let mut dot = 0.0;
                    for j in 0..n {
                        dot += row[j] * x[j];
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
        let Gemm { a, b, c, ni, nj, nk, .. } = d;
        let (ni, nj, nk) = (*ni, *nj, *nk);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..ni {
                    let a_row = &a[i * nk..][..nk];
                    for j in 0..nj {
                        // RAJAPerf first scales C by beta, then overwrites it with the dot.
                        let mut dot = 0.0;
                        for k in 0..nk {
                            dot += Gemm::ALPHA * a_row[k] * b[j + k * nj];
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
        let step = |src: &[f64], dst: &mut [f64]| {
            for (i, plane) in dst.chunks_mut(n * n).enumerate().take(n - 1).skip(1) {
                heat_3d_plane(plane, src, n, i);
            }
        };
        t.time(|| {
            for _ in 0..reps {
                for _ in 0..Heat3d::TSTEPS {
                    step(a, b);
                    step(b, a);
                }
            }
        });
        Ok(())
    }

    fn jacobi_1d(&self, d: &mut Jacobi1d, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b) = (&mut d.a, &mut d.b);
        t.time(|| {
            for _ in 0..reps {
                for _ in 0..Jacobi1d::TSTEPS {
                    jacobi_1d_sweep(b, a);
                    jacobi_1d_sweep(a, b);
                }
            }
        });
        Ok(())
    }

    fn jacobi_2d(&self, d: &mut Jacobi2d, reps: usize, t: &mut Timer) -> Outcome {
        let Jacobi2d { a, b, n, .. } = d;
        let n = *n;
        let step = |src: &[f64], dst: &mut [f64]| {
            let row = |i: usize| &src[i * n..][..n];
            for (i, dst_row) in dst.chunks_mut(n).enumerate().take(n - 1).skip(1) {
                jacobi_2d_row(dst_row, row(i - 1), row(i), row(i + 1));
            }
        };
        t.time(|| {
            for _ in 0..reps {
                for _ in 0..Jacobi2d::TSTEPS {
                    step(a, b);
                    step(b, a);
                }
            }
        });
        Ok(())
    }
}
