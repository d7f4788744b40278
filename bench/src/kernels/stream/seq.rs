//! Stream kernels, sequential (Base_Seq).

use super::{Add, Copy, Dot, Mul, StreamKernels, Triad};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

impl StreamKernels for Seq {
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        let (a, c) = (&d.a, &mut d.c);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..c.len() {
                    c[i] = a[i];
                }
            }
        });
        Ok(())
    }

    fn mul(&self, d: &mut Mul, reps: usize, t: &mut Timer) -> Outcome {
        let (b, c, alpha) = (&mut d.b, &d.c, d.alpha);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..b.len() {
                    b[i] = alpha * c[i];
                }
            }
        });
        Ok(())
    }

    fn add(&self, d: &mut Add, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b, c) = (&d.a, &d.b, &mut d.c);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..c.len() {
                    c[i] = a[i] + b[i];
                }
            }
        });
        Ok(())
    }

    fn triad(&self, d: &mut Triad, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b, c, alpha) = (&mut d.a, &d.b, &d.c, d.alpha);
        t.time(|| {
            for _ in 0..reps {
                for i in 0..a.len() {
                    a[i] = b[i] + alpha * c[i];
                }
            }
        });
        Ok(())
    }

    fn dot(&self, d: &mut Dot, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b) = (&d.a, &d.b);
        let mut m_dot = d.m_dot;
        t.time(|| {
            for _ in 0..reps {
                let mut dot = 0.0;
                for i in 0..a.len() {
                    dot += a[i] * b[i];
                }
                m_dot += dot;
            }
        });
        d.m_dot = m_dot;
        Ok(())
    }
}
