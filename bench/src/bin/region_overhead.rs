//! The cost of one parallel loop region on the host: omp-rs's team against libgomp, measured in the same run.
//!
//!     cargo run --release -p omp-bench --bin region-overhead -- [--regions N] [--len N]
//!
//! Each region is a `parallel_for` over `len` elements (default 64: the work is negligible, so the time per
//! region is the fork/join cost). Back-to-back regions are what a time-step loop or a benchmark's reps do; with
//! `OMP_WAIT_POLICY=passive` both runtimes put their workers to sleep between regions. The second line times the
//! same loops as worksharing steps of one `parallel` block (`#[omp::r#for]` in `#[omp::parallel]`, `#pragma omp
//! for` in `#pragma omp parallel`): libgomp forks once and meets at a barrier per step, omp-rs runs each step as a
//! parallel loop of the team.

use std::time::Instant;

use clap::Parser;
use omp_bench::overhead::{libgomp_regions, libgomp_steps, omp_rs_regions, omp_rs_steps};

#[derive(Parser)]
#[command(about = "Fork/join cost of a parallel loop region: omp-rs against libgomp")]
struct Args {
    /// Regions to time (after 1000 untimed ones).
    #[arg(long, default_value_t = 100_000)]
    regions: usize,
    /// Elements per region.
    #[arg(long, default_value_t = 64)]
    len: usize,
}

fn per_region_us(regions: usize, f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e6 / regions as f64
}

fn main() {
    let args = Args::parse();
    let mut y = vec![0.0; args.len];
    omp_rs_regions(&mut y, 1000);
    libgomp_regions(&mut y, 1000);
    let ours = per_region_us(args.regions, || omp_rs_regions(&mut y, args.regions));
    let gomp = per_region_us(args.regions, || libgomp_regions(&mut y, args.regions));
    omp_rs_steps(&mut y, 1000);
    libgomp_steps(&mut y, 1000);
    let ours_steps = per_region_us(args.regions, || omp_rs_steps(&mut y, args.regions));
    let gomp_steps = per_region_us(args.regions, || libgomp_steps(&mut y, args.regions));
    let expected = (4 * (1000 + args.regions)) as f64;
    assert!(y.iter().all(|v| *v == expected), "every region and step must add 1 to every element");
    println!(
        "threads {}, {} regions of {} elements: omp-rs {ours:.2} µs/region, libgomp {gomp:.2} µs/region, ratio {:.2}",
        omp::get_max_threads(),
        args.regions,
        args.len,
        ours / gomp
    );
    println!(
        "the same as {} steps of one parallel block: omp-rs {ours_steps:.2} µs/step, libgomp {gomp_steps:.2} µs/step, ratio {:.2}",
        args.regions,
        ours_steps / gomp_steps
    );
}
