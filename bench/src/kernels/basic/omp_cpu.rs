//! Basic kernels, omp-rs on the host (`csrc/omp/basic.c` written with omp-rs directives).

use super::{trap_int_func, BasicKernels, Daxpy, DaxpyAtomic, IfQuad, Init3, MulAddSub, NestedInit, PiReduce, Reduce3Int, TrapInt};
use crate::timer::Timer;
use crate::variant::{OmpCpu, Outcome};

#[omp::directives]
fn daxpy(reps: usize, a: f64, x: &[f64], y: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..y.len() {
            y[i] += a * x[i];
        }
    }
}

#[omp::directives]
fn daxpy_atomic(reps: usize, a: f64, x: &[f64], y: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..x.len() {
            #[omp::atomic]
            y[i] += a * x[i];
        }
    }
}

#[omp::directives]
fn if_quad(reps: usize, a: &[f64], b: &[f64], c: &[f64], x1: &mut [f64], x2: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..a.len() {
            let s = b[i] * b[i] - 4.0 * a[i] * c[i];
            if s >= 0.0 {
                let s = s.sqrt();
                x2[i] = (-b[i] + s) / (2.0 * a[i]);
                x1[i] = (-b[i] - s) / (2.0 * a[i]);
            } else {
                x2[i] = 0.0;
                x1[i] = 0.0;
            }
        }
    }
}

#[omp::directives]
fn init3(reps: usize, out1: &mut [f64], out2: &mut [f64], out3: &mut [f64], in1: &[f64], in2: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..in1.len() {
            let v = -in1[i] - in2[i];
            out1[i] = v;
            out2[i] = v;
            out3[i] = v;
        }
    }
}

#[omp::directives]
fn muladdsub(reps: usize, out1: &mut [f64], out2: &mut [f64], out3: &mut [f64], in1: &[f64], in2: &[f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for i in 0..in1.len() {
            out1[i] = in1[i] * in2[i];
            out2[i] = in1[i] + in2[i];
            out3[i] = in1[i] - in2[i];
        }
    }
}

/// Parallel over k (one ni*nj plane per iteration), as RAJAPerf's Base_OpenMP.
#[omp::directives]
fn nested_init(reps: usize, ni: usize, nj: usize, nk: usize, array: &mut [f64]) {
    for _ in 0..reps {
        #[omp::parallel_for]
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    array[i + ni * (j + nj * k)] = 0.00000001 * i as f64 * j as f64 * k as f64;
                }
            }
        }
    }
}

/// Returns the last rep's `4*pi` (`result` itself if `reps` is 0).
#[omp::directives]
fn pi_reduce(reps: usize, n: usize, dx: f64, mut result: f64) -> f64 {
    for _ in 0..reps {
        let mut pi: f64 = 0.0;
        #[omp::parallel_for(reduction(+: pi))]
        for i in 0..n {
            let x = (i as f64 + 0.5) * dx;
            pi += dx / (1.0 + x * x);
        }
        result = 4.0 * pi;
    }
    result
}

/// Returns the accumulated (sum, min, max) after `reps` more reps.
#[omp::directives]
fn reduce3_int(reps: usize, vec: &[i32], m: (i32, i32, i32)) -> (i32, i32, i32) {
    let (mut m_vsum, mut m_vmin, mut m_vmax) = m;
    for _ in 0..reps {
        let mut vsum: i32 = 0;
        let mut vmin: i32 = i32::MAX;
        let mut vmax: i32 = i32::MIN;
        #[omp::parallel_for(reduction(+: vsum), reduction(min: vmin), reduction(max: vmax))]
        for i in 0..vec.len() {
            vsum += vec[i];
            vmin = vmin.min(vec[i]);
            vmax = vmax.max(vec[i]);
        }
        m_vsum += vsum;
        m_vmin = m_vmin.min(vmin);
        m_vmax = m_vmax.max(vmax);
    }
    (m_vsum, m_vmin, m_vmax)
}

/// Returns `m_sumx` plus the `reps` sums times `h`.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn trap_int(reps: usize, n: usize, x0: f64, xp: f64, y: f64, yp: f64, h: f64, mut m_sumx: f64) -> f64 {
    for _ in 0..reps {
        let mut sumx: f64 = 0.0;
        #[omp::parallel_for(reduction(+: sumx))]
        for i in 0..n {
            let x = x0 + i as f64 * h;
            sumx += trap_int_func(x, y, xp, yp);
        }
        m_sumx += sumx * h;
    }
    m_sumx
}

impl BasicKernels for OmpCpu {
    fn daxpy(&self, d: &mut Daxpy, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| daxpy(reps, d.a, &d.x, &mut d.y));
        Ok(())
    }

    fn daxpy_atomic(&self, d: &mut DaxpyAtomic, reps: usize, t: &mut Timer) -> Outcome {
        let d = &mut d.0;
        t.time(|| daxpy_atomic(reps, d.a, &d.x, &mut d.y));
        Ok(())
    }

    fn if_quad(&self, d: &mut IfQuad, reps: usize, t: &mut Timer) -> Outcome {
        let IfQuad { a, b, c, x1, x2, .. } = d;
        t.time(|| if_quad(reps, a, b, c, x1, x2));
        Ok(())
    }

    fn init3(&self, d: &mut Init3, reps: usize, t: &mut Timer) -> Outcome {
        let Init3 { out1, out2, out3, in1, in2 } = d;
        t.time(|| init3(reps, out1, out2, out3, in1, in2));
        Ok(())
    }

    fn muladdsub(&self, d: &mut MulAddSub, reps: usize, t: &mut Timer) -> Outcome {
        let MulAddSub { out1, out2, out3, in1, in2 } = d;
        t.time(|| muladdsub(reps, out1, out2, out3, in1, in2));
        Ok(())
    }

    fn nested_init(&self, d: &mut NestedInit, reps: usize, t: &mut Timer) -> Outcome {
        t.time(|| nested_init(reps, d.ni, d.nj, d.nk, &mut d.array));
        Ok(())
    }

    fn pi_reduce(&self, d: &mut PiReduce, reps: usize, t: &mut Timer) -> Outcome {
        d.pi = t.time(|| pi_reduce(reps, d.n, d.dx, d.pi));
        Ok(())
    }

    fn reduce3_int(&self, d: &mut Reduce3Int, reps: usize, t: &mut Timer) -> Outcome {
        let m = (d.m_vsum, d.m_vmin, d.m_vmax);
        (d.m_vsum, d.m_vmin, d.m_vmax) = t.time(|| reduce3_int(reps, &d.vec, m));
        Ok(())
    }

    fn trap_int(&self, d: &mut TrapInt, reps: usize, t: &mut Timer) -> Outcome {
        let TrapInt { n, x0, xp, y, yp, h, m_sumx } = *d;
        d.m_sumx = t.time(|| trap_int(reps, n, x0, xp, y, yp, h, m_sumx));
        Ok(())
    }
}
