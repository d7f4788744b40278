//! SPMD target regions (`#[omp::target_teams] { #[omp::parallel] { .. } }`, `omp_rs_codegen::desugar::spmd`) as HeCBench's
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
    ("spmd: a block reversed through a team-local array and a barrier", check_block_reverse),
    ("spmd: block sums halved in a team-local array between barriers, thread 0 writing the team's sum", check_block_sums),
    ("spmd: team-local races (a neighbour read, one element written by all) panic", check_team_local_races),
    ("spmd: per-team histograms through #[omp::atomic] on a team-local array", check_team_histograms),
    ("spmd: tiled matrix multiply, 2-D team-local tiles, team and thread numbers split by % and /", check_tiled_matmul),
    ("spmd: bsearch's bs4, a team-local variable thread 0 sets before a barrier", check_team_variable_bsearch),
    ("spmd: team-local variables (a struct written field by field, an atomic counter, a flag)", check_team_variables),
    ("spmd: the first thread of each group writes (`lane == 0`, `g == 0` of a split thread number): A x and Aᵀ x", check_group_first),
    ("spmd: team functions, morphology's twoWayScan: barriers in a helper taking two ranges of one team-local array", check_team_fn_scan),
    ("spmd: team functions returning values, calling team functions and omp::get_thread_num(), a range with an end", check_team_fn_sums),
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

/// Each team reverses its block of `x` through a team-local array: thread `t` writes element `t`, and after the
/// barrier reads element `size - 1 - t`, which another thread wrote.
#[omp::directives]
fn block_reverse(x: &[f32], y: &mut [f32]) {
    let teams = x.len() / 128;
    #[omp::target_teams(num_teams(teams), thread_limit(128))]
    {
        let mut s = [0.0f32; 128];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            let base = omp::get_team_num() * 128;
            s[t] = x[base + t];
            omp::barrier!();
            y[base + t] = s[127 - t];
        }
    }
}

fn check_block_reverse(rng: &mut StdRng) -> Result<(), String> {
    let teams = rng.gen_range(1..20);
    let x: Vec<f32> = (0..teams * 128).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut y = vec![0.0f32; x.len()];
    block_reverse(&x, &mut y);
    let want: Vec<f32> = x.chunks(128).flat_map(|c| c.iter().rev().copied()).collect();
    same("y", &y, &want)
}

/// A block reduction as CUDA codes write it: each thread sums a grid-stride part of `x` into the team-local `part`,
/// then the team halves `part` between barriers, and thread 0 writes the team's sum.
#[omp::directives]
fn block_sums(x: &[f64], sums: &mut [f64]) {
    let (n, teams) = (x.len(), sums.len());
    #[omp::target_teams(num_teams(teams), thread_limit(64))]
    {
        let mut part = [0.0f64; 64];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            let team = omp::get_team_num();
            let mut acc = 0.0;
            let mut i = team * 64 + t;
            while i < n {
                acc += x[i];
                i += teams * 64;
            }
            part[t] = acc;
            omp::barrier!();
            for s in [32, 16, 8, 4, 2, 1] {
                if t < s {
                    part[t] += part[t + s];
                }
                omp::barrier!();
            }
            if t == 0 {
                sums[team] = part[0];
            }
        }
    }
}

fn check_block_sums(rng: &mut StdRng) -> Result<(), String> {
    let teams = rng.gen_range(1..24);
    let n = rng.gen_range(0..20_000);
    let x = vec_f64(rng, n);
    let mut sums = vec![f64::NAN; teams];
    block_sums(&x, &mut sums);
    // The sequential order of the same tree: per thread its grid-stride sum, then the pairwise halving.
    let want: Vec<f64> = (0..teams)
        .map(|team| {
            let mut part: Vec<f64> =
                (0..64).map(|t| (team * 64 + t..n).step_by(teams * 64).map(|i| x[i]).fold(0.0, |a, v| a + v)).collect();
            for s in [32, 16, 8, 4, 2, 1] {
                for t in 0..s {
                    part[t] += part[t + s];
                }
            }
            part[0]
        })
        .collect();
    same("sums", &sums, &want)
}

/// Thread `t` writes `s[t]` and, with no barrier between, reads `s[t + 1]`, which thread `t + 1` writes: a race the
/// team-local checks catch (one of the two accesses of each pair sees the other and panics).
#[omp::directives]
fn neighbour_without_barrier(y: &mut [u32]) {
    let teams = y.len() / 64;
    #[omp::target_teams(num_teams(teams), thread_limit(64))]
    {
        let mut s = [0u32; 65];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            s[t] = t as u32;
            y[omp::get_team_num() * 64 + t] = s[t + 1];
        }
    }
}

/// Every thread writes `s[0]` between the same two barriers.
#[omp::directives]
fn all_write_one(y: &mut [u32]) {
    let teams = y.len() / 64;
    #[omp::target_teams(num_teams(teams), thread_limit(64))]
    {
        let mut s = [0u32; 64];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            omp::barrier!();
            s[0] = t as u32;
            omp::barrier!();
            y[omp::get_team_num() * 64 + t] = s[0];
        }
    }
}

fn check_team_local_races(rng: &mut StdRng) -> Result<(), String> {
    let teams = rng.gen_range(1..4);
    let mut y = vec![0u32; teams * 64];
    let caught = |f: &mut dyn FnMut()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    if !caught(&mut || neighbour_without_barrier(&mut y)) {
        return Err("a read of a neighbour's team-local element in the phase that writes it did not panic".into());
    }
    if !caught(&mut || all_write_one(&mut y)) {
        return Err("64 threads writing one team-local element between two barriers did not panic".into());
    }
    // The region is usable afterwards.
    let x: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let mut r = vec![0.0f32; 128];
    block_reverse(&x, &mut r);
    same("reversed after the races", &r, &x.iter().rev().copied().collect::<Vec<_>>())
}

/// A per-team histogram in a team-local array, filled with `#[omp::atomic]` between two barriers (stddev's and
/// CUDA's shared-memory histograms), each team's bins then written by its threads.
#[omp::directives]
fn team_histograms(bins: &mut [u32], x: &[u32], per_team: usize) {
    let teams = bins.len() / 16;
    #[omp::target_teams(num_teams(teams), thread_limit(16))]
    {
        let mut hist = [0u32; 16];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            let team = omp::get_team_num();
            omp::barrier!();
            for i in (t..per_team).step_by(16) {
                #[omp::atomic]
                hist[(x[team * per_team + i] % 16) as usize] += 1;
            }
            omp::barrier!();
            bins[team * 16 + t] = hist[t];
        }
    }
}

fn check_team_histograms(rng: &mut StdRng) -> Result<(), String> {
    let (teams, per_team) = (rng.gen_range(1..12), rng.gen_range(0..3000));
    let x: Vec<u32> = (0..teams * per_team).map(|_| rng.gen_range(0..1000)).collect();
    let mut bins = vec![u32::MAX; teams * 16];
    team_histograms(&mut bins, &x, per_team);
    let mut want = vec![0u32; teams * 16];
    for (i, v) in x.iter().enumerate() {
        want[(i / per_team.max(1)) * 16 + (*v % 16) as usize] += 1;
    }
    same("bins", &bins, &want)
}
/// Tiled matrix multiply as CUDA's shared-memory GEMM: one team per 8×8 tile of `c`, a loop over the tiles of the
/// shared dimension, each loading a tile of `a` and of `b` into team-local arrays between two barriers.
#[omp::directives]
fn tiled_matmul(n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    let nb = n / 8;
    #[omp::target_teams(num_teams(nb * nb), thread_limit(64))]
    {
        let mut ta = [[0.0f32; 8]; 8];
        let mut tb = [[0.0f32; 8]; 8];
        #[omp::parallel]
        {
            let bx = omp::get_team_num() % nb;
            let by = omp::get_team_num() / nb;
            let tx = omp::get_thread_num() % 8;
            let ty = omp::get_thread_num() / 8;
            let row = by * 8 + ty;
            let col = bx * 8 + tx;
            let mut sum = 0.0f32;
            for k in 0..nb {
                ta[ty][tx] = a[row * n + k * 8 + tx];
                tb[ty][tx] = b[(k * 8 + ty) * n + col];
                omp::barrier!();
                for j in 0..8 {
                    sum += ta[ty][j] * tb[j][tx];
                }
                omp::barrier!();
            }
            c[row * n + col] = sum;
        }
    }
}

fn check_tiled_matmul(rng: &mut StdRng) -> Result<(), String> {
    let n = 8 * rng.gen_range(1..7);
    let a: Vec<f32> = (0..n * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let b: Vec<f32> = (0..n * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut c = vec![f32::NAN; n * n];
    tiled_matmul(n, &a, &b, &mut c);
    // The same sums in the same order: tile after tile, eight products each.
    let mut want = vec![0.0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut sum = 0.0f32;
            for k in 0..n {
                sum += a[row * n + k] * b[k * n + col];
            }
            want[row * n + col] = sum;
        }
    }
    same("c", &c, &want)
}

/// HeCBench bsearch-omp's `bs4` (main.cpp:117-144): thread 0 of each team computes the search's first step `k`
/// into a team-local variable (C's `size_t k;` in the `target teams` block), the team's threads read it after the
/// barrier and search `a` for their key.
#[omp::directives]
fn bs4(a: &[u64], z: &[u64], r: &mut [usize], n: usize) {
    let teams = z.len() / 64;
    #[omp::target_teams(num_teams(teams), thread_limit(64))]
    {
        let mut k: usize = 0;
        #[omp::parallel]
        {
            let lid = omp::get_thread_num();
            let gid = omp::get_team_num() * omp::get_num_threads() + lid;
            if lid == 0 {
                let mut nbits = 0u32;
                while n >> nbits != 0 {
                    nbits += 1;
                }
                k = 1usize << (nbits - 1);
            }
            omp::barrier!();
            let mut p = k;
            let key = z[gid];
            let mut idx = if a[p] <= key { p } else { 0 };
            p >>= 1;
            while p != 0 {
                let q = idx | p;
                let w = if q < n { q } else { n };
                if key >= a[w] {
                    idx = q;
                }
                p >>= 1;
            }
            r[gid] = idx;
        }
    }
}

fn check_team_variable_bsearch(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let mut a: Vec<u64> = (0..=n).map(|_| rng.gen_range(0..1_000_000)).collect();
    a.sort_unstable();
    let teams = rng.gen_range(1..10);
    let z: Vec<u64> = (0..teams * 64).map(|_| rng.gen_range(0..1_000_000)).collect();
    let mut r = vec![usize::MAX; z.len()];
    bs4(&a, &z, &mut r, n);
    // The original's search, sequentially: below a[n] it finds the last position whose value is at most the key
    // (0 when none is); at or above a[n] its steps may pass n, as the original's do.
    let k = 1usize << (usize::BITS - 1 - n.leading_zeros());
    let want: Vec<usize> = z
        .iter()
        .map(|&key| {
            let mut idx = if a[k] <= key { k } else { 0 };
            let mut p = k >> 1;
            while p != 0 {
                if key >= a[(idx | p).min(n)] {
                    idx |= p;
                }
                p >>= 1;
            }
            idx
        })
        .collect();
    for (key, got) in z.iter().zip(&want) {
        if *key < a[n] && *got != a[..=n].iter().rposition(|v| v <= key).unwrap_or(0) {
            return Err(format!("the sequential search of {key} gives {got}"));
        }
    }
    same("r", &r, &want)
}

/// A team's extremes, kept in a team-local struct.
#[omp::declare_target]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extremes {
    pub lo: f32,
    pub hi: f32,
}

/// Team-local variables of three kinds: a struct thread 0 fills field by field, a counter every thread adds to
/// atomically, and a flag; each thread then writes what the team found.
#[omp::directives]
fn team_extremes(x: &[f32], out: &mut [f32], counts: &mut [u32]) {
    let teams = counts.len();
    #[omp::target_teams(num_teams(teams), thread_limit(32))]
    {
        let mut ext = Extremes { lo: f32::MAX, hi: f32::MIN };
        let mut positive = 0u32;
        let mut any_nan = false;
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            let team = omp::get_team_num();
            let v = x[team * 32 + t];
            if v > 0.0 {
                #[omp::atomic]
                positive += 1;
            }
            if t == 0 {
                for i in 0..32 {
                    let w = x[team * 32 + i];
                    if w < ext.lo {
                        ext.lo = w;
                    }
                    ext.hi = ext.hi.max(w);
                    any_nan = any_nan || w.is_nan();
                }
            }
            omp::barrier!();
            let span = if any_nan { f32::NAN } else { ext.hi - ext.lo };
            out[team * 32 + t] = (v - ext.lo) / span;
            if t == 0 {
                counts[team] = positive;
            }
        }
    }
}

fn check_team_variables(rng: &mut StdRng) -> Result<(), String> {
    let teams = rng.gen_range(1..12);
    let x: Vec<f32> = (0..teams * 32).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let (mut out, mut counts) = (vec![f32::NAN; x.len()], vec![u32::MAX; teams]);
    team_extremes(&x, &mut out, &mut counts);
    let mut want = Vec::new();
    for block in x.chunks(32) {
        let lo = block.iter().copied().fold(f32::MAX, f32::min);
        let hi = block.iter().copied().fold(f32::MIN, f32::max);
        want.extend(block.iter().map(|v| (v - lo) / (hi - lo)));
    }
    same("out", &out, &want)?;
    let want_counts: Vec<u32> = x.chunks(32).map(|b| b.iter().filter(|v| **v > 0.0).count() as u32).collect();
    same("counts", &counts, &want_counts)
}

/// `y = A x` with 32 threads per row (8 rows per team) and `z = Aᵀ x` with 32 threads per column (32 columns per
/// team), each thread summing every 32nd term, the 32 partial sums added in a team-local array: the row's sum
/// written by its group's first thread (`if lane == 0`, `lane = t % 32`), the column's by the first group
/// (`if g == 0`, `g = t / 32`). Extents that are no multiple of 8 or 32 leave threads without a row or column.
#[omp::directives]
fn group_first(n: usize, m: usize, a: &[f64], x: &[f64], xt: &[f64], y: &mut [f64], z: &mut [f64]) {
    let (row_teams, col_teams, strides_m, strides_n) = (n.div_ceil(8), m.div_ceil(32), m.div_ceil(32), n.div_ceil(32));
    #[omp::target_teams(num_teams(row_teams), thread_limit(256))]
    {
        let mut part = [[0.0f64; 32]; 8];
        #[omp::parallel]
        {
            let lane = omp::get_thread_num() % 32;
            let ty = omp::get_thread_num() / 32;
            let i = omp::get_team_num() * 8 + ty;
            let mut dot = 0.0;
            for s in 0..strides_m {
                let j = s * 32 + lane;
                if i < n && j < m {
                    dot += a[j + i * m] * x[j];
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
                y[i] = part[ty][0];
            }
        }
    }
    #[omp::target_teams(num_teams(col_teams), thread_limit(1024))]
    {
        let mut part = [[0.0f64; 32]; 32];
        #[omp::parallel]
        {
            let lane = omp::get_thread_num() % 32;
            let g = omp::get_thread_num() / 32;
            let j = omp::get_team_num() * 32 + lane;
            let mut dot = 0.0;
            for s in 0..strides_n {
                let i = s * 32 + g;
                if i < n && j < m {
                    dot += a[j + i * m] * xt[i];
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
            if g == 0 && j < m {
                z[j] = part[0][lane];
            }
        }
    }
}

fn check_group_first(rng: &mut StdRng) -> Result<(), String> {
    let (n, m) = (rng.gen_range(1..150), rng.gen_range(1..150));
    let a = vec_f64(rng, n * m);
    let (x, xt) = (vec_f64(rng, m), vec_f64(rng, n));
    let (mut y, mut z) = (vec![f64::NAN; n], vec![f64::NAN; m]);
    group_first(n, m, &a, &x, &xt, &mut y, &mut z);
    // The same tree: per lane its strided sum, then the pairwise halving.
    let tree = |terms: &dyn Fn(usize) -> f64, len: usize| -> f64 {
        let mut part: Vec<f64> = (0..32).map(|l| (l..len).step_by(32).map(terms).fold(0.0, |s, v| s + v)).collect();
        for half in [16, 8, 4, 2, 1] {
            for l in 0..half {
                part[l] += part[l + half];
            }
        }
        part[0]
    };
    let want_y: Vec<f64> = (0..n).map(|i| tree(&|j| a[j + i * m] * x[j], m)).collect();
    let want_z: Vec<f64> = (0..m).map(|j| tree(&|i| a[j + i * m] * xt[i], n)).collect();
    same("y", &y, &want_y)?;
    same("z", &z, &want_z)
}

/// HeCBench morphology-omp's horizontal erosion (`morphology.cpp`, commit f27000a51): one team per `hsize` pixels of
/// a row, its threads loading `2 * hsize` pixels into the team-local `s_mem` and calling the team function
/// `two_way_scan(buffer, opArray, selSize, tid)` (barriers inside; `buffer` the whole array, `opArray` the range from
/// `2 * hsize`, as the original's pointers into `sMem`). Two changes: the original's in-place scan reads
/// `opArray[tid + offset]` in the phase where thread `tid + offset` writes it (a race, which the team-local checks
/// report), so each step reads into locals, meets the team at a barrier and then writes; and its `for (offset = 1;
/// offset < selSize; offset *= 2)` is a `for` over the step count (a barrier loop's range is one the team shares).
/// The original's `if (tidx < width && tidy < height)` around the barriers holds for every thread here (the width
/// is a multiple of `hsize`), so it is left out.
#[omp::directives]
fn erode_rows(img: &[u8], tmp: &mut [u8], width: usize, height: usize, hsize: usize) {
    fn element_op(lhs: u8, rhs: u8) -> u8 {
        if lhs < rhs {
            lhs
        } else {
            rhs
        }
    }
    fn two_way_scan(buffer: &[u8], op_array: &mut [u8], sel_size: usize, tid: usize) {
        op_array[tid] = buffer[tid];
        op_array[tid + sel_size] = buffer[tid + sel_size];
        omp::barrier!();
        let steps = (usize::BITS - (sel_size - 1).leading_zeros()) as usize;
        for k in 0..steps {
            let offset = 1usize << k;
            let prefix = if tid >= offset { op_array[tid + sel_size - 1 - offset] } else { 0 };
            let suffix = if tid + offset < sel_size { op_array[tid + offset] } else { 0 };
            omp::barrier!();
            if tid >= offset {
                op_array[tid + sel_size - 1] = element_op(op_array[tid + sel_size - 1], prefix);
            }
            if tid + offset < sel_size {
                op_array[tid] = element_op(op_array[tid], suffix);
            }
            omp::barrier!();
        }
    }
    let grid_x = width / hsize;
    #[omp::target_teams(num_teams(grid_x * height), thread_limit(hsize))]
    {
        let mut s_mem = [0u8; 128];
        #[omp::parallel]
        {
            let bx = omp::get_team_num() % grid_x;
            let by = omp::get_team_num() / grid_x;
            let tx = omp::get_thread_num();
            let tidx = tx + bx * hsize;
            let tidy = by;
            s_mem[tx] = img[tidy * width + tidx];
            if tidx + hsize < width {
                s_mem[tx + hsize] = img[tidy * width + tidx + hsize];
            }
            omp::barrier!();
            two_way_scan(&s_mem, &mut s_mem[2 * hsize..], hsize, tx);
            if tidx + hsize / 2 < width - hsize / 2 {
                tmp[tidy * width + tidx + hsize / 2] = element_op(s_mem[2 * hsize + tx], s_mem[2 * hsize + tx + hsize - 1]);
            }
        }
    }
}

fn check_team_fn_scan(rng: &mut StdRng) -> Result<(), String> {
    let hsize = [4, 8, 16, 32][rng.gen_range(0..4)];
    let (width, height) = (hsize * rng.gen_range(2..12), rng.gen_range(1..10));
    let img: Vec<u8> = (0..width * height).map(|_| rng.gen()).collect();
    let mut tmp = vec![7u8; width * height];
    erode_rows(&img, &mut tmp, width, height, hsize);
    // Sequentially: the minimum of the `hsize` pixels from `tidx`, those past the team's loaded `2 * hsize` or the
    // row's end read as the team array's initial 0.
    let mut want = vec![7u8; width * height];
    for y in 0..height {
        for tidx in 0..width {
            if tidx + hsize / 2 < width - hsize / 2 {
                let base = tidx - tidx % hsize;
                let at = |j: usize| if base + j < width { img[y * width + base + j] } else { 0 };
                want[y * width + tidx + hsize / 2] = (tidx % hsize..tidx % hsize + hsize).map(at).min().unwrap_or(0);
            }
        }
    }
    same("tmp", &tmp, &want)
}

/// Block sums through team functions: `load` returns the thread's grid-stride sum (asking `omp::get_thread_num()`
/// itself), `tree_sum` halves a range of the team-local `part` between barriers and returns element 0 (its `len()`
/// the range's length), called as `let v = tree_sum(..)`, and `sum_twice` calls `tree_sum` on two ranges of one
/// array with an end each.
#[omp::directives]
fn team_fn_sums(x: &[f64], sums: &mut [f64], lows: &mut [f64], highs: &mut [f64]) {
    fn load(x: &[f64], team: usize, teams: usize) -> f64 {
        let t = omp::get_thread_num();
        let mut acc = 0.0;
        let mut i = team * 64 + t;
        while i < x.len() {
            acc += x[i];
            i += teams * 64;
        }
        acc
    }
    fn tree_sum(part: &mut [f64], t: usize) -> f64 {
        let mut width = part.len();
        for _ in 0..part.len().trailing_zeros() {
            width /= 2;
            if t < width {
                part[t] += part[t + width];
            }
            omp::barrier!();
        }
        part[0]
    }
    fn sum_twice(part: &mut [f64], t: usize) -> (f64, f64) {
        let lo = tree_sum(&mut part[0..32], t);
        let hi = tree_sum(&mut part[32..64], t);
        (lo, hi)
    }
    let teams = sums.len();
    #[omp::target_teams(num_teams(teams), thread_limit(64))]
    {
        let mut part = [0.0f64; 128];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            let team = omp::get_team_num();
            let v = load(x, team, teams);
            part[t] = v;
            part[64 + t] = v;
            omp::barrier!();
            let (lo, hi) = sum_twice(&mut part, t);
            let total = tree_sum(&mut part[64..128], t);
            if t == 0 {
                sums[team] = total;
                lows[team] = lo;
                highs[team] = hi;
            }
        }
    }
}

fn check_team_fn_sums(rng: &mut StdRng) -> Result<(), String> {
    let teams = rng.gen_range(1..24);
    let n = rng.gen_range(0..20_000);
    let x = vec_f64(rng, n);
    let (mut sums, mut lows, mut highs) = (vec![f64::NAN; teams], vec![f64::NAN; teams], vec![f64::NAN; teams]);
    team_fn_sums(&x, &mut sums, &mut lows, &mut highs);
    let tree = |mut part: Vec<f64>| {
        let mut width = part.len();
        while width > 1 {
            width /= 2;
            for t in 0..width {
                part[t] += part[t + width];
            }
        }
        part[0]
    };
    let (mut want, mut want_lows, mut want_highs) = (Vec::new(), Vec::new(), Vec::new());
    for team in 0..teams {
        let part: Vec<f64> = (0..64).map(|t| (team * 64 + t..n).step_by(teams * 64).map(|i| x[i]).fold(0.0, |a, v| a + v)).collect();
        want.push(tree(part.clone()));
        want_lows.push(tree(part[..32].to_vec()));
        want_highs.push(tree(part[32..].to_vec()));
    }
    same("sums", &sums, &want)?;
    same("lows", &lows, &want_lows)?;
    same("highs", &highs, &want_highs)
}
