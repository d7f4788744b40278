//! Apps kernels, omp-rs target regions (Base_OpenMPTarget); see `stream/omp_gpu.rs` for the
//! pattern: arrays mapped by a `target_data` region around the timed rep loop. The loop bodies
//! are the shared `declare_target` functions of `mod.rs`, compiled into the device image.

use super::energy_body::{e1, e3, e4, e5, q2, q6};
use super::{
    del_dot_vec_2d_zone, matvec_3d_zone, pressure_p_new, vol3d_zone, AppsKernels, DelDotVec2d, Energy, Fir, Ltimes, Matvec3dStencil,
    Pressure, Vol3d,
};
use crate::timer::Timer;
use crate::variant::{OmpGpu, Outcome};

/// `div[zones[ii]]` is an indirect write, so it is an `#[omp::atomic(write)]` as in
/// `omp_cpu.rs` (an atomic store on the GPU: no read-modify-write, no contention).
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn del_dot_vec_2d(t: &mut Timer, reps: usize, jp: usize, x: &[f64], y: &[f64], xdot: &[f64], ydot: &[f64], div: &mut [f64], zones: &[i64]) {
    #[omp::target_data(map(to: x, y, xdot, ydot, zones), map(tofrom: div))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for ii in 0..zones.len() {
                let i = zones[ii] as usize;
                #[omp::atomic(write)]
                div[i] = del_dot_vec_2d_zone(x, y, xdot, ydot, i, jp);
            }
        }
        t.stop();
    }
}

/// Six regions per rep; each launch completes before the next one starts.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn energy(
    t: &mut Timer,
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
    #[omp::target_data(map(tofrom: e_new, q_new), map(to: e_old, delvc, p_new, p_old, q_old, work, comp_half_step, p_half_step, bvc, pbvc, ql_old, qq_old, vnewc))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                e_new[i] = e1(e_old[i], delvc[i], p_old[i], q_old[i], work[i]);
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                q_new[i] = q2(i, delvc, comp_half_step, pbvc, e_new, bvc, p_half_step, rho0, ql_old, qq_old);
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                e_new[i] = e3(e_new[i], delvc[i], p_old[i], q_old[i], p_half_step[i], q_new[i]);
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                e_new[i] = e4(e_new[i], work[i], e_cut, emin);
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                e_new[i] =
                    e5(i, e_new[i], delvc, pbvc, vnewc, bvc, p_new, rho0, ql_old, qq_old, p_old, q_old, p_half_step, q_new, e_cut, emin);
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                if delvc[i] <= 0.0 {
                    q_new[i] = q6(i, pbvc, e_new, vnewc, bvc, p_new, rho0, ql_old, qq_old, q_cut);
                }
            }
        }
        t.stop();
    }
}

/// The taps are a local `[f64; 16]`, as RAJAPerf's kernel copies its coefficients into a local
/// `Real_type coeff[FIR_COEFFLEN]` (`Fir::COEFF` is an associated constant, which a kernel cannot
/// name): an array value of literal length reaches the kernel as 16 parameters, which the GPU reads
/// from its constant bank like CUDA's `__constant__` coefficients. The input window is sliced to 16
/// once, so LLVM unrolls the taps and drops the per-tap bounds checks.
#[omp::directives]
fn fir(t: &mut Timer, reps: usize, coeff: &[f64], input: &[f64], out: &mut [f64]) {
    let taps: [f64; 16] = coeff.try_into().expect("FIR kernel is written for 16 taps");
    #[omp::target_data(map(to: input), map(tofrom: out))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..out.len() {
                let window = &input[i..i + 16];
                let mut sum = 0.0;
                for j in 0..16 {
                    sum += taps[j] * window[j];
                }
                out[i] = sum;
            }
        }
        t.stop();
    }
}

/// `collapse(3)` over z, g, m: one GPU thread per phi element, each summing over d in the
/// order of `seq.rs`.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn ltimes(t: &mut Timer, reps: usize, nd: usize, ng: usize, nm: usize, nz: usize, phi: &mut [f64], ell: &[f64], psi: &[f64]) {
    #[omp::target_data(map(tofrom: phi), map(to: ell, psi))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(collapse(3), nowait)]
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
        t.stop();
    }
}

/// `b[zones[ii]]` is an indirect write: `#[omp::atomic(write)]`, as for DEL_DOT_VEC_2D.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn matvec_3d_stencil(
    t: &mut Timer,
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
    #[omp::target_data(map(tofrom: b), map(to: x, zones, dbl, dbc, dbr, dcl, dcc, dcr, dfl, dfc, dfr, cbl, cbc, cbr, ccl, ccc))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for ii in 0..zones.len() {
                let i = zones[ii] as usize;
                #[omp::atomic(write)]
                b[i] = matvec_3d_zone(dbl, dbc, dbr, dcl, dcc, dcr, dfl, dfc, dfr, cbl, cbc, cbr, ccl, ccc, x, i, jp, kp);
            }
        }
        t.stop();
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn pressure(
    t: &mut Timer,
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
    #[omp::target_data(map(to: compression, e_old, vnewc), map(tofrom: bvc, p_new))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                bvc[i] = cls * (compression[i] + 1.0);
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                p_new[i] = pressure_p_new(bvc[i], e_old[i], vnewc[i], p_cut, eosvmax, pmin);
            }
        }
        t.stop();
    }
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn vol3d(t: &mut Timer, reps: usize, jp: usize, kp: usize, fpz: usize, lpz: usize, x: &[f64], y: &[f64], z: &[f64], vol: &mut [f64]) {
    #[omp::target_data(map(to: x, y, z), map(tofrom: vol))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in fpz..=lpz {
                vol[i] = vol3d_zone(x, y, z, i, jp, kp);
            }
        }
        t.stop();
    }
}

impl AppsKernels for OmpGpu {
    fn del_dot_vec_2d(&self, d: &mut DelDotVec2d, reps: usize, t: &mut Timer) -> Outcome {
        let DelDotVec2d { x, y, xdot, ydot, div, zones, jp } = d;
        del_dot_vec_2d(t, reps, *jp, x, y, xdot, ydot, div, zones);
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
        energy(
            t,
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
        );
        Ok(())
    }

    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        fir(t, reps, &Fir::COEFF, &d.input, &mut d.out);
        Ok(())
    }

    fn ltimes(&self, d: &mut Ltimes, reps: usize, t: &mut Timer) -> Outcome {
        let Ltimes { phi, ell, psi, num_d, num_g, num_m, num_z, .. } = d;
        ltimes(t, reps, *num_d, *num_g, *num_m, *num_z, phi, ell, psi);
        Ok(())
    }

    fn matvec_3d_stencil(&self, d: &mut Matvec3dStencil, reps: usize, t: &mut Timer) -> Outcome {
        let Matvec3dStencil { b, x, coefs: c, zones, jp, kp, .. } = d;
        matvec_3d_stencil(
            t, reps, *jp, *kp, b, x, zones, &c.dbl, &c.dbc, &c.dbr, &c.dcl, &c.dcc, &c.dcr, &c.dfl, &c.dfc, &c.dfr, &c.cbl, &c.cbc, &c.cbr,
            &c.ccl, &c.ccc,
        );
        Ok(())
    }

    fn pressure(&self, d: &mut Pressure, reps: usize, t: &mut Timer) -> Outcome {
        let Pressure { compression, bvc, p_new, e_old, vnewc, cls, p_cut, pmin, eosvmax } = d;
        pressure(t, reps, compression, bvc, p_new, e_old, vnewc, *cls, *p_cut, *pmin, *eosvmax);
        Ok(())
    }

    fn vol3d(&self, d: &mut Vol3d, reps: usize, t: &mut Timer) -> Outcome {
        let Vol3d { x, y, z, vol, jp, kp, fpz, lpz, .. } = d;
        vol3d(t, reps, *jp, *kp, *fpz, *lpz, x, y, z, vol);
        Ok(())
    }
}
