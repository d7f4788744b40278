//! Basic kernels, C OpenMP (`csrc/omp/basic.c`).

use super::{BasicKernels, Daxpy, DaxpyAtomic, IfQuad, Init3, MulAddSub, NestedInit, PiReduce, Reduce3Int, TrapInt};
use crate::kernels::c_side::CSide;
use crate::kernels::{c_i64, c_len};
use crate::timer::Timer;
use crate::variant::Outcome;

// The entry points of `csrc/omp/basic.c`.
crate::kernels::c_side::c_fns! {
    pub(crate) struct Fns {
        fn comp_basic_daxpy(y: *mut f64, x: *const f64, a: f64, n: i64, reps: i64);
        fn comp_basic_daxpy_atomic(y: *mut f64, x: *const f64, a: f64, n: i64, reps: i64);
        fn comp_basic_if_quad(
            a: *const f64,
            b: *const f64,
            c: *const f64,
            x1: *mut f64,
            x2: *mut f64,
            n: i64,
            reps: i64,
        );
        fn comp_basic_init3(
            out1: *mut f64,
            out2: *mut f64,
            out3: *mut f64,
            in1: *const f64,
            in2: *const f64,
            n: i64,
            reps: i64,
        );
        fn comp_basic_muladdsub(
            out1: *mut f64,
            out2: *mut f64,
            out3: *mut f64,
            in1: *const f64,
            in2: *const f64,
            n: i64,
            reps: i64,
        );
        fn comp_basic_nested_init(array: *mut f64, ni: i64, nj: i64, nk: i64, reps: i64);
        fn comp_basic_pi_reduce(n: i64, dx: f64, reps: i64, pi: *mut f64);
        fn comp_basic_reduce3_int(
            vec: *const i32,
            n: i64,
            reps: i64,
            vsum: *mut i32,
            vmin: *mut i32,
            vmax: *mut i32,
        );
        fn comp_basic_trap_int(
            n: i64,
            x0: f64,
            xp: f64,
            y: f64,
            yp: f64,
            h: f64,
            reps: i64,
            sumx: *mut f64,
        );
    }
}

// SAFETY (all calls below): pointers come from Vecs whose common length is the `n` passed
// (`c_len`), or from fields of `d`; outputs are exclusively borrowed for the call.
impl<V: CSide> BasicKernels for V {
    fn daxpy(&self, d: &mut Daxpy, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let mut m = self.maps();
        let n = c_len(&[d.y.len(), d.x.len()]);
        let p_y = m.tofrom(&mut d.y);
        let p_x = m.to(&d.x);
        t.time(|| unsafe { (f.comp_basic_daxpy)(p_y, p_x, d.a, n, c_i64(reps)) });
        Ok(())
    }

    fn daxpy_atomic(&self, d: &mut DaxpyAtomic, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let mut m = self.maps();
        let d = &mut d.0;
        let n = c_len(&[d.y.len(), d.x.len()]);
        let p_y = m.tofrom(&mut d.y);
        let p_x = m.to(&d.x);
        t.time(|| unsafe { (f.comp_basic_daxpy_atomic)(p_y, p_x, d.a, n, c_i64(reps)) });
        Ok(())
    }

    fn if_quad(&self, d: &mut IfQuad, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let mut m = self.maps();
        let n = c_len(&[d.a.len(), d.b.len(), d.c.len(), d.x1.len(), d.x2.len()]);
        let p_a = m.to(&d.a);
        let p_b = m.to(&d.b);
        let p_c = m.to(&d.c);
        let p_x1 = m.tofrom(&mut d.x1);
        let p_x2 = m.tofrom(&mut d.x2);
        t.time(|| unsafe { (f.comp_basic_if_quad)(p_a, p_b, p_c, p_x1, p_x2, n, c_i64(reps)) });
        Ok(())
    }

    fn init3(&self, d: &mut Init3, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let mut m = self.maps();
        let n = c_len(&[d.out1.len(), d.out2.len(), d.out3.len(), d.in1.len(), d.in2.len()]);
        let p_out1 = m.tofrom(&mut d.out1);
        let p_out2 = m.tofrom(&mut d.out2);
        let p_out3 = m.tofrom(&mut d.out3);
        let p_in1 = m.to(&d.in1);
        let p_in2 = m.to(&d.in2);
        t.time(|| unsafe { (f.comp_basic_init3)(p_out1, p_out2, p_out3, p_in1, p_in2, n, c_i64(reps)) });
        Ok(())
    }

    fn muladdsub(&self, d: &mut MulAddSub, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let mut m = self.maps();
        let n = c_len(&[d.out1.len(), d.out2.len(), d.out3.len(), d.in1.len(), d.in2.len()]);
        let p_out1 = m.tofrom(&mut d.out1);
        let p_out2 = m.tofrom(&mut d.out2);
        let p_out3 = m.tofrom(&mut d.out3);
        let p_in1 = m.to(&d.in1);
        let p_in2 = m.to(&d.in2);
        t.time(|| unsafe { (f.comp_basic_muladdsub)(p_out1, p_out2, p_out3, p_in1, p_in2, n, c_i64(reps)) });
        Ok(())
    }

    fn nested_init(&self, d: &mut NestedInit, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let mut m = self.maps();
        assert_eq!(d.array.len(), d.ni * d.nj * d.nk);
        let (ni, nj, nk) = (c_i64(d.ni), c_i64(d.nj), c_i64(d.nk));
        let p_array = m.tofrom(&mut d.array);
        t.time(|| unsafe { (f.comp_basic_nested_init)(p_array, ni, nj, nk, c_i64(reps)) });
        Ok(())
    }

    fn pi_reduce(&self, d: &mut PiReduce, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let n = c_i64(d.n);

        t.time(|| unsafe { (f.comp_basic_pi_reduce)(n, d.dx, c_i64(reps), &mut d.pi) });
        Ok(())
    }

    fn reduce3_int(&self, d: &mut Reduce3Int, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let mut m = self.maps();
        let n = c_len(&[d.vec.len()]);
        let p_vec = m.to(&d.vec);
        t.time(|| unsafe { (f.comp_basic_reduce3_int)(p_vec, n, c_i64(reps), &mut d.m_vsum, &mut d.m_vmin, &mut d.m_vmax) });
        Ok(())
    }

    fn trap_int(&self, d: &mut TrapInt, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.basic;
        let n = c_i64(d.n);

        t.time(|| unsafe { (f.comp_basic_trap_int)(n, d.x0, d.xp, d.y, d.yp, d.h, c_i64(reps), &mut d.m_sumx) });
        Ok(())
    }
}
