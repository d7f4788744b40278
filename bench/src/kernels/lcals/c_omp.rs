//! Lcals kernels, C OpenMP (`csrc/omp/lcals.c`).

use super::{DiffPredict, Eos, FirstDiff, Hydro1d, Hydro2d, LcalsKernels, Planckian};
use crate::kernels::c_side::CSide;
use crate::kernels::{c_i64, c_len};
use crate::timer::Timer;
use crate::variant::Outcome;

/// Pointers of HYDRO_2D's arrays, in the order of the C struct.
#[repr(C)]
pub(crate) struct Hydro2dArrays {
    zrout: *mut f64,
    zzout: *mut f64,
    za: *mut f64,
    zb: *mut f64,
    zm: *const f64,
    zp: *const f64,
    zq: *const f64,
    zr: *const f64,
    zu: *mut f64,
    zv: *mut f64,
    zz: *const f64,
}

// The entry points of `csrc/omp/lcals.c`.
crate::kernels::c_side::c_fns! {
    pub(crate) struct Fns {
        fn comp_lcals_diff_predict(px: *mut f64, cx: *const f64, n: i64, reps: i64);
        fn comp_lcals_eos(
            x: *mut f64,
            y: *const f64,
            z: *const f64,
            u: *const f64,
            q: f64,
            r: f64,
            t: f64,
            n: i64,
            reps: i64,
        );
        fn comp_lcals_first_diff(x: *mut f64, y: *const f64, n: i64, reps: i64);
        fn comp_lcals_hydro_1d(
            x: *mut f64,
            y: *const f64,
            z: *const f64,
            q: f64,
            r: f64,
            t: f64,
            n: i64,
            reps: i64,
        );
        fn comp_lcals_hydro_2d(a: *const Hydro2dArrays, kn: i64, jn: i64, s: f64, t: f64, reps: i64);
        fn comp_lcals_planckian(
            x: *const f64,
            y: *mut f64,
            u: *const f64,
            v: *const f64,
            w: *mut f64,
            n: i64,
            reps: i64,
        );
    }
}

// SAFETY (all calls below): pointers come from Vecs at least as long as the C loops index
// (asserted here), outputs are exclusively borrowed for the call.
impl<V: CSide> LcalsKernels for V {
    fn diff_predict(&self, d: &mut DiffPredict, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.lcals;
        let mut m = self.maps();
        c_len(&[d.px.len(), d.cx.len(), 14 * d.n]);
        let n = c_i64(d.n);
        let p_px = m.tofrom(&mut d.px);
        let p_cx = m.to(&d.cx);
        t.time(|| unsafe { (f.comp_lcals_diff_predict)(p_px, p_cx, n, c_i64(reps)) });
        Ok(())
    }

    fn eos(&self, d: &mut Eos, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.lcals;
        let mut m = self.maps();
        c_len(&[d.x.len(), d.y.len(), d.z.len(), d.u.len(), d.n + 7]);
        let n = c_i64(d.n);
        let p_x = m.tofrom(&mut d.x);
        let p_y = m.to(&d.y);
        let p_z = m.to(&d.z);
        let p_u = m.to(&d.u);
        t.time(|| unsafe { (f.comp_lcals_eos)(p_x, p_y, p_z, p_u, d.q, d.r, d.t, n, c_i64(reps)) });
        Ok(())
    }

    fn first_diff(&self, d: &mut FirstDiff, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.lcals;
        let mut m = self.maps();
        c_len(&[d.x.len(), d.y.len(), d.n + 1]);
        let n = c_i64(d.n);
        let p_x = m.tofrom(&mut d.x);
        let p_y = m.to(&d.y);
        t.time(|| unsafe { (f.comp_lcals_first_diff)(p_x, p_y, n, c_i64(reps)) });
        Ok(())
    }

    fn hydro_1d(&self, d: &mut Hydro1d, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.lcals;
        let mut m = self.maps();
        c_len(&[d.x.len(), d.y.len(), d.z.len(), d.n + 12]);
        let n = c_i64(d.n);
        let p_x = m.tofrom(&mut d.x);
        let p_y = m.to(&d.y);
        let p_z = m.to(&d.z);
        t.time(|| unsafe { (f.comp_lcals_hydro_1d)(p_x, p_y, p_z, d.q, d.r, d.t, n, c_i64(reps)) });
        Ok(())
    }

    fn hydro_2d(&self, d: &mut Hydro2d, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.lcals;
        let mut m = self.maps();
        let len = d.kn * d.jn;
        c_len(&[
            len,
            d.zrout.len(),
            d.zzout.len(),
            d.za.len(),
            d.zb.len(),
            d.zm.len(),
            d.zp.len(),
            d.zq.len(),
            d.zr.len(),
            d.zu.len(),
            d.zv.len(),
            d.zz.len(),
        ]);
        let arrays = Hydro2dArrays {
            zrout: m.tofrom(&mut d.zrout),
            zzout: m.tofrom(&mut d.zzout),
            za: m.tofrom(&mut d.za),
            zb: m.tofrom(&mut d.zb),
            zm: m.to(&d.zm),
            zp: m.to(&d.zp),
            zq: m.to(&d.zq),
            zr: m.to(&d.zr),
            zu: m.tofrom(&mut d.zu),
            zv: m.tofrom(&mut d.zv),
            zz: m.to(&d.zz),
        };
        let (kn, jn) = (c_i64(d.kn), c_i64(d.jn));

        t.time(|| unsafe { (f.comp_lcals_hydro_2d)(&arrays, kn, jn, Hydro2d::S, Hydro2d::T, c_i64(reps)) });
        Ok(())
    }

    fn planckian(&self, d: &mut Planckian, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.lcals;
        let mut m = self.maps();
        let n = c_len(&[d.x.len(), d.y.len(), d.u.len(), d.v.len(), d.w.len()]);
        let p_x = m.to(&d.x);
        let p_y = m.tofrom(&mut d.y);
        let p_u = m.to(&d.u);
        let p_v = m.to(&d.v);
        let p_w = m.tofrom(&mut d.w);
        t.time(|| unsafe { (f.comp_lcals_planckian)(p_x, p_y, p_u, p_v, p_w, n, c_i64(reps)) });
        Ok(())
    }
}
