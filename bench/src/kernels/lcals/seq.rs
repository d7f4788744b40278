//! Lcals kernels, sequential (Base_Seq).

use super::{DiffPredict, Eos, FirstDiff, Hydro1d, Hydro2d, LcalsKernels, Planckian};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

impl LcalsKernels for Seq {
    fn diff_predict(&self, d: &mut DiffPredict, reps: usize, t: &mut Timer) -> Outcome {
        let (px, cx, n) = (&mut d.px, &d.cx, d.n);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    let mut carry = cx[i + 4 * n];
                    for r in 4..=12 {
                        let next = carry - px[i + r * n];
                        px[i + r * n] = carry;
                        carry = next;
                    }
                    px[i + 13 * n] = carry;
                }
            }
        });
        Ok(())
    }

    fn eos(&self, d: &mut Eos, reps: usize, t: &mut Timer) -> Outcome {
        let Eos { x, y, z, u, q, r, t: tt, n } = d;
        let (q, r, tt, n) = (*q, *r, *tt, *n);
        let (x, y, z, u) = (&mut x[..n], &y[..n], &z[..n], &u[..n + 7]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    x[i] = u[i]
                        + r * (z[i] + r * y[i])
                        + tt * (u[i + 3] + r * (u[i + 2] + r * u[i + 1]) + tt * (u[i + 6] + q * (u[i + 5] + q * u[i + 4])));
                }
            }
        });
        Ok(())
    }

    fn first_diff(&self, d: &mut FirstDiff, reps: usize, t: &mut Timer) -> Outcome {
        let n = d.n;
        let (x, y) = (&mut d.x[..n], &d.y[..n + 1]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    x[i] = y[i + 1] - y[i];
                }
            }
        });
        Ok(())
    }

    fn hydro_1d(&self, d: &mut Hydro1d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro1d { x, y, z, q, r, t: tt, n } = d;
        let (q, r, tt, n) = (*q, *r, *tt, *n);
        let (x, y, z) = (&mut x[..n], &y[..n], &z[..n + 12]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    x[i] = q + y[i] * (r * z[i + 10] + tt * z[i + 11]);
                }
            }
        });
        Ok(())
    }

    fn hydro_2d(&self, d: &mut Hydro2d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro2d { zrout, zzout, za, zb, zm, zp, zq, zr, zu, zv, zz, kn, jn, .. } = d;
        let (kn, jn) = (*kn, *jn);
        let (s, tt) = (Hydro2d::S, Hydro2d::T);
        let at = |k: usize, j: usize| j + k * jn;
        t.time(|| {
            for _ in 0..reps {
                for k in 1..kn - 1 {
                    for j in 1..jn - 1 {
                        za[at(k, j)] = (zp[at(k + 1, j - 1)] + zq[at(k + 1, j - 1)] - zp[at(k, j - 1)] - zq[at(k, j - 1)])
                            * (zr[at(k, j)] + zr[at(k, j - 1)])
                            / (zm[at(k, j - 1)] + zm[at(k + 1, j - 1)]);
                        zb[at(k, j)] = (zp[at(k, j - 1)] + zq[at(k, j - 1)] - zp[at(k, j)] - zq[at(k, j)])
                            * (zr[at(k, j)] + zr[at(k - 1, j)])
                            / (zm[at(k, j)] + zm[at(k, j - 1)]);
                    }
                }
                for k in 1..kn - 1 {
                    for j in 1..jn - 1 {
                        let c = at(k, j);
                        zu[c] += s
                            * (za[c] * (zz[c] - zz[at(k, j + 1)])
                                - za[at(k, j - 1)] * (zz[c] - zz[at(k, j - 1)])
                                - zb[c] * (zz[c] - zz[at(k - 1, j)])
                                + zb[at(k + 1, j)] * (zz[c] - zz[at(k + 1, j)]));
                        zv[c] += s
                            * (za[c] * (zr[c] - zr[at(k, j + 1)])
                                - za[at(k, j - 1)] * (zr[c] - zr[at(k, j - 1)])
                                - zb[c] * (zr[c] - zr[at(k - 1, j)])
                                + zb[at(k + 1, j)] * (zr[c] - zr[at(k + 1, j)]));
                    }
                }
                for k in 1..kn - 1 {
                    for j in 1..jn - 1 {
                        let c = at(k, j);
                        zrout[c] = zr[c] + tt * zu[c];
                        zzout[c] = zz[c] + tt * zv[c];
                    }
                }
            }
        });
        Ok(())
    }

    fn planckian(&self, d: &mut Planckian, reps: usize, t: &mut Timer) -> Outcome {
        let Planckian { x, y, u, v, w } = d;
        let n = w.len();
        let (x, y, u, v) = (&x[..n], &mut y[..n], &u[..n], &v[..n]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..w.len() {
                    y[i] = u[i] / v[i];
                    w[i] = x[i] / (y[i].exp() - 1.0);
                }
            }
        });
        Ok(())
    }
}
