//! Lcals kernels, omp-rs on the host (`csrc/omp/lcals.c` written with omp-rs directives).

use super::{DiffPredict, Eos, FirstDiff, Hydro1d, Hydro2d, LcalsKernels, Planckian};
use crate::timer::Timer;
use crate::variant::{OmpCpu, Outcome};

/// Restructured: the race analysis accepts one index form per written array, and rejects the
/// natural loop (rows 4..=12 in the `r` loop, then `px[i + 13 * n] = carry` after it) with
/// "`px` is written at `px[i + r * n]` but also written at `px[i + 13 * n]` in this parallel
/// loop: another iteration may write that element. Keep one index per array". So the final
/// store is the `r` loop's last iteration: at r = 13 it stores `carry` like the original and
/// also computes a `next` that is never used (one extra load and subtraction per element, no
/// change to any stored value).
#[omp::directives]
fn diff_predict(reps: usize, n: usize, px: &mut [f64], cx: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..n {
            let mut carry = cx[i + 4 * n];
            for r in 4..14 {
                let next = carry - px[i + r * n];
                px[i + r * n] = carry;
                carry = next;
            }
        }
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn eos(reps: usize, n: usize, q: f64, r: f64, tt: f64, x: &mut [f64], y: &[f64], z: &[f64], u: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..n {
            x[i] = u[i]
                + r * (z[i] + r * y[i])
                + tt * (u[i + 3] + r * (u[i + 2] + r * u[i + 1]) + tt * (u[i + 6] + q * (u[i + 5] + q * u[i + 4])));
        }
    }
}

#[omp::directives]
fn first_diff(reps: usize, n: usize, x: &mut [f64], y: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..n {
            x[i] = y[i + 1] - y[i];
        }
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn hydro_1d(reps: usize, n: usize, q: f64, r: f64, tt: f64, x: &mut [f64], y: &[f64], z: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..n {
            x[i] = q + y[i] * (r * z[i + 10] + tt * z[i + 11]);
        }
    }
}

/// Three nests per rep, parallel over k (rows) as in the C version; each ends with the loop's
/// implied barrier, which nest 2 needs (it reads za/zb of neighbouring rows).
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn hydro_2d(
    reps: usize,
    kn: usize,
    jn: usize,
    s: f64,
    tt: f64,
    zrout: &mut [f64],
    zzout: &mut [f64],
    za: &mut [f64],
    zb: &mut [f64],
    zm: &[f64],
    zp: &[f64],
    zq: &[f64],
    zr: &[f64],
    zu: &mut [f64],
    zv: &mut [f64],
    zz: &[f64],
) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for k in 1..kn - 1 {
            for j in 1..jn - 1 {
                za[j + k * jn] = (zp[j - 1 + (k + 1) * jn] + zq[j - 1 + (k + 1) * jn] - zp[j - 1 + k * jn] - zq[j - 1 + k * jn])
                    * (zr[j + k * jn] + zr[j - 1 + k * jn])
                    / (zm[j - 1 + k * jn] + zm[j - 1 + (k + 1) * jn]);
                zb[j + k * jn] = (zp[j - 1 + k * jn] + zq[j - 1 + k * jn] - zp[j + k * jn] - zq[j + k * jn])
                    * (zr[j + k * jn] + zr[j + (k - 1) * jn])
                    / (zm[j + k * jn] + zm[j - 1 + k * jn]);
            }
        }
        #[omp::parallel_for]
        for k in 1..kn - 1 {
            for j in 1..jn - 1 {
                let c = j + k * jn;
                zu[c] += s
                    * (za[c] * (zz[c] - zz[c + 1]) - za[c - 1] * (zz[c] - zz[c - 1]) - zb[c] * (zz[c] - zz[c - jn])
                        + zb[c + jn] * (zz[c] - zz[c + jn]));
                zv[c] += s
                    * (za[c] * (zr[c] - zr[c + 1]) - za[c - 1] * (zr[c] - zr[c - 1]) - zb[c] * (zr[c] - zr[c - jn])
                        + zb[c + jn] * (zr[c] - zr[c + jn]));
            }
        }
        #[omp::parallel_for]
        for k in 1..kn - 1 {
            for j in 1..jn - 1 {
                let c = j + k * jn;
                zrout[c] = zr[c] + tt * zu[c];
                zzout[c] = zz[c] + tt * zv[c];
            }
        }
    }
}

#[omp::directives]
fn planckian(reps: usize, x: &[f64], y: &mut [f64], u: &[f64], v: &[f64], w: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..w.len() {
            y[i] = u[i] / v[i];
            w[i] = x[i] / (y[i].exp() - 1.0);
        }
    }
}

impl LcalsKernels for OmpCpu {
    fn diff_predict(&self, d: &mut DiffPredict, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| diff_predict(reps, d.n, &mut d.px, &d.cx));
        Ok(())
    }

    fn eos(&self, d: &mut Eos, reps: usize, t: &mut Timer) -> Outcome {
        let Eos { x, y, z, u, q, r, t: tt, n } = d;
        t.time(|| eos(reps, *n, *q, *r, *tt, x, y, z, u));
        Ok(())
    }

    fn first_diff(&self, d: &mut FirstDiff, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| first_diff(reps, d.n, &mut d.x, &d.y));
        Ok(())
    }

    fn hydro_1d(&self, d: &mut Hydro1d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro1d { x, y, z, q, r, t: tt, n } = d;
        t.time(|| hydro_1d(reps, *n, *q, *r, *tt, x, y, z));
        Ok(())
    }

    fn hydro_2d(&self, d: &mut Hydro2d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro2d { zrout, zzout, za, zb, zm, zp, zq, zr, zu, zv, zz, kn, jn, .. } = d;
        let (kn, jn) = (*kn, *jn);
        t.time(|| hydro_2d(reps, kn, jn, Hydro2d::S, Hydro2d::T, zrout, zzout, za, zb, zm, zp, zq, zr, zu, zv, zz));
        Ok(())
    }

    fn planckian(&self, d: &mut Planckian, reps: usize, t: &mut Timer) -> Outcome {
        let Planckian { x, y, u, v, w } = d;
        t.time(|| planckian(reps, x, y, u, v, w));
        Ok(())
    }
}
