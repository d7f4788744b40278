//! Plain-data structs on the device (issue #10): `#[omp::declare_target]` structs in slices, by value, nested,
//! read and written field by field, each region next to its sequential reference.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, Check};

/// Every struct check.
pub const CHECKS: &[Check] = &[
    ("structs: slices of declare_target structs written field by field, a struct by value", check_particles),
    ("structs: nested structs and arrays in structs, a reduction over a field", check_nested),
    ("structs: a table of structs searched in a helper function (XSBench's grid lookup)", check_grid_lookup),
    ("struct fields in target regions: s.c[i] = s.a[i] + s.scalar * s.b[i], nested s.grid.u[i]", check_fields),
    ("struct fields in target regions: a &mut self method (BabelStream's class pattern)", check_method_fields),
    ("structs: methods of a declare_target struct called in a kernel, Self::N in a method's region", check_struct_methods),
    ("structs: `#[repr(align(8))]` structs (CUDA's float2) read in an inner loop and written whole", check_aligned),
    (
        "structs: a struct by value and a firstprivate [f64; 40] changing between nowait regions (the region's device copy follows)",
        check_value_changes,
    ),
];

/// CUDA's `float2`: two `f32` aligned to 8 bytes, so a point is one 8-byte load.
#[omp::declare_target]
#[repr(align(8))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Float2 {
    /// First coordinate.
    pub x: f32,
    /// Second coordinate.
    pub y: f32,
}

/// For each point of `a`, the nearest point of `b` (squared distance) and the difference to it (hausdorff's loop).
#[omp::directives]
fn nearest(a: &[Float2], b: &[Float2], near: &mut [Float2]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..a.len() {
        let p = a[i];
        let mut best = Float2 { x: f32::MAX, y: 0.0 };
        for j in 0..b.len() {
            let d = (p.x - b[j].x) * (p.x - b[j].x) + (p.y - b[j].y) * (p.y - b[j].y);
            if d < best.x {
                best = Float2 { x: d, y: p.y - b[j].y };
            }
        }
        near[i] = best;
    }
}

fn nearest_sequential(a: &[Float2], b: &[Float2]) -> Vec<Float2> {
    a.iter()
        .map(|p| {
            let mut best = Float2 { x: f32::MAX, y: 0.0 };
            for q in b {
                let d = (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y);
                if d < best.x {
                    best = Float2 { x: d, y: p.y - q.y };
                }
            }
            best
        })
        .collect()
}

fn check_aligned(rng: &mut StdRng) -> Result<(), String> {
    if std::mem::align_of::<Float2>() != 8 || std::mem::size_of::<Float2>() != 8 {
        return Err(format!("Float2 has size {} and alignment {}", std::mem::size_of::<Float2>(), std::mem::align_of::<Float2>()));
    }
    let (na, nb) = (rng.gen_range(1..3000), rng.gen_range(1..300));
    let mut point = || Float2 { x: rng.gen_range(-1.0..1.0), y: rng.gen_range(-1.0..1.0) };
    let a: Vec<Float2> = (0..na).map(|_| point()).collect();
    let b: Vec<Float2> = (0..nb).map(|_| point()).collect();
    let mut near = vec![Float2 { x: -1.0, y: -1.0 }; a.len()];
    nearest(&a, &b, &mut near);
    same("near", &near, &nearest_sequential(&a, &b))
}

/// An affine step's parameters, passed by value to each region.
#[omp::declare_target]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Factor.
    pub scale: f64,
    /// Offset.
    pub shift: f64,
}

/// A helper taking the whole struct (so the region captures `p` itself, not its fields).
fn apply(p: &Step, v: f64) -> f64 {
    v * p.scale + p.shift
}

/// One `nowait` region per step on the same array, the step by value (repeated steps keep the region's device copy,
/// changed ones replace it only after the queued regions that read the old one), one `taskwait`.
#[omp::directives]
fn steps_by_value(steps: &[Step], y: &mut [f64]) {
    #[omp::target_data(map(tofrom: y))]
    {
        for k in 0..steps.len() {
            let p: Step = steps[k];
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..y.len() {
                y[i] = apply(&p, y[i]);
            }
        }
        omp::taskwait!();
    }
}

/// The same with a `firstprivate` array of more elements than kernel parameters take (`[f64; 40]`), read at a
/// computed index.
#[omp::directives]
fn table_steps(tables: &[[f64; 40]], y: &mut [f64]) {
    #[omp::target_data(map(tofrom: y))]
    {
        for k in 0..tables.len() {
            let c: [f64; 40] = tables[k];
            #[omp::target_teams_distribute_parallel_for(nowait, firstprivate(c))]
            for i in 0..y.len() {
                y[i] = y[i] * 0.5 + c[i % 40];
            }
        }
        omp::taskwait!();
    }
}

fn check_value_changes(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..20_000);
    let y0: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut steps = Vec::new();
    for _ in 0..rng.gen_range(5..40) {
        let s = Step { scale: rng.gen_range(0.5..1.5), shift: rng.gen_range(-1.0..1.0) };
        // Runs of the same step, as a time loop's constant parameters.
        for _ in 0..rng.gen_range(1..4) {
            steps.push(s);
        }
    }
    let want: Vec<f64> = y0.iter().map(|&v| steps.iter().fold(v, |v, s| v * s.scale + s.shift)).collect();
    let mut y = y0.clone();
    steps_by_value(&steps, &mut y);
    same("y", &y, &want)?;
    let mut tables: Vec<[f64; 40]> = Vec::new();
    for _ in 0..rng.gen_range(3..20) {
        let t: [f64; 40] = std::array::from_fn(|_| rng.gen_range(-1.0..1.0));
        for _ in 0..rng.gen_range(1..4) {
            tables.push(t);
        }
    }
    let want: Vec<f64> = y0.iter().enumerate().map(|(i, &v)| tables.iter().fold(v, |v, t| v * 0.5 + t[i % 40])).collect();
    let mut y = y0;
    table_steps(&tables, &mut y);
    same("y (array values)", &y, &want)
}

/// A particle, as an array-of-structs code stores it: mixed field sizes, no padding (8 + 8 + 4 + 4 bytes).
#[omp::declare_target]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    /// Position.
    pub x: f64,
    /// Velocity.
    pub v: f64,
    /// Mass.
    pub m: f32,
    /// Identifier.
    pub id: u32,
}

/// Run parameters passed by value (firstprivate): larger than one 8-byte kernel slot.
#[omp::declare_target]
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Time step.
    pub dt: f64,
    /// Force scale.
    pub scale: f64,
    /// Damping per step.
    pub damping: f64,
}

#[omp::directives]
fn push_particles(parts: &mut [Particle], forces: &[f64], p: Params) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..parts.len() {
        let a = forces[i] * p.scale / parts[i].m as f64;
        parts[i].v = parts[i].v * p.damping + a * p.dt;
        parts[i].x += parts[i].v * p.dt;
        parts[i].id += 1;
    }
}

fn push_sequential(parts: &mut [Particle], forces: &[f64], p: Params) {
    for (part, f) in parts.iter_mut().zip(forces) {
        let a = f * p.scale / part.m as f64;
        part.v = part.v * p.damping + a * p.dt;
        part.x += part.v * p.dt;
        part.id += 1;
    }
}

fn random_particles(rng: &mut StdRng, n: usize) -> Vec<Particle> {
    (0..n)
        .map(|i| Particle { x: rng.gen_range(-1.0..1.0), v: rng.gen_range(-1.0..1.0), m: rng.gen_range(0.5..2.0), id: i as u32 })
        .collect()
}

fn check_particles(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let mut parts = random_particles(rng, n);
    let forces = crate::vec_f64(rng, n);
    let p = Params { dt: rng.gen_range(0.001..0.1), scale: rng.gen_range(0.5..2.0), damping: 0.99 };
    let mut want = parts.clone();
    push_particles(&mut parts, &forces, p);
    push_sequential(&mut want, &forces, p);
    same("parts", &parts, &want)
}

/// A cell holding a particle and a fixed-size array: nested `declare_target` structs.
#[omp::declare_target]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Corner coordinates.
    pub corner: [f64; 3],
    /// Its particle.
    pub p: Particle,
    /// Neighbour count.
    pub neighbours: i64,
}

#[omp::directives]
#[allow(clippy::needless_range_loop)] // the C form the check is about
fn cell_mass(cells: &mut Vec<Cell>, shift: [f64; 3]) -> f64 {
    let mut total = 0.0;
    #[omp::target_teams_distribute_parallel_for(reduction(+: total))]
    for i in 0..cells.len() {
        let mut c = cells[i];
        for k in 0..3 {
            c.corner[k] += shift[k];
        }
        c.neighbours -= 1;
        cells[i] = c;
        total += c.p.m as f64 * c.corner[0];
    }
    total
}

fn check_nested(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let parts = random_particles(rng, n);
    let mut cells: Vec<Cell> = parts
        .iter()
        .map(|&p| Cell {
            corner: [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)],
            p,
            neighbours: rng.gen_range(0..27),
        })
        .collect();
    let shift = [rng.gen_range(-1.0..1.0), 0.5, -0.25];
    let mut want = cells.clone();
    let (mut want_total, mut magnitude) = (0.0, 0.0f64);
    for c in &mut want {
        for k in 0..3 {
            c.corner[k] += shift[k];
        }
        c.neighbours -= 1;
        want_total += c.p.m as f64 * c.corner[0];
        magnitude += (c.p.m as f64 * c.corner[0]).abs();
    }
    let total = cell_mass(&mut cells, shift);
    same("cells", &cells, &want)?;
    // Reassociated over `n` terms: each partial sum, in either order, is at most the terms' summed magnitude (a
    // bound by the largest term alone failed on the H100 once in many runs: mixed signs let partial sums grow).
    close("total", total, want_total, n, magnitude)
}

/// One energy point of a cross-section table (XSBench's `NuclideGridPoint`).
#[omp::declare_target]
#[derive(Clone, Copy, Debug)]
pub struct GridPoint {
    /// Energy of this point (the table is sorted by it).
    pub energy: f64,
    /// Total cross section.
    pub total: f64,
    /// Elastic cross section.
    pub elastic: f64,
}

/// The last point with energy at or below `e` (binary search), as a helper function the kernel calls.
fn lower_point(grid: &[GridPoint], e: f64) -> usize {
    let (mut lo, mut hi) = (0usize, grid.len() - 1);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if grid[mid].energy > e {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo
}

/// Linear interpolation of the total cross section between a point and the next.
fn interpolate(grid: &[GridPoint], e: f64) -> f64 {
    let lo = lower_point(grid, e);
    let (a, b) = (grid[lo], grid[lo + 1]);
    let f = (b.energy - e) / (b.energy - a.energy);
    b.total - f * (b.total - a.total) + 0.0 * a.elastic
}

#[omp::directives]
fn lookups(grid: &[GridPoint], energies: &[f64], xs: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..xs.len() {
        xs[i] = interpolate(grid, energies[i]);
    }
}

fn check_grid_lookup(rng: &mut StdRng) -> Result<(), String> {
    let points = rng.gen_range(2..2000);
    let mut energies: Vec<f64> = (0..points).map(|_| rng.gen_range(0.0..1.0)).collect();
    energies.sort_by(f64::total_cmp);
    energies.dedup();
    if energies.len() < 2 {
        energies = vec![0.0, 1.0];
    }
    let grid: Vec<GridPoint> =
        energies.iter().map(|&energy| GridPoint { energy, total: rng.gen_range(0.0..10.0), elastic: rng.gen_range(0.0..1.0) }).collect();
    let (lo, hi) = (energies[0], energies[energies.len() - 1]);
    let queries: Vec<f64> = (0..rng.gen_range(1..4000)).map(|_| rng.gen_range(lo..=hi)).collect();
    let mut xs = vec![0.0; queries.len()];
    lookups(&grid, &queries, &mut xs);
    let want: Vec<f64> = queries.iter().map(|&e| interpolate(&grid, e)).collect();
    same("xs", &xs, &want)
}

/// A grid inside a struct of arrays.
pub struct Grid {
    /// Values.
    pub u: Vec<f64>,
}

/// A struct of arrays, as a C code's `struct { double *a, *b, *c; double scalar; }`.
pub struct Soa {
    /// Input.
    pub a: Vec<f64>,
    /// Input.
    pub b: Vec<f64>,
    /// Output.
    pub c: Vec<f64>,
    /// Triad scalar.
    pub scalar: f64,
    /// A nested struct.
    pub grid: Grid,
}

#[omp::directives]
fn soa_triad(s: &mut Soa, n: usize) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        s.c[i] = s.a[i] + s.scalar * s.b[i];
        s.grid.u[i] += s.c[i] * 0.5;
    }
}

fn random_soa(rng: &mut StdRng, n: usize) -> Soa {
    Soa {
        a: crate::vec_f64(rng, n),
        b: crate::vec_f64(rng, n),
        c: vec![0.0; n],
        scalar: rng.gen_range(-2.0..2.0),
        grid: Grid { u: crate::vec_f64(rng, n) },
    }
}

fn check_fields(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let mut s = random_soa(rng, n);
    let want_c: Vec<f64> = (0..n).map(|i| s.a[i] + s.scalar * s.b[i]).collect();
    let want_u: Vec<f64> = (0..n).map(|i| s.grid.u[i] + want_c[i] * 0.5).collect();
    soa_triad(&mut s, n);
    same("c", &s.c, &want_c)?;
    same("grid.u", &s.grid.u, &want_u)
}

/// BabelStream's class: arrays and the scalar are members, each kernel a method.
pub struct Stream {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    scalar: f64,
}

impl Stream {
    #[omp::directives]
    fn triad(&mut self) {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..self.a.len() {
            self.a[i] = self.b[i] + self.scalar * self.c[i];
        }
    }

    #[omp::directives]
    fn dot(&self) -> f64 {
        let mut sum = 0.0;
        #[omp::target_teams_distribute_parallel_for(reduction(+: sum))]
        for i in 0..self.a.len() {
            sum += self.a[i] * self.b[i];
        }
        sum
    }
}

fn check_method_fields(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let mut s = Stream { a: vec![0.0; n], b: crate::vec_f64(rng, n), c: crate::vec_f64(rng, n), scalar: rng.gen_range(-2.0..2.0) };
    let want: Vec<f64> = (0..n).map(|i| s.b[i] + s.scalar * s.c[i]).collect();
    s.triad();
    same("a", &s.a, &want)?;
    let want_dot: f64 = (0..n).map(|i| s.a[i] * s.b[i]).sum();
    close("dot", s.dot(), want_dot, n, 8.0)
}

/// A body of an n-body code with the methods a C++ class would have; OpenMP compiles a declare-target class's
/// member functions for the device.
#[omp::declare_target]
#[derive(Clone, Copy)]
pub struct Star {
    /// Position.
    pub x: [f64; 3],
    /// Mass.
    pub m: f64,
}

impl Star {
    /// Squared distance to `other`, softened.
    fn distance2(&self, other: &Star) -> f64 {
        let mut d2 = Self::SOFTENING;
        for k in 0..3 {
            let d = self.x[k] - other.x[k];
            d2 += d * d;
        }
        d2
    }

    /// The potential energy of the pair.
    fn potential(&self, other: &Star) -> f64 {
        -self.m * other.m / self.distance2(other).sqrt()
    }

    const SOFTENING: f64 = 1e-3;
}

/// A system of a fixed number of stars, as a class with a compile-time size.
struct StarCluster {
    stars: Vec<Star>,
    energy: Vec<f64>,
}

impl StarCluster {
    const N: usize = 64;

    #[omp::directives]
    fn potentials(&mut self) {
        let (b, e) = (&self.stars, &mut self.energy);
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..Self::N {
            let mut sum = 0.0;
            for j in 0..Self::N {
                if j != i {
                    sum += b[i].potential(&b[j]);
                }
            }
            e[i] = sum;
        }
    }
}

fn check_struct_methods(rng: &mut StdRng) -> Result<(), String> {
    let stars: Vec<Star> = (0..StarCluster::N)
        .map(|_| Star { x: [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)], m: rng.gen_range(0.1..2.0) })
        .collect();
    let want: Vec<f64> =
        (0..StarCluster::N).map(|i| (0..StarCluster::N).filter(|&j| j != i).map(|j| stars[i].potential(&stars[j])).sum()).collect();
    let mut c = StarCluster { stars, energy: vec![0.0; StarCluster::N] };
    c.potentials();
    for (i, (g, w)) in c.energy.iter().zip(&want).enumerate() {
        close(&format!("energy[{i}]"), *g, *w, StarCluster::N, w.abs())?;
    }
    Ok(())
}
