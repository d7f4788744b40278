//! stddev: the standard deviation of each column of a row-major matrix, a block-shared-memory column reduction
//! written as an SPMD OpenMP kernel (HeCBench `src/stddev-omp/main.cpp` with `src/stddev-cuda/reference.h`, commit
//! f27000a51), ported as written.
//!
//! The original: `data[i*D + j] = rand() / (float)RAND_MAX` after `srand(123)`; inside `target data map(to:
//! data[0:D*N]) map(from: std[0:D])`, a warm-up and `repeat` timed calls of `stddev`: a `target teams distribute
//! parallel for` zeroing `std`, then `target teams num_teams(TeamX * TeamY) thread_limit(256)` around the team-local
//! `Type sstd[32]` and a `parallel` block where each thread sums the squares of its column's rows (grid-stride
//! over rows), thread `tx < 32` zeroes `sstd[tx]`, a barrier, `omp atomic update sstd[tx % 32] += thread_data`, a
//! barrier, and threads `tx < 32` add `sstd[tx]` into `std[colId]` with `omp atomic update`; then a `target teams
//! distribute parallel for` taking `sqrtf(std[i] / (N - 1))`. Verification: each column within 1e-3 of the host's
//! `stddev_ref`. The clock spans the timed calls.
//!
//! What changed, and why:
//! - `IdxType` (`int`) indices are `usize`, `Type` is `f32`; `static const int TeamX = ...` are plain locals, typed
//!   (`let team_x: usize = n.div_ceil(..)`: the device kernel needs the type of a captured local its value does not
//!   show).
//! - The kernels take the data region's tokens (`std: &mut MappedMut<f32>`, `data: &MappedRef<f32>`): a function
//!   taking `&mut [f32]` does not accept them.
//! - `kernel time:` is the original's average per call times `repeat` (its span), in seconds.
//!
//! panel-args: 64 512 2
//! device-args: 8192 16384 100
//! cpu-args: 2048 4096 10

use std::time::Instant;

use omp::{MappedMut, MappedRef};

const TPB: usize = 256;
const ROWS_PER_THREAD: usize = 4;
const COLS_PER_BLK: usize = 32;
const ROWS_PER_BLK: usize = (TPB / COLS_PER_BLK) * ROWS_PER_THREAD;
const ROWS_PER_BLK_PER_ITER: usize = TPB / COLS_PER_BLK;

/// `stddev<float, int>`: the standard deviation of each of the `d` columns of the `n`-row matrix `data` into `std`.
#[omp::directives]
fn stddev(std: &mut MappedMut<'_, '_, f32>, data: &MappedRef<'_, '_, f32>, d: usize, n: usize, sample: bool) {
    let team_x: usize = n.div_ceil(ROWS_PER_BLK);
    let team_y: usize = d.div_ceil(COLS_PER_BLK);
    let teams: usize = team_x * team_y;

    // required for atomics
    #[omp::target_teams_distribute_parallel_for(thread_limit(256))]
    for i in 0..d {
        std[i] = 0.0;
    }

    #[omp::target_teams(num_teams(teams), thread_limit(TPB))]
    {
        let mut sstd = [0.0f32; COLS_PER_BLK];
        #[omp::parallel]
        {
            let tx = omp::get_thread_num();
            let bx = omp::get_team_num() % team_x;
            let by = omp::get_team_num() / team_x;
            let grid_dim_x = team_x;

            let this_col_id = tx % COLS_PER_BLK;
            let this_row_id = tx / COLS_PER_BLK;
            let col_id = this_col_id + by * COLS_PER_BLK;
            let row_id = this_row_id + bx * ROWS_PER_BLK_PER_ITER;
            let mut thread_data = 0.0f32;
            let stride = ROWS_PER_BLK_PER_ITER * grid_dim_x;
            for i in (row_id..n).step_by(stride) {
                let val = if col_id < d { data[i * d + col_id] } else { 0.0 };
                thread_data += val * val;
            }
            if tx < COLS_PER_BLK {
                sstd[tx] = 0.0;
            }
            omp::barrier!();

            #[omp::atomic]
            sstd[this_col_id] += thread_data;

            omp::barrier!();

            if tx < COLS_PER_BLK {
                #[omp::atomic]
                std[col_id] += sstd[this_col_id];
            }
        }
    }

    let sample_size: usize = if sample { n - 1 } else { n };
    #[omp::target_teams_distribute_parallel_for(thread_limit(TPB))]
    for i in 0..d {
        std[i] = (std[i] / sample_size as f32).sqrt();
    }
}

/// `stddev_ref` (reference.h).
fn stddev_ref(std: &mut [f32], data: &[f32], d: usize, n: usize, sample: bool) {
    let sample_size = if sample { n - 1 } else { n };
    for c in 0..d {
        let mut sum = 0.0f32;
        for r in 0..n {
            sum += data[r * d + c] * data[r * d + c];
        }
        std[c] = (sum / sample_size as f32).sqrt();
    }
}

#[omp::directives]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        println!("Usage: {} <D> <N> <repeat>", args[0]);
        println!("D: number of columns of data (must be a multiple of 32)");
        println!("N: number of rows of data (at least one row)");
        std::process::exit(1);
    }
    let d: usize = omp_ports::arg(1, 32); // columns must be a multiple of 32
    let n: usize = omp_ports::arg(2, 1); // at least one row
    let repeat: usize = omp_ports::arg(3, 1);

    let sample = true;
    let input_size = d * n;

    // input data
    let mut rng = omp_ports::GlibcRand::new(123);
    let mut data = vec![0.0f32; input_size];
    for i in 0..n {
        for j in 0..d {
            data[i * d + j] = rng.rand() as f32 / 2147483647.0f32;
        }
    }

    // host and device results
    let mut std = vec![0.0f32; d];
    let mut std_ref = vec![0.0f32; d];

    let time;
    #[omp::target_data(map(to: data), map(from: std))]
    {
        // warmup
        stddev(&mut std, &data, d, n, sample);

        let start = Instant::now();
        for _ in 0..repeat {
            stddev(&mut std, &data, d, n, sample);
        }
        time = omp_ports::seconds_since(start);
        println!("Average execution time of stddev kernels: {:.6} (s)", time / repeat as f64);
    }

    // verify
    stddev_ref(&mut std_ref, &data, d, n, sample);
    let ok = (0..d).all(|i| (std_ref[i] - std[i]).abs() <= 1e-3);
    omp_ports::verdict(ok);
    omp_ports::kernel_time(time);
}
