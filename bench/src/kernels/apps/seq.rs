//! Apps kernels, sequential (Base_Seq).

use super::energy_body as body;
use super::{AppsKernels, DelDotVec2d, Energy, Fir, Ltimes, Matvec3dStencil, Pressure, Vol3d};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

impl AppsKernels for Seq {
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
        let jp = *jp;
        t.time(|| {
            for _ in 0..reps {
                for &zone in zones.iter() {
                    let i = zone as usize;
                    div[i] = DelDotVec2d::zone(x, y, xdot, ydot, i, jp);
                }
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
        let n = e_new.len();
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    e_new[i] = body::e1(e_old[i], delvc[i], p_old[i], q_old[i], work[i]);
                }
                for i in 0..n {
                    q_new[i] = body::q2(
                        delvc[i],
                        comp_half_step[i],
                        pbvc[i],
                        e_new[i],
                        bvc[i],
                        p_half_step[i],
                        rho0,
                        ql_old[i],
                        qq_old[i],
                    );
                }
                for i in 0..n {
                    e_new[i] = body::e3(
                        e_new[i],
                        delvc[i],
                        p_old[i],
                        q_old[i],
                        p_half_step[i],
                        q_new[i],
                    );
                }
                for i in 0..n {
                    e_new[i] = body::e4(e_new[i], work[i], e_cut, emin);
                }
                for i in 0..n {
                    e_new[i] = body::e5(
                        e_new[i],
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
                        q_new[i],
                        e_cut,
                        emin,
                    );
                }
                for i in 0..n {
                    q_new[i] = body::q6(
                        q_new[i], delvc[i], pbvc[i], e_new[i], vnewc[i], bvc[i], p_new[i], rho0,
                        ql_old[i], qq_old[i], q_cut,
                    );
                }
            }
        });
        Ok(())
    }

    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        let (input, out) = (&d.input, &mut d.out);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..out.len() {
                    let mut sum = 0.0;
                    for j in 0..Fir::COEFF.len() {
                        sum += Fir::COEFF[j] * input[i + j];
                    }
                    out[i] = sum;
                }
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
            num_z,
            ..
        } = d;
        let (nd, ng, nm, nz) = (*num_d, *num_g, *num_m, *num_z);
        t.time(|| {
            for _ in 0..reps {
                for z in 0..nz {
                    for g in 0..ng {
                        for m in 0..nm {
                            for dd in 0..nd {
                                phi[m + g * nm + z * nm * ng] +=
                                    ell[dd + m * nd] * psi[dd + g * nd + z * nd * ng];
                            }
                        }
                    }
                }
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
        let (jp, kp) = (*jp, *kp);
        t.time(|| {
            for _ in 0..reps {
                for &zone in zones.iter() {
                    let i = zone as usize;
                    b[i] = Matvec3dStencil::zone(coefs, x, i, jp, kp);
                }
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
        t.time(|| {
            for _ in 0..reps {
                for i in 0..bvc.len() {
                    bvc[i] = cls * (compression[i] + 1.0);
                }
                for i in 0..p_new.len() {
                    p_new[i] = Pressure::p_new(bvc[i], e_old[i], vnewc[i], p_cut, eosvmax, pmin);
                }
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
        let (jp, kp, fpz, lpz) = (*jp, *kp, *fpz, *lpz);
        t.time(|| {
            for _ in 0..reps {
                for i in fpz..=lpz {
                    vol[i] = Vol3d::zone(x, y, z, i, jp, kp);
                }
            }
        });
        Ok(())
    }
}
