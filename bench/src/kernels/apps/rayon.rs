//! Apps kernels, rayon.

use super::{AppsKernels, DelDotVec2d, Energy, Fir, Ltimes, Matvec3dStencil, Pressure, Vol3d};
use crate::disjoint::DisjointSlice;
use crate::kernels::RAYON_CHUNK as CHUNK;
use crate::timer::Timer;
use crate::variant::{Outcome, Rayon};
use rayon::prelude::*;

impl AppsKernels for Rayon {
    fn del_dot_vec_2d(&self, d: &mut DelDotVec2d, reps: usize, t: &mut Timer) -> Outcome {
        let DelDotVec2d { x, y, xdot, ydot, div, zones, jp } = d;
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
        let (v, e_new, q_new) = d.split();
        // Six element-wise loops, each split into chunks; chunk c covers the same index range
        // of every array.
        let at = |c: usize, len: usize| v.range(c * CHUNK..c * CHUNK + len);
        t.time(|| {
            for _ in 0..reps {
                e_new.par_chunks_mut(CHUNK).enumerate().for_each(|(c, e)| at(c, e.len()).loop1(e));
                q_new.par_chunks_mut(CHUNK).zip(e_new.par_chunks(CHUNK)).enumerate().for_each(|(c, (q, e))| at(c, q.len()).loop2(e, q));
                e_new.par_chunks_mut(CHUNK).zip(q_new.par_chunks(CHUNK)).enumerate().for_each(|(c, (e, q))| at(c, e.len()).loop3(e, q));
                e_new.par_chunks_mut(CHUNK).enumerate().for_each(|(c, e)| at(c, e.len()).loop4(e));
                e_new.par_chunks_mut(CHUNK).zip(q_new.par_chunks(CHUNK)).enumerate().for_each(|(c, (e, q))| at(c, e.len()).loop5(e, q));
                q_new.par_chunks_mut(CHUNK).zip(e_new.par_chunks(CHUNK)).enumerate().for_each(|(c, (q, e))| at(c, q.len()).loop6(e, q));
            }
        });
        Ok(())
    }

    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        let (input, out) = (&d.input, &mut d.out);
        t.time(|| {
            for _ in 0..reps {
                out.par_iter_mut().zip(input.par_windows(Fir::COEFF.len())).for_each(|(o, w)| {
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
        let Ltimes { phi, ell, psi, num_d, num_g, num_m, .. } = d;
        let (nd, ng, nm, ell, psi) = (*num_d, *num_g, *num_m, &*ell, &*psi);
        t.time(|| {
            for _ in 0..reps {
                // Parallel over zones z, like RAJAPerf's OpenMP variant.
                phi.par_chunks_mut(nm * ng)
                    .enumerate()
                    .for_each(|(z, phi_z)| Ltimes::zone(phi_z, ell, &psi[z * nd * ng..][..nd * ng], nd, ng, nm));
            }
        });
        Ok(())
    }

    fn matvec_3d_stencil(&self, d: &mut Matvec3dStencil, reps: usize, t: &mut Timer) -> Outcome {
        let Matvec3dStencil { b, x, coefs, zones, jp, kp, .. } = d;
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
        let Pressure { compression, bvc, p_new, e_old, vnewc, cls, p_cut, pmin, eosvmax } = d;
        let (cls, p_cut, pmin, eosvmax) = (*cls, *p_cut, *pmin, *eosvmax);
        let (compression, e_old, vnewc) = (&*compression, &*e_old, &*vnewc);
        t.time(|| {
            for _ in 0..reps {
                bvc.par_iter_mut().zip(compression.par_iter()).for_each(|(b, c)| *b = cls * (c + 1.0));
                p_new
                    .par_iter_mut()
                    .zip(bvc.par_iter())
                    .zip(e_old.par_iter().zip(vnewc.par_iter()))
                    .for_each(|((p, b), (e, v))| *p = Pressure::p_new(*b, *e, *v, p_cut, eosvmax, pmin));
            }
        });
        Ok(())
    }

    fn vol3d(&self, d: &mut Vol3d, reps: usize, t: &mut Timer) -> Outcome {
        let Vol3d { x, y, z, vol, jp, kp, fpz, lpz, .. } = d;
        let (x, y, z, jp, kp, fpz, lpz) = (&*x, &*y, &*z, *jp, *kp, *fpz, *lpz);
        t.time(|| {
            for _ in 0..reps {
                vol[fpz..=lpz].par_iter_mut().enumerate().for_each(|(l, v)| *v = Vol3d::zone(x, y, z, fpz + l, jp, kp));
            }
        });
        Ok(())
    }
}
