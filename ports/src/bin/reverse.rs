//! reverse: reverses a 256-element array in place a random number of times, one team of 256 threads through a
//! team-local array and a barrier (HeCBench `src/reverse-omp/main.cpp`, commit f27000a51), ported as written.
//!
//! The original: `iteration` times, a count in 100..=9999 from `std::default_random_engine(123)` and
//! `std::uniform_int_distribution<int>(100, 9999)`; the host copies the identity into `test`, `target update to`,
//! then `count` times the region `target teams num_teams(1) thread_limit(len)` around `int s[len];` and
//! `parallel { t = omp_get_thread_num(); s[t] = test[t]; barrier; test[t] = s[len-t-1]; }` (inside `target data
//! map(alloc: test[0:len])`), `target update from`, and compares with the identity or its reverse by the count's
//! parity. The clock spans the `count` regions of each iteration. Verification: every iteration matches.
//!
//! What changed, and why:
//! - `int s[len]` is `let mut s = [0i32; LEN];` (a team-local array needs its element type written); `len` the const
//!   `LEN`. `int test[len]` is a `Vec`: a fixed-size array mapped by the data region gets no host views
//!   (`test.host_mut()` does not compile on `[i32; 256]`).
//! - The counts come from the same generator: libstdc++'s `minstd_rand0` and its `uniform_int_distribution`
//!   (`omp_ports::Minstd`).
//! - `kernel time:` is the original's total, in seconds, as its `Total kernel execution time` line.
//!
//! panel-args: 1
//! device-args: 100
//! cpu-args: 1

use std::time::Instant;

/// `len`: the elements, and the team's threads.
const LEN: usize = 256;

#[omp::directives]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 {
        println!("Usage: ./{} <iterations>", args[0]);
        std::process::exit(1);
    }
    // specify the number of test cases
    let iteration: usize = omp_ports::arg(1, 1);

    // save device result
    let mut test = vec![0i32; LEN];

    // save expected results after performing reverse operations even/odd times
    let mut error = false;
    let gold_odd: Vec<i32> = (0..LEN).map(|i| (LEN - i - 1) as i32).collect();
    let gold_even: Vec<i32> = (0..LEN).map(|i| i as i32).collect();

    let mut generator = omp_ports::Minstd::new(123);
    let mut time = 0.0f64;

    #[omp::target_data(map(alloc: test))]
    {
        for _ in 0..iteration {
            // bound the number of reverse operations
            let count = generator.uniform_int(100, 9999);

            test.host_mut().copy_from_slice(&gold_even);
            omp::target_update!(to: test);

            let start = Instant::now();

            for _ in 0..count {
                #[omp::target_teams(num_teams(1), thread_limit(LEN))]
                {
                    let mut s = [0i32; LEN];
                    #[omp::parallel]
                    {
                        let t = omp::get_thread_num();
                        s[t] = test[t];
                        omp::barrier!();
                        test[t] = s[LEN - t - 1];
                    }
                }
            }

            time += omp_ports::seconds_since(start);

            omp::target_update!(from: test);

            let gold = if count % 2 == 0 { &gold_even } else { &gold_odd };
            error = test.host()[..] != gold[..];
            if error {
                break;
            }
        }
    }

    println!("Total kernel execution time: {time:.6} (s)");
    omp_ports::verdict(!error);
    omp_ports::kernel_time(time);
}
