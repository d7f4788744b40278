//! Apps kernels, rayon.

use super::energy_body as body;
use super::{AppsKernels, DelDotVec2d, Energy, Fir, Ltimes, Matvec3dStencil, Pressure, Vol3d};
use crate::disjoint::DisjointSlice;
use crate::timer::Timer;
use crate::variant::{Outcome, Rayon};
use rayon::prelude::*;

impl AppsKernels for Rayon {
    fn del_dot_vec_2d(&self, d: &mut DelDotVec2d, reps: usize, t: &mut Timer) -> Outcome {
        let DelDotVec2d {
            x,
            y,
            xdot,
            ydot,
            div,
            zones,
            jp,
        } = d;
        let (x, y, xdot, ydot, zones, jp) = (&*x, &*y, &*xdot, &*ydot, &*zones, *jp);
        let div = DisjointSlice::new(div);
        t.time(|| {
            for _ in 0..reps {
                zones.par_iter().for_each(|&zone| {
                    let i = zone as usize;
                    // SAFETY: the real-zone list has distinct entries, so each i is written
                    // by one iteration only, and div is not read in the loop.
                    unsafe { div.write(i, DelDotVec2d::zone(x, y, xdot, ydot, i, jp)) };
                });
            }
        });
        Ok(())
    }

    fn energy(&self, d: &mut Energy, reps: usize, t: &mut Timer) -> Outcome {
        let Energy {
            e_new,
            e_old,
            delvc,
            p_new,
            p_old,
            q_new,
            q_old,
            work,
            comp_half_step,
            p_half_step,
            bvc,
            pbvc,
            ql_old,
            qq_old,
            vnewc,
            rho0,
            e_cut,
            emin,
            q_cut,
        } = d;
        let (rho0, e_cut, emin, q_cut) = (*rho0, *e_cut, *emin, *q_cut);
        let (e_old, delvc, p_new, p_old, q_old, work) =
            (&*e_old, &*delvc, &*p_new, &*p_old, &*q_old, &*work);
        let (comp_half_step, p_half_step, bvc, pbvc) =
            (&*comp_half_step, &*p_half_step, &*bvc, &*pbvc);
        let (ql_old, qq_old, vnewc) = (&*ql_old, &*qq_old, &*vnewc);
        t.time(|| {
            for _ in 0..reps {
                e_new.par_iter_mut().enumerate().for_each(|(i, e)| {
                    *e = body::e1(e_old[i], delvc[i], p_old[i], q_old[i], work[i]);
                });
                q_new
                    .par_iter_mut()
                    .zip(e_new.par_iter())
                    .enumerate()
                    .for_each(|(i, (q, e))| {
                        *q = body::q2(
                            delvc[i],
                            comp_half_step[i],
                            pbvc[i],
                            *e,
                            bvc[i],
                            p_half_step[i],
                            rho0,
                            ql_old[i],
                            qq_old[i],
                        );
                    });
                e_new
                    .par_iter_mut()
                    .zip(q_new.par_iter())
                    .enumerate()
                    .for_each(|(i, (e, q))| {
                        *e = body::e3(*e, delvc[i], p_old[i], q_old[i], p_half_step[i], *q);
                    });
                e_new.par_iter_mut().enumerate().for_each(|(i, e)| {
                    *e = body::e4(*e, work[i], e_cut, emin);
                });
                e_new
                    .par_iter_mut()
                    .zip(q_new.par_iter())
                    .enumerate()
                    .for_each(|(i, (e, q))| {
                        *e = body::e5(
                            *e,
                            delvc[i],
                            pbvc[i],
                            vnewc[i],
                            bvc[i],
                            p_new[i],
                            rho0,
                            ql_old[i],
                            qq_old[i],
                            p_old[i],
                            q_old[i],
                            p_half_step[i],
                            *q,
                            e_cut,
                            emin,
                        );
                    });
                q_new
                    .par_iter_mut()
                    .zip(e_new.par_iter())
                    .enumerate()
                    .for_each(|(i, (q, e))| {
                        *q = body::q6(
                            *q, delvc[i], pbvc[i], *e, vnewc[i], bvc[i], p_new[i], rho0, ql_old[i],
                            qq_old[i], q_cut,
                        );
                    });
            }
        });
        Ok(())
    }

    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        let (input, out) = (&d.input, &mut d.out);
        t.time(|| {
            for _ in 0..reps {
                out.par_iter_mut()
                    .zip(input.par_windows(Fir::COEFF.len()))
                    .for_each(|(o, w)| {
                        let mut sum = 0.0;
                        for j in 0..Fir::COEFF.len() {
                            sum += Fir::COEFF[j] * w[j];
                        }
                        *o = sum;
                    });
            }
        });
        Ok(())
    }

    fn ltimes(&self, d: &mut Ltimes, reps: usize, t: &mut Timer) -> Outcome {
        let Ltimes {
            phi,
            ell,
            psi,
            num_d,
            num_g,
            num_m,
            ..
        } = d;
        let (nd, ng, nm, ell, psi) = (*num_d, *num_g, *num_m, &*ell, &*psi);
        t.time(|| {
            for _ in 0..reps {
                // Parallel over zones z, like RAJAPerf's OpenMP variant.
                phi.par_chunks_mut(nm * ng)
                    .enumerate()
                    .for_each(|(z, phi_z)| {
                        for g in 0..ng {
                            for m in 0..nm {
                                for dd in 0..nd {
                                    phi_z[m + g * nm] +=
                                        ell[dd + m * nd] * psi[dd + g * nd + z * nd * ng];
                                }
                            }
                        }
                    });
            }
        });
        Ok(())
    }

    fn matvec_3d_stencil(&self, d: &mut Matvec3dStencil, reps: usize, t: &mut Timer) -> Outcome {
        let Matvec3dStencil {
            b,
            x,
            coefs,
            zones,
            jp,
            kp,
            ..
        } = d;
        let (x, coefs, zones, jp, kp) = (&*x, &*coefs, &*zones, *jp, *kp);
        let b = DisjointSlice::new(b);
        t.time(|| {
            for _ in 0..reps {
                zones.par_iter().for_each(|&zone| {
                    let i = zone as usize;
                    // SAFETY: distinct zone entries; b is not read in the loop.
                    unsafe { b.write(i, Matvec3dStencil::zone(coefs, x, i, jp, kp)) };
                });
            }
        });
        Ok(())
    }

    fn pressure(&self, d: &mut Pressure, reps: usize, t: &mut Timer) -> Outcome {
        let Pressure {
            compression,
            bvc,
            p_new,
            e_old,
            vnewc,
            cls,
            p_cut,
            pmin,
            eosvmax,
        } = d;
        let (cls, p_cut, pmin, eosvmax) = (*cls, *p_cut, *pmin, *eosvmax);
        let (compression, e_old, vnewc) = (&*compression, &*e_old, &*vnewc);
        t.time(|| {
            for _ in 0..reps {
                bvc.par_iter_mut()
                    .zip(compression.par_iter())
                    .for_each(|(b, c)| *b = cls * (c + 1.0));
                p_new
                    .par_iter_mut()
                    .zip(bvc.par_iter())
                    .zip(e_old.par_iter().zip(vnewc.par_iter()))
                    .for_each(|((p, b), (e, v))| {
                        *p = Pressure::p_new(*b, *e, *v, p_cut, eosvmax, pmin)
                    });
            }
        });
        Ok(())
    }

    fn vol3d(&self, d: &mut Vol3d, reps: usize, t: &mut Timer) -> Outcome {
        let Vol3d {
            x,
            y,
            z,
            vol,
            jp,
            kp,
            fpz,
            lpz,
            ..
        } = d;
        let (x, y, z, jp, kp, fpz, lpz) = (&*x, &*y, &*z, *jp, *kp, *fpz, *lpz);
        t.time(|| {
            for _ in 0..reps {
                vol[fpz..=lpz]
                    .par_iter_mut()
                    .enumerate()
                    .for_each(|(l, v)| *v = Vol3d::zone(x, y, z, fpz + l, jp, kp));
            }
        });
        Ok(())
    }
}
