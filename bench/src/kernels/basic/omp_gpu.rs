//! Basic kernels, omp-rs target regions (Base_OpenMPTarget); see `stream/omp_gpu.rs` for the
//! pattern: arrays mapped by a `target_data` region around the timed rep loop.

use super::{trap_int_func, BasicKernels, Daxpy, DaxpyAtomic, IfQuad, Init3, MulAddSub, NestedInit, PiReduce, Reduce3Int, TrapInt};
use crate::timer::Timer;
use crate::variant::{OmpGpu, Outcome};

/// y stays on the device for all reps and accumulates there (R-dependent, as in RAJAPerf).
#[omp::directives]
fn daxpy(t: &mut Timer, reps: usize, a: f64, x: &[f64], y: &mut [f64]) {
    #[omp::target_data(map(to: x), map(tofrom: y))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn daxpy_atomic(t: &mut Timer, reps: usize, a: f64, x: &[f64], y: &mut [f64]) {
    #[omp::target_data(map(to: x), map(tofrom: y))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..x.len() {
                #[omp::atomic]
                y[i] += a * x[i];
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn if_quad(t: &mut Timer, reps: usize, a: &[f64], b: &[f64], c: &[f64], x1: &mut [f64], x2: &mut [f64]) {
    #[omp::target_data(map(to: a, b, c), map(tofrom: x1, x2))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
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
        t.stop();
    }
}

#[omp::directives]
fn init3(t: &mut Timer, reps: usize, out1: &mut [f64], out2: &mut [f64], out3: &mut [f64], in1: &[f64], in2: &[f64]) {
    #[omp::target_data(map(tofrom: out1, out2, out3), map(to: in1, in2))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..in1.len() {
                let v = -in1[i] - in2[i];
                out1[i] = v;
                out2[i] = v;
                out3[i] = v;
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn muladdsub(t: &mut Timer, reps: usize, out1: &mut [f64], out2: &mut [f64], out3: &mut [f64], in1: &[f64], in2: &[f64]) {
    #[omp::target_data(map(tofrom: out1, out2, out3), map(to: in1, in2))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..in1.len() {
                out1[i] = in1[i] * in2[i];
                out2[i] = in1[i] + in2[i];
                out3[i] = in1[i] - in2[i];
            }
        }
        t.stop();
    }
}

/// All three loops collapsed: one GPU thread per element (nk alone is only ~100 iterations).
#[omp::directives]
fn nested_init(t: &mut Timer, reps: usize, ni: usize, nj: usize, nk: usize, array: &mut [f64]) {
    #[omp::target_data(map(tofrom: array))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(collapse(3), nowait)]
            for k in 0..nk {
                for j in 0..nj {
                    for i in 0..ni {
                        array[i + ni * (j + nj * k)] = 0.00000001 * i as f64 * j as f64 * k as f64;
                    }
                }
            }
        }
        t.stop();
    }
}

/// No arrays, so no data region: each rep is one launch whose reduction result comes back.
#[omp::directives]
fn pi_reduce(t: &mut Timer, reps: usize, n: usize, dx: f64, mut result: f64) -> f64 {
    t.start();
    for _ in 0..reps {
        let mut pi: f64 = 0.0;
        #[omp::target_teams_distribute_parallel_for(reduction(+: pi))]
        for i in 0..n {
            let x = (i as f64 + 0.5) * dx;
            pi += dx / (1.0 + x * x);
        }
        result = 4.0 * pi;
    }
    t.stop();
    result
}

#[omp::directives]
fn reduce3_int(t: &mut Timer, reps: usize, vec: &[i32], m: (i32, i32, i32)) -> (i32, i32, i32) {
    let (mut m_vsum, mut m_vmin, mut m_vmax) = m;
    #[omp::target_data(map(to: vec))]
    {
        t.start();
        for _ in 0..reps {
            let mut vsum: i32 = 0;
            let mut vmin: i32 = i32::MAX;
            let mut vmax: i32 = i32::MIN;
            #[omp::target_teams_distribute_parallel_for(reduction(+: vsum), reduction(min: vmin), reduction(max: vmax))]
            for i in 0..vec.len() {
                vsum += vec[i];
                vmin = vmin.min(vec[i]);
                vmax = vmax.max(vec[i]);
            }
            m_vsum += vsum;
            m_vmin = m_vmin.min(vmin);
            m_vmax = m_vmax.max(vmax);
        }
        t.stop();
    }
    (m_vsum, m_vmin, m_vmax)
}

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn trap_int(t: &mut Timer, reps: usize, n: usize, x0: f64, xp: f64, y: f64, yp: f64, h: f64, mut m_sumx: f64) -> f64 {
    t.start();
    for _ in 0..reps {
        let mut sumx: f64 = 0.0;
        #[omp::target_teams_distribute_parallel_for(reduction(+: sumx))]
        for i in 0..n {
            let x = x0 + i as f64 * h;
            sumx += trap_int_func(x, y, xp, yp);
        }
        m_sumx += sumx * h;
    }
    t.stop();
    m_sumx
}

impl BasicKernels for OmpGpu {
    fn daxpy(&self, d: &mut Daxpy, reps: usize, t: &mut Timer) -> Outcome {
        daxpy(t, reps, d.a, &d.x, &mut d.y);
        Ok(())
    }

    fn daxpy_atomic(&self, d: &mut DaxpyAtomic, reps: usize, t: &mut Timer) -> Outcome {
        let d = &mut d.0;
        daxpy_atomic(t, reps, d.a, &d.x, &mut d.y);
        Ok(())
    }

    fn if_quad(&self, d: &mut IfQuad, reps: usize, t: &mut Timer) -> Outcome {
        let IfQuad { a, b, c, x1, x2, .. } = d;
        if_quad(t, reps, a, b, c, x1, x2);
        Ok(())
    }

    fn init3(&self, d: &mut Init3, reps: usize, t: &mut Timer) -> Outcome {
        let Init3 { out1, out2, out3, in1, in2 } = d;
        init3(t, reps, out1, out2, out3, in1, in2);
        Ok(())
    }

    fn muladdsub(&self, d: &mut MulAddSub, reps: usize, t: &mut Timer) -> Outcome {
        let MulAddSub { out1, out2, out3, in1, in2 } = d;
        muladdsub(t, reps, out1, out2, out3, in1, in2);
        Ok(())
    }

    fn nested_init(&self, d: &mut NestedInit, reps: usize, t: &mut Timer) -> Outcome {
        nested_init(t, reps, d.ni, d.nj, d.nk, &mut d.array);
        Ok(())
    }

    fn pi_reduce(&self, d: &mut PiReduce, reps: usize, t: &mut Timer) -> Outcome {
        d.pi = pi_reduce(t, reps, d.n, d.dx, d.pi);
        Ok(())
    }

    fn reduce3_int(&self, d: &mut Reduce3Int, reps: usize, t: &mut Timer) -> Outcome {
        let m = (d.m_vsum, d.m_vmin, d.m_vmax);
        (d.m_vsum, d.m_vmin, d.m_vmax) = reduce3_int(t, reps, &d.vec, m);
        Ok(())
    }

    fn trap_int(&self, d: &mut TrapInt, reps: usize, t: &mut Timer) -> Outcome {
        let TrapInt { n, x0, xp, y, yp, h, m_sumx } = *d;
        d.m_sumx = trap_int(t, reps, n, x0, xp, y, yp, h, m_sumx);
        Ok(())
    }
}
