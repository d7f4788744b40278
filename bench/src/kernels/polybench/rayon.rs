//! Polybench kernels, rayon.

use super::seq::{heat_3d_plane, jacobi_2d_row};
use super::{Atax, Gemm, Heat3d, Jacobi1d, Jacobi2d, PolybenchKernels};
use crate::kernels::RAYON_CHUNK as CHUNK;
use crate::timer::Timer;
use crate::variant::{Outcome, Rayon};
use rayon::prelude::*;

impl PolybenchKernels for Rayon {
    fn atax(&self, d: &mut Atax, reps: usize, t: &mut Timer) -> Outcome {
        let Atax { tmp, x, a, y, n, .. } = d;
        let (n, x, a) = (*n, &*x, &*a);
        t.time(|| {
            for _ in 0..reps {
                tmp.par_iter_mut().zip(y.par_iter_mut()).enumerate().for_each(|(i, (tmp, y))| {
                    *y = 0.0;
                    let mut dot = 0.0;
                    for j in 0..n {
                        dot += a[j + i * n] * x[j];
                    }
                    *tmp = dot;
                });
                let tmp = &*tmp;
                y.par_iter_mut().enumerate().for_each(|(j, y)| {
                    let mut dot = *y;
                    for i in 0..n {
                        dot += a[j + i * n] * tmp[i];
                    }
                    *y = dot;
                });
            }
        });
        Ok(())
    }

    fn gemm(&self, d: &mut Gemm, reps: usize, t: &mut Timer) -> Outcome {
        let Gemm { a, b, c, nj, nk, .. } = d;
        let (nj, nk, a, b) = (*nj, *nk, &*a, &*b);
        t.time(|| {
            for _ in 0..reps {
                c.par_chunks_mut(nj).enumerate().for_each(|(i, row)| {
                    for (j, cij) in row.iter_mut().enumerate() {
                        let mut dot = 0.0;
                        for k in 0..nk {
                            dot += Gemm::ALPHA * a[k + i * nk] * b[j + k * nj];
                        }
                        *cij = dot;
                    }
                });
            }
        });
        Ok(())
    }

    fn heat_3d(&self, d: &mut Heat3d, reps: usize, t: &mut Timer) -> Outcome {
        let Heat3d { a, b, n, .. } = d;
        let n = *n;
        // dst interior from src, parallel over i planes.
        let step = |src: &[f64], dst: &mut [f64]| {
            dst.par_chunks_mut(n * n).enumerate().take(n - 1).skip(1).for_each(|(i, plane)| heat_3d_plane(plane, src, n, i));
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
        let n = a.len();
        // Chunk c of dst covers [c*CHUNK, c*CHUNK + len); it reads src one element further on
        // each side, so each chunk gets its interior plus a one-element halo of src.
        let step = |src: &[f64], dst: &mut [f64]| {
            dst[1..n - 1].par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
                let lo = c * CHUNK; // src index of out[0] - 1
                let window = &src[lo..lo + out.len() + 2];
                for i in 0..out.len() {
                    out[i] = 0.33333 * (window[i] + window[i + 1] + window[i + 2]);
                }
            });
        };
        t.time(|| {
            for _ in 0..reps {
                for _ in 0..Jacobi1d::TSTEPS {
                    step(a, b);
                    step(b, a);
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
            dst.par_chunks_mut(n)
                .enumerate()
                .take(n - 1)
                .skip(1)
                .for_each(|(i, dst_row)| jacobi_2d_row(dst_row, row(i - 1), row(i), row(i + 1)));
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
