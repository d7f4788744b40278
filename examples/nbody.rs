//! Port of the classic C OpenMP n-body step (all-pairs gravitational forces, then a leapfrog update):
//!
//! ```c
//! #pragma omp parallel for
//! for (int i = 0; i < n; i++) {
//!     double ax = 0, ay = 0, az = 0;
//!     for (int j = 0; j < n; j++) { double dx = x[j]-x[i], ... ; double inv = 1/sqrt(d2 + eps2); ... }
//!     vx[i] += dt*ax; ...
//! }
//! #pragma omp parallel for
//! for (int i = 0; i < n; i++) { x[i] += dt*vx[i]; ... }
//! ```
//!
//! The inner loop is sequential per body; each iteration of the outer loop writes only body `i`. The total
//! kinetic energy is a `+` reduction.

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn step(n: usize, dt: f64, m: &[f64], x: &mut [f64], y: &mut [f64], z: &mut [f64], vx: &mut [f64], vy: &mut [f64], vz: &mut [f64]) -> f64 {
    const EPS2: f64 = 1e-9;
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        let (mut ax, mut ay, mut az) = (0.0, 0.0, 0.0);
        for j in 0..n {
            let dx = x[j] - x[i];
            let dy = y[j] - y[i];
            let dz = z[j] - z[i];
            let d2 = dx * dx + dy * dy + dz * dz + EPS2;
            let inv = 1.0 / d2.sqrt();
            let s = m[j] * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        vx[i] += dt * ax;
        vy[i] += dt * ay;
        vz[i] += dt * az;
    }
    let mut kinetic: f64 = 0.0;
    #[omp::target_teams_distribute_parallel_for(reduction(+: kinetic))]
    for i in 0..n {
        x[i] += dt * vx[i];
        y[i] += dt * vy[i];
        z[i] += dt * vz[i];
        kinetic += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
    }
    kinetic
}

#[allow(clippy::too_many_arguments)]
fn step_seq(
    n: usize,
    dt: f64,
    m: &[f64],
    x: &mut [f64],
    y: &mut [f64],
    z: &mut [f64],
    vx: &mut [f64],
    vy: &mut [f64],
    vz: &mut [f64],
) -> f64 {
    const EPS2: f64 = 1e-9;
    for i in 0..n {
        let (mut ax, mut ay, mut az) = (0.0, 0.0, 0.0);
        for j in 0..n {
            let dx = x[j] - x[i];
            let dy = y[j] - y[i];
            let dz = z[j] - z[i];
            let d2 = dx * dx + dy * dy + dz * dz + EPS2;
            let inv = 1.0 / d2.sqrt();
            let s = m[j] * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        vx[i] += dt * ax;
        vy[i] += dt * ay;
        vz[i] += dt * az;
    }
    let mut kinetic = 0.0;
    for i in 0..n {
        x[i] += dt * vx[i];
        y[i] += dt * vy[i];
        z[i] += dt * vz[i];
        kinetic += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
    }
    kinetic
}

#[derive(Clone)]
struct Bodies {
    m: Vec<f64>,
    p: [Vec<f64>; 3],
    v: [Vec<f64>; 3],
}

impl Bodies {
    fn run(&mut self, steps: usize, dt: f64, parallel: bool) -> f64 {
        let n = self.m.len();
        let [x, y, z] = &mut self.p;
        let [vx, vy, vz] = &mut self.v;
        let mut e = 0.0;
        for _ in 0..steps {
            e = if parallel { step(n, dt, &self.m, x, y, z, vx, vy, vz) } else { step_seq(n, dt, &self.m, x, y, z, vx, vy, vz) };
        }
        e
    }
}

fn main() {
    let (n, steps, dt) = (4096, 4, 1e-3);
    let mut rng = omp_examples::rng();
    let start = Bodies {
        m: omp_examples::random_vec(&mut rng, n, 0.5, 1.0).iter().map(|m| m / n as f64).collect(),
        p: [0, 1, 2].map(|_| omp_examples::random_vec(&mut rng, n, -1.0, 1.0)),
        v: [0, 1, 2].map(|_| omp_examples::random_vec(&mut rng, n, -0.1, 0.1)),
    };
    let mut got = start.clone();
    let e = got.run(steps, dt, true);
    let mut want = start.clone();
    let we = want.run(steps, dt, false);
    println!("nbody n={n}, {steps} steps: kinetic energy {e:.12e} (sequential {we:.12e})");
    // Forces are summed in the same order as the sequential loop, so positions agree exactly;
    // the energy is a reduction (reassociated).
    let error = (0..3).map(|d| omp_examples::max_rel_diff(&got.p[d], &want.p[d])).fold(0.0, f64::max);
    let error = error.max((e - we).abs() / we.abs() / (n as f64 * f64::EPSILON));

    let seq = omp_examples::best_time(1, || {
        start.clone().run(steps, dt, false);
    });
    let par = omp_examples::best_time(1, || {
        start.clone().run(steps, dt, true);
    });
    omp_examples::report("nbody", error, 1.0, seq, par);
}
