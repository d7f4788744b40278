//! Stream kernels, rayon.

use super::{Add, Copy, Dot, Mul, StreamKernels, Triad};
use crate::timer::Timer;
use crate::variant::{Outcome, Rayon};
use rayon::prelude::*;

impl StreamKernels for Rayon {
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        let (a, c) = (&d.a, &mut d.c);
        t.time(|| {
            for _ in 0..reps {
                c.par_iter_mut().zip(a.par_iter()).for_each(|(c, a)| *c = *a);
            }
        });
        Ok(())
    }

    fn mul(&self, d: &mut Mul, reps: usize, t: &mut Timer) -> Outcome {
        let (b, c, alpha) = (&mut d.b, &d.c, d.alpha);
        t.time(|| {
            for _ in 0..reps {
                b.par_iter_mut().zip(c.par_iter()).for_each(|(b, c)| *b = alpha * c);
            }
        });
        Ok(())
    }

    fn add(&self, d: &mut Add, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b, c) = (&d.a, &d.b, &mut d.c);
        t.time(|| {
            for _ in 0..reps {
                c.par_iter_mut().zip(a.par_iter().zip(b.par_iter())).for_each(|(c, (a, b))| *c = a + b);
            }
        });
        Ok(())
    }

    fn triad(&self, d: &mut Triad, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b, c, alpha) = (&mut d.a, &d.b, &d.c, d.alpha);
        t.time(|| {
            for _ in 0..reps {
                a.par_iter_mut().zip(b.par_iter().zip(c.par_iter())).for_each(|(a, (b, c))| *a = b + alpha * c);
            }
        });
        Ok(())
    }

    fn dot(&self, d: &mut Dot, reps: usize, t: &mut Timer) -> Outcome {
        let (a, b) = (&d.a, &d.b);
        let mut m_dot = d.m_dot;
        t.time(|| {
            for _ in 0..reps {
                let dot: f64 = a.par_iter().zip(b.par_iter()).map(|(a, b)| a * b).sum();
                m_dot += dot;
            }
        });
        d.m_dot = m_dot;
        Ok(())
    }
}
