//! Polybench kernels, C OpenMP (`csrc/omp/polybench.c`).

use super::{Atax, Gemm, Heat3d, Jacobi1d, Jacobi2d, PolybenchKernels};
use crate::kernels::c_side::CSide;
use crate::kernels::{c_i64, c_len};
use crate::timer::Timer;
use crate::variant::Outcome;

// The entry points of `csrc/omp/polybench.c`.
crate::kernels::c_side::c_fns! {
    pub(crate) struct Fns {
        fn comp_polybench_atax(
            tmp: *mut f64,
            x: *const f64,
            a: *const f64,
            y: *mut f64,
            n: i64,
            reps: i64,
        );
        fn comp_polybench_gemm(
            a: *const f64,
            b: *const f64,
            c: *mut f64,
            ni: i64,
            nj: i64,
            nk: i64,
            alpha: f64,
            reps: i64,
        );
        fn comp_polybench_heat_3d(a: *mut f64, b: *mut f64, n: i64, tsteps: i64, reps: i64);
        fn comp_polybench_jacobi_1d(a: *mut f64, b: *mut f64, n: i64, tsteps: i64, reps: i64);
        fn comp_polybench_jacobi_2d(a: *mut f64, b: *mut f64, n: i64, tsteps: i64, reps: i64);
    }
}

// SAFETY (all calls below): array lengths are asserted against the sizes the C loops use;
// outputs are exclusively borrowed for the call.
impl<V: CSide> PolybenchKernels for V {
    fn atax(&self, d: &mut Atax, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.polybench;
        let mut m = self.maps();
        let n = c_len(&[d.n, d.tmp.len(), d.x.len(), d.y.len()]);
        assert_eq!(d.a.len(), d.n * d.n);
        let p_tmp = m.tofrom(&mut d.tmp);
        let p_x = m.to(&d.x);
        let p_a = m.to(&d.a);
        let p_y = m.tofrom(&mut d.y);
        t.time(|| unsafe { (f.comp_polybench_atax)(p_tmp, p_x, p_a, p_y, n, c_i64(reps)) });
        Ok(())
    }

    fn gemm(&self, d: &mut Gemm, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.polybench;
        let mut m = self.maps();
        assert_eq!(d.a.len(), d.ni * d.nk);
        assert_eq!(d.b.len(), d.nk * d.nj);
        assert_eq!(d.c.len(), d.ni * d.nj);
        let (ni, nj, nk) = (c_i64(d.ni), c_i64(d.nj), c_i64(d.nk));
        let p_a = m.to(&d.a);
        let p_b = m.to(&d.b);
        let p_c = m.tofrom(&mut d.c);
        t.time(|| unsafe { (f.comp_polybench_gemm)(p_a, p_b, p_c, ni, nj, nk, Gemm::ALPHA, c_i64(reps)) });
        Ok(())
    }

    fn heat_3d(&self, d: &mut Heat3d, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.polybench;
        let mut m = self.maps();
        c_len(&[d.a.len(), d.b.len(), d.n.pow(3)]);
        let n = c_i64(d.n);
        let tsteps = c_i64(Heat3d::TSTEPS);
        let p_a = m.tofrom(&mut d.a);
        let p_b = m.tofrom(&mut d.b);
        t.time(|| unsafe { (f.comp_polybench_heat_3d)(p_a, p_b, n, tsteps, c_i64(reps)) });
        Ok(())
    }

    fn jacobi_1d(&self, d: &mut Jacobi1d, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.polybench;
        let mut m = self.maps();
        let n = c_len(&[d.a.len(), d.b.len()]);
        let tsteps = c_i64(Jacobi1d::TSTEPS);
        let p_a = m.tofrom(&mut d.a);
        let p_b = m.tofrom(&mut d.b);
        t.time(|| unsafe { (f.comp_polybench_jacobi_1d)(p_a, p_b, n, tsteps, c_i64(reps)) });
        Ok(())
    }

    fn jacobi_2d(&self, d: &mut Jacobi2d, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.polybench;
        let mut m = self.maps();
        c_len(&[d.a.len(), d.b.len(), d.n * d.n]);
        let n = c_i64(d.n);
        let tsteps = c_i64(Jacobi2d::TSTEPS);
        let p_a = m.tofrom(&mut d.a);
        let p_b = m.tofrom(&mut d.b);
        t.time(|| unsafe { (f.comp_polybench_jacobi_2d)(p_a, p_b, n, tsteps, c_i64(reps)) });
        Ok(())
    }
}
