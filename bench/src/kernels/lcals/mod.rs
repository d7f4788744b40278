//! Lcals group (doc section 3): DIFF_PREDICT, EOS, FIRST_DIFF, HYDRO_1D, HYDRO_2D, PLANCKIAN.

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

/// 14 rows of N: per i, a chain of differences through px rows 4..13 (R-dependent).
#[derive(Debug)]
pub struct DiffPredict {
    /// 14*N, evolves across reps.
    pub px: Vec<f64>,
    /// 14*N input.
    pub cx: Vec<f64>,
    /// Row length N.
    pub n: usize,
}

impl KernelData for DiffPredict {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let px = init.constant(14 * target, 0.0);
        let cx = init.data(14 * target);
        DiffPredict { px, cx, n: target }
    }
    fn bytes_per_rep(&self) -> f64 {
        // cx row 4 read, px rows 4..12 read, rows 4..13 written.
        (1.0 + 9.0 + 10.0) * F64 * self.n as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.px, 1.0)
    }
}

/// Equation of state fragment over arrays of N+7.
#[derive(Debug)]
pub struct Eos {
    /// Output (N used).
    pub x: Vec<f64>,
    /// Input.
    pub y: Vec<f64>,
    /// Input.
    pub z: Vec<f64>,
    /// Input, read at i..i+6.
    pub u: Vec<f64>,
    /// Scalar.
    pub q: f64,
    /// Scalar.
    pub r: f64,
    /// Scalar.
    pub t: f64,
    /// Loop length.
    pub n: usize,
}

impl KernelData for Eos {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let len = target + 7;
        let mut init = Init::new();
        let x = init.constant(len, 0.0);
        let y = init.data(len);
        let z = init.data(len);
        let u = init.data(len);
        let q = init.scalar();
        let r = init.scalar();
        let t = init.scalar();
        Eos { x, y, z, u, q, r, t, n: target }
    }
    fn bytes_per_rep(&self) -> f64 {
        (4.0 * self.n as f64 + 6.0) * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.x[..self.n], size_scale::<Self>(0.0001, self.n))
    }
}

/// `x[i] = y[i+1] - y[i]`.
#[derive(Debug)]
pub struct FirstDiff {
    /// Output (N used of N+1).
    pub x: Vec<f64>,
    /// Input, N+1.
    pub y: Vec<f64>,
    /// Loop length.
    pub n: usize,
}

impl KernelData for FirstDiff {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let x = init.constant(target + 1, 0.0);
        let y = init.data(target + 1);
        FirstDiff { x, y, n: target }
    }
    fn bytes_per_rep(&self) -> f64 {
        (2.0 * self.n as f64 + 1.0) * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.x[..self.n], 1.0)
    }
}

/// `x[i] = q + y[i]*(r*z[i+10] + t*z[i+11])` over arrays of N+12.
#[derive(Debug)]
pub struct Hydro1d {
    /// Output (N used).
    pub x: Vec<f64>,
    /// Input.
    pub y: Vec<f64>,
    /// Input, read at i+10, i+11.
    pub z: Vec<f64>,
    /// Scalar.
    pub q: f64,
    /// Scalar.
    pub r: f64,
    /// Scalar.
    pub t: f64,
    /// Loop length.
    pub n: usize,
}

impl KernelData for Hydro1d {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let len = target + 12;
        let mut init = Init::new();
        let x = init.constant(len, 0.0);
        let y = init.data(len);
        let z = init.data(len);
        let q = init.scalar();
        let r = init.scalar();
        let t = init.scalar();
        Hydro1d { x, y, z, q, r, t, n: target }
    }
    fn bytes_per_rep(&self) -> f64 {
        (3.0 * self.n as f64 + 1.0) * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.x[..self.n], size_scale::<Self>(0.001, self.n))
    }
}

/// 2D hydro fragment on a kn x jn grid, three nests per rep (zu, zv accumulate).
#[derive(Debug)]
pub struct Hydro2d {
    /// Output.
    pub zrout: Vec<f64>,
    /// Output.
    pub zzout: Vec<f64>,
    /// Intermediate.
    pub za: Vec<f64>,
    /// Intermediate.
    pub zb: Vec<f64>,
    /// Input.
    pub zm: Vec<f64>,
    /// Input.
    pub zp: Vec<f64>,
    /// Input.
    pub zq: Vec<f64>,
    /// Input.
    pub zr: Vec<f64>,
    /// Accumulated.
    pub zu: Vec<f64>,
    /// Accumulated.
    pub zv: Vec<f64>,
    /// Input.
    pub zz: Vec<f64>,
    /// Rows (k).
    pub kn: usize,
    /// Columns (j).
    pub jn: usize,
    target: usize,
}

impl Hydro2d {
    /// `s` of the zu/zv update.
    pub const S: f64 = 0.0041;
    /// `t` of the output update.
    pub const T: f64 = 0.0037;

    /// `trunc(sqrt(target) + sqrt(2) - 1)`.
    pub fn extent(target: usize) -> usize {
        ((target as f64).sqrt() + 2f64.sqrt() - 1.0) as usize
    }
}

impl KernelData for Hydro2d {
    fn problem_size(target: usize) -> usize {
        Self::extent(target).pow(2)
    }
    fn setup(target: usize) -> Self {
        let n = Self::extent(target);
        let len = n * n;
        let mut init = Init::new();
        let zrout = init.constant(len, 0.0);
        let zzout = init.constant(len, 0.0);
        let za = init.data(len);
        let zb = init.data(len);
        let zm = init.data(len);
        let zp = init.data(len);
        let zq = init.data(len);
        let zr = init.data(len);
        let zu = init.data(len);
        let zv = init.data(len);
        let zz = init.data(len);
        Hydro2d { zrout, zzout, za, zb, zm, zp, zq, zr, zu, zv, zz, kn: n, jn: n, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        // Nest 1: zp, zq, zr, zm read, za, zb written; nest 2: za, zb, zz, zr read, zu, zv
        // read+written; nest 3: zr, zz, zu, zv read, zrout, zzout written.
        let interior = ((self.kn - 2) * (self.jn - 2)) as f64;
        (6.0 + 8.0 + 6.0) * F64 * interior
    }
    fn checksum(&self) -> Checksum {
        let s = size_scale::<Self>(0.001, self.target);
        *Checksum::zero().add_array(&self.zzout, s).add_array(&self.zrout, s)
    }
}

/// `y = u/v; w = x/(exp(y) - 1)`.
#[derive(Debug)]
pub struct Planckian {
    /// Input.
    pub x: Vec<f64>,
    /// Intermediate output.
    pub y: Vec<f64>,
    /// Input.
    pub u: Vec<f64>,
    /// Input.
    pub v: Vec<f64>,
    /// Output.
    pub w: Vec<f64>,
}

impl KernelData for Planckian {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let x = init.data(target);
        let y = init.data(target);
        let u = init.data(target);
        let v = init.data(target);
        let w = init.constant(target, 0.0);
        Planckian { x, y, u, v, w }
    }
    fn bytes_per_rep(&self) -> f64 {
        5.0 * F64 * self.w.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.w, 1.0)
    }
}

/// One method per Lcals kernel; see [`StreamKernels`](crate::kernels::stream::StreamKernels).
#[allow(unused_variables)]
pub trait LcalsKernels {
    /// Lcals_DIFF_PREDICT.
    fn diff_predict(&self, d: &mut DiffPredict, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Lcals_EOS.
    fn eos(&self, d: &mut Eos, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Lcals_FIRST_DIFF.
    fn first_diff(&self, d: &mut FirstDiff, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Lcals_HYDRO_1D.
    fn hydro_1d(&self, d: &mut Hydro1d, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Lcals_HYDRO_2D.
    fn hydro_2d(&self, d: &mut Hydro2d, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Lcals_PLANCKIAN.
    fn planckian(&self, d: &mut Planckian, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
}

/// Registry entries of the Lcals group.
pub fn kernels() -> Vec<KernelDef> {
    use Tolerance::Deterministic;
    let g = Group::Lcals;
    vec![
        kernel_def!("Lcals_DIFF_PREDICT", g, 200, Deterministic, DiffPredict, diff_predict),
        kernel_def!("Lcals_EOS", g, 500, Deterministic, Eos, eos),
        kernel_def!("Lcals_FIRST_DIFF", g, 2000, Deterministic, FirstDiff, first_diff),
        kernel_def!("Lcals_HYDRO_1D", g, 1000, Deterministic, Hydro1d, hydro_1d),
        kernel_def!("Lcals_HYDRO_2D", g, 100, Deterministic, Hydro2d, hydro_2d),
        kernel_def!("Lcals_PLANCKIAN", g, 50, Deterministic, Planckian, planckian),
    ]
}
