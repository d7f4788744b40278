//! norm2: the Euclidean norm of a vector by a sum reduction (HeCBench `src/norm2-omp/main.cpp`, commit f27000a51),
//! ported as written.
//!
//! The original: for `n` = 512 Ki, 1 Mi, ..., 512 Mi floats (`a[i] = (i + 1) % 7`), the host computes the `double`
//! reference `gold = sqrt(sum a[i]^2)`; a `target data map(to: a[0:n])` region holds `repeat` times one
//! `target teams distribute parallel for thread_limit(256) map(tofrom: sum) reduction(+: sum)` region over `a`
//! (`float t = a[i] * a[i]; sum += t;` into a `double`), the host taking `sqrt(sum)` each time; the clock spans the
//! repeat loop inside the data region. Verification: every repetition's result within 1e-3 of `(float)gold`.
//!
//! What changed, and why:
//! - An optional second argument, the largest `n` (default 512 Mi, the original's fixed bound), so that the panel
//!   can stop at 1 Mi: the original's only argument is `repeat`, and its loop over sizes always reaches 512 Mi
//!   floats (2 GiB), which the panel cannot afford.
//! - `map(tofrom: sum)` on the reduction is written as in the original (omp-rs accepts it beside
//!   `reduction(+: sum)`).
//! - `kernel time:` is the sum over the sizes of the original's clock (each size's repeat loop), in seconds; the
//!   per-size lines print the original's average per repetition.
//!
//! panel-args: 2 1048576
//! device-args: 100
//! cpu-args: 1

use std::time::Instant;

#[omp::directives]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 && args.len() != 3 {
        println!("Usage: {} <repeat> [largest number of elements]", args[0]);
        std::process::exit(1);
    }
    // repeat at least once
    let repeat: usize = omp_ports::arg::<i64>(1, 1).max(1) as usize;
    let n_max: usize = omp_ports::arg(2, 1024 * 1024 * 512);

    let mut ok = true;
    let mut total = 0.0f64;

    // store the nrm2 results
    let mut h_result: Vec<f32> = vec![0.0; repeat];

    let mut n: usize = 512 * 1024;
    while n <= n_max {
        // reference
        let mut a: Vec<f32> = vec![0.0; n];
        let mut gold = 0.0f64; // double is required to match host and device results
        for i in 0..n {
            a[i] = ((i + 1) % 7) as f32;
            gold += f64::from(a[i] * a[i]);
        }
        gold = gold.sqrt();

        #[omp::target_data(map(to: a))]
        {
            let kstart = Instant::now();
            for j in 0..repeat {
                let mut sum: f64 = 0.0;
                #[omp::target_teams_distribute_parallel_for(thread_limit(256), map(tofrom: sum), reduction(+: sum))]
                for i in 0..n {
                    let t: f32 = a[i] * a[i];
                    sum += f64::from(t);
                }
                h_result[j] = sum.sqrt() as f32; // compute sqrt on the host
            }
            let kseconds = omp_ports::seconds_since(kstart);
            total += kseconds;
            let ktime = (kseconds * 1e9) as f32; // ns
            println!(
                "#elements = {:.2} M: average omp nrm2 execution time = {:.6} (us), performance = {:.6} (Gop/s)",
                n as f32 / (1024.0 * 1024.0),
                (ktime * 1e-3) / repeat as f32,
                (2 * n + 1) as f32 * repeat as f32 / ktime
            );
        }

        // nrm2 results match across all iterations
        for j in 0..repeat {
            if (gold as f32 - h_result[j]).abs() > 1e-3 {
                println!("FAIL at iteration {j}: gold={:.6} actual={:.6} for {n} elements", gold as f32, h_result[j]);
                ok = false;
                break;
            }
        }
        n *= 2;
    }

    omp_ports::kernel_time(total);
    omp_ports::verdict(ok);
}
