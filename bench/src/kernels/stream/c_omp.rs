//! Stream kernels, C OpenMP (`csrc/omp/stream.c`).

use super::{Add, Copy, Dot, Mul, StreamKernels, Triad};
use crate::kernels::c_len;
use crate::kernels::c_side::CSide;
use crate::timer::Timer;
use crate::variant::Outcome;

// The entry points of `csrc/omp/stream.c`.
crate::kernels::c_side::c_fns! {
    pub(crate) struct Fns {
        fn comp_stream_copy(a: *const f64, c: *mut f64, n: i64, reps: i64);
        fn comp_stream_mul(b: *mut f64, c: *const f64, alpha: f64, n: i64, reps: i64);
        fn comp_stream_add(a: *const f64, b: *const f64, c: *mut f64, n: i64, reps: i64);
        fn comp_stream_triad(a: *mut f64, b: *const f64, c: *const f64, alpha: f64, n: i64, reps: i64);
        fn comp_stream_dot(a: *const f64, b: *const f64, n: i64, reps: i64, m_dot: *mut f64);
    }
}

// SAFETY (all calls below): every pointer comes from a Vec of the length passed as `n`
// (checked by `c_len`), outputs are exclusively borrowed, and the C code touches only
// indices below `n`.
impl<V: CSide> StreamKernels for V {
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.stream;
        let mut m = self.maps();
        let n = c_len(&[d.a.len(), d.c.len()]);
        let p_a = m.to(&d.a);
        let p_c = m.tofrom(&mut d.c);
        t.time(|| unsafe { (f.comp_stream_copy)(p_a, p_c, n, reps as i64) });
        Ok(())
    }

    fn mul(&self, d: &mut Mul, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.stream;
        let mut m = self.maps();
        let n = c_len(&[d.b.len(), d.c.len()]);
        let p_b = m.tofrom(&mut d.b);
        let p_c = m.to(&d.c);
        t.time(|| unsafe { (f.comp_stream_mul)(p_b, p_c, d.alpha, n, reps as i64) });
        Ok(())
    }

    fn add(&self, d: &mut Add, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.stream;
        let mut m = self.maps();
        let n = c_len(&[d.a.len(), d.b.len(), d.c.len()]);
        let p_a = m.to(&d.a);
        let p_b = m.to(&d.b);
        let p_c = m.tofrom(&mut d.c);
        t.time(|| unsafe { (f.comp_stream_add)(p_a, p_b, p_c, n, reps as i64) });
        Ok(())
    }

    fn triad(&self, d: &mut Triad, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.stream;
        let mut m = self.maps();
        let n = c_len(&[d.a.len(), d.b.len(), d.c.len()]);
        let p_a = m.tofrom(&mut d.a);
        let p_b = m.to(&d.b);
        let p_c = m.to(&d.c);
        t.time(|| unsafe { (f.comp_stream_triad)(p_a, p_b, p_c, d.alpha, n, reps as i64) });
        Ok(())
    }

    fn dot(&self, d: &mut Dot, reps: usize, t: &mut Timer) -> Outcome {
        let f = &self.fns()?.stream;
        let mut m = self.maps();
        let n = c_len(&[d.a.len(), d.b.len()]);
        let p_a = m.to(&d.a);
        let p_b = m.to(&d.b);
        t.time(|| unsafe { (f.comp_stream_dot)(p_a, p_b, n, reps as i64, &mut d.m_dot) });
        Ok(())
    }
}
