//! Stream kernels, C OpenMP (`csrc/omp/stream.c`).

use super::{Add, Copy, Dot, Mul, StreamKernels, Triad};
use crate::kernels::c_len;
use crate::timer::Timer;
use crate::variant::{COmp, Outcome};

extern "C" {
    fn comp_stream_copy(a: *const f64, c: *mut f64, n: i64, reps: i64);
    fn comp_stream_mul(b: *mut f64, c: *const f64, alpha: f64, n: i64, reps: i64);
    fn comp_stream_add(a: *const f64, b: *const f64, c: *mut f64, n: i64, reps: i64);
    fn comp_stream_triad(a: *mut f64, b: *const f64, c: *const f64, alpha: f64, n: i64, reps: i64);
    fn comp_stream_dot(a: *const f64, b: *const f64, n: i64, reps: i64, m_dot: *mut f64);
}

// SAFETY (all calls below): every pointer comes from a Vec of the length passed as `n`
// (checked by `c_len`), outputs are exclusively borrowed, and the C code touches only
// indices below `n`.
impl StreamKernels for COmp {
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.a.len(), d.c.len()]);
        t.time(|| unsafe { comp_stream_copy(d.a.as_ptr(), d.c.as_mut_ptr(), n, reps as i64) });
        Ok(())
    }

    fn mul(&self, d: &mut Mul, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.b.len(), d.c.len()]);
        t.time(|| unsafe {
            comp_stream_mul(d.b.as_mut_ptr(), d.c.as_ptr(), d.alpha, n, reps as i64)
        });
        Ok(())
    }

    fn add(&self, d: &mut Add, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.a.len(), d.b.len(), d.c.len()]);
        t.time(|| unsafe {
            comp_stream_add(d.a.as_ptr(), d.b.as_ptr(), d.c.as_mut_ptr(), n, reps as i64)
        });
        Ok(())
    }

    fn triad(&self, d: &mut Triad, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.a.len(), d.b.len(), d.c.len()]);
        t.time(|| unsafe {
            comp_stream_triad(
                d.a.as_mut_ptr(),
                d.b.as_ptr(),
                d.c.as_ptr(),
                d.alpha,
                n,
                reps as i64,
            )
        });
        Ok(())
    }

    fn dot(&self, d: &mut Dot, reps: usize, t: &mut Timer) -> Outcome {
        let n = c_len(&[d.a.len(), d.b.len()]);
        t.time(|| unsafe {
            comp_stream_dot(d.a.as_ptr(), d.b.as_ptr(), n, reps as i64, &mut d.m_dot)
        });
        Ok(())
    }
}
