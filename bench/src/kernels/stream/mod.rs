//! Stream group: COPY, MUL, ADD, TRIAD, DOT (doc section 1). N = target; all 1D foralls
//! except DOT, a sum reduction.

pub(crate) mod c_omp;
mod omp_cpu;
mod omp_gpu;
mod rayon;
mod seq;

use crate::kernel::{size_scale, Group, KernelData, KernelDef, Tolerance};
use crate::kernel_def;
use crate::rpdata::{Checksum, Init};
use crate::timer::Timer;
use crate::variant::{Outcome, Unsupported};

const F64: f64 = std::mem::size_of::<f64>() as f64;

/// `c[i] = a[i]`.
#[derive(Debug)]
pub struct Copy {
    /// Input.
    pub a: Vec<f64>,
    /// Output.
    pub c: Vec<f64>,
}

impl KernelData for Copy {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let a = init.data(target);
        let c = init.constant(target, 0.0);
        Copy { a, c }
    }
    fn bytes_per_rep(&self) -> f64 {
        2.0 * F64 * self.c.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.c, 1.0)
    }
}

/// `b[i] = alpha*c[i]`.
#[derive(Debug)]
pub struct Mul {
    /// Output.
    pub b: Vec<f64>,
    /// Input.
    pub c: Vec<f64>,
    /// Scalar.
    pub alpha: f64,
}

impl KernelData for Mul {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let b = init.constant(target, 0.0);
        let c = init.data(target);
        let alpha = init.scalar();
        Mul { b, c, alpha }
    }
    fn bytes_per_rep(&self) -> f64 {
        2.0 * F64 * self.b.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.b, 1.0)
    }
}

/// `c[i] = a[i] + b[i]`.
#[derive(Debug)]
pub struct Add {
    /// Input.
    pub a: Vec<f64>,
    /// Input.
    pub b: Vec<f64>,
    /// Output.
    pub c: Vec<f64>,
}

impl KernelData for Add {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let a = init.data(target);
        let b = init.data(target);
        let c = init.constant(target, 0.0);
        Add { a, b, c }
    }
    fn bytes_per_rep(&self) -> f64 {
        3.0 * F64 * self.c.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.c, 1.0)
    }
}

/// `a[i] = b[i] + alpha*c[i]`.
#[derive(Debug)]
pub struct Triad {
    /// Output.
    pub a: Vec<f64>,
    /// Input.
    pub b: Vec<f64>,
    /// Input.
    pub c: Vec<f64>,
    /// Scalar.
    pub alpha: f64,
    target: usize,
}

impl KernelData for Triad {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let a = init.constant(target, 0.0);
        let b = init.data(target);
        let c = init.data(target);
        let alpha = init.scalar();
        Triad { a, b, c, alpha, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        3.0 * F64 * self.a.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.a, size_scale::<Self>(0.001, self.target))
    }
}

/// Per rep `dot = sum a[i]*b[i]`, then `m_dot += dot` (never reset: R-dependent).
#[derive(Debug)]
pub struct Dot {
    /// Input.
    pub a: Vec<f64>,
    /// Input.
    pub b: Vec<f64>,
    /// Accumulated dot products over all reps.
    pub m_dot: f64,
}

impl KernelData for Dot {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let a = init.data(target);
        let b = init.data(target);
        Dot { a, b, m_dot: 0.0 }
    }
    fn bytes_per_rep(&self) -> f64 {
        2.0 * F64 * self.a.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_value(self.m_dot)
    }
}

/// One method per Stream kernel: run the timed rep loop on the given data.
/// A method a variant does not override reports [`Unsupported`].
#[allow(unused_variables)]
pub trait StreamKernels {
    /// Stream_COPY.
    fn copy(&self, d: &mut Copy, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Stream_MUL.
    fn mul(&self, d: &mut Mul, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Stream_ADD.
    fn add(&self, d: &mut Add, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Stream_TRIAD.
    fn triad(&self, d: &mut Triad, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Stream_DOT.
    fn dot(&self, d: &mut Dot, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
}

/// Registry entries of the Stream group.
pub fn kernels() -> Vec<KernelDef> {
    use Tolerance::{Deterministic, ReorderedSum};
    let g = Group::Stream;
    vec![
        kernel_def!("Stream_ADD", g, 1000, Deterministic, Add, add),
        kernel_def!("Stream_COPY", g, 1800, Deterministic, Copy, copy),
        kernel_def!("Stream_DOT", g, 2000, ReorderedSum, Dot, dot),
        kernel_def!("Stream_MUL", g, 1800, Deterministic, Mul, mul),
        kernel_def!("Stream_TRIAD", g, 1000, Deterministic, Triad, triad),
    ]
}
