//! Lcals kernels, rayon.

use super::{DiffPredict, Eos, FirstDiff, Hydro1d, Hydro2d, LcalsKernels, Planckian};
use crate::kernels::RAYON_CHUNK as CHUNK;
use crate::timer::Timer;
use crate::variant::{Outcome, Rayon};
use rayon::prelude::*;

impl LcalsKernels for Rayon {
    fn diff_predict(&self, d: &mut DiffPredict, reps: usize, t: &mut Timer) -> Outcome {
        let (cx, n) = (&d.cx, d.n);
        // Rows 4..=13 of px are written; split them off so each element's chain of rows can
        // be handed to one task: chunk c of every row belongs to the same task.
        let rows: Vec<&mut [f64]> = d.px.chunks_mut(n).skip(4).take(10).collect();
        const CHUNK: usize = 4096;
        let mut row_chunks: Vec<Vec<&mut [f64]>> = Vec::new();
        for row in rows {
            for (c, piece) in row.chunks_mut(CHUNK).enumerate() {
                if row_chunks.len() <= c {
                    row_chunks.push(Vec::new());
                }
                row_chunks[c].push(piece);
            }
        }
        t.time(|| {
            for _ in 0..reps {
                row_chunks.par_iter_mut().enumerate().for_each(|(c, rows)| {
                    let base = c * CHUNK;
                    for l in 0..rows[0].len() {
                        let mut carry = cx[base + l + 4 * n];
                        for row in rows.iter_mut().take(9) {
                            let next = carry - row[l];
                            row[l] = carry;
                            carry = next;
                        }
                        rows[9][l] = carry;
                    }
                });
            }
        });
        Ok(())
    }

    fn eos(&self, d: &mut Eos, reps: usize, t: &mut Timer) -> Outcome {
        let Eos { x, y, z, u, q, r, t: tt, n } = d;
        let (q, r, tt, n) = (*q, *r, *tt, *n);
        let (y, z, u) = (&*y, &*z, &*u);
        t.time(|| {
            for _ in 0..reps {
                // Chunk c covers [lo, lo + len); u is read up to 6 elements further.
                x[..n].par_chunks_mut(CHUNK).enumerate().for_each(|(c, x)| {
                    let (lo, len) = (c * CHUNK, x.len());
                    let (y, z, u) = (&y[lo..lo + len], &z[lo..lo + len], &u[lo..lo + len + 7]);
                    for i in 0..len {
                        x[i] = u[i]
                            + r * (z[i] + r * y[i])
                            + tt * (u[i + 3] + r * (u[i + 2] + r * u[i + 1]) + tt * (u[i + 6] + q * (u[i + 5] + q * u[i + 4])));
                    }
                });
            }
        });
        Ok(())
    }

    fn first_diff(&self, d: &mut FirstDiff, reps: usize, t: &mut Timer) -> Outcome {
        let (x, y, n) = (&mut d.x, &d.y, d.n);
        t.time(|| {
            for _ in 0..reps {
                x[..n].par_iter_mut().zip(y[..n].par_iter().zip(y[1..].par_iter())).for_each(|(x, (y0, y1))| *x = y1 - y0);
            }
        });
        Ok(())
    }

    fn hydro_1d(&self, d: &mut Hydro1d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro1d { x, y, z, q, r, t: tt, n } = d;
        let (q, r, tt, n) = (*q, *r, *tt, *n);
        let (y, z) = (&*y, &*z);
        t.time(|| {
            for _ in 0..reps {
                x[..n]
                    .par_iter_mut()
                    .zip(y[..n].par_iter())
                    .zip(z[10..10 + n].par_iter().zip(z[11..11 + n].par_iter()))
                    .for_each(|((x, y), (z10, z11))| *x = q + y * (r * z10 + tt * z11));
            }
        });
        Ok(())
    }

    fn hydro_2d(&self, d: &mut Hydro2d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro2d { zrout, zzout, za, zb, zm, zp, zq, zr, zu, zv, zz, kn, jn, .. } = d;
        let (kn, jn) = (*kn, *jn);
        let (zm, zp, zq, zr, zz) = (&*zm, &*zp, &*zq, &*zr, &*zz);
        let (s, tt) = (Hydro2d::S, Hydro2d::T);
        let at = move |k: usize, j: usize| j + k * jn;
        t.time(|| {
            for _ in 0..reps {
                // Nest 1: rows of za and zb, parallel over k.
                za.par_chunks_mut(jn).zip(zb.par_chunks_mut(jn)).enumerate().skip(1).take(kn - 2).for_each(|(k, (za_row, zb_row))| {
                    for j in 1..jn - 1 {
                        za_row[j] = (zp[at(k + 1, j - 1)] + zq[at(k + 1, j - 1)] - zp[at(k, j - 1)] - zq[at(k, j - 1)])
                            * (zr[at(k, j)] + zr[at(k, j - 1)])
                            / (zm[at(k, j - 1)] + zm[at(k + 1, j - 1)]);
                        zb_row[j] = (zp[at(k, j - 1)] + zq[at(k, j - 1)] - zp[at(k, j)] - zq[at(k, j)]) * (zr[at(k, j)] + zr[at(k - 1, j)])
                            / (zm[at(k, j)] + zm[at(k, j - 1)]);
                    }
                });
                // Nest 2: zu, zv from the finished za, zb.
                let (za, zb) = (&*za, &*zb);
                zu.par_chunks_mut(jn).zip(zv.par_chunks_mut(jn)).enumerate().skip(1).take(kn - 2).for_each(|(k, (zu_row, zv_row))| {
                    for j in 1..jn - 1 {
                        let c = at(k, j);
                        zu_row[j] += s
                            * (za[c] * (zz[c] - zz[at(k, j + 1)])
                                - za[at(k, j - 1)] * (zz[c] - zz[at(k, j - 1)])
                                - zb[c] * (zz[c] - zz[at(k - 1, j)])
                                + zb[at(k + 1, j)] * (zz[c] - zz[at(k + 1, j)]));
                        zv_row[j] += s
                            * (za[c] * (zr[c] - zr[at(k, j + 1)])
                                - za[at(k, j - 1)] * (zr[c] - zr[at(k, j - 1)])
                                - zb[c] * (zr[c] - zr[at(k - 1, j)])
                                + zb[at(k + 1, j)] * (zr[c] - zr[at(k + 1, j)]));
                    }
                });
                // Nest 3: outputs.
                let (zu, zv) = (&*zu, &*zv);
                zrout.par_chunks_mut(jn).zip(zzout.par_chunks_mut(jn)).enumerate().skip(1).take(kn - 2).for_each(
                    |(k, (zrout_row, zzout_row))| {
                        for j in 1..jn - 1 {
                            let c = at(k, j);
                            zrout_row[j] = zr[c] + tt * zu[c];
                            zzout_row[j] = zz[c] + tt * zv[c];
                        }
                    },
                );
            }
        });
        Ok(())
    }

    fn planckian(&self, d: &mut Planckian, reps: usize, t: &mut Timer) -> Outcome {
        let Planckian { x, y, u, v, w } = d;
        let (x, u, v) = (&*x, &*u, &*v);
        t.time(|| {
            for _ in 0..reps {
                y.par_chunks_mut(CHUNK).zip(w.par_chunks_mut(CHUNK)).enumerate().for_each(|(c, (y, w))| {
                    let (lo, len) = (c * CHUNK, y.len());
                    let (x, u, v, w) = (&x[lo..lo + len], &u[lo..lo + len], &v[lo..lo + len], &mut w[..len]);
                    for i in 0..len {
                        y[i] = u[i] / v[i];
                        w[i] = x[i] / (y[i].exp() - 1.0);
                    }
                });
            }
        });
        Ok(())
    }
}
