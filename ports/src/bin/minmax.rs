//! minmax: the points of smallest and largest norm in a set of 2-D points, by reductions of (value, index) pairs
//! (HeCBench `src/minmax-omp/main.cpp`, with `src/minmax-cuda/utils.hpp` and `vec_2d.hpp`, commit f27000a51), ported
//! as written.
//!
//! The original: `generate_points` fills golden-ratio rectangles of a `size` x `size` box with `rand()` points
//! (`srand(123)`); a `target data map(to: points[0:N])` region holds two timed repeat loops. The first runs, per
//! repetition, a `target teams distribute parallel for reduction(minpair: min_result)` region and one with
//! `reduction(maxpair: max_result)` (user-defined reductions of `{float val; int64_t idx;}` pairs, `declare
//! reduction` with `initializer(omp_priv = {INFINITY, -1})`), then reads the two points on the host; the second one
//! region with `reduction(minmaxpair: result)` (a four-field pair). Each loop prints its average time per
//! repetition. Verification: the host's first minimum and maximum of `norm2` (`x*x + y*y`) against the points the
//! regions found: `PASS` when all four are the same points.
//!
//! What changed, and why:
//! - `declare reduction(minpair : MinPair : omp_out = (omp_in.val < omp_out.val) ? omp_in : omp_out)
//!   initializer(omp_priv = {INFINITY, -1})` is `#[omp::declare_reduction(identity = MinPair { .. })] fn minpair(out,
//!   in_) -> MinPair` with the same expression; likewise `maxpair` and `minmaxpair`.
//! - `MinPair` and `MaxPair` (`{float val; int64_t idx;}`) have four bytes of padding after `val`, which a
//!   `#[omp::declare_target]` struct may not have (the host's padding bytes are uninitialised): the port names them,
//!   `pad: u32`, so the structs keep the original's layout.
//! - `vec_2d<float>` (`alignas(8)`) is `#[omp::declare_target] #[repr(align(8))] struct Vec2d`.
//! - `rand()` is glibc's generator (`omp_ports::GlibcRand`), so that the points are the original's.
//! - `kernel time:` is the sum of the two loops' times, in seconds (the panel compares the two averages' sum with
//!   the CUDA version's `thrust` pair, which prints the same two lines).
//!
//! panel-args: 200 2
//! device-args: 100000 1000
//! cpu-args: 10000 10

use omp::MappedRef;
use omp_ports::GlibcRand;
use std::time::Instant;

/// `vec_2d<float>`.
#[omp::declare_target]
#[repr(align(8))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vec2d {
    x: f32,
    y: f32,
}

/// `norm2` (vec_2d.hpp).
fn norm2(v: Vec2d) -> f32 {
    v.x * v.x + v.y * v.y
}

/// `struct MinPair { float val; int64_t idx; }` with its padding named.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct MinPair {
    val: f32,
    pad: u32,
    idx: i64,
}

#[omp::declare_reduction(identity = MinPair { val: f32::INFINITY, pad: 0, idx: -1 })]
fn minpair(omp_out: MinPair, omp_in: MinPair) -> MinPair {
    if omp_in.val < omp_out.val {
        omp_in
    } else {
        omp_out
    }
}

/// `struct MaxPair { float val; int64_t idx; }` with its padding named.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct MaxPair {
    val: f32,
    pad: u32,
    idx: i64,
}

#[omp::declare_reduction(identity = MaxPair { val: f32::NEG_INFINITY, pad: 0, idx: -1 })]
fn maxpair(omp_out: MaxPair, omp_in: MaxPair) -> MaxPair {
    if omp_in.val > omp_out.val {
        omp_in
    } else {
        omp_out
    }
}

/// `struct MinMaxPair { float min_val; float max_val; int64_t min_idx; int64_t max_idx; }`.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct MinMaxPair {
    min_val: f32,
    max_val: f32,
    min_idx: i64,
    max_idx: i64,
}

#[omp::declare_reduction(identity = MinMaxPair { min_val: f32::INFINITY, max_val: f32::NEG_INFINITY, min_idx: -1, max_idx: -1 })]
fn minmaxpair(omp_out: MinMaxPair, omp_in: MinMaxPair) -> MinMaxPair {
    MinMaxPair {
        min_val: if omp_in.min_val < omp_out.min_val { omp_in.min_val } else { omp_out.min_val },
        max_val: if omp_in.max_val > omp_out.max_val { omp_in.max_val } else { omp_out.max_val },
        min_idx: if omp_in.min_val < omp_out.min_val { omp_in.min_idx } else { omp_out.min_idx },
        max_idx: if omp_in.max_val > omp_out.max_val { omp_in.max_idx } else { omp_out.max_idx },
    }
}

/// `generate_rects` (utils.hpp): rectangles cut from the box by the golden ratio, each with its number of points.
fn generate_rects(size: f32) -> (usize, Vec<(usize, Vec2d, Vec2d)>) {
    let phi = ((1.0 + 5f64.sqrt()) * 0.5) as f32;
    let mut tl = Vec2d { x: 0.0, y: 0.0 };
    let mut br = Vec2d { x: size, y: size };
    let mut num_points = 0;
    let mut rects = Vec::new();
    loop {
        match rects.len() % 4 {
            0 => br.x = tl.x - (tl.x - br.x) / phi,
            1 => br.y = tl.y - (tl.y - br.y) / phi,
            2 => tl.x += (br.x - tl.x) / phi,
            _ => tl.y += (br.y - tl.y) / phi,
        }
        let area = Vec2d { x: br.x - tl.x, y: br.y - tl.y };
        let num_points_in_rect = (area.x * area.y * 1_000_000.0).sqrt() as usize;
        rects.push((num_points_in_rect, tl, br));
        num_points += num_points_in_rect;
        if !(area.x > 1.0 && area.y > 1.0) {
            break;
        }
    }
    (num_points, rects)
}

/// `generate_points` (utils.hpp): `random_point` in each rectangle, `srand(123)`.
fn generate_points(size: f32) -> (usize, Vec<Vec2d>) {
    let (total_points, rects) = generate_rects(size);
    let mut rng = GlibcRand::new(123);
    const RAND_MAX: f32 = 2147483647.0;
    let mut h_points = Vec::with_capacity(total_points);
    for (num_points_in_rect, tl, br) in rects {
        for _ in 0..num_points_in_rect {
            // `minXY.x + (maxXY.x - minXY.x) * rand() / static_cast<T>(RAND_MAX)`, in float.
            let x = tl.x + (br.x - tl.x) * rng.rand() as f32 / RAND_MAX;
            let y = tl.y + (br.y - tl.y) * rng.rand() as f32 / RAND_MAX;
            h_points.push(Vec2d { x, y });
        }
    }
    (total_points, h_points)
}

/// The first loop's two regions: the smallest and the largest norm with their indices.
#[omp::directives]
fn min_and_max(points: &MappedRef<'_, '_, Vec2d>, n: usize) -> (MinPair, MaxPair) {
    let mut min_result = MinPair { val: f32::INFINITY, pad: 0, idx: -1 };
    #[omp::target_teams_distribute_parallel_for(reduction(minpair: min_result))]
    for i in 0..n {
        let val = norm2(points[i]);
        if val < min_result.val {
            min_result.val = val;
            min_result.idx = i as i64;
        }
    }
    let mut max_result = MaxPair { val: f32::NEG_INFINITY, pad: 0, idx: -1 };
    #[omp::target_teams_distribute_parallel_for(reduction(maxpair: max_result))]
    for i in 0..n {
        let val = norm2(points[i]);
        if val > max_result.val {
            max_result.val = val;
            max_result.idx = i as i64;
        }
    }
    (min_result, max_result)
}

/// The second loop's region: both in one pass.
#[omp::directives]
fn min_max(points: &MappedRef<'_, '_, Vec2d>, n: usize) -> MinMaxPair {
    let mut result = MinMaxPair { min_val: f32::INFINITY, max_val: f32::NEG_INFINITY, min_idx: -1, max_idx: -1 };
    #[omp::target_teams_distribute_parallel_for(reduction(minmaxpair: result))]
    for i in 0..n {
        let val = norm2(points[i]);
        if val < result.min_val {
            result.min_val = val;
            result.min_idx = i as i64;
        }
        if val > result.max_val {
            result.max_val = val;
            result.max_idx = i as i64;
        }
    }
    result
}

#[omp::directives]
fn eval(bounding_box_size: f32, repeat: usize) {
    let (n, points) = generate_points(bounding_box_size);
    println!("Total number of points: {n}");

    let zero = Vec2d { x: 0.0, y: 0.0 };
    let (mut min_point, mut max_point) = ([zero; 2], [zero; 2]);
    let mut seconds = 0.0;
    #[omp::target_data(map(to: points))]
    {
        let start = Instant::now();
        for _ in 0..repeat {
            let (min_result, max_result) = min_and_max(&points, n);
            min_point[0] = points.host()[min_result.idx as usize];
            max_point[0] = points.host()[max_result.idx as usize];
        }
        let time = omp_ports::seconds_since(start);
        seconds += time;
        println!("Average execution time of omp:min() + omp:max(): {:.6} (us)", time * 1e6 / repeat as f64);

        // Single-pass minmax
        let start = Instant::now();
        for _ in 0..repeat {
            let result = min_max(&points, n);
            min_point[1] = points.host()[result.min_idx as usize];
            max_point[1] = points.host()[result.max_idx as usize];
        }
        let time = omp_ports::seconds_since(start);
        seconds += time;
        println!("Average execution time of omp:minmax(): {:.6} (us)", time * 1e6 / repeat as f64);
    }

    // CPU reference
    let (mut ref_min, mut ref_max) = (0, 0);
    for i in 1..n {
        if norm2(points[i]) < norm2(points[ref_min]) {
            ref_min = i;
        }
        if norm2(points[i]) > norm2(points[ref_max]) {
            ref_max = i;
        }
    }
    let (r_min_point, r_max_point) = (points[ref_min], points[ref_max]);
    let ok = min_point[0] == r_min_point && max_point[0] == r_max_point && min_point[1] == r_min_point && max_point[1] == r_max_point;
    omp_ports::kernel_time(seconds);
    omp_ports::verdict(ok);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        println!("Usage: {} <bounding-box size> <repeat>", args[0]);
        std::process::exit(1);
    }
    let size: i32 = omp_ports::arg(1, 0);
    let repeat: usize = omp_ports::arg(2, 0);
    eval(size as f32, repeat);
}
