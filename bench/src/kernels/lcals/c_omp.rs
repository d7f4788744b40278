//! Lcals kernels, C OpenMP (`csrc/omp/lcals.c`).

use super::{DiffPredict, Eos, FirstDiff, Hydro1d, Hydro2d, LcalsKernels, Planckian};
use crate::kernels::{c_i64, c_len};
use crate::timer::Timer;
use crate::variant::{COmp, Outcome};

/// Pointers of HYDRO_2D's arrays, in the order of the C struct.
#[repr(C)]
struct Hydro2dArrays {
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

extern "C" {
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

// SAFETY (all calls below): pointers come from Vecs at least as long as the C loops index
// (asserted here), outputs are exclusively borrowed for the call.
impl LcalsKernels for COmp {
    fn diff_predict(&self, d: &mut DiffPredict, reps: usize, t: &mut Timer) -> Outcome {
        c_len(&[d.px.len(), d.cx.len(), 14 * d.n]);
        let n = c_i64(d.n);
        t.time(|| unsafe {
            comp_lcals_diff_predict(d.px.as_mut_ptr(), d.cx.as_ptr(), n, c_i64(reps))
        });
        Ok(())
    }

    fn eos(&self, d: &mut Eos, reps: usize, t: &mut Timer) -> Outcome {
        c_len(&[d.x.len(), d.y.len(), d.z.len(), d.u.len(), d.n + 7]);
        let n = c_i64(d.n);
        t.time(|| unsafe {
            comp_lcals_eos(
                d.x.as_mut_ptr(),
                d.y.as_ptr(),
                d.z.as_ptr(),
                d.u.as_ptr(),
                d.q,
                d.r,
                d.t,
                n,
                c_i64(reps),
            )
        });
        Ok(())
    }

    fn first_diff(&self, d: &mut FirstDiff, reps: usize, t: &mut Timer) -> Outcome {
        c_len(&[d.x.len(), d.y.len(), d.n + 1]);
        let n = c_i64(d.n);
        t.time(|| unsafe { comp_lcals_first_diff(d.x.as_mut_ptr(), d.y.as_ptr(), n, c_i64(reps)) });
        Ok(())
    }

    fn hydro_1d(&self, d: &mut Hydro1d, reps: usize, t: &mut Timer) -> Outcome {
        c_len(&[d.x.len(), d.y.len(), d.z.len(), d.n + 12]);
        let n = c_i64(d.n);
        t.time(|| unsafe {
            comp_lcals_hydro_1d(
                d.x.as_mut_ptr(),
                d.y.as_ptr(),
                d.z.as_ptr(),
                d.q,
                d.r,
                d.t,
                n,
                c_i64(reps),
            )
        });
        Ok(())
    }

    fn hydro_2d(&self, d: &mut Hydro2d, reps: usize, t: &mut Timer) -> Outcome {
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
            zrout: d.zrout.as_mut_ptr(),
            zzout: d.zzout.as_mut_ptr(),
            za: d.za.as_mut_ptr(),
            zb: d.zb.as_mut_ptr(),
            zm: d.zm.as_ptr(),
            zp: d.zp.as_ptr(),
            zq: d.zq.as_ptr(),
            zr: d.zr.as_ptr(),
            zu: d.zu.as_mut_ptr(),
            zv: d.zv.as_mut_ptr(),
            zz: d.zz.as_ptr(),
        };
        let (kn, jn) = (c_i64(d.kn), c_i64(d.jn));
        t.time(|| unsafe {
            comp_lcals_hydro_2d(&arrays, kn, jn, Hydro2d::S, Hydro2d::T, c_i64(reps))
        });
        Ok(())
    }

    fn planckian(&self, d: &mut Planckian, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.x.len(), d.y.len(), d.u.len(), d.v.len(), d.w.len()]);
        t.time(|| unsafe {
            comp_lcals_planckian(
                d.x.as_ptr(),
                d.y.as_mut_ptr(),
                d.u.as_ptr(),
                d.v.as_ptr(),
                d.w.as_mut_ptr(),
                n,
                c_i64(reps),
            )
        });
        Ok(())
    }
}
