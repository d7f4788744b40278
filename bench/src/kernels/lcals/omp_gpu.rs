//! Lcals kernels, omp-rs target regions (Base_OpenMPTarget); see `stream/omp_gpu.rs` for the
//! pattern: arrays mapped by a `target_data` region around the timed rep loop.

use super::{DiffPredict, Eos, FirstDiff, Hydro1d, Hydro2d, LcalsKernels, Planckian};
use crate::timer::Timer;
use crate::variant::{OmpGpu, Outcome};

/// px stays on the device and evolves across reps. The final store is folded into the `r` loop
/// as in `omp_cpu.rs` (one index form per written array).
#[omp::directives]
fn diff_predict(t: &mut Timer, reps: usize, n: usize, px: &mut [f64], cx: &[f64]) {
    #[omp::target_data(map(tofrom: px), map(to: cx))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                let mut carry = cx[i + 4 * n];
                for r in 4..14 {
                    let next = carry - px[i + r * n];
                    px[i + r * n] = carry;
                    carry = next;
                }
            }
        }
        t.stop();
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn eos(t: &mut Timer, reps: usize, n: usize, q: f64, r: f64, tt: f64, x: &mut [f64], y: &[f64], z: &[f64], u: &[f64]) {
    #[omp::target_data(map(tofrom: x), map(to: y, z, u))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                x[i] = u[i]
                    + r * (z[i] + r * y[i])
                    + tt * (u[i + 3] + r * (u[i + 2] + r * u[i + 1]) + tt * (u[i + 6] + q * (u[i + 5] + q * u[i + 4])));
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn first_diff(t: &mut Timer, reps: usize, n: usize, x: &mut [f64], y: &[f64]) {
    #[omp::target_data(map(tofrom: x), map(to: y))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                x[i] = y[i + 1] - y[i];
            }
        }
        t.stop();
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn hydro_1d(t: &mut Timer, reps: usize, n: usize, q: f64, r: f64, tt: f64, x: &mut [f64], y: &[f64], z: &[f64]) {
    #[omp::target_data(map(tofrom: x), map(to: y, z))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                x[i] = q + y[i] * (r * z[i + 10] + tt * z[i + 11]);
            }
        }
        t.stop();
    }
}

/// Three nests per rep, each a `collapse(2)` region (one GPU thread per interior point); nest 2
/// reads za/zb of neighbouring rows, which the end of nest 1's launch makes complete.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn hydro_2d(
    t: &mut Timer,
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
    #[omp::target_data(map(tofrom: zrout, zzout, za, zb, zu, zv), map(to: zm, zp, zq, zr, zz))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(collapse(2), nowait)]
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
            #[omp::target_teams_distribute_parallel_for(collapse(2), nowait)]
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
            #[omp::target_teams_distribute_parallel_for(collapse(2), nowait)]
            for k in 1..kn - 1 {
                for j in 1..jn - 1 {
                    let c = j + k * jn;
                    zrout[c] = zr[c] + tt * zu[c];
                    zzout[c] = zz[c] + tt * zv[c];
                }
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn planckian(t: &mut Timer, reps: usize, x: &[f64], y: &mut [f64], u: &[f64], v: &[f64], w: &mut [f64]) {
    #[omp::target_data(map(to: x, u, v), map(tofrom: y, w))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..w.len() {
                y[i] = u[i] / v[i];
                w[i] = x[i] / (y[i].exp() - 1.0);
            }
        }
        t.stop();
    }
}

impl LcalsKernels for OmpGpu {
    fn diff_predict(&self, d: &mut DiffPredict, reps: usize, t: &mut Timer) -> Outcome {
        diff_predict(t, reps, d.n, &mut d.px, &d.cx);
        Ok(())
    }

    fn eos(&self, d: &mut Eos, reps: usize, t: &mut Timer) -> Outcome {
        let Eos { x, y, z, u, q, r, t: tt, n } = d;
        eos(t, reps, *n, *q, *r, *tt, x, y, z, u);
        Ok(())
    }

    fn first_diff(&self, d: &mut FirstDiff, reps: usize, t: &mut Timer) -> Outcome {
        first_diff(t, reps, d.n, &mut d.x, &d.y);
        Ok(())
    }

    fn hydro_1d(&self, d: &mut Hydro1d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro1d { x, y, z, q, r, t: tt, n } = d;
        hydro_1d(t, reps, *n, *q, *r, *tt, x, y, z);
        Ok(())
    }

    fn hydro_2d(&self, d: &mut Hydro2d, reps: usize, t: &mut Timer) -> Outcome {
        let Hydro2d { zrout, zzout, za, zb, zm, zp, zq, zr, zu, zv, zz, kn, jn, .. } = d;
        let (kn, jn) = (*kn, *jn);
        hydro_2d(t, reps, kn, jn, Hydro2d::S, Hydro2d::T, zrout, zzout, za, zb, zm, zp, zq, zr, zu, zv, zz);
        Ok(())
    }

    fn planckian(&self, d: &mut Planckian, reps: usize, t: &mut Timer) -> Outcome {
        let Planckian { x, y, u, v, w } = d;
        planckian(t, reps, x, y, u, v, w);
        Ok(())
    }
}
