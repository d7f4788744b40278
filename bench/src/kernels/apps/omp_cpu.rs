//! Apps kernels, omp-rs on the host (`csrc/omp/apps.c` written with omp-rs directives). The
//! loop bodies are the shared `declare_target` functions of `mod.rs`.

use super::energy_body::{e1, e3, e4, e5, q2, q6};
use super::{
    del_dot_vec_2d_zone, matvec_3d_zone, pressure_p_new, vol3d_zone, AppsKernels, DelDotVec2d, Energy, Fir, Ltimes, Matvec3dStencil,
    Pressure, Vol3d,
};
use crate::timer::Timer;
use crate::variant::{OmpCpu, Outcome};

/// Restructured: the C form `div[i] = ...` with `i = zones[ii]` is rejected ("cannot prove that
/// iterations of this parallel loop write different elements of `div`: the index of this write
/// to `div[i]` is not an affine function of the loop variables (it reads another array (an
/// indirect index)). Use `#[omp::atomic]` for scattered updates, ..."): the analysis cannot
/// know that the zone list holds distinct zones. An atomic write (`#pragma omp atomic write`)
/// is race-free whatever the list holds and stores the same value; on x86-64 a relaxed 8-byte
/// atomic store is an ordinary `mov`.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn del_dot_vec_2d(reps: usize, jp: usize, x: &[f64], y: &[f64], xdot: &[f64], ydot: &[f64], div: &mut [f64], zones: &[i64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for ii in 0..zones.len() {
            let i = zones[ii] as usize;
            #[omp::atomic(write)]
            div[i] = del_dot_vec_2d_zone(x, y, xdot, ydot, i, jp);
        }
    }
}

/// Six loops per rep, each a parallel loop with its implied barrier.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn energy(
    reps: usize,
    e_new: &mut [f64],
    q_new: &mut [f64],
    e_old: &[f64],
    delvc: &[f64],
    p_new: &[f64],
    p_old: &[f64],
    q_old: &[f64],
    work: &[f64],
    comp_half_step: &[f64],
    p_half_step: &[f64],
    bvc: &[f64],
    pbvc: &[f64],
    ql_old: &[f64],
    qq_old: &[f64],
    vnewc: &[f64],
    rho0: f64,
    e_cut: f64,
    emin: f64,
    q_cut: f64,
) {
    let n = e_new.len();
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..n {
            e_new[i] = e1(e_old[i], delvc[i], p_old[i], q_old[i], work[i]);
        }
        #[omp::parallel_for]
        for i in 0..n {
            q_new[i] = q2(i, delvc, comp_half_step, pbvc, e_new, bvc, p_half_step, rho0, ql_old, qq_old);
        }
        #[omp::parallel_for]
        for i in 0..n {
            e_new[i] = e3(e_new[i], delvc[i], p_old[i], q_old[i], p_half_step[i], q_new[i]);
        }
        #[omp::parallel_for]
        for i in 0..n {
            e_new[i] = e4(e_new[i], work[i], e_cut, emin);
        }
        #[omp::parallel_for]
        for i in 0..n {
            e_new[i] = e5(i, e_new[i], delvc, pbvc, vnewc, bvc, p_new, rho0, ql_old, qq_old, p_old, q_old, p_half_step, q_new, e_cut, emin);
        }
        #[omp::parallel_for]
        for i in 0..n {
            if delvc[i] <= 0.0 {
                q_new[i] = q6(i, pbvc, e_new, vnewc, bvc, p_new, rho0, ql_old, qq_old, q_cut);
            }
        }
    }
}

/// The taps are the constant `Fir::COEFF`, as in `seq.rs`: a 16-iteration inner loop.
#[omp::directives]
fn fir(reps: usize, input: &[f64], out: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..out.len() {
            let mut sum = 0.0;
            for j in 0..Fir::COEFF.len() {
                sum += Fir::COEFF[j] * input[i + j];
            }
            out[i] = sum;
        }
    }
}

/// Parallel over zones z, like RAJAPerf's Base_OpenMP; phi is accumulated in the d order of
/// `seq.rs`.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn ltimes(reps: usize, nd: usize, ng: usize, nm: usize, nz: usize, phi: &mut [f64], ell: &[f64], psi: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for z in 0..nz {
            for g in 0..ng {
                for m in 0..nm {
                    let mut acc = phi[m + g * nm + z * nm * ng];
                    for d in 0..nd {
                        acc += ell[d + m * nd] * psi[d + g * nd + z * nd * ng];
                    }
                    phi[m + g * nm + z * nm * ng] = acc;
                }
            }
        }
    }
}

/// Restructured like DEL_DOT_VEC_2D: `b[zones[ii]]` is an indirect write, so it is an
/// `#[omp::atomic(write)]`.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn matvec_3d_stencil(
    reps: usize,
    jp: usize,
    kp: usize,
    b: &mut [f64],
    x: &[f64],
    zones: &[i64],
    dbl: &[f64],
    dbc: &[f64],
    dbr: &[f64],
    dcl: &[f64],
    dcc: &[f64],
    dcr: &[f64],
    dfl: &[f64],
    dfc: &[f64],
    dfr: &[f64],
    cbl: &[f64],
    cbc: &[f64],
    cbr: &[f64],
    ccl: &[f64],
    ccc: &[f64],
) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for ii in 0..zones.len() {
            let i = zones[ii] as usize;
            #[omp::atomic(write)]
            b[i] = matvec_3d_zone(dbl, dbc, dbr, dcl, dcc, dcr, dfl, dfc, dfr, cbl, cbc, cbr, ccl, ccc, x, i, jp, kp);
        }
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn pressure(
    reps: usize,
    compression: &[f64],
    bvc: &mut [f64],
    p_new: &mut [f64],
    e_old: &[f64],
    vnewc: &[f64],
    cls: f64,
    p_cut: f64,
    pmin: f64,
    eosvmax: f64,
) {
    let n = p_new.len();
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..n {
            bvc[i] = cls * (compression[i] + 1.0);
        }
        #[omp::parallel_for]
        for i in 0..n {
            p_new[i] = pressure_p_new(bvc[i], e_old[i], vnewc[i], p_cut, eosvmax, pmin);
        }
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn vol3d(reps: usize, jp: usize, kp: usize, fpz: usize, lpz: usize, x: &[f64], y: &[f64], z: &[f64], vol: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in fpz..=lpz {
            vol[i] = vol3d_zone(x, y, z, i, jp, kp);
        }
    }
}

impl AppsKernels for OmpCpu {
    fn del_dot_vec_2d(&self, d: &mut DelDotVec2d, reps: usize, t: &mut Timer) -> Outcome {
        let DelDotVec2d { x, y, xdot, ydot, div, zones, jp } = d;
        t.time(|| del_dot_vec_2d(reps, *jp, x, y, xdot, ydot, div, zones));
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
        t.time(|| {
            energy(
                reps,
                e_new,
                q_new,
                e_old,
                delvc,
                p_new,
                p_old,
                q_old,
                work,
                comp_half_step,
                p_half_step,
                bvc,
                pbvc,
                ql_old,
                qq_old,
                vnewc,
                *rho0,
                *e_cut,
                *emin,
                *q_cut,
            )
        });
        Ok(())
    }

    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| fir(reps, &d.input, &mut d.out));
        Ok(())
    }

    fn ltimes(&self, d: &mut Ltimes, reps: usize, t: &mut Timer) -> Outcome {
        let Ltimes { phi, ell, psi, num_d, num_g, num_m, num_z, .. } = d;
        t.time(|| ltimes(reps, *num_d, *num_g, *num_m, *num_z, phi, ell, psi));
        Ok(())
    }

    fn matvec_3d_stencil(&self, d: &mut Matvec3dStencil, reps: usize, t: &mut Timer) -> Outcome {
        let Matvec3dStencil { b, x, coefs: c, zones, jp, kp, .. } = d;
        t.time(|| {
            matvec_3d_stencil(
                reps, *jp, *kp, b, x, zones, &c.dbl, &c.dbc, &c.dbr, &c.dcl, &c.dcc, &c.dcr, &c.dfl, &c.dfc, &c.dfr, &c.cbl, &c.cbc,
                &c.cbr, &c.ccl, &c.ccc,
            )
        });
        Ok(())
    }

    fn pressure(&self, d: &mut Pressure, reps: usize, t: &mut Timer) -> Outcome {
        let Pressure { compression, bvc, p_new, e_old, vnewc, cls, p_cut, pmin, eosvmax } = d;
        t.time(|| pressure(reps, compression, bvc, p_new, e_old, vnewc, *cls, *p_cut, *pmin, *eosvmax));
        Ok(())
    }

    fn vol3d(&self, d: &mut Vol3d, reps: usize, t: &mut Timer) -> Outcome {
        let Vol3d { x, y, z, vol, jp, kp, fpz, lpz, .. } = d;
        t.time(|| vol3d(reps, *jp, *kp, *fpz, *lpz, x, y, z, vol));
        Ok(())
    }
}
