//! hausdorff: the Hausdorff distance between two 2-D point sets (HeCBench `src/hausdorff-omp/main.cpp`, with
//! `src/hausdorff-cuda/reference.h`, commit f27000a51), ported as written. It stands in for `minmax-omp`, which
//! omp-rs cannot express: minmax's three kernels reduce a `{float val; int64_t idx;}` pair (and a four-field
//! min/max pair) with `#pragma omp declare reduction(minpair : MinPair : ...) initializer(...)`, user-defined
//! reductions on structs. omp-rs's `reduction` takes OpenMP's built-in operators on primitive scalars:
//! `reduction(minpair: min_result)` is "unknown reduction operator `minpair`; expected one of `+`, `*`, `min`,
//! `max`, `&`, `|`, `^`, `&&`, `||`", and `reduction(min: min_result)` on the struct refuses the body's
//! `if val < min_result.val { min_result.val = val; min_result.idx = i; }` ("`min_result` is a `reduction(min)`
//! variable: inside the loop it holds only this thread's partial result, ..."). hausdorff is a min/max reduction of
//! the same kind (the largest of per-point minima) that needs no user-defined reduction.
//!
//! The original: `srand(123)` and `rand()` fill `numA` points A then `numB` points B (`float2`); a
//! `target data map(to: Apoints, Bpoints) map(from: h_distance[0:2])` region holds the repeat loop, which per
//! repetition resets the device's `h_distance` to {-1, -1} (`target update to`), starts the clock and calls
//! `computeDistance` twice (A→B into `h_distance[0]`, B→A into `h_distance[1]`): one
//! `target teams distribute parallel for reduction(max: distance[0]) thread_limit(256)` region over the first set,
//! each iteration taking the minimum squared distance to the second set (`hd`) and the maximum of those. The times
//! of the two calls are summed over the repetitions. Verification: `hausdorff_distance` on the host (each
//! direction's minima, sorted with `qsort`, the largest taken) against `max(h_distance[0], h_distance[1])`, within
//! 1e-3.
//!
//! What changed, and why:
//! - `reduction(max: distance[0])` reduces into an element of the mapped array `h_distance` (`distance` is
//!   `h_distance` or `h_distance + 1`). omp-rs writes that form too (a scalar reduction combined into the device's
//!   element by a one-thread target region after the loop), but the port was written before it could, and keeps
//!   its form, which needs no such region per call: `compute_distance` reduces into a scalar that starts at the
//!   value the original's reset gives the device's element (-1) and returns it; the host stores it into
//!   `h_distance[0]` / `[1]`. `h_distance` is therefore not
//!   mapped: the per-repetition `target update to(h_distance[0:2])` (8 bytes to the device) becomes the host reset
//!   of the two values, and each reduction brings its 4-byte result back, where the original copies `h_distance`
//!   back once, at the end of the data region. The kernels and their arithmetic are the original's.
//! - `float2` (`__attribute__((__aligned__(8)))` in reference.h) is a `#[omp::declare_target]` struct
//!   `Float2 { x, y }` with `#[repr(align(8))]`: a point is one 8-byte load, as in the original.
//! - `rand()` is glibc's `random_r` TYPE_3 generator, reproduced so that the points equal the original's.
//! - `kernel time:` is the original's summed clock (both calls, all repetitions), in seconds; the original prints
//!   it divided by `repeat`, in ms, which the port prints too.
//!
//! panel-args: 1000 1500 2
//! device-args: 100000 100000 100
//! cpu-args: 20000 20000 2

use omp::MappedRef;
use omp_ports::GlibcRand;
use std::time::Instant;

/// The original's `float2`.
#[omp::declare_target]
#[repr(align(8))]
#[derive(Clone, Copy)]
struct Float2 {
    x: f32,
    y: f32,
}

/// `RAND_MAX`.
const RAND_MAX: i32 = 2147483647;

/// `hd`: the squared distance of two points.
fn hd(ap: Float2, bp: Float2) -> f32 {
    (ap.x - bp.x) * (ap.x - bp.x) + (ap.y - bp.y) * (ap.y - bp.y)
}

/// `computeDistance`: the largest distance from a point of A to its nearest point of B, reduced with `max` into a
/// value that starts at `distance` (the original's `distance[0]`).
#[omp::directives]
fn compute_distance(
    apoints: &MappedRef<'_, '_, Float2>,
    bpoints: &MappedRef<'_, '_, Float2>,
    distance: f32,
    num_a: usize,
    num_b: usize,
) -> f32 {
    let mut distance: f32 = distance;
    #[omp::target_teams_distribute_parallel_for(reduction(max: distance), thread_limit(256))]
    for i in 0..num_a {
        let mut d = f32::MAX;
        let p = apoints[i];
        for j in 0..num_b {
            let t = hd(p, bpoints[j]);
            d = t.min(d);
        }
        distance = distance.max(d);
    }
    distance
}

/// `computeDirDistance` (reference.h): each point's nearest distance, sorted; the largest.
fn compute_dir_distance(apoints: &[Float2], bpoints: &[Float2]) -> f32 {
    let mut dis_a: Vec<f32> = apoints
        .iter()
        .map(|&a| {
            let mut d = f32::MAX;
            for &b in bpoints {
                let t = hd(a, b);
                d = t.min(d);
            }
            d
        })
        .collect();
    dis_a.sort_by(f32::total_cmp);
    dis_a[dis_a.len() - 1]
}

/// `hausdorff_distance` (reference.h).
fn hausdorff_distance(apoints: &[Float2], bpoints: &[Float2]) -> f32 {
    let hab = compute_dir_distance(apoints, bpoints);
    let hba = compute_dir_distance(bpoints, apoints);
    hab.max(hba)
}

#[omp::directives]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        print!("Usage: {} <number of points in space A>", args[0]);
        println!(" <number of points in space B> <repeat>");
        std::process::exit(1);
    }
    let num_apoints: usize = omp_ports::arg(1, 0);
    let num_bpoints: usize = omp_ports::arg(2, 0);
    let repeat: usize = omp_ports::arg(3, 0);

    let mut rng = GlibcRand::new(123);
    let mut point = || Float2 { x: rng.rand() as f32 / RAND_MAX as f32, y: rng.rand() as f32 / RAND_MAX as f32 };
    let h_apoints: Vec<Float2> = (0..num_apoints).map(|_| point()).collect();
    let h_bpoints: Vec<Float2> = (0..num_bpoints).map(|_| point()).collect();

    let mut h_distance: [f32; 2] = [-1.0, -1.0];
    let mut time = 0.0f64;
    #[omp::target_data(map(to: h_apoints, h_bpoints))]
    {
        for _ in 0..repeat {
            // target update to (h_distance[0:2]): the reductions start from the host's {-1, -1}
            h_distance = [-1.0, -1.0];
            let start = Instant::now();
            h_distance[0] = compute_distance(&h_apoints, &h_bpoints, h_distance[0], num_apoints, num_bpoints);
            h_distance[1] = compute_distance(&h_bpoints, &h_apoints, h_distance[1], num_bpoints, num_apoints);
            time += omp_ports::seconds_since(start);
        }
        println!("Average execution time of kernels: {:.6} (ms)", time * 1e3 / repeat as f64);
    }

    println!("Verifying the result may take a while..");
    let r_distance = hausdorff_distance(&h_apoints, &h_bpoints);
    let t_distance = h_distance[0].max(h_distance[1]);

    let error = (t_distance - r_distance).abs() > 1e-3;
    omp_ports::kernel_time(time);
    omp_ports::verdict(!error);
}
