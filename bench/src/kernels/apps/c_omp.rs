//! Apps kernels, C OpenMP (`csrc/omp/apps.c`).

use super::{AppsKernels, DelDotVec2d, Energy, Fir, Ltimes, Matvec3dStencil, Pressure, Vol3d};
use crate::kernels::c_side::CSide;
use crate::kernels::{c_i64, c_len};
use crate::timer::Timer;
use crate::variant::Outcome;

/// ENERGY's arrays and scalars, in the order of the C struct.
#[repr(C)]
pub(crate) struct EnergyArgs {
    e_new: *mut f64,
    e_old: *const f64,
    delvc: *const f64,
    p_new: *const f64,
    p_old: *const f64,
    q_new: *mut f64,
    q_old: *const f64,
    work: *const f64,
    comp_half_step: *const f64,
    p_half_step: *const f64,
    bvc: *const f64,
    pbvc: *const f64,
    ql_old: *const f64,
    qq_old: *const f64,
    vnewc: *const f64,
    rho0: f64,
    e_cut: f64,
    emin: f64,
    q_cut: f64,
}

// The entry points of `csrc/omp/apps.c`.
crate::kernels::c_side::c_fns! {
    pub(crate) struct Fns {
        fn comp_apps_del_dot_vec_2d(
            x: *const f64,
            y: *const f64,
            xdot: *const f64,
            ydot: *const f64,
            div: *mut f64,
            zones: *const i64,
            nzones: i64,
            jp: i64,
            reps: i64,
        );
        fn comp_apps_energy(a: *const EnergyArgs, n: i64, reps: i64);
        fn comp_apps_fir(
            input: *const f64,
            out: *mut f64,
            coeff: *const f64,
            ncoeff: i64,
            n: i64,
            reps: i64,
        );
        fn comp_apps_ltimes(
            phi: *mut f64,
            ell: *const f64,
            psi: *const f64,
            num_d: i64,
            num_g: i64,
            num_m: i64,
            num_z: i64,
            reps: i64,
        );
        fn comp_apps_matvec_3d_stencil(
            b: *mut f64,
            x: *const f64,
            coefs: *const *const f64,
            zones: *const i64,
            nzones: i64,
            jp: i64,
            kp: i64,
            reps: i64,
        );
        fn comp_apps_pressure(
            compression: *const f64,
            bvc: *mut f64,
            p_new: *mut f64,
            e_old: *const f64,
            vnewc: *const f64,
            cls: f64,
            p_cut: f64,
            pmin: f64,
            eosvmax: f64,
            n: i64,
            reps: i64,
        );
        fn comp_apps_vol3d(
            x: *const f64,
            y: *const f64,
            z: *const f64,
            vol: *mut f64,
            jp: i64,
            kp: i64,
            fpz: i64,
            lpz: i64,
            reps: i64,
        );
    }
}

/// Every zone index must keep all its neighbours inside an array of `len`.
fn check_zones(zones: &[i64], reach: usize, len: usize) {
    let (lo, hi) = zones.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &z| (lo.min(z), hi.max(z)));
    assert!(zones.is_empty() || (lo as usize >= reach && hi as usize + reach < len));
}

// SAFETY (all calls below): lengths and index ranges the C loops use are asserted against
// the Vecs; outputs are exclusively borrowed for the call.
impl<V: CSide> AppsKernels for V {
    fn del_dot_vec_2d(&self, d: &mut DelDotVec2d, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.apps;
        let mut m = self.maps();
        let nn = c_len(&[d.x.len(), d.y.len(), d.xdot.len(), d.ydot.len(), d.div.len()]);
        check_zones(&d.zones, d.jp + 1, nn as usize);
        let (nz, jp) = (c_i64(d.zones.len()), c_i64(d.jp));
        let p_x = m.to(&d.x);
        let p_y = m.to(&d.y);
        let p_xdot = m.to(&d.xdot);
        let p_ydot = m.to(&d.ydot);
        let p_div = m.tofrom(&mut d.div);
        let p_zones = m.to(&d.zones);
        t.time(|| unsafe { (f.comp_apps_del_dot_vec_2d)(p_x, p_y, p_xdot, p_ydot, p_div, p_zones, nz, jp, c_i64(reps)) });
        Ok(())
    }

    fn energy(&self, d: &mut Energy, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.apps;
        let mut m = self.maps();
        let n = c_len(&[
            d.e_new.len(),
            d.e_old.len(),
            d.delvc.len(),
            d.p_new.len(),
            d.p_old.len(),
            d.q_new.len(),
            d.q_old.len(),
            d.work.len(),
            d.comp_half_step.len(),
            d.p_half_step.len(),
            d.bvc.len(),
            d.pbvc.len(),
            d.ql_old.len(),
            d.qq_old.len(),
            d.vnewc.len(),
        ]);
        let args = EnergyArgs {
            e_new: m.tofrom(&mut d.e_new),
            e_old: m.to(&d.e_old),
            delvc: m.to(&d.delvc),
            p_new: m.to(&d.p_new),
            p_old: m.to(&d.p_old),
            q_new: m.tofrom(&mut d.q_new),
            q_old: m.to(&d.q_old),
            work: m.to(&d.work),
            comp_half_step: m.to(&d.comp_half_step),
            p_half_step: m.to(&d.p_half_step),
            bvc: m.to(&d.bvc),
            pbvc: m.to(&d.pbvc),
            ql_old: m.to(&d.ql_old),
            qq_old: m.to(&d.qq_old),
            vnewc: m.to(&d.vnewc),
            rho0: d.rho0,
            e_cut: d.e_cut,
            emin: d.emin,
            q_cut: d.q_cut,
        };

        t.time(|| unsafe { (f.comp_apps_energy)(&args, n, c_i64(reps)) });
        Ok(())
    }

    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.apps;
        let mut m = self.maps();
        let ncoeff = Fir::COEFF.len();
        assert_eq!(ncoeff, 16, "csrc/omp/apps.c has FIR_COEFFLEN 16");
        let n = c_len(&[d.out.len(), d.input.len() + 1 - ncoeff]);
        let p_input = m.to(&d.input);
        let p_out = m.tofrom(&mut d.out);
        let coeff = m.to(&Fir::COEFF);
        t.time(|| unsafe { (f.comp_apps_fir)(p_input, p_out, coeff, c_i64(ncoeff), n, c_i64(reps)) });
        Ok(())
    }

    fn ltimes(&self, d: &mut Ltimes, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.apps;
        let mut m = self.maps();
        c_len(&[d.phi.len(), d.num_m * d.num_g * d.num_z]);
        c_len(&[d.ell.len(), d.num_d * d.num_m]);
        c_len(&[d.psi.len(), d.num_d * d.num_g * d.num_z]);
        let dims = [d.num_d, d.num_g, d.num_m, d.num_z].map(c_i64);
        let p_phi = m.tofrom(&mut d.phi);
        let p_ell = m.to(&d.ell);
        let p_psi = m.to(&d.psi);
        t.time(|| unsafe { (f.comp_apps_ltimes)(p_phi, p_ell, p_psi, dims[0], dims[1], dims[2], dims[3], c_i64(reps)) });
        Ok(())
    }

    fn matvec_3d_stencil(&self, d: &mut Matvec3dStencil, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.apps;
        let mut m = self.maps();
        let arrays = d.coefs.arrays();
        let mut lens: Vec<usize> = arrays.iter().map(|a| a.len()).collect();
        lens.extend([d.b.len(), d.x.len()]);
        let len = c_len(&lens);
        check_zones(&d.zones, d.kp + d.jp + 1, len as usize);
        let ptrs = arrays.map(|a| m.to(a));
        let (nz, jp, kp) = (c_i64(d.zones.len()), c_i64(d.jp), c_i64(d.kp));
        let p_b = m.tofrom(&mut d.b);
        let p_x = m.to(&d.x);
        let p_zones = m.to(&d.zones);
        t.time(|| unsafe { (f.comp_apps_matvec_3d_stencil)(p_b, p_x, ptrs.as_ptr(), p_zones, nz, jp, kp, c_i64(reps)) });
        Ok(())
    }

    fn pressure(&self, d: &mut Pressure, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.apps;
        let mut m = self.maps();
        let n = c_len(&[d.compression.len(), d.bvc.len(), d.p_new.len(), d.e_old.len(), d.vnewc.len()]);
        let p_compression = m.to(&d.compression);
        let p_bvc = m.tofrom(&mut d.bvc);
        let p_p_new = m.tofrom(&mut d.p_new);
        let p_e_old = m.to(&d.e_old);
        let p_vnewc = m.to(&d.vnewc);
        t.time(|| unsafe {
            (f.comp_apps_pressure)(p_compression, p_bvc, p_p_new, p_e_old, p_vnewc, d.cls, d.p_cut, d.pmin, d.eosvmax, n, c_i64(reps))
        });
        Ok(())
    }

    fn vol3d(&self, d: &mut Vol3d, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.apps;
        let mut m = self.maps();
        let nn = c_len(&[d.x.len(), d.y.len(), d.z.len(), d.vol.len()]);
        assert!(d.lpz + 1 + d.jp + d.kp < nn as usize);
        let v = [d.jp, d.kp, d.fpz, d.lpz].map(c_i64);
        let p_x = m.to(&d.x);
        let p_y = m.to(&d.y);
        let p_z = m.to(&d.z);
        let p_vol = m.tofrom(&mut d.vol);
        t.time(|| unsafe { (f.comp_apps_vol3d)(p_x, p_y, p_z, p_vol, v[0], v[1], v[2], v[3], c_i64(reps)) });
        Ok(())
    }
}
