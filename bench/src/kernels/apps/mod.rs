//! Apps group (doc section 5): DEL_DOT_VEC_2D, ENERGY, FIR, LTIMES, MATVEC_3D_STENCIL,
//! PRESSURE, VOL3D.
//!
//! The longer loop bodies are `#[inline(always)]` functions here (RAJAPerf keeps them in
//! `*_BODY` macros), so the Rust variants share one copy of each formula. They are free
//! `#[omp::declare_target]` functions, so the omp-gpu target regions call the same copy.

pub(crate) mod c_omp;
mod omp_cpu;
mod omp_gpu;
mod rayon;
mod seq;

use crate::kernel::{size_scale, Group, KernelData, KernelDef, Tolerance};
use crate::kernel_def;
use crate::rpdata::{ADomain, Checksum, Init};
use crate::timer::Timer;
use crate::variant::{Outcome, Unsupported};

const F64: f64 = std::mem::size_of::<f64>() as f64;
const INDEX: f64 = std::mem::size_of::<i64>() as f64;

/// Divergence of a nodal 2D vector field per real zone (indirect through the zone list).
#[derive(Debug)]
pub struct DelDotVec2d {
    /// Node x coordinates (nnalls).
    pub x: Vec<f64>,
    /// Node y coordinates.
    pub y: Vec<f64>,
    /// Field x component.
    pub xdot: Vec<f64>,
    /// Field y component.
    pub ydot: Vec<f64>,
    /// Output per zone (nnalls).
    pub div: Vec<f64>,
    /// Real-zone list.
    pub zones: Vec<i64>,
    /// Stride of j.
    pub jp: usize,
}

impl DelDotVec2d {
    /// Divergence in zone `i` ([`del_dot_vec_2d_zone`]).
    #[inline(always)]
    pub fn zone(x: &[f64], y: &[f64], fx: &[f64], fy: &[f64], i: usize, jp: usize) -> f64 {
        del_dot_vec_2d_zone(x, y, fx, fy, i, jp)
    }
}

/// DEL_DOT_VEC_2D's body: the divergence in zone `i` (corners n1 = i+1, n2 = i+1+jp, n3 = i+jp,
/// n4 = i).
///
/// The loop bodies of this group are free `#[omp::declare_target]` functions: the device build
/// copies them into the device crate, so target regions (`omp_gpu.rs`) call the same code as the
/// host variants. They must be self-contained (constants inside) and are called by their plain
/// name from kernels.
#[omp::declare_target]
#[inline(always)]
pub fn del_dot_vec_2d_zone(x: &[f64], y: &[f64], fx: &[f64], fy: &[f64], i: usize, jp: usize) -> f64 {
    /// `half` of the body.
    const HALF: f64 = 0.5;
    /// `ptiny` of the body.
    const PTINY: f64 = 1.0e-20;
    let (n1, n2, n3, n4) = (i + 1, i + 1 + jp, i + jp, i);
    let half = HALF;
    let xi = half * (x[n1] + x[n2] - x[n3] - x[n4]);
    let xj = half * (x[n2] + x[n3] - x[n4] - x[n1]);
    let yi = half * (y[n1] + y[n2] - y[n3] - y[n4]);
    let yj = half * (y[n2] + y[n3] - y[n4] - y[n1]);
    let fxi = half * (fx[n1] + fx[n2] - fx[n3] - fx[n4]);
    let fxj = half * (fx[n2] + fx[n3] - fx[n4] - fx[n1]);
    let fyi = half * (fy[n1] + fy[n2] - fy[n3] - fy[n4]);
    let fyj = half * (fy[n2] + fy[n3] - fy[n4] - fy[n1]);
    let rarea = 1.0 / (xi * yj - xj * yi + PTINY);
    let dfxdx = rarea * (fxi * yj - fxj * yi);
    let dfydy = rarea * (fyj * xi - fyi * xj);
    let affine = (fy[n1] + fy[n2] + fy[n3] + fy[n4]) / (y[n1] + y[n2] + y[n3] + y[n4]);
    dfxdx + dfydy + affine
}

impl KernelData for DelDotVec2d {
    fn problem_size(target: usize) -> usize {
        ADomain::for_target(target, 2).n_real_zones()
    }
    fn setup(target: usize) -> Self {
        let dom = ADomain::for_target(target, 2);
        let nn = dom.nnalls();
        let mut init = Init::new();
        let mut x = init.constant(nn, 0.0);
        let mut y = init.constant(nn, 0.0);
        // The list is const-initialised (one init call) and then filled in.
        let _ = init.constant_index(nn, -1);
        let zones = dom.real_zones();
        dom.mesh_2d(0.2, 0.1, &mut x, &mut y);
        let xdot = init.data(nn);
        let ydot = init.data(nn);
        let div = init.constant(nn, 0.0);
        DelDotVec2d { x, y, xdot, ydot, div, zones, jp: dom.jp() }
    }
    fn bytes_per_rep(&self) -> f64 {
        let (nn, nz) = (self.x.len() as f64, self.zones.len() as f64);
        (4.0 * nn + nz) * F64 + nz * INDEX
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.div, 1.0)
    }
}

/// ENERGY's inputs and outputs (six element-wise loops per rep).
#[derive(Debug)]
pub struct Energy {
    /// Output energy.
    pub e_new: Vec<f64>,
    /// Input.
    pub e_old: Vec<f64>,
    /// Input.
    pub delvc: Vec<f64>,
    /// Input.
    pub p_new: Vec<f64>,
    /// Input.
    pub p_old: Vec<f64>,
    /// Output artificial viscosity.
    pub q_new: Vec<f64>,
    /// Input.
    pub q_old: Vec<f64>,
    /// Input.
    pub work: Vec<f64>,
    /// Input.
    pub comp_half_step: Vec<f64>,
    /// Input.
    pub p_half_step: Vec<f64>,
    /// Input.
    pub bvc: Vec<f64>,
    /// Input.
    pub pbvc: Vec<f64>,
    /// Input.
    pub ql_old: Vec<f64>,
    /// Input.
    pub qq_old: Vec<f64>,
    /// Input.
    pub vnewc: Vec<f64>,
    /// Scalar.
    pub rho0: f64,
    /// Scalar.
    pub e_cut: f64,
    /// Scalar.
    pub emin: f64,
    /// Scalar.
    pub q_cut: f64,
}

/// ENERGY's read-only arrays cut to one index range (all the same length), so loops over a
/// range index them without bounds checks and vectorise.
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub struct EnergyInputs<'a> {
    pub e_old: &'a [f64],
    pub delvc: &'a [f64],
    pub p_new: &'a [f64],
    pub p_old: &'a [f64],
    pub q_old: &'a [f64],
    pub work: &'a [f64],
    pub comp_half_step: &'a [f64],
    pub p_half_step: &'a [f64],
    pub bvc: &'a [f64],
    pub pbvc: &'a [f64],
    pub ql_old: &'a [f64],
    pub qq_old: &'a [f64],
    pub vnewc: &'a [f64],
    pub rho0: f64,
    pub e_cut: f64,
    pub emin: f64,
    pub q_cut: f64,
}

impl Energy {
    /// Read-only inputs, and the two outputs (e_new, q_new).
    pub fn split(&mut self) -> (EnergyInputs<'_>, &mut [f64], &mut [f64]) {
        let inputs = EnergyInputs {
            e_old: &self.e_old,
            delvc: &self.delvc,
            p_new: &self.p_new,
            p_old: &self.p_old,
            q_old: &self.q_old,
            work: &self.work,
            comp_half_step: &self.comp_half_step,
            p_half_step: &self.p_half_step,
            bvc: &self.bvc,
            pbvc: &self.pbvc,
            ql_old: &self.ql_old,
            qq_old: &self.qq_old,
            vnewc: &self.vnewc,
            rho0: self.rho0,
            e_cut: self.e_cut,
            emin: self.emin,
            q_cut: self.q_cut,
        };
        (inputs, &mut self.e_new, &mut self.q_new)
    }
}

impl<'a> EnergyInputs<'a> {
    /// Every array cut to `r`.
    pub fn range(&self, r: std::ops::Range<usize>) -> Self {
        EnergyInputs {
            e_old: &self.e_old[r.clone()],
            delvc: &self.delvc[r.clone()],
            p_new: &self.p_new[r.clone()],
            p_old: &self.p_old[r.clone()],
            q_old: &self.q_old[r.clone()],
            work: &self.work[r.clone()],
            comp_half_step: &self.comp_half_step[r.clone()],
            p_half_step: &self.p_half_step[r.clone()],
            bvc: &self.bvc[r.clone()],
            pbvc: &self.pbvc[r.clone()],
            ql_old: &self.ql_old[r.clone()],
            qq_old: &self.qq_old[r.clone()],
            vnewc: &self.vnewc[r],
            ..*self
        }
    }

    /// Loop 1 over this range (`e_new` has the range's length).
    pub fn loop1(&self, e_new: &mut [f64]) {
        let v = self.range(0..e_new.len());
        for i in 0..e_new.len() {
            e_new[i] = energy_body::e1(v.e_old[i], v.delvc[i], v.p_old[i], v.q_old[i], v.work[i]);
        }
    }

    /// Loop 2: q_new from e_new.
    pub fn loop2(&self, e_new: &[f64], q_new: &mut [f64]) {
        let (v, e_new) = (self.range(0..q_new.len()), &e_new[..q_new.len()]);
        for i in 0..q_new.len() {
            q_new[i] = energy_body::q2(i, v.delvc, v.comp_half_step, v.pbvc, e_new, v.bvc, v.p_half_step, v.rho0, v.ql_old, v.qq_old);
        }
    }

    /// Loop 3: e_new update from q_new.
    pub fn loop3(&self, e_new: &mut [f64], q_new: &[f64]) {
        let (v, q_new) = (self.range(0..e_new.len()), &q_new[..e_new.len()]);
        for i in 0..e_new.len() {
            e_new[i] = energy_body::e3(e_new[i], v.delvc[i], v.p_old[i], v.q_old[i], v.p_half_step[i], q_new[i]);
        }
    }

    /// Loop 4: work term and cut-offs.
    pub fn loop4(&self, e_new: &mut [f64]) {
        let v = self.range(0..e_new.len());
        for i in 0..e_new.len() {
            e_new[i] = energy_body::e4(e_new[i], v.work[i], v.e_cut, v.emin);
        }
    }

    /// Loop 5: q_tilde correction and cut-offs.
    pub fn loop5(&self, e_new: &mut [f64], q_new: &[f64]) {
        let (v, q_new) = (self.range(0..e_new.len()), &q_new[..e_new.len()]);
        for i in 0..e_new.len() {
            e_new[i] = energy_body::e5(
                i,
                e_new[i],
                v.delvc,
                v.pbvc,
                v.vnewc,
                v.bvc,
                v.p_new,
                v.rho0,
                v.ql_old,
                v.qq_old,
                v.p_old,
                v.q_old,
                v.p_half_step,
                q_new,
                v.e_cut,
                v.emin,
            );
        }
    }

    /// Loop 6: final q_new where `delvc <= 0`.
    pub fn loop6(&self, e_new: &[f64], q_new: &mut [f64]) {
        let (v, e_new) = (self.range(0..q_new.len()), &e_new[..q_new.len()]);
        for i in 0..q_new.len() {
            if v.delvc[i] <= 0.0 {
                q_new[i] = energy_body::q6(i, v.pbvc, e_new, v.vnewc, v.bvc, v.p_new, v.rho0, v.ql_old, v.qq_old, v.q_cut);
            }
        }
    }
}

/// ENERGY's six loop bodies, one function per loop, arguments in body order.
pub mod energy_body {
    /// Sound-speed term with RAJAPerf's clamp.
    #[omp::declare_target]
    #[inline(always)]
    pub fn ssc(num: f64, rho0: f64) -> f64 {
        let ssc = num / rho0;
        if ssc <= 0.1111111e-36 {
            0.3333333e-18
        } else {
            ssc.sqrt()
        }
    }

    /// Loop 1: new e_new.
    #[omp::declare_target]
    #[inline(always)]
    pub fn e1(e_old: f64, delvc: f64, p_old: f64, q_old: f64, work: f64) -> f64 {
        e_old - 0.5 * delvc * (p_old + q_old) + 0.5 * work
    }

    /// Loop 2: new q_new. Takes the arrays and the index, not their values: like RAJAPerf's body
    /// (and the C and CUDA kernels) it reads the other arrays only where `delvc[i] <= 0`. A function
    /// of the values would load all nine arrays before the branch (Rust evaluates arguments first),
    /// 3x the memory traffic of RAJAPerf's kernel for its inputs, where `delvc > 0` everywhere.
    #[omp::declare_target]
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn q2(
        i: usize,
        delvc: &[f64],
        comp_half_step: &[f64],
        pbvc: &[f64],
        e_new: &[f64],
        bvc: &[f64],
        p_half_step: &[f64],
        rho0: f64,
        ql_old: &[f64],
        qq_old: &[f64],
    ) -> f64 {
        if delvc[i] > 0.0 {
            0.0
        } else {
            let vhalf = 1.0 / (1.0 + comp_half_step[i]);
            ssc(pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * p_half_step[i], rho0) * ql_old[i] + qq_old[i]
        }
    }

    /// Loop 3: new e_new.
    #[omp::declare_target]
    #[inline(always)]
    pub fn e3(e_new: f64, delvc: f64, p_old: f64, q_old: f64, p_half_step: f64, q_new: f64) -> f64 {
        e_new + 0.5 * delvc * (3.0 * (p_old + q_old) - 4.0 * (p_half_step + q_new))
    }

    /// Loop 4: new e_new.
    #[omp::declare_target]
    #[inline(always)]
    pub fn e4(e_new: f64, work: f64, e_cut: f64, emin: f64) -> f64 {
        let mut e = e_new + 0.5 * work;
        if e.abs() < e_cut {
            e = 0.0;
        }
        if e < emin {
            e = emin;
        }
        e
    }

    /// Loop 5: new e_new from its old value `e_new`; the arrays with the index, so that `q_tilde`'s
    /// inputs are read only where `delvc[i] <= 0` (see [`q2`]).
    #[omp::declare_target]
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn e5(
        i: usize,
        e_new: f64,
        delvc: &[f64],
        pbvc: &[f64],
        vnewc: &[f64],
        bvc: &[f64],
        p_new: &[f64],
        rho0: f64,
        ql_old: &[f64],
        qq_old: &[f64],
        p_old: &[f64],
        q_old: &[f64],
        p_half_step: &[f64],
        q_new: &[f64],
        e_cut: f64,
        emin: f64,
    ) -> f64 {
        let q_tilde =
            if delvc[i] > 0.0 { 0.0 } else { ssc(pbvc[i] * e_new + vnewc[i] * vnewc[i] * bvc[i] * p_new[i], rho0) * ql_old[i] + qq_old[i] };
        let mut e = e_new - (7.0 * (p_old[i] + q_old[i]) - 8.0 * (p_half_step[i] + q_new[i]) + (p_new[i] + q_tilde)) * delvc[i] / 6.0;
        if e.abs() < e_cut {
            e = 0.0;
        }
        if e < emin {
            e = emin;
        }
        e
    }

    /// Loop 6: the new q_new[i], for the `i` with `delvc[i] <= 0` (the loops write only those, as
    /// RAJAPerf's body does; see [`q2`]).
    #[omp::declare_target]
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn q6(
        i: usize,
        pbvc: &[f64],
        e_new: &[f64],
        vnewc: &[f64],
        bvc: &[f64],
        p_new: &[f64],
        rho0: f64,
        ql_old: &[f64],
        qq_old: &[f64],
        q_cut: f64,
    ) -> f64 {
        let mut q = ssc(pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i], rho0) * ql_old[i] + qq_old[i];
        if q.abs() < q_cut {
            q = 0.0;
        }
        q
    }
}

impl KernelData for Energy {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let n = target;
        let mut init = Init::new();
        let e_new = init.constant(n, 0.0);
        let e_old = init.data(n);
        let delvc = init.data(n);
        let p_new = init.data(n);
        let p_old = init.data(n);
        let q_new = init.constant(n, 0.0);
        let q_old = init.data(n);
        let work = init.data(n);
        let comp_half_step = init.data(n);
        let p_half_step = init.data(n);
        let bvc = init.data(n);
        let pbvc = init.data(n);
        let ql_old = init.data(n);
        let qq_old = init.data(n);
        let vnewc = init.data(n);
        let rho0 = init.scalar();
        let e_cut = init.scalar();
        let emin = init.scalar();
        let q_cut = init.scalar();
        Energy {
            e_new,
            e_old,
            delvc,
            p_new,
            p_old,
            q_new,
            q_old,
            work,
            comp_half_step,
            p_half_step,
            bvc,
            pbvc,
            ql_old,
            qq_old,
            vnewc,
            rho0,
            e_cut,
            emin,
            q_cut,
        }
    }
    fn bytes_per_rep(&self) -> f64 {
        // Arrays touched per loop (reads + writes, branch-not-taken inputs not counted):
        // 6 + 2 + 7 + 3 + 8 + 1.
        27.0 * F64 * self.e_new.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.e_new, 1.0).add_array(&self.q_new, 1.0)
    }
}

/// 16-tap FIR filter.
#[derive(Debug)]
pub struct Fir {
    /// Input, N + 15.
    pub input: Vec<f64>,
    /// Output, N.
    pub out: Vec<f64>,
    target: usize,
}

impl Fir {
    /// Filter taps.
    pub const COEFF: [f64; 16] = [3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0];
}

impl KernelData for Fir {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let input = init.data(target + Fir::COEFF.len() - 1);
        let out = init.constant(target, 0.0);
        Fir { input, out, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        (self.input.len() + self.out.len()) as f64 * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.out, size_scale::<Self>(0.0001, self.target))
    }
}

/// Discrete-ordinates moment kernel `phi[z][g][m] += ell[m][d]*psi[z][g][d]` (R-dependent).
#[derive(Debug)]
pub struct Ltimes {
    /// Moments, num_z x num_g x num_m.
    pub phi: Vec<f64>,
    /// num_m x num_d.
    pub ell: Vec<f64>,
    /// num_z x num_g x num_d.
    pub psi: Vec<f64>,
    /// Directions.
    pub num_d: usize,
    /// Groups.
    pub num_g: usize,
    /// Moments.
    pub num_m: usize,
    /// Zones.
    pub num_z: usize,
    target: usize,
}

impl Ltimes {
    /// Directions.
    pub const NUM_D: usize = 64;
    /// Groups.
    pub const NUM_G: usize = 32;
    /// Moments.
    pub const NUM_M: usize = 25;

    /// `max((target + 1024)/2048, 1)` zones.
    pub fn num_z(target: usize) -> usize {
        let per_zone = Self::NUM_D * Self::NUM_G;
        ((target + per_zone / 2) / per_zone).max(1)
    }
}

impl Ltimes {
    /// Zone z: `phi_z[g][m] += ell[m][d] * psi_z[g][d]` for d ascending. The running value is
    /// held in a register: the same additions in the same order as RAJAPerf's updates of phi
    /// in memory, hence the same result.
    #[inline(always)]
    pub fn zone(phi_z: &mut [f64], ell: &[f64], psi_z: &[f64], nd: usize, ng: usize, nm: usize) {
        for g in 0..ng {
            let psi_g = &psi_z[g * nd..][..nd];
            for m in 0..nm {
                let ell_m = &ell[m * nd..][..nd];
                let mut acc = phi_z[m + g * nm];
                for dd in 0..nd {
                    acc += ell_m[dd] * psi_g[dd];
                }
                phi_z[m + g * nm] = acc;
            }
        }
    }
}

impl KernelData for Ltimes {
    fn problem_size(target: usize) -> usize {
        Self::NUM_D * Self::NUM_G * Self::num_z(target)
    }
    fn setup(target: usize) -> Self {
        let (num_d, num_g, num_m, num_z) = (Self::NUM_D, Self::NUM_G, Self::NUM_M, Self::num_z(target));
        let mut init = Init::new();
        let phi = init.constant(num_m * num_g * num_z, 0.0);
        let ell = init.data(num_d * num_m);
        let psi = init.data(num_d * num_g * num_z);
        Ltimes { phi, ell, psi, num_d, num_g, num_m, num_z, target }
    }
    fn bytes_per_rep(&self) -> f64 {
        (2 * self.phi.len() + self.ell.len() + self.psi.len()) as f64 * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.phi, size_scale::<Self>(0.001, self.target))
    }
}

/// The 14 allocated coefficient arrays of MATVEC_3D_STENCIL (d/c/u = -kp/0/+kp plane,
/// b/c/f = -jp/0/+jp row, l/c/r = -1/0/+1). The other 13 are shifted aliases.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct StencilCoefs {
    pub dbl: Vec<f64>,
    pub dbc: Vec<f64>,
    pub dbr: Vec<f64>,
    pub dcl: Vec<f64>,
    pub dcc: Vec<f64>,
    pub dcr: Vec<f64>,
    pub dfl: Vec<f64>,
    pub dfc: Vec<f64>,
    pub dfr: Vec<f64>,
    pub cbl: Vec<f64>,
    pub cbc: Vec<f64>,
    pub cbr: Vec<f64>,
    pub ccl: Vec<f64>,
    pub ccc: Vec<f64>,
}

impl StencilCoefs {
    /// In allocation order.
    pub fn arrays(&self) -> [&[f64]; 14] {
        [
            &self.dbl, &self.dbc, &self.dbr, &self.dcl, &self.dcc, &self.dcr, &self.dfl, &self.dfc, &self.dfr, &self.cbl, &self.cbc,
            &self.cbr, &self.ccl, &self.ccc,
        ]
    }
}

/// 27-point stencil mat-vec over the real zones of a 3D ADomain.
#[derive(Debug)]
pub struct Matvec3dStencil {
    /// Output (lpz + 1).
    pub b: Vec<f64>,
    /// Input vector (lpz + 1).
    pub x: Vec<f64>,
    /// Coefficients (lpz + 1 each).
    pub coefs: StencilCoefs,
    /// Real-zone list.
    pub zones: Vec<i64>,
    /// Stride of j.
    pub jp: usize,
    /// Stride of k.
    pub kp: usize,
    target: usize,
}

impl Matvec3dStencil {
    /// `b[i]` ([`matvec_3d_zone`] with the 14 coefficient arrays).
    #[inline(always)]
    pub fn zone(c: &StencilCoefs, x: &[f64], i: usize, jp: usize, kp: usize) -> f64 {
        matvec_3d_zone(
            &c.dbl, &c.dbc, &c.dbr, &c.dcl, &c.dcc, &c.dcr, &c.dfl, &c.dfc, &c.dfr, &c.cbl, &c.cbc, &c.cbr, &c.ccl, &c.ccc, x, i, jp, kp,
        )
    }
}

/// `b[i]`: 27 products summed plane by plane (down, centre, up), row by row (back,
/// centre, front), left to right; the upper-half coefficients are the documented
/// shifted aliases of the lower half, making the matrix symmetric. A `declare_target` function
/// (see [`del_dot_vec_2d_zone`]).
#[omp::declare_target]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn matvec_3d_zone(
    dbl: &[f64],
    dbc: &[f64],
    dbr: &[f64],
    dcl: &[f64],
    dcc: &[f64],
    dcr: &[f64],
    dfl: &[f64],
    dfc: &[f64],
    dfr: &[f64],
    cbl: &[f64],
    cbc: &[f64],
    cbr: &[f64],
    ccl: &[f64],
    ccc: &[f64],
    x: &[f64],
    i: usize,
    jp: usize,
    kp: usize,
) -> f64 {
    let (j, k) = (jp, kp);
    dbl[i] * x[i - k - j - 1]
        + dbc[i] * x[i - k - j]
        + dbr[i] * x[i - k - j + 1]
        + dcl[i] * x[i - k - 1]
        + dcc[i] * x[i - k]
        + dcr[i] * x[i - k + 1]
        + dfl[i] * x[i - k + j - 1]
        + dfc[i] * x[i - k + j]
        + dfr[i] * x[i - k + j + 1]
        + cbl[i] * x[i - j - 1]
        + cbc[i] * x[i - j]
        + cbr[i] * x[i - j + 1]
        + ccl[i] * x[i - 1]
        + ccc[i] * x[i]
        + ccl[i + 1] * x[i + 1] // ccr
        + cbr[i + j - 1] * x[i + j - 1] // cfl
        + cbc[i + j] * x[i + j] // cfc
        + cbl[i + j + 1] * x[i + j + 1] // cfr
        + dfr[i + k - j - 1] * x[i + k - j - 1] // ubl
        + dfc[i + k - j] * x[i + k - j] // ubc
        + dfl[i + k - j + 1] * x[i + k - j + 1] // ubr
        + dcr[i + k - 1] * x[i + k - 1] // ucl
        + dcc[i + k] * x[i + k] // ucc
        + dcl[i + k + 1] * x[i + k + 1] // ucr
        + dbr[i + k + j - 1] * x[i + k + j - 1] // ufl
        + dbc[i + k + j] * x[i + k + j] // ufc
        + dbl[i + k + j + 1] * x[i + k + j + 1] // ufr
}

impl KernelData for Matvec3dStencil {
    fn problem_size(target: usize) -> usize {
        ADomain::for_target(target, 3).n_real_zones()
    }
    fn setup(target: usize) -> Self {
        let dom = ADomain::for_target(target, 3);
        let len = dom.lpz() + 1;
        let mut init = Init::new();
        let b = init.constant(len, 0.0);
        let x = init.data(len);
        let mut next = || init.data(len);
        let coefs = StencilCoefs {
            dbl: next(),
            dbc: next(),
            dbr: next(),
            dcl: next(),
            dcc: next(),
            dcr: next(),
            dfl: next(),
            dfc: next(),
            dfr: next(),
            cbl: next(),
            cbc: next(),
            cbr: next(),
            ccl: next(),
            ccc: next(),
        };
        Matvec3dStencil { b, x, coefs, zones: dom.real_zones(), jp: dom.jp(), kp: dom.kp(), target }
    }
    fn bytes_per_rep(&self) -> f64 {
        let nz = self.zones.len() as f64;
        // b written, x and the 14 coefficient arrays read, once per real zone; zone list read.
        16.0 * nz * F64 + nz * INDEX
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.b, size_scale::<Self>(1.0, self.target))
    }
}

/// Two element-wise loops: `bvc = cls*(compression + 1)`, clamped `p_new = bvc*e_old`.
#[derive(Debug)]
pub struct Pressure {
    /// Input.
    pub compression: Vec<f64>,
    /// Intermediate.
    pub bvc: Vec<f64>,
    /// Output.
    pub p_new: Vec<f64>,
    /// Input.
    pub e_old: Vec<f64>,
    /// Input.
    pub vnewc: Vec<f64>,
    /// Scalar.
    pub cls: f64,
    /// Scalar.
    pub p_cut: f64,
    /// Scalar.
    pub pmin: f64,
    /// Scalar.
    pub eosvmax: f64,
}

impl Pressure {
    /// Loop 2 body ([`pressure_p_new`]).
    #[inline(always)]
    pub fn p_new(bvc: f64, e_old: f64, vnewc: f64, p_cut: f64, eosvmax: f64, pmin: f64) -> f64 {
        pressure_p_new(bvc, e_old, vnewc, p_cut, eosvmax, pmin)
    }
}

/// PRESSURE's loop 2 body, a `declare_target` function (see [`del_dot_vec_2d_zone`]).
#[omp::declare_target]
#[inline(always)]
pub fn pressure_p_new(bvc: f64, e_old: f64, vnewc: f64, p_cut: f64, eosvmax: f64, pmin: f64) -> f64 {
    let mut p = bvc * e_old;
    if p.abs() < p_cut {
        p = 0.0;
    }
    if vnewc >= eosvmax {
        p = 0.0;
    }
    if p < pmin {
        p = pmin;
    }
    p
}

impl KernelData for Pressure {
    fn problem_size(target: usize) -> usize {
        target
    }
    fn setup(target: usize) -> Self {
        let mut init = Init::new();
        let compression = init.data(target);
        let bvc = init.data(target);
        let p_new = init.constant(target, 0.0);
        let e_old = init.data(target);
        let vnewc = init.data(target);
        let cls = init.scalar();
        let p_cut = init.scalar();
        let pmin = init.scalar();
        let eosvmax = init.scalar();
        Pressure { compression, bvc, p_new, e_old, vnewc, cls, p_cut, pmin, eosvmax }
    }
    fn bytes_per_rep(&self) -> f64 {
        6.0 * F64 * self.p_new.len() as f64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.p_new, 1.0)
    }
}

/// Hexahedron volume for every zone index fpz..=lpz of a 3D ADomain.
#[derive(Debug)]
pub struct Vol3d {
    /// Node x (nnalls).
    pub x: Vec<f64>,
    /// Node y.
    pub y: Vec<f64>,
    /// Node z.
    pub z: Vec<f64>,
    /// Output per zone (nnalls).
    pub vol: Vec<f64>,
    /// Stride of j.
    pub jp: usize,
    /// Stride of k.
    pub kp: usize,
    /// First zone.
    pub fpz: usize,
    /// Last zone (inclusive).
    pub lpz: usize,
    target: usize,
}

impl Vol3d {
    /// Volume of zone `i` ([`vol3d_zone`]).
    #[inline(always)]
    pub fn zone(x: &[f64], y: &[f64], z: &[f64], i: usize, jp: usize, kp: usize) -> f64 {
        vol3d_zone(x, y, z, i, jp, kp)
    }
}

/// VOL3D's body: the volume of zone `i` from its corners n0..n7, a `declare_target` function
/// (see [`del_dot_vec_2d_zone`]).
#[omp::declare_target]
#[inline(always)]
pub fn vol3d_zone(x: &[f64], y: &[f64], z: &[f64], i: usize, jp: usize, kp: usize) -> f64 {
    /// `1/12` as RAJAPerf writes it (the literal rounds to the nearest double of 1/12).
    #[allow(clippy::excessive_precision)]
    const VOL_FACTOR: f64 = 0.083333333333333333;
    // Helpers are nested `#[inline(always)]` fns, not closures: a closure does not inherit the
    // `inline(always)` of this function, and in the parallel variants LLVM kept a `d` closure
    // out of line (six calls per zone, the corner indices re-read from a stack array), which
    // made rayon and omp-cpu 2-2.5x slower per thread than seq on this kernel.
    /// The 8 corners n0..n7 of zone `i` on one axis.
    #[inline(always)]
    fn corners(v: &[f64], i: usize, jp: usize, kp: usize) -> [f64; 8] {
        [v[i], v[i + 1], v[i + jp], v[i + 1 + jp], v[i + kp], v[i + 1 + kp], v[i + jp + kp], v[i + 1 + jp + kp]]
    }
    /// dAB = coordinate(nA) - coordinate(nB), per axis.
    #[inline(always)]
    fn d(c: &[[f64; 8]; 3], a: usize, b: usize) -> [f64; 3] {
        [c[0][a] - c[0][b], c[1][a] - c[1][b], c[2][a] - c[2][b]]
    }
    #[inline(always)]
    fn sum(p: [f64; 3], q: [f64; 3]) -> [f64; 3] {
        [p[0] + q[0], p[1] + q[1], p[2] + q[2]]
    }
    /// P . (Q x R), written as xps*cyz + yps*czx + zps*cxy.
    #[inline(always)]
    fn term(p: [f64; 3], q: [f64; 3], r: [f64; 3]) -> f64 {
        let cyz = q[1] * r[2] - q[2] * r[1];
        let czx = q[2] * r[0] - q[0] * r[2];
        let cxy = q[0] * r[1] - q[1] * r[0];
        p[0] * cyz + p[1] * czx + p[2] * cxy
    }
    let c = [corners(x, i, jp, kp), corners(y, i, jp, kp), corners(z, i, jp, kp)];
    let (d71, d72, d74) = (d(&c, 7, 1), d(&c, 7, 2), d(&c, 7, 4));
    let (d30, d50, d60) = (d(&c, 3, 0), d(&c, 5, 0), d(&c, 6, 0));
    // Four terms as documented: the third reuses the d74 x d60 cross product.
    let mut vol = term(sum(d71, d60), d72, d30);
    vol += term(sum(d72, d50), d74, d60);
    vol += term(sum(d74, d30), d74, d60);
    vol += term(sum(d74, d30), d71, d50);
    vol * VOL_FACTOR
}

impl KernelData for Vol3d {
    fn problem_size(target: usize) -> usize {
        ADomain::for_target(target, 3).n_real_zones()
    }
    fn setup(target: usize) -> Self {
        let dom = ADomain::for_target(target, 3);
        let nn = dom.nnalls();
        let mut init = Init::new();
        let mut x = init.constant(nn, 0.0);
        let mut y = init.constant(nn, 0.0);
        let mut z = init.constant(nn, 0.0);
        dom.mesh_3d([0.3, 0.2, 0.1], &mut x, &mut y, &mut z);
        let vol = init.constant(nn, 0.0);
        Vol3d { x, y, z, vol, jp: dom.jp(), kp: dom.kp(), fpz: dom.fpz(), lpz: dom.lpz(), target }
    }
    fn bytes_per_rep(&self) -> f64 {
        let zones = (self.lpz + 1 - self.fpz) as f64;
        (3.0 * self.x.len() as f64 + zones) * F64
    }
    fn checksum(&self) -> Checksum {
        *Checksum::zero().add_array(&self.vol, size_scale::<Self>(0.001, self.target))
    }
}

/// One method per Apps kernel; see [`StreamKernels`](crate::kernels::stream::StreamKernels).
#[allow(unused_variables)]
pub trait AppsKernels {
    /// Apps_DEL_DOT_VEC_2D.
    fn del_dot_vec_2d(&self, d: &mut DelDotVec2d, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Apps_ENERGY.
    fn energy(&self, d: &mut Energy, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Apps_FIR.
    fn fir(&self, d: &mut Fir, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Apps_LTIMES.
    fn ltimes(&self, d: &mut Ltimes, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Apps_MATVEC_3D_STENCIL.
    fn matvec_3d_stencil(&self, d: &mut Matvec3dStencil, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Apps_PRESSURE.
    fn pressure(&self, d: &mut Pressure, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
    /// Apps_VOL3D.
    fn vol3d(&self, d: &mut Vol3d, reps: usize, t: &mut Timer) -> Outcome {
        Err(Unsupported)
    }
}

/// Registry entries of the Apps group.
pub fn kernels() -> Vec<KernelDef> {
    use Tolerance::Deterministic;
    let g = Group::Apps;
    vec![
        kernel_def!("Apps_DEL_DOT_VEC_2D", g, 100, Deterministic, DelDotVec2d, del_dot_vec_2d),
        kernel_def!("Apps_ENERGY", g, 130, Deterministic, Energy, energy),
        kernel_def!("Apps_FIR", g, 160, Deterministic, Fir, fir),
        kernel_def!("Apps_LTIMES", g, 50, Deterministic, Ltimes, ltimes),
        kernel_def!("Apps_MATVEC_3D_STENCIL", g, 100, Deterministic, Matvec3dStencil, matvec_3d_stencil),
        kernel_def!("Apps_PRESSURE", g, 700, Deterministic, Pressure, pressure),
        kernel_def!("Apps_VOL3D", g, 100, Deterministic, Vol3d, vol3d),
    ]
}
