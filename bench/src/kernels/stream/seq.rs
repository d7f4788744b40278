//! Stream kernels, sequential (Base_Seq).

use super::{Add, Copy, Dot, Mul, StreamKernels, Triad};
use crate::timer::Timer;
use crate::variant::{Outcome, Seq};

impl StreamKernels for Seq {
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        // Inputs cut to the output length: no bounds checks, so the loop vectorises.
        let c = &mut d.c[..];
        let n = c.len();
        let a = &d.a[..n];
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
        let (b, alpha) = (&mut d.b[..], d.alpha);
        let n = b.len();
        let c = &d.c[..n];
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
        let c = &mut d.c[..];
        let n = c.len();
        let (a, b) = (&d.a[..n], &d.b[..n]);
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
        let (a, alpha) = (&mut d.a[..], d.alpha);
        let n = a.len();
        let (b, c) = (&d.b[..n], &d.c[..n]);
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
        let (a, b) = (&d.a[..], &d.b[..d.a.len()]);
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
