//! Apps kernels, sequential (Base_Seq).

use super::{AppsKernels, DelDotVec2d, Energy, Fir, Ltimes, Matvec3dStencil, Pressure, Vol3d};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

impl AppsKernels for Seq {
    fn del_dot_vec_2d(&self, d: &mut DelDotVec2d, reps: usize, t: &mut Timer) -> Outcome {
        let DelDotVec2d { x, y, xdot, ydot, div, zones, jp } = d;
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
        let (v, e_new, q_new) = d.split();
        t.time(|| {
            for _ in 0..reps {
                v.loop1(e_new);
                v.loop2(e_new, q_new);
                v.loop3(e_new, q_new);
                v.loop4(e_new);
                v.loop5(e_new, q_new);
                v.loop6(e_new, q_new);
            }
        });
        Ok(())
    }

    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        let (input, out) = (&d.input, &mut d.out);
        const TAPS: usize = Fir::COEFF.len();
        t.time(|| {
            for _ in 0..reps {
                for i in 0..out.len() {
                    let window = &input[i..i + TAPS];
                    let mut sum = 0.0;
                    for j in 0..TAPS {
                        sum += Fir::COEFF[j] * window[j];
                    }
                    out[i] = sum;
                }
            }
        });
        Ok(())
    }

    fn ltimes(&self, d: &mut Ltimes, reps: usize, t: &mut Timer) -> Outcome {
        let Ltimes { phi, ell, psi, num_d, num_g, num_m, num_z, .. } = d;
        let (nd, ng, nm, nz) = (*num_d, *num_g, *num_m, *num_z);
        t.time(|| {
            for _ in 0..reps {
                for z in 0..nz {
                    let phi_z = &mut phi[z * nm * ng..][..nm * ng];
                    Ltimes::zone(phi_z, ell, &psi[z * nd * ng..][..nd * ng], nd, ng, nm);
                }
            }
        });
        Ok(())
    }

    fn matvec_3d_stencil(&self, d: &mut Matvec3dStencil, reps: usize, t: &mut Timer) -> Outcome {
        let Matvec3dStencil { b, x, coefs, zones, jp, kp, .. } = d;
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
        let Pressure { compression, bvc, p_new, e_old, vnewc, cls, p_cut, pmin, eosvmax } = d;
        let (cls, p_cut, pmin, eosvmax) = (*cls, *p_cut, *pmin, *eosvmax);
        let n = p_new.len();
        let (compression, bvc, e_old, vnewc) = (&compression[..n], &mut bvc[..n], &e_old[..n], &vnewc[..n]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..n {
                    bvc[i] = cls * (compression[i] + 1.0);
                }
                for i in 0..n {
                    p_new[i] = Pressure::p_new(bvc[i], e_old[i], vnewc[i], p_cut, eosvmax, pmin);
                }
            }
        });
        Ok(())
    }

    fn vol3d(&self, d: &mut Vol3d, reps: usize, t: &mut Timer) -> Outcome {
        let Vol3d { x, y, z, vol, jp, kp, fpz, lpz, .. } = d;
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
