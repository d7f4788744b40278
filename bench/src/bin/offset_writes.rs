//! Several writes per iteration at constant offsets against the same writes as an inner loop, on the host cores:
//! miniWeather's tendency update as its C++ writes it (`tend[ID_DENS * plane + k * nx + i] = ...` and three more
//! statements) and as a loop over the variables (`for ll in 0..NUM_VARS { tend[ll * plane + ...] = ... }`).
//!
//!     cargo run --release -p omp-bench --bin offset-writes -- [--nx N] [--nz N] [--sweeps N]
//!
//! Both forms compute the same values (checked); the time per sweep of each is printed, and their ratio.

use std::time::Instant;

use clap::Parser;

#[derive(Parser)]
#[command(about = "Constant-offset writes against an inner loop of writes, per sweep")]
struct Args {
    /// Cells along x.
    #[arg(long, default_value_t = 2000)]
    nx: usize,
    /// Cells along z.
    #[arg(long, default_value_t = 1000)]
    nz: usize,
    /// Sweeps to time (after one untimed).
    #[arg(long, default_value_t = 20)]
    sweeps: usize,
}

const NUM_VARS: usize = 4;
const ID_DENS: usize = 0;
const ID_UMOM: usize = 1;
const ID_WMOM: usize = 2;
const ID_RHOT: usize = 3;

/// The C++ form: one statement per variable, at constant offsets.
#[omp::parallel_for(collapse(2))]
fn offsets(nx: usize, nz: usize, dt: f64, flux: &[f64], tend: &mut [f64]) {
    let plane: usize = nx * nz;
    for k in 0..nz {
        for i in 0..nx {
            tend[ID_DENS * plane + k * nx + i] = -(flux[ID_DENS * plane + k * nx + i] * dt);
            tend[ID_UMOM * plane + k * nx + i] = -(flux[ID_UMOM * plane + k * nx + i] * dt);
            tend[ID_WMOM * plane + k * nx + i] = -(flux[ID_WMOM * plane + k * nx + i] * dt);
            tend[ID_RHOT * plane + k * nx + i] = -(flux[ID_RHOT * plane + k * nx + i] * dt);
        }
    }
}

/// The loop form.
#[omp::parallel_for(collapse(2))]
fn looped(nx: usize, nz: usize, dt: f64, flux: &[f64], tend: &mut [f64]) {
    let plane: usize = nx * nz;
    for k in 0..nz {
        for i in 0..nx {
            for ll in 0..NUM_VARS {
                tend[ll * plane + k * nx + i] = -(flux[ll * plane + k * nx + i] * dt);
            }
        }
    }
}

fn per_sweep(sweeps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let t = Instant::now();
    for _ in 0..sweeps {
        f();
    }
    t.elapsed().as_secs_f64() / sweeps as f64
}

fn main() {
    let a = Args::parse();
    let n = NUM_VARS * a.nx * a.nz;
    let flux: Vec<f64> = (0..n).map(|i| (i % 97) as f64 * 0.01).collect();
    let (mut t1, mut t2) = (vec![0.0; n], vec![0.0; n]);
    let s1 = per_sweep(a.sweeps, || offsets(a.nx, a.nz, 0.5, &flux, &mut t1));
    let s2 = per_sweep(a.sweeps, || looped(a.nx, a.nz, 0.5, &flux, &mut t2));
    assert!(t1 == t2, "the two forms computed different tendencies");
    println!("offset-writes {}x{} x {NUM_VARS} variables, {} threads:", a.nx, a.nz, omp::get_max_threads());
    println!("  constant offsets: {:.3} ms per sweep", s1 * 1e3);
    println!("  inner loop:       {:.3} ms per sweep", s2 * 1e3);
    println!("  offsets / loop:   {:.3}", s1 / s2);
}
