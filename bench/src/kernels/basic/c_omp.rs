//! Basic kernels, C OpenMP (`csrc/omp/basic.c`).

use super::{
    BasicKernels, Daxpy, DaxpyAtomic, IfQuad, Init3, MulAddSub, NestedInit, PiReduce, Reduce3Int,
    TrapInt,
};
use crate::kernels::{c_i64, c_len};
use crate::timer::Timer;
use crate::variant::{COmp, Outcome};

extern "C" {
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

// SAFETY (all calls below): pointers come from Vecs whose common length is the `n` passed
// (`c_len`), or from fields of `d`; outputs are exclusively borrowed for the call.
impl BasicKernels for COmp {
    fn daxpy(&self, d: &mut Daxpy, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.y.len(), d.x.len()]);
        t.time(|| unsafe { comp_basic_daxpy(d.y.as_mut_ptr(), d.x.as_ptr(), d.a, n, c_i64(reps)) });
        Ok(())
    }

    fn daxpy_atomic(&self, d: &mut DaxpyAtomic, reps: usize, t: &mut Timer) -> Outcome {
        let d = &mut d.0;
        let n = c_len(&[d.y.len(), d.x.len()]);
        t.time(|| unsafe {
            comp_basic_daxpy_atomic(d.y.as_mut_ptr(), d.x.as_ptr(), d.a, n, c_i64(reps))
        });
        Ok(())
    }

    fn if_quad(&self, d: &mut IfQuad, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.a.len(), d.b.len(), d.c.len(), d.x1.len(), d.x2.len()]);
        t.time(|| unsafe {
            comp_basic_if_quad(
                d.a.as_ptr(),
                d.b.as_ptr(),
                d.c.as_ptr(),
                d.x1.as_mut_ptr(),
                d.x2.as_mut_ptr(),
                n,
                c_i64(reps),
            )
        });
        Ok(())
    }

    fn init3(&self, d: &mut Init3, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[
            d.out1.len(),
            d.out2.len(),
            d.out3.len(),
            d.in1.len(),
            d.in2.len(),
        ]);
        t.time(|| unsafe {
            comp_basic_init3(
                d.out1.as_mut_ptr(),
                d.out2.as_mut_ptr(),
                d.out3.as_mut_ptr(),
                d.in1.as_ptr(),
                d.in2.as_ptr(),
                n,
                c_i64(reps),
            )
        });
        Ok(())
    }

    fn muladdsub(&self, d: &mut MulAddSub, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[
            d.out1.len(),
            d.out2.len(),
            d.out3.len(),
            d.in1.len(),
            d.in2.len(),
        ]);
        t.time(|| unsafe {
            comp_basic_muladdsub(
                d.out1.as_mut_ptr(),
                d.out2.as_mut_ptr(),
                d.out3.as_mut_ptr(),
                d.in1.as_ptr(),
                d.in2.as_ptr(),
                n,
                c_i64(reps),
            )
        });
        Ok(())
    }

    fn nested_init(&self, d: &mut NestedInit, reps: usize, t: &mut Timer) -> Outcome {
        assert_eq!(d.array.len(), d.ni * d.nj * d.nk);
        let (ni, nj, nk) = (c_i64(d.ni), c_i64(d.nj), c_i64(d.nk));
        t.time(|| unsafe { comp_basic_nested_init(d.array.as_mut_ptr(), ni, nj, nk, c_i64(reps)) });
        Ok(())
    }

    fn pi_reduce(&self, d: &mut PiReduce, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_i64(d.n);
        t.time(|| unsafe { comp_basic_pi_reduce(n, d.dx, c_i64(reps), &mut d.pi) });
        Ok(())
    }

    fn reduce3_int(&self, d: &mut Reduce3Int, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.vec.len()]);
        t.time(|| unsafe {
            comp_basic_reduce3_int(
                d.vec.as_ptr(),
                n,
                c_i64(reps),
                &mut d.m_vsum,
                &mut d.m_vmin,
                &mut d.m_vmax,
            )
        });
        Ok(())
    }

    fn trap_int(&self, d: &mut TrapInt, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_i64(d.n);
        t.time(|| unsafe {
            comp_basic_trap_int(n, d.x0, d.xp, d.y, d.yp, d.h, c_i64(reps), &mut d.m_sumx)
        });
        Ok(())
    }
}
