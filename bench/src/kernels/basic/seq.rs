//! Basic kernels, sequential (Base_Seq).

use super::{BasicKernels, Daxpy, DaxpyAtomic, IfQuad, Init3, MulAddSub, NestedInit, PiReduce, Reduce3Int, TrapInt};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

fn daxpy_loop(d: &mut Daxpy, reps: usize, t: &mut Timer) {
    let (y, a) = (&mut d.y[..], d.a);
    let x = &d.x[..y.len()];
    t.time(|| {
        for _ in 0..reps {
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
        }
    });
}

impl BasicKernels for Seq {
    fn daxpy(&self, d: &mut Daxpy, reps: usize, t: &mut Timer) -> Outcome {
        daxpy_loop(d, reps, t);
        Ok(())
    }

    fn daxpy_atomic(&self, d: &mut DaxpyAtomic, reps: usize, t: &mut Timer) -> Outcome {
        // Sequential: the "atomic" add is a plain add.
        daxpy_loop(&mut d.0, reps, t);
        Ok(())
    }

    fn if_quad(&self, d: &mut IfQuad, reps: usize, t: &mut Timer) -> Outcome {
        let IfQuad { a, b, c, x1, x2, .. } = d;
        let n = a.len();
        let (b, c, x1, x2) = (&b[..n], &c[..n], &mut x1[..n], &mut x2[..n]);
        t.time(|| {
            for _ in 0..reps {
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
        });
        Ok(())
    }

    fn init3(&self, d: &mut Init3, reps: usize, t: &mut Timer) -> Outcome {
        let Init3 { out1, out2, out3, in1, in2 } = d;
        let n = in1.len();
        let (out1, out2, out3, in2) = (&mut out1[..n], &mut out2[..n], &mut out3[..n], &in2[..n]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..in1.len() {
                    let v = -in1[i] - in2[i];
                    out1[i] = v;
                    out2[i] = v;
                    out3[i] = v;
                }
            }
        });
        Ok(())
    }

    fn muladdsub(&self, d: &mut MulAddSub, reps: usize, t: &mut Timer) -> Outcome {
        let MulAddSub { out1, out2, out3, in1, in2 } = d;
        let n = in1.len();
        let (out1, out2, out3, in2) = (&mut out1[..n], &mut out2[..n], &mut out3[..n], &in2[..n]);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..in1.len() {
                    out1[i] = in1[i] * in2[i];
                    out2[i] = in1[i] + in2[i];
                    out3[i] = in1[i] - in2[i];
                }
            }
        });
        Ok(())
    }

    fn nested_init(&self, d: &mut NestedInit, reps: usize, t: &mut Timer) -> Outcome {
        let (ni, nj, nk) = (d.ni, d.nj, d.nk);
        let array = &mut d.array;
        t.time(|| {
            for _ in 0..reps {
                for k in 0..nk {
                    for j in 0..nj {
                        let row = &mut array[ni * (j + nj * k)..][..ni];
                        for i in 0..ni {
                            row[i] = 0.00000001 * i as f64 * j as f64 * k as f64;
                        }
                    }
                }
            }
        });
        Ok(())
    }

    fn pi_reduce(&self, d: &mut PiReduce, reps: usize, t: &mut Timer) -> Outcome {
        let (n, dx) = (d.n, d.dx);
        let mut result = d.pi;
        t.time(|| {
            for _ in 0..reps {
                let mut pi = 0.0;
                for i in 0..n {
                    let x = (i as f64 + 0.5) * dx;
                    pi += dx / (1.0 + x * x);
                }
                result = 4.0 * pi;
            }
        });
        d.pi = result;
        Ok(())
    }

    fn reduce3_int(&self, d: &mut Reduce3Int, reps: usize, t: &mut Timer) -> Outcome {
        let vec = &d.vec;
        let (mut m_vsum, mut m_vmin, mut m_vmax) = (d.m_vsum, d.m_vmin, d.m_vmax);
        t.time(|| {
            for _ in 0..reps {
                let (mut vsum, mut vmin, mut vmax) = (0_i32, i32::MAX, i32::MIN);
                for &v in vec.iter() {
                    vsum += v;
                    vmin = vmin.min(v);
                    vmax = vmax.max(v);
                }
                m_vsum += vsum;
                m_vmin = m_vmin.min(vmin);
                m_vmax = m_vmax.max(vmax);
            }
        });
        (d.m_vsum, d.m_vmin, d.m_vmax) = (m_vsum, m_vmin, m_vmax);
        Ok(())
    }

    fn trap_int(&self, d: &mut TrapInt, reps: usize, t: &mut Timer) -> Outcome {
        let TrapInt { n, x0, xp, y, yp, h, .. } = *d;
        let mut m_sumx = d.m_sumx;
        t.time(|| {
            for _ in 0..reps {
                let mut sumx = 0.0;
                for i in 0..n {
                    let x = x0 + i as f64 * h;
                    sumx += TrapInt::func(x, y, xp, yp);
                }
                m_sumx += sumx * h;
            }
        });
        d.m_sumx = m_sumx;
        Ok(())
    }
}
