//! A time-stepped 1-D advection–diffusion solver written as real codes write their time loops: the fields stay on
//! the device (`target_data`), each step is a Heun (RK2) step made of ten short target regions (flux, flux
//! difference, Laplacian, right-hand side, update — twice), and every `check_every` steps a reduction checks the
//! total mass. At this size each region's kernel takes a few microseconds, so the launch path decides the speed: the
//! ten regions carry `nowait` and go onto the device's queue back to back (regions on common data keep their order,
//! which satisfies every `depend` clause an OpenMP code would give them; writing them is allowed too), and the mass
//! reduction waits for them. Without `nowait` each region would wait for its kernel before the next starts (OpenMP's
//! end of region): compare with `OMP_RS_LAUNCH=wait`.
//!
//! The regions are element-wise, so the result equals the sequential loops bit for bit; the mass reductions are
//! reassociated and compared within a tolerance.

/// Grid and physics.
#[derive(Clone, Copy)]
struct Setup {
    n: usize,
    steps: usize,
    check_every: usize,
    c: f64,
    nu: f64,
    dt: f64,
    dx: f64,
}

/// The fields: `u` the solution, the rest work arrays of the same length. `u[0]` and `u[n - 1]` are fixed
/// boundary values.
#[derive(Clone)]
struct Fields {
    u: Vec<f64>,
    u1: Vec<f64>,
    flux: Vec<f64>,
    dflux: Vec<f64>,
    lap: Vec<f64>,
    rhs: Vec<f64>,
}

impl Fields {
    fn new(u: Vec<f64>) -> Fields {
        let n = u.len();
        Fields { u1: u.clone(), u, flux: vec![0.0; n], dflux: vec![0.0; n], lap: vec![0.0; n], rhs: vec![0.0; n] }
    }
}

#[omp::directives]
fn simulate(s: Setup, f: &mut Fields, masses: &mut Vec<f64>) {
    // Typed locals: a kernel captures variables whose types their declarations show.
    let (n, steps, check_every): (usize, usize, usize) = (s.n, s.steps, s.check_every);
    let (c, nu, dt, dx): (f64, f64, f64, f64) = (s.c, s.nu, s.dt, s.dx);
    let (inv_dx, inv_dx2): (f64, f64) = (1.0 / dx, 1.0 / (dx * dx));
    let (u, u1, flux): (&mut [f64], &mut [f64], &mut [f64]) = (&mut f.u, &mut f.u1, &mut f.flux);
    let (dflux, lap, rhs): (&mut [f64], &mut [f64], &mut [f64]) = (&mut f.dflux, &mut f.lap, &mut f.rhs);
    #[omp::target_data(map(tofrom: u), map(alloc: u1, flux, dflux, lap, rhs))]
    {
        for step in 0..steps {
            // Stage 1: u1 = u + dt * L(u).
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                flux[i] = c * u[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n {
                dflux[i] = (flux[i] - flux[i - 1]) * inv_dx;
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n - 1 {
                lap[i] = (u[i + 1] - 2.0 * u[i] + u[i - 1]) * inv_dx2;
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n - 1 {
                rhs[i] = nu * lap[i] - dflux[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n - 1 {
                u1[i] = u[i] + dt * rhs[i];
            }
            // Stage 2: u = (u + u1 + dt * L(u1)) / 2.
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                flux[i] = c * u1[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n {
                dflux[i] = (flux[i] - flux[i - 1]) * inv_dx;
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n - 1 {
                lap[i] = (u1[i + 1] - 2.0 * u1[i] + u1[i - 1]) * inv_dx2;
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n - 1 {
                rhs[i] = nu * lap[i] - dflux[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 1..n - 1 {
                u[i] = 0.5 * (u[i] + u1[i] + dt * rhs[i]);
            }
            if step % check_every == 0 {
                let mut mass: f64 = 0.0;
                #[omp::target_teams_distribute_parallel_for(reduction(+: mass))]
                for i in 0..n {
                    mass += u[i];
                }
                masses.push(mass * dx);
            }
        }
    }
}

/// `flux`, `dflux`, `lap` and `rhs` of `v` (one evaluation of the right-hand side).
fn rhs_seq(s: &Setup, v: &[f64], flux: &mut [f64], dflux: &mut [f64], lap: &mut [f64], rhs: &mut [f64]) {
    let (n, inv_dx, inv_dx2) = (s.n, 1.0 / s.dx, 1.0 / (s.dx * s.dx));
    for i in 0..n {
        flux[i] = s.c * v[i];
    }
    for i in 1..n {
        dflux[i] = (flux[i] - flux[i - 1]) * inv_dx;
    }
    for i in 1..n - 1 {
        lap[i] = (v[i + 1] - 2.0 * v[i] + v[i - 1]) * inv_dx2;
    }
    for i in 1..n - 1 {
        rhs[i] = s.nu * lap[i] - dflux[i];
    }
}

fn simulate_seq(s: Setup, f: &mut Fields, masses: &mut Vec<f64>) {
    let (n, dt) = (s.n, s.dt);
    let Fields { u, u1, flux, dflux, lap, rhs } = f;
    for step in 0..s.steps {
        rhs_seq(&s, u, flux, dflux, lap, rhs);
        for i in 1..n - 1 {
            u1[i] = u[i] + dt * rhs[i];
        }
        rhs_seq(&s, u1, flux, dflux, lap, rhs);
        for i in 1..n - 1 {
            u[i] = 0.5 * (u[i] + u1[i] + dt * rhs[i]);
        }
        if step % s.check_every == 0 {
            masses.push(u.iter().sum::<f64>() * s.dx);
        }
    }
}

fn main() {
    let n: usize = std::env::var("ADVECT_N").ok().and_then(|v| v.parse().ok()).unwrap_or(1 << 14);
    let steps: usize = std::env::var("ADVECT_STEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let dx = 1.0 / n as f64;
    let s = Setup { n, steps, check_every: 50, c: 1.0, nu: 1e-4, dt: 0.2 * dx, dx };
    let mut rng = omp_examples::rng();
    let start = Fields::new(omp_examples::random_vec(&mut rng, n, 0.0, 1.0));

    let (mut got, mut masses) = (start.clone(), Vec::new());
    simulate(s, &mut got, &mut masses);
    let (mut want, mut want_masses) = (start.clone(), Vec::new());
    simulate_seq(s, &mut want, &mut want_masses);
    let regions = 10 * steps + steps.div_ceil(s.check_every);
    println!(
        "advect1d n={n}, {steps} steps ({regions} target regions): mass {:.12e} (sequential {:.12e})",
        masses[masses.len() - 1],
        want_masses[want_masses.len() - 1]
    );
    // Element-wise regions: the fields must agree exactly. Masses are reductions (reassociated): the error is
    // their relative difference in units of n roundings.
    let mut error: f64 = 0.0;
    for (m, w) in masses.iter().zip(&want_masses) {
        error = error.max((m - w).abs() / w.abs().max(1e-300) / (n as f64 * f64::EPSILON));
    }
    if got.u != want.u || masses.len() != want_masses.len() {
        error = f64::INFINITY;
    }

    let seq = omp_examples::best_time(2, || simulate_seq(s, &mut start.clone(), &mut Vec::new()));
    let par = omp_examples::best_time(2, || simulate(s, &mut start.clone(), &mut Vec::new()));
    println!("advect1d: {:.2} µs per target region", par * 1e6 / regions as f64);
    omp_examples::report("advect1d", error, 1.0, seq, par);
}
