//! iso2dfd: 2-D acoustic isotropic wave propagation, a second-order finite-difference stencil in a time loop
//! (HeCBench `src/iso2dfd-omp/iso2dfd.cpp` and `iso2dfd.h`, commit f27000a51; Intel's oneAPI sample), ported as
//! written.
//!
//! The original: `initialize` sets both wavefields to zero, the squared velocity to 1500^2 and a 12-sample wavelet
//! source in the middle of `prev`; a `target data map(next_base, prev_base) map(to: vel_base)` region (the first
//! two `tofrom`) holds the time loop, each step one `iso_2dfd_kernel` call, a
//! `target teams distribute parallel for simd collapse(2) thread_limit(256)` region over every cell updating the
//! interior ones (`HALF_LENGTH` = 1), with `next` and `prev` swapped by alternating the arguments
//! (`(k % 2) ? prev_base : next_base`). The clock spans the time loop inside the data region. Verification: the host
//! recomputes the wavefield (`iso_2dfd_iteration_cpu`, the same stencil with a pointer swap) and `within_epsilon`
//! compares `next_base` with it cell by cell outside the halo: `PASS` when no cell differs by more than 0.1.
//!
//! What changed, and why:
//! - The kernel takes the data region's tokens (`next: &mut MappedMut<f32>`, `prev`/`vel: &MappedRef<f32>`), and the
//!   original's argument swap `(k % 2) ? prev_base : next_base` is a `let (next, prev) = if k % 2 == 1 { (&mut
//!   prev_base, next_base.as_mapped_ref()) } else { ... }` before the one call: no workaround was needed.
//! - The original writes the wavefields to `wavefield_snapshot.bin` / `wavefield_snapshot_cpu.bin` and the
//!   mismatches to `error_diff.txt`; the port writes no files (the panel runs in the source tree): mismatches go to
//!   stderr, where the original sends them when it cannot open its file, and the line "Final wavefields (from device
//!   and CPU) written to disk" is left out.
//! - `kernel time:` is the original's `kstart`..`kend` span (the whole time loop), in seconds.
//!
//! panel-args: 128 128 50
//! device-args: 2048 2048 1000
//! cpu-args: 1024 1024 100

use omp::{MappedMut, MappedRef};
use omp_ports::g6;
use std::time::Instant;

/// `DT`, `DXY`, `HALF_LENGTH` (iso2dfd.h).
const DT: f32 = 0.002;
const DXY: f32 = 20.0;
const HALF_LENGTH: usize = 1;

/// `usage`.
fn usage(program_name: &str) {
    println!(" Incorrect parameters ");
    print!(" Usage: ");
    println!("{program_name} n1 n2 Iterations \n");
    println!(" n1 n2      : Grid sizes for the stencil ");
    println!(" Iterations : No. of timesteps. ");
}

/// `initialize`: zero wavefields, constant squared velocity, the wavelet source in the middle of `prev`.
fn initialize(ptr_prev: &mut [f32], ptr_next: &mut [f32], ptr_vel: &mut [f32], n_rows: usize, n_cols: usize) {
    println!("Initializing ... ");

    // Define source wavelet
    let wavelet: [f32; 12] = [
        0.016387336,
        -0.041464937,
        -0.067372555,
        0.386110067,
        0.812723635,
        0.416998396,
        0.076488599,
        -0.059434419,
        0.023680172,
        0.005611435,
        0.001823209,
        -0.000720549,
    ];

    // Initialize arrays
    for i in 0..n_rows {
        let offset = i * n_cols;
        for k in 0..n_cols {
            ptr_prev[offset + k] = 0.0;
            ptr_next[offset + k] = 0.0;
            // pre-compute squared value of sample wave velocity v*v (v = 1500 m/s)
            ptr_vel[offset + k] = 2250000.0;
        }
    }
    // Add a source to initial wavefield as an initial condition
    for s in (0..=11).rev() {
        for i in n_rows / 2 - s..n_rows / 2 + s {
            let offset = i * n_cols;
            for k in n_cols / 2 - s..n_cols / 2 + s {
                ptr_prev[offset + k] = wavelet[s];
            }
        }
    }
}

/// `within_epsilon`: whether some cell outside the halo differs from the reference by more than `delta` (the
/// original's `error`), with its loops as written (`dimx` = rows inner, `dimy` = columns outer).
fn within_epsilon(output: &[f32], reference: &[f32], dimx: usize, dimy: usize, radius: usize, delta: f32) -> bool {
    let mut error = false;
    let mut norm2 = 0.0f64;
    let mut p = 0;
    for iy in 0..dimy {
        for ix in 0..dimx {
            if ix >= radius && ix < dimx - radius && iy >= radius && iy < dimy - radius {
                let difference = (reference[p] - output[p]).abs();
                norm2 += f64::from(difference * difference);
                if difference > delta {
                    error = true;
                    eprintln!(" ERROR: ({ix},{iy})\t{:e} instead of {:e} (|e|={:e})", output[p], reference[p], difference);
                }
            }
            p += 1;
        }
    }
    norm2 = norm2.sqrt();
    if error {
        println!("error (Euclidean norm): {norm2:.9e}");
    }
    error
}

/// `iso_2dfd_iteration_cpu`: the wavefield on the host, swapping the two arrays after every step.
fn iso_2dfd_iteration_cpu<'a>(
    mut next: &'a mut [f32],
    mut prev: &'a mut [f32],
    vel: &[f32],
    dt_div_dxy: f32,
    n_rows: usize,
    n_cols: usize,
    n_iterations: usize,
) {
    for _ in 0..n_iterations {
        for i in 1..n_rows - HALF_LENGTH {
            for j in 1..n_cols - HALF_LENGTH {
                // Stencil code to update grid
                let gid = j + i * n_cols;
                let mut value = 0.0f32;
                value += prev[gid + 1] - 2.0 * prev[gid] + prev[gid - 1];
                value += prev[gid + n_cols] - 2.0 * prev[gid] + prev[gid - n_cols];
                value *= dt_div_dxy * vel[gid];
                next[gid] = 2.0 * prev[gid] - next[gid] + value;
            }
        }
        // Swap arrays
        std::mem::swap(&mut next, &mut prev);
    }
}

/// `iso_2dfd_kernel`: one time step on the device.
#[omp::directives]
fn iso_2dfd_kernel(
    next: &mut MappedMut<'_, '_, f32>,
    prev: &MappedRef<'_, '_, f32>,
    vel: &MappedRef<'_, '_, f32>,
    dt_div_dxy: f32,
    n_rows: usize,
    n_cols: usize,
) {
    #[omp::target_teams_distribute_parallel_for_simd(collapse(2), thread_limit(256))]
    for gid_row in 0..n_rows {
        for gid_col in 0..n_cols {
            let gid = gid_row * n_cols + gid_col;
            // Computation to solve wave equation in 2D
            // First check if gid is inside the effective grid (not in halo)
            if (gid_col >= HALF_LENGTH && gid_col < n_cols - HALF_LENGTH) && (gid_row >= HALF_LENGTH && gid_row < n_rows - HALF_LENGTH) {
                // Stencil code to update grid point at position given by global id (gid). New time step for grid
                // point is computed based on the values of the the immediate neighbors in both the horizontal and
                // vertical directions, as well as the value of grid point at a previous time step
                let mut value = 0.0f32;
                value += prev[gid + 1] - 2.0 * prev[gid] + prev[gid - 1];
                value += prev[gid + n_cols] - 2.0 * prev[gid] + prev[gid - n_cols];
                value *= dt_div_dxy * vel[gid];
                next[gid] = 2.0 * prev[gid] - next[gid] + value;
            }
        }
    }
}

/// The time loop in its data region: returns the `kstart`..`kend` seconds.
#[omp::directives]
fn device_wavefield(
    next_base: &mut [f32],
    prev_base: &mut [f32],
    vel_base: &[f32],
    dt_div_dxy: f32,
    n_rows: usize,
    n_cols: usize,
    n_iterations: usize,
) -> f64 {
    let seconds: f64;
    #[omp::target_data(map(tofrom: next_base, prev_base), map(to: vel_base))]
    {
        let kstart = Instant::now();
        // Iterate over time steps
        for k in 0..n_iterations {
            // alternating the 'next' and 'prev' parameters which effectively swaps their content at every iteration.
            let (next, prev) =
                if k % 2 == 1 { (&mut prev_base, next_base.as_mapped_ref()) } else { (&mut next_base, prev_base.as_mapped_ref()) };
            iso_2dfd_kernel(next, &prev, &vel_base, dt_div_dxy, n_rows, n_cols);
        }
        seconds = omp_ports::seconds_since(kstart);
        let ktime = (seconds * 1e9) as f32; // ns
        println!("Total kernel execution time {} (ms)", g6(f64::from(ktime * 1e-6)));
        println!("Average kernel execution time {} (us)", g6(f64::from((ktime * 1e-3) / n_iterations as f32)));
    }
    seconds
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Read parameters
    let parsed =
        (|| Some((args.get(1)?.parse::<usize>().ok()?, args.get(2)?.parse::<usize>().ok()?, args.get(3)?.parse::<usize>().ok()?)))();
    let Some((n_rows, n_cols, n_iterations)) = parsed else {
        usage(&args[0]);
        std::process::exit(1);
    };

    // Compute the total size of grid
    let nsize = n_rows * n_cols;

    // Allocate arrays to hold wavefield and velocity
    let mut prev_base: Vec<f32> = vec![0.0; nsize];
    let mut next_base: Vec<f32> = vec![0.0; nsize];
    let mut next_cpu: Vec<f32> = vec![0.0; nsize];
    let mut vel_base: Vec<f32> = vec![0.0; nsize];

    // Compute constant value (delta t)^2 (delta x)^2. To be used in wavefield update
    let dt_div_dxy: f32 = (DT * DT) / (DXY * DXY);

    // Initialize arrays and introduce initial conditions (source)
    initialize(&mut prev_base, &mut next_base, &mut vel_base, n_rows, n_cols);

    println!("Grid Sizes: {n_rows} {n_cols}");
    println!("Iterations: {n_iterations}");
    println!();

    println!("Computing wavefield in device ..");
    let ktime = device_wavefield(&mut next_base, &mut prev_base, &vel_base, dt_div_dxy, n_rows, n_cols, n_iterations);

    // Compute wavefield on CPU (for validation)
    println!("Computing wavefield in CPU ..");
    // Re-initialize arrays
    initialize(&mut prev_base, &mut next_cpu, &mut vel_base, n_rows, n_cols);

    // Compute wavefield on CPU; start timer for CPU
    let start = Instant::now();
    iso_2dfd_iteration_cpu(&mut next_cpu, &mut prev_base, &vel_base, dt_div_dxy, n_rows, n_cols, n_iterations);
    // Compute and display time used by CPU
    println!("CPU time: {} ms", start.elapsed().as_millis());
    println!();

    println!("Check difference between final wavefields computed in device and host");
    let error = within_epsilon(&next_base, &next_cpu, n_rows, n_cols, HALF_LENGTH, 0.1);
    omp_ports::kernel_time(ktime);
    omp_ports::verdict(!error);
    println!("Finished.  ");
}
