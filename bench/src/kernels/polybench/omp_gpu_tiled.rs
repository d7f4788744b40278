//! GEMM and ATAX written as CUDA writes its tiled kernels, with omp-rs's SPMD regions: `target_teams` blocks whose
//! `parallel` block uses the team and thread numbers, team-local arrays (CUDA's `__shared__`) and barriers. The
//! other kernels are `omp-gpu`'s only.
//!
//! - GEMM: one team per 20 × 20 tile of `C`; for each 20-wide slab of the shared dimension the team loads a tile of
//!   `A` and of `B` into team-local arrays, waits, and each thread adds its row of the one times its column of the
//!   other (the sums are `seq`'s, term for term, in `seq`'s order). The extents must be multiples of 20 (1000 and
//!   1200 at the default size; other sizes report "unsupported"): a write guarded by `if i < ni && j < nj` at a
//!   partial tile is a race to the loop analysis, which does not read the guard (`c[j + i * nj]` with `j` past
//!   `nj` would be an element of the next row).
//! - ATAX: `tmp = A x` with 32 threads per row (8 rows per team): each thread reads every 32nd entry of its row
//!   (neighbouring threads neighbouring entries), then the row's 32 partial sums are added in a team-local array;
//!   `y += Aᵀ tmp` with 32 columns per team and 32 threads per column, each summing every 32nd row, then the same
//!   combination across the column's threads. The sums are `seq`'s re-associated (the checksum's tolerance).

use super::{Atax, Gemm, PolybenchKernels};
use crate::timer::Timer;
use crate::variant::{OmpGpuTiled, Outcome, Unsupported};

/// The side of GEMM's tiles (the team-local arrays spell it as a literal).
const TILE: usize = 20;
/// ATAX: threads per row (per column in its second kernel), one warp.
const LANES: usize = 32;
/// ATAX: rows per team in `tmp = A x`.
const ROWS: usize = 8;

#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn gemm(t: &mut Timer, reps: usize, ni: usize, nj: usize, nk: usize, alpha: f64, a: &[f64], b: &[f64], c: &mut [f64]) {
    let (tiles_j, tiles_i, tiles_k) = (nj / TILE, ni / TILE, nk / TILE);
    #[omp::target_data(map(to: a, b), map(tofrom: c))]
    {
        t.start();
        for _ in 0..reps {
            #[omp::target_teams(num_teams(tiles_i * tiles_j), thread_limit(400), nowait)]
            {
                let mut ta = [[0.0f64; 20]; 20];
                let mut tb = [[0.0f64; 20]; 20];
                #[omp::parallel]
                {
                    let tj = omp::get_team_num() % tiles_j;
                    let ti = omp::get_team_num() / tiles_j;
                    let tx = omp::get_thread_num() % 20;
                    let ty = omp::get_thread_num() / 20;
                    let i = ti * 20 + ty;
                    let j = tj * 20 + tx;
                    let mut dot = 0.0;
                    for kt in 0..tiles_k {
                        ta[ty][tx] = a[kt * 20 + tx + i * nk];
                        tb[ty][tx] = b[j + (kt * 20 + ty) * nj];
                        omp::barrier!();
                        for k in 0..20 {
                            dot += alpha * ta[ty][k] * tb[k][tx];
                        }
                        omp::barrier!();
                    }
                    c[j + i * nj] = dot;
                }
            }
        }
        t.stop();
    }
}

#[omp::directives]
fn atax(t: &mut Timer, reps: usize, n: usize, tmp: &mut [f64], x: &[f64], a: &[f64], y: &mut [f64]) {
    let (row_teams, col_teams, strides) = (n.div_ceil(ROWS), n.div_ceil(LANES), n.div_ceil(LANES));
    #[omp::target_data(map(tofrom: tmp, y), map(to: x, a))]
    {
        t.start();
        for _ in 0..reps {
            // tmp = A x, y = 0: row `omp::get_team_num() * 8 + ty`, its 32 threads `lane`.
            #[omp::target_teams(num_teams(row_teams), thread_limit(256), nowait)]
            {
                let mut part = [[0.0f64; 32]; 8];
                #[omp::parallel]
                {
                    let lane = omp::get_thread_num() % 32;
                    let ty = omp::get_thread_num() / 32;
                    let i = omp::get_team_num() * 8 + ty;
                    let mut dot = 0.0;
                    for s in 0..strides {
                        let j = s * 32 + lane;
                        if i < n && j < n {
                            dot += a[j + i * n] * x[j];
                        }
                    }
                    part[ty][lane] = dot;
                    omp::barrier!();
                    for half in [16, 8, 4, 2, 1] {
                        if lane < half {
                            part[ty][lane] += part[ty][lane + half];
                        }
                        omp::barrier!();
                    }
                    if lane == 0 && i < n {
                        y[i] = 0.0;
                        tmp[i] = part[ty][0];
                    }
                }
            }
            // y += Aᵀ tmp: column `omp::get_team_num() * 32 + lane`, its 32 threads `g`.
            #[omp::target_teams(num_teams(col_teams), thread_limit(1024), nowait)]
            {
                let mut part = [[0.0f64; 32]; 32];
                #[omp::parallel]
                {
                    let lane = omp::get_thread_num() % 32;
                    let g = omp::get_thread_num() / 32;
                    let j = omp::get_team_num() * 32 + lane;
                    let mut dot = 0.0;
                    for s in 0..strides {
                        let i = s * 32 + g;
                        if i < n && j < n {
                            dot += a[j + i * n] * tmp[i];
                        }
                    }
                    part[g][lane] = dot;
                    omp::barrier!();
                    for half in [16, 8, 4, 2, 1] {
                        if g < half {
                            part[g][lane] += part[g + half][lane];
                        }
                        omp::barrier!();
                    }
                    if g == 0 && j < n {
                        y[j] += part[0][lane];
                    }
                }
            }
        }
        t.stop();
    }
}

impl PolybenchKernels for OmpGpuTiled {
    fn atax(&self, d: &mut Atax, reps: usize, t: &mut Timer) -> Outcome {
        let Atax { tmp, x, a, y, n, .. } = d;
        atax(t, reps, *n, tmp, x, a, y);
        Ok(())
    }

    fn gemm(&self, d: &mut Gemm, reps: usize, t: &mut Timer) -> Outcome {
        let Gemm { a, b, c, ni, nj, nk, .. } = d;
        if [*ni, *nj, *nk].iter().any(|e| e % TILE != 0) {
            return Err(Unsupported);
        }
        gemm(t, reps, *ni, *nj, *nk, Gemm::ALPHA, a, b, c);
        Ok(())
    }
}
