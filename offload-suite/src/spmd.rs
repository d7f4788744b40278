//! SPMD target regions (`#[omp::target_teams] { #[omp::parallel] { .. } }`, `omp_rs_codegen::spmd`) as HeCBench's
//! OpenMP programs write their CUDA-style kernels: each thread computes its global index from
//! `omp::get_team_num()`, `omp::get_num_threads()` and `omp::get_thread_num()`. Each check compares with the
//! sequential loop over the (team, thread) pairs.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, vec_f64, Check};

/// Every check of this module.
pub const CHECKS: &[Check] = &[
    ("spmd: mixbench's benchmark_func, input in its own array (per-thread tmps, fused strides)", check_mixbench),
    ("spmd: a guarded gid kernel with i32 num_teams, num_threads below thread_limit", check_guarded_gid),
    ("spmd: a grid-stride loop with an atomic histogram and a teams reduction", check_grid_stride),
];

const GRANULARITY: usize = 8;
const FUSION_DEGREE: usize = 4;

/// mixbench-omp's `benchmark_func` (main.cpp:14-52), `float`, granularity 8, fusion degree 4, reading its input
/// from `ci` instead of `cd`: as written it reads `cd` at `idx + j * stride + k * big_stride` and writes it at
/// `idx + k * big_stride`, which no two threads share only because `j * stride < team stride`, a bound the race
/// analysis does not prove, so omp-rs refuses that form (omp-rs-macros/tests/ui/race/spmd_mixbench_in_place.rs).
#[omp::directives]
fn mixbench(seed: f32, ci: &[f32], cd: &mut [f32], grid_dim: usize, block_dim: usize, compute_iterations: usize) {
    #[omp::target_teams(num_teams(grid_dim), thread_limit(block_dim))]
    {
        #[omp::parallel]
        {
            let block_size = block_dim;
            let stride = block_size;
            let idx = omp::get_team_num() * block_size * GRANULARITY + omp::get_thread_num();
            let big_stride = omp::get_num_teams() * block_size * GRANULARITY;
            let mut tmps = [0.0f32; GRANULARITY];
            for k in 0..FUSION_DEGREE {
                for j in 0..GRANULARITY {
                    // Load elements (memory intensive part)
                    tmps[j] = ci[idx + j * stride + k * big_stride];
                    // Perform computations (compute intensive part)
                    for _ in 0..compute_iterations {
                        tmps[j] = tmps[j] * tmps[j] + seed;
                    }
                }
                // Multiply add reduction
                let mut sum = 0.0f32;
                for j in (0..GRANULARITY).step_by(2) {
                    sum += tmps[j] * tmps[j + 1];
                }
                for _ in 0..GRANULARITY {
                    cd[idx + k * big_stride] = sum;
                }
            }
        }
    }
}

fn check_mixbench(rng: &mut StdRng) -> Result<(), String> {
    let (grid_dim, block_dim) = (rng.gen_range(1..12), rng.gen_range(1..70));
    let n = grid_dim * block_dim * GRANULARITY * FUSION_DEGREE;
    let input: Vec<f32> = (0..n).map(|_| rng.gen_range(-1.0f32..1.0)).collect();
    let (seed, iterations) = (rng.gen_range(-0.5f32..0.5), rng.gen_range(0..6));
    let mut cd = vec![0.0f32; n];
    mixbench(seed, &input, &mut cd, grid_dim, block_dim, iterations);
    let mut want = vec![0.0f32; n];
    let big_stride = grid_dim * block_dim * GRANULARITY;
    for team in 0..grid_dim {
        for thread in 0..block_dim {
            let idx = team * block_dim * GRANULARITY + thread;
            for k in 0..FUSION_DEGREE {
                let tmps: Vec<f32> = (0..GRANULARITY)
                    .map(|j| (0..iterations).fold(input[idx + j * block_dim + k * big_stride], |t, _| t * t + seed))
                    .collect();
                want[idx + k * big_stride] = (0..GRANULARITY).step_by(2).fold(0.0f32, |s, j| s + tmps[j] * tmps[j + 1]);
            }
        }
    }
    same("cd", &cd, &want)
}

/// A CUDA-style `if (gid < n)` kernel with an `int` team count and `num_threads` on the `parallel`.
#[omp::directives]
fn guarded_gid(teams: i32, threads: i32, a: f64, x: &[f64], y: &mut [f64]) {
    let n = y.len();
    #[omp::target_teams(num_teams(teams), thread_limit(256))]
    {
        #[omp::parallel(num_threads(threads))]
        {
            let gid = omp::get_team_num() * omp::get_num_threads() + omp::get_thread_num();
            if gid < n {
                y[gid] = a * x[gid] + y[gid] + (omp::get_num_teams() * 1000 + omp::get_num_threads()) as f64;
            }
        }
    }
}

fn check_guarded_gid(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..3000);
    let (teams, threads) = (rng.gen_range(1..40), rng.gen_range(1..300));
    let (a, x, y0) = (rng.gen_range(-2.0..2.0), vec_f64(rng, n), vec_f64(rng, n));
    let mut y = y0.clone();
    guarded_gid(teams, threads, a, &x, &mut y);
    // The team has min(num_threads, thread_limit) threads.
    let size = (threads as usize).min(256);
    let covered = teams as usize * size;
    let want: Vec<f64> =
        (0..n).map(|i| if i < covered { a * x[i] + y0[i] + (teams as usize * 1000 + size) as f64 } else { y0[i] }).collect();
    same("y", &y, &want)
}

/// A grid-stride loop (`for (i = gid; i < n; i += total)`) counting into a histogram with an atomic, and the sum
/// of the values as a reduction of the teams and their threads.
#[omp::directives]
fn grid_stride(teams: usize, threads: usize, bins: usize, data: &[u32], hist: &mut [u64]) -> f64 {
    let n = data.len();
    let mut sum = 0.0;
    #[omp::target_teams(num_teams(teams), thread_limit(threads), reduction(+: sum))]
    {
        #[omp::parallel(reduction(+: sum))]
        {
            let total = omp::get_num_teams() * omp::get_num_threads();
            let gid = omp::get_team_num() * omp::get_num_threads() + omp::get_thread_num();
            for i in (gid..n).step_by(total) {
                #[omp::atomic]
                hist[data[i] as usize % bins] += 1;
                sum += data[i] as f64;
            }
        }
    }
    sum
}

fn check_grid_stride(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..20_000);
    let bins = rng.gen_range(1..50);
    let data: Vec<u32> = (0..n).map(|_| rng.gen_range(0..1000)).collect();
    let mut hist = vec![0u64; bins];
    let sum = grid_stride(rng.gen_range(1..30), rng.gen_range(1..200), bins, &data, &mut hist);
    let mut want = vec![0u64; bins];
    for &d in &data {
        want[d as usize % bins] += 1;
    }
    same("hist", &hist, &want)?;
    close("sum", sum, data.iter().map(|&d| d as f64).sum(), n, 1000.0)
}
