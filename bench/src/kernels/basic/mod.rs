//! Basic group (doc section 2): DAXPY, DAXPY_ATOMIC, IF_QUAD, INIT3, MULADDSUB, NESTED_INIT,
//! PI_REDUCE, REDUCE3_INT, TRAP_INT. N = target unless noted.

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

/// `y[i] += a*x[i]`; y is never reset (R-dependent). DAXPY and DAXPY_ATOMIC share it.
#[derive(Debug)]
pub struct Daxpy {
    /// Accumulated output.
    pub y: Vec<f64>,
    /// Input.
    pub x: Vec<f64>,
    /// Scalar.
    pub a: f64,
}

impl KernelData for Daxpy {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let y = init.constant(target, 0.0);
        let x = init.data(target);
        let a = init.scalar();
        Daxpy { y, x, a }
    }
    fn bytes_per_rep(&self) -> f64 {
        3.0 * F64 * self.y.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.y, 1.0)
    }
}

/// Same data and checksum as [`Daxpy`]; parallel variants update y atomically.
#[derive(Debug)]
pub struct DaxpyAtomic(pub Daxpy);

impl KernelData for DaxpyAtomic {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        DaxpyAtomic(Daxpy::setup(target))
    }
    fn bytes_per_rep(&self) -> f64 {
        self.0.bytes_per_rep()
    }
    fn checksum(&self) -> Checksum {
        self.0.checksum()
    }
}

/// Quadratic roots: `s = b*b - 4a*c`; real roots into x1, x2, else 0.
#[derive(Debug)]
pub struct IfQuad {
    /// Coefficient a (random signs).
    pub a: Vec<f64>,
    /// Coefficient b.
    pub b: Vec<f64>,
    /// Coefficient c.
    pub c: Vec<f64>,
    /// Root 1.
    pub x1: Vec<f64>,
    /// Root 2.
    pub x2: Vec<f64>,
    target: usize,
}

impl KernelData for IfQuad {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let a = init.rand_sign(target);
        let b = init.data(target);
        let c = init.data(target);
        let x1 = init.constant(target, 0.0);
        let x2 = init.constant(target, 0.0);
        IfQuad { a, b, c, x1, x2, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        5.0 * F64 * self.a.len() as f64
    }
    fn checksum(&self) -> Checksum {
        let s = size_scale::<Self>(0.0001, self.target);
        *Checksum::zero().add_array(&self.x1, s).add_array(&self.x2, s)
    }
}

/// `out1 = out2 = out3 = -in1 - in2`.
#[derive(Debug)]
pub struct Init3 {
    /// Output 1.
    pub out1: Vec<f64>,
    /// Output 2.
    pub out2: Vec<f64>,
    /// Output 3.
    pub out3: Vec<f64>,
    /// Input 1.
    pub in1: Vec<f64>,
    /// Input 2.
    pub in2: Vec<f64>,
}

impl KernelData for Init3 {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let out1 = init.constant(target, 0.0);
        let out2 = init.constant(target, 0.0);
        let out3 = init.constant(target, 0.0);
        let in1 = init.data(target);
        let in2 = init.data(target);
        Init3 { out1, out2, out3, in1, in2 }
    }
    fn bytes_per_rep(&self) -> f64 {
        5.0 * F64 * self.in1.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.out1, 1.0).add_array(&self.out2, 1.0).add_array(&self.out3, 1.0)
    }
}

/// `out1 = in1*in2; out2 = in1+in2; out3 = in1-in2`.
#[derive(Debug)]
pub struct MulAddSub {
    /// Product.
    pub out1: Vec<f64>,
    /// Sum.
    pub out2: Vec<f64>,
    /// Difference.
    pub out3: Vec<f64>,
    /// Input 1.
    pub in1: Vec<f64>,
    /// Input 2.
    pub in2: Vec<f64>,
}

impl KernelData for MulAddSub {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let out1 = init.constant(target, 0.0);
        let out2 = init.constant(target, 0.0);
        let out3 = init.constant(target, 0.0);
        let in1 = init.data(target);
        let in2 = init.data(target);
        MulAddSub { out1, out2, out3, in1, in2 }
    }
    fn bytes_per_rep(&self) -> f64 {
        5.0 * F64 * self.in1.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.out1, 1.0).add_array(&self.out2, 1.0).add_array(&self.out3, 1.0)
    }
}

/// `array[i + ni*(j + nj*k)] = 1e-8*i*j*k` over an n^3 box, k outermost.
#[derive(Debug)]
pub struct NestedInit {
    /// Output, ni*nj*nk.
    pub array: Vec<f64>,
    /// Extent of i (fastest).
    pub ni: usize,
    /// Extent of j.
    pub nj: usize,
    /// Extent of k (slowest).
    pub nk: usize,
}

impl NestedInit {
    /// `trunc(cbrt(target) + cbrt(3) - 1)`.
    pub fn extent(target: usize) -> usize {
        ((target as f64).cbrt() + 3f64.cbrt() - 1.0) as usize
    }
}

impl KernelData for NestedInit {
    fn problem_size(target: usize) -> usize {
        Self::extent(target).pow(3)
    }
    fn setup(target: usize) -> Self {
        let n = Self::extent(target);
        let array = Init::new().constant(n * n * n, 0.0);
        NestedInit { array, ni: n, nj: n, nk: n }
    }
    fn bytes_per_rep(&self) -> f64 {
        F64 * self.array.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.array, 1.0)
    }
}

/// `pi = 4 * sum dx/(1 + x*x)`, `x = (i+0.5)*dx`, `dx = 1/N`; no arrays.
#[derive(Debug)]
pub struct PiReduce {
    /// Number of intervals.
    pub n: usize,
    /// `1/N`.
    pub dx: f64,
    /// Last rep's `4*pi`.
    pub pi: f64,
}

impl KernelData for PiReduce {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        PiReduce { n: target, dx: 1.0 / target as f64, pi: 0.0 }
    }
    fn bytes_per_rep(&self) -> f64 {
        0.0
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_value(self.pi)
    }
}

/// Sum, min and max of an int vector; sums accumulate over reps (R-dependent).
#[derive(Debug)]
pub struct Reduce3Int {
    /// Input: random +-1 with one -58 and one 19.
    pub vec: Vec<i32>,
    /// Sum over all reps.
    pub m_vsum: i32,
    /// Minimum over all reps.
    pub m_vmin: i32,
    /// Maximum over all reps.
    pub m_vmax: i32,
}

impl KernelData for Reduce3Int {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let vec = Init::new().int_data(target);
        Reduce3Int { vec, m_vsum: 0, m_vmin: i32::MAX, m_vmax: i32::MIN }
    }
    fn bytes_per_rep(&self) -> f64 {
        std::mem::size_of::<i32>() as f64 * self.vec.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_int(self.m_vsum.into()).add_int(self.m_vmin.into()).add_int(self.m_vmax.into())
    }
}

/// Trapezoid-style sum of `1/sqrt((x-xp)^2 + (y-yp)^2)`, `m_sumx += sumx*h` per rep.
#[derive(Debug)]
pub struct TrapInt {
    /// Number of points.
    pub n: usize,
    /// Start of x.
    pub x0: f64,
    /// Pole x.
    pub xp: f64,
    /// Fixed y.
    pub y: f64,
    /// Pole y.
    pub yp: f64,
    /// Step `xn - x0`.
    pub h: f64,
    /// Accumulated over reps.
    pub m_sumx: f64,
}

impl TrapInt {
    /// The integrand ([`trap_int_func`]).
    #[inline(always)]
    pub fn func(x: f64, y: f64, xp: f64, yp: f64) -> f64 {
        trap_int_func(x, y, xp, yp)
    }
}

/// TRAP_INT's integrand, a free `declare_target` function so that target regions can call it
/// too (the build copies it into the device crate; kernels call it by its plain name).
#[omp::declare_target]
#[inline(always)]
pub fn trap_int_func(x: f64, y: f64, xp: f64, yp: f64) -> f64 {
    let denom = (x - xp) * (x - xp) + (y - yp) * (y - yp);
    1.0 / denom.sqrt()
}

impl KernelData for TrapInt {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let xn = init.scalar();
        let x0 = init.scalar();
        let xp = init.scalar();
        let y = init.scalar();
        let yp = init.scalar();
        TrapInt { n: target, x0, xp, y, yp, h: xn - x0, m_sumx: 0.0 }
    }
    fn bytes_per_rep(&self) -> f64 {
        0.0
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_value(self.m_sumx)
    }
}

/// One method per Basic kernel; see [`StreamKernels`](crate::kernels::stream::StreamKernels).
#[allow(unused_variables)]
pub trait BasicKernels {
    /// Basic_DAXPY.
    fn daxpy(&self, d: &mut Daxpy, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_DAXPY_ATOMIC.
    fn daxpy_atomic(&self, d: &mut DaxpyAtomic, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_IF_QUAD.
    fn if_quad(&self, d: &mut IfQuad, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_INIT3.
    fn init3(&self, d: &mut Init3, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_MULADDSUB.
    fn muladdsub(&self, d: &mut MulAddSub, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_NESTED_INIT.
    fn nested_init(&self, d: &mut NestedInit, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_PI_REDUCE.
    fn pi_reduce(&self, d: &mut PiReduce, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_REDUCE3_INT.
    fn reduce3_int(&self, d: &mut Reduce3Int, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Basic_TRAP_INT.
    fn trap_int(&self, d: &mut TrapInt, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
}

/// Registry entries of the Basic group.
pub fn kernels() -> Vec<KernelDef> {
    use Tolerance::{Deterministic, ReorderedSum};
    let g = Group::Basic;
    vec![
        kernel_def!("Basic_DAXPY", g, 500, Deterministic, Daxpy, daxpy),
        // One atomic add per element, no conflicts: same additions in the same order.
        kernel_def!("Basic_DAXPY_ATOMIC", g, 500, Deterministic, DaxpyAtomic, daxpy_atomic),
        kernel_def!("Basic_IF_QUAD", g, 180, Deterministic, IfQuad, if_quad),
        kernel_def!("Basic_INIT3", g, 500, Deterministic, Init3, init3),
        kernel_def!("Basic_MULADDSUB", g, 350, Deterministic, MulAddSub, muladdsub),
        kernel_def!("Basic_NESTED_INIT", g, 1000, Deterministic, NestedInit, nested_init),
        kernel_def!("Basic_PI_REDUCE", g, 50, ReorderedSum, PiReduce, pi_reduce),
        // Integer sums, min and max are exact in any order.
        kernel_def!("Basic_REDUCE3_INT", g, 50, Deterministic, Reduce3Int, reduce3_int),
        kernel_def!("Basic_TRAP_INT", g, 50, ReorderedSum, TrapInt, trap_int),
    ]
}
