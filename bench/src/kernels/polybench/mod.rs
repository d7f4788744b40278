//! Polybench group (doc section 4): ATAX, GEMM, HEAT_3D, JACOBI_1D, JACOBI_2D.
//! Sizes: n = trunc(sqrt(target) + sqrt(2) - 1) (1000 at the default) unless noted.

pub(crate) mod c_omp;
mod omp_cpu;
mod omp_gpu;
mod omp_gpu_tiled;
mod rayon;
mod seq;

use crate::kernel::{size_scale, Group, KernelData, KernelDef, Tolerance};
use crate::kernel_def;
use crate::rpdata::{Checksum, Init};
use crate::timer::Timer;
use crate::variant::{Outcome, Unsupported};

const F64: f64 = std::mem::size_of::<f64>() as f64;

/// `trunc(sqrt(target) + sqrt(2) - 1)`.
fn extent_2d(target: usize) -> usize {
    ((target as f64).sqrt() + 2f64.sqrt() - 1.0) as usize
}

/// `y = A^T (A x)`: tmp = A x (rows), then `y[j] +=` column j of A dotted with tmp.
#[derive(Debug)]
pub struct Atax {
    /// Intermediate A x.
    pub tmp: Vec<f64>,
    /// Input vector.
    pub x: Vec<f64>,
    /// N x N matrix, row-major.
    pub a: Vec<f64>,
    /// Output.
    pub y: Vec<f64>,
    /// Dimension.
    pub n: usize,
    target: usize,
}

impl KernelData for Atax {
    fn problem_size(target: usize) -> usize {
        extent_2d(target).pow(2)
    }
    fn setup(target: usize) -> Self {
        let n = extent_2d(target);
        let mut init = Init::new();
        let tmp = init.data(n);
        let x = init.data(n);
        let a = init.data(n * n);
        let y = init.constant(n, 0.0);
        Atax { tmp, x, a, y, n, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        // A is read by both loops.
        (2.0 * (self.n * self.n) as f64 + 4.0 * self.n as f64) * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.y, size_scale::<Self>(0.001, self.target))
    }
}

/// `C = alpha A B` (ni x nk times nk x nj), each entry a dot from 0.0, k ascending.
#[derive(Debug)]
pub struct Gemm {
    /// ni x nk.
    pub a: Vec<f64>,
    /// nk x nj.
    pub b: Vec<f64>,
    /// ni x nj output.
    pub c: Vec<f64>,
    /// Rows of C.
    pub ni: usize,
    /// Columns of C.
    pub nj: usize,
    /// Inner dimension.
    pub nk: usize,
    target: usize,
}

impl Gemm {
    /// alpha.
    pub const ALPHA: f64 = 0.62;
}

impl KernelData for Gemm {
    fn problem_size(target: usize) -> usize {
        extent_2d(target).pow(2)
    }
    fn setup(target: usize) -> Self {
        let n = extent_2d(target);
        let nk = (1200.0 / 1000.0 * n as f64) as usize;
        let mut init = Init::new();
        let a = init.data(n * nk);
        let b = init.data(nk * n);
        let c = init.constant(n * n, 0.0);
        Gemm { a, b, c, ni: n, nj: n, nk, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        ((self.ni * self.nk + self.nk * self.nj + self.ni * self.nj) as f64) * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.c, size_scale::<Self>(0.001, self.target))
    }
}

/// 3D heat equation, 20 steps per rep, A -> B -> A (state persists across reps).
#[derive(Debug)]
pub struct Heat3d {
    /// N^3, index k + N*(j + N*i).
    pub a: Vec<f64>,
    /// N^3.
    pub b: Vec<f64>,
    /// Points per dimension including the boundary.
    pub n: usize,
    target: usize,
}

impl Heat3d {
    /// Time steps per rep.
    pub const TSTEPS: usize = 20;
    /// `trunc(cbrt(target) + 2 + cbrt(3) - 1)`.
    pub fn extent(target: usize) -> usize {
        ((target as f64).cbrt() + 2.0 + 3f64.cbrt() - 1.0) as usize
    }
}

impl KernelData for Heat3d {
    fn problem_size(target: usize) -> usize {
        (Self::extent(target) - 2).pow(3)
    }
    fn setup(target: usize) -> Self {
        let n = Self::extent(target);
        let mut init = Init::new();
        // A := Ainit, B := Binit; the copies are the arrays themselves (no init call).
        let a = init.data(n * n * n);
        let b = init.data(n * n * n);
        Heat3d { a, b, n, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        let (all, inner) = (self.n.pow(3) as f64, (self.n - 2).pow(3) as f64);
        Self::TSTEPS as f64 * 2.0 * (all + inner) * F64
    }
    fn checksum(&self) -> Checksum {
        let s = size_scale::<Self>(0.0001, self.target);
        *Checksum::zero().add_array(&self.a, s).add_array(&self.b, s)
    }
}

/// 1D Jacobi, 16 steps per rep (state persists across reps).
#[derive(Debug)]
pub struct Jacobi1d {
    /// N = target + 2.
    pub a: Vec<f64>,
    /// N.
    pub b: Vec<f64>,
    target: usize,
}

impl Jacobi1d {
    /// Time steps per rep.
    pub const TSTEPS: usize = 16;
}

impl KernelData for Jacobi1d {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let n = target + 2;
        let mut init = Init::new();
        let a = init.data(n);
        let b = init.data(n);
        Jacobi1d { a, b, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        let n = self.a.len() as f64;
        Self::TSTEPS as f64 * 2.0 * (n + (n - 2.0)) * F64
    }
    fn checksum(&self) -> Checksum {
        let s = size_scale::<Self>(0.0001, self.target);
        *Checksum::zero().add_array(&self.a, s).add_array(&self.b, s)
    }
}

/// 2D Jacobi (5-point), 40 steps per rep (state persists across reps).
#[derive(Debug)]
pub struct Jacobi2d {
    /// N x N, index j + i*N.
    pub a: Vec<f64>,
    /// N x N.
    pub b: Vec<f64>,
    /// Points per dimension including the boundary.
    pub n: usize,
    target: usize,
}

impl Jacobi2d {
    /// Time steps per rep.
    pub const TSTEPS: usize = 40;
    /// `trunc(sqrt(target) + 2 + sqrt(2) - 1)`.
    pub fn extent(target: usize) -> usize {
        ((target as f64).sqrt() + 2.0 + 2f64.sqrt() - 1.0) as usize
    }
}

impl KernelData for Jacobi2d {
    fn problem_size(target: usize) -> usize {
        (Self::extent(target) - 2).pow(2)
    }
    fn setup(target: usize) -> Self {
        let n = Self::extent(target);
        let mut init = Init::new();
        let a = init.data(n * n);
        let b = init.data(n * n);
        Jacobi2d { a, b, n, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        let (all, inner) = ((self.n * self.n) as f64, ((self.n - 2) * (self.n - 2)) as f64);
        Self::TSTEPS as f64 * 2.0 * (all + inner) * F64
    }
    fn checksum(&self) -> Checksum {
        let s = size_scale::<Self>(0.0001, self.target);
        *Checksum::zero().add_array(&self.a, s).add_array(&self.b, s)
    }
}

/// One method per Polybench kernel; see [`StreamKernels`](crate::kernels::stream::StreamKernels).
#[allow(unused_variables)]
pub trait PolybenchKernels {
    /// Polybench_ATAX.
    fn atax(&self, d: &mut Atax, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Polybench_GEMM.
    fn gemm(&self, d: &mut Gemm, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Polybench_HEAT_3D.
    fn heat_3d(&self, d: &mut Heat3d, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Polybench_JACOBI_1D.
    fn jacobi_1d(&self, d: &mut Jacobi1d, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Polybench_JACOBI_2D.
    fn jacobi_2d(&self, d: &mut Jacobi2d, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
}

/// Registry entries of the Polybench group.
pub fn kernels() -> Vec<KernelDef> {
    use Tolerance::Deterministic;
    let g = Group::Polybench;
    vec![
        kernel_def!("Polybench_ATAX", g, 100, Deterministic, Atax, atax),
        kernel_def!("Polybench_GEMM", g, 4, Deterministic, Gemm, gemm),
        kernel_def!("Polybench_HEAT_3D", g, 20, Deterministic, Heat3d, heat_3d),
        kernel_def!("Polybench_JACOBI_1D", g, 100, Deterministic, Jacobi1d, jacobi_1d),
        kernel_def!("Polybench_JACOBI_2D", g, 50, Deterministic, Jacobi2d, jacobi_2d),
    ]
}
