//! Basic kernels, rayon.

use super::{BasicKernels, Daxpy, DaxpyAtomic, IfQuad, Init3, MulAddSub, NestedInit, PiReduce, Reduce3Int, TrapInt};
use crate::disjoint::{as_atomic_f64, atomic_add_f64};
use crate::kernels::RAYON_CHUNK as CHUNK;
use crate::timer::Timer;
use crate::variant::{Outcome, Rayon};
use rayon::prelude::*;

impl BasicKernels for Rayon {
    fn daxpy(&self, d: &mut Daxpy, reps: usize, t: &mut Timer) -> Outcome {
        let (y, x, a) = (&mut d.y, &d.x, d.a);
        t.time(|| {
            for _ in 0..reps {
                y.par_iter_mut().zip(x.par_iter()).for_each(|(y, x)| *y += a * x);
            }
        });
        Ok(())
    }

    fn daxpy_atomic(&self, d: &mut DaxpyAtomic, reps: usize, t: &mut Timer) -> Outcome {
        let Daxpy { y, x, a } = &mut d.0;
        let (y, a) = (as_atomic_f64(y), *a);
        t.time(|| {
            for _ in 0..reps {
                (0..x.len()).into_par_iter().for_each(|i| atomic_add_f64(&y[i], a * x[i]));
            }
        });
        Ok(())
    }

    fn if_quad(&self, d: &mut IfQuad, reps: usize, t: &mut Timer) -> Outcome {
        let IfQuad { a, b, c, x1, x2, .. } = d;
        let (a, b, c) = (&*a, &*b, &*c);
        t.time(|| {
            for _ in 0..reps {
                x1.par_chunks_mut(CHUNK).zip(x2.par_chunks_mut(CHUNK)).enumerate().for_each(|(k, (x1, x2))| {
                    let (lo, len) = (k * CHUNK, x1.len());
                    let (a, b, c, x2) = (&a[lo..lo + len], &b[lo..lo + len], &c[lo..lo + len], &mut x2[..len]);
                    for i in 0..len {
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
                });
            }
        });
        Ok(())
    }

    fn init3(&self, d: &mut Init3, reps: usize, t: &mut Timer) -> Outcome {
        let Init3 { out1, out2, out3, in1, in2 } = d;
        t.time(|| {
            for _ in 0..reps {
                out1.par_iter_mut().zip(out2.par_iter_mut()).zip(out3.par_iter_mut()).zip(in1.par_iter().zip(in2.par_iter())).for_each(
                    |(((o1, o2), o3), (i1, i2))| {
                        let v = -i1 - i2;
                        *o1 = v;
                        *o2 = v;
                        *o3 = v;
                    },
                );
            }
        });
        Ok(())
    }

    fn muladdsub(&self, d: &mut MulAddSub, reps: usize, t: &mut Timer) -> Outcome {
        let MulAddSub { out1, out2, out3, in1, in2 } = d;
        t.time(|| {
            for _ in 0..reps {
                out1.par_iter_mut().zip(out2.par_iter_mut()).zip(out3.par_iter_mut()).zip(in1.par_iter().zip(in2.par_iter())).for_each(
                    |(((o1, o2), o3), (i1, i2))| {
                        *o1 = i1 * i2;
                        *o2 = i1 + i2;
                        *o3 = i1 - i2;
                    },
                );
            }
        });
        Ok(())
    }

    fn nested_init(&self, d: &mut NestedInit, reps: usize, t: &mut Timer) -> Outcome {
        let (ni, nj) = (d.ni, d.nj);
        let array = &mut d.array;
        t.time(|| {
            for _ in 0..reps {
                // Parallel over k (one ni*nj plane each), like RAJAPerf's OpenMP variant.
                array.par_chunks_mut(ni * nj).enumerate().for_each(|(k, plane)| {
                    for j in 0..nj {
                        for i in 0..ni {
                            plane[i + ni * j] = 0.00000001 * i as f64 * j as f64 * k as f64;
                        }
                    }
                });
            }
        });
        Ok(())
    }

    fn pi_reduce(&self, d: &mut PiReduce, reps: usize, t: &mut Timer) -> Outcome {
        let (n, dx) = (d.n, d.dx);
        let mut result = d.pi;
        t.time(|| {
            for _ in 0..reps {
                let pi: f64 = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        let x = (i as f64 + 0.5) * dx;
                        dx / (1.0 + x * x)
                    })
                    .sum();
                result = 4.0 * pi;
            }
        });
        d.pi = result;
        Ok(())
    }

    fn reduce3_int(&self, d: &mut Reduce3Int, reps: usize, t: &mut Timer) -> Outcome {
        let vec = &d.vec;
        let (mut m_vsum, mut m_vmin, mut m_vmax) = (d.m_vsum, d.m_vmin, d.m_vmax);
        let identity = || (0_i32, i32::MAX, i32::MIN);
        t.time(|| {
            for _ in 0..reps {
                let (vsum, vmin, vmax) = vec
                    .par_iter()
                    .fold(identity, |(s, lo, hi), &v| (s + v, lo.min(v), hi.max(v)))
                    .reduce(identity, |(s1, lo1, hi1), (s2, lo2, hi2)| (s1 + s2, lo1.min(lo2), hi1.max(hi2)));
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
                let sumx: f64 = (0..n).into_par_iter().map(|i| TrapInt::func(x0 + i as f64 * h, y, xp, yp)).sum();
                m_sumx += sumx * h;
            }
        });
        d.m_sumx = m_sumx;
        Ok(())
    }
}
