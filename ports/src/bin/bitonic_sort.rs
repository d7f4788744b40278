//! Bitonic sort (Intel's oneAPI sample as HeCBench has it), ported from HeCBench `src/bitonic-sort-omp/main.cpp`
//! (commit f27000a51) as written: `n k` (array size 2^n, seed k), the array filled with `rand() % 1000` after
//! `srand(k)`, `ParallelBitonicSort` keeps the array on the device in one `target data map(tofrom: input)` and
//! launches one `target teams distribute parallel for thread_limit(256)` per (step, stage) from a host loop (n(n+1)/2
//! launches), timed from inside the data region (no copies) as the original; then the serial `BitonicSort` on a copy
//! and the original's check, `memcmp` of the two results (`PASS`/`FAIL`).
//!
//!     cargo run --release -p omp-ports --bin bitonic_sort -- N SEED
//!
//! What had to change:
//! - The kernel. The original runs one iteration per element `i` (0..size); an iteration in the first half of its
//!   sequence compares `input[i]` with `input[swapped_ele]` (`swapped_ele = i + h_len`, else -1) and swaps them. As
//!   written (`input[swapped_ele as usize]`) omp-rs refuses it: "cannot prove that iterations of this parallel loop
//!   write different elements of `input`: the index of this write to `input[swapped_ele as usize]` is not an affine
//!   function of the loop variables (`swapped_ele` is a variable computed inside the loop)". With the partner written
//!   `input[(i + h_len) as usize]` (C's `int i`, so `i: i32`) and `h_len` computed in the body as the original does:
//!   "... is not an affine function of the loop variables (it uses `/` ...)"; with `h_len` hoisted before the loop:
//!   "`input` is written at `input[i as usize]` but also written at `input[(i + h_len) as usize]` in this parallel
//!   loop: another iteration may write that element. Keep one index per array, or indices that differ by a constant"
//!   (the two casts differ, so the offset is not recognised as loop-invariant); with `i: usize` (no casts) it compiles
//!   and the run-time ownership check panics, rightly for its model (iteration `i + h_len` could also own
//!   `input[i + h_len]`): "omp: iterations of this parallel loop may write the same element of `input`: in
//!   `input[i]` a loop variable with 16 values moves the index by 1, which does not exceed the 1 elements covered by
//!   the faster-moving terms. Check the row length / coefficients against the loop bounds". Only the `unsafe(disjoint
//!   (input))` escape hatch takes the original's form, and ports have no `unsafe`. So each launch here is
//!   `collapse(2)` over (sequence, element of its first half), `i = seq_num * seq_len + k`, partner `i + h_len`: the
//!   same compare-and-swap of the same pairs in every launch (same result bits), over size/2 iterations instead of
//!   the original's `size` of which half do nothing.
//! - `srand`/`rand` are glibc's generator written out (`GlibcRand`), so the input equals the original's on Linux.
//!
//! panel-args: 12 2
//! device-args: 25 2
//! cpu-args: 18 2

use omp_ports::GlibcRand;
use std::time::Instant;

/// `ParallelBitonicSort`: the array stays on the device for all n(n+1)/2 launches.
#[omp::directives]
fn parallel_bitonic_sort(input: &mut [i32], n: i32) {
    // n: the exponent used to set the array size. Array size = power(2, n)
    let size: i32 = 2f64.powi(n) as i32;

    // step from 0, 1, 2, ...., n-1
    #[omp::target_data(map(tofrom: input))]
    {
        let start = Instant::now();

        for step in 0..n {
            // for each step s, stage goes s, s-1, ..., 0
            for stage in (0..=step).rev() {
                // In each state, construct a number (num_seq) of bitonic sequences of size seq_len (2, 4, ...)
                // num_seq stores the number of bitonic sequences at each stage. seq_len stores the length of the
                // bitonic sequence at each stage.
                let seq_len: usize = 2f64.powi(stage + 1) as usize;
                // Constant used in the kernel: 2**(step-stage).
                let two_power: usize = 1 << (step - stage);
                // Only the first half of each sequence swaps with its second half (seq_len/2).
                let h_len: usize = seq_len / 2;
                let num_seq: usize = size as usize / seq_len;

                // Offload the work to kernel: one iteration per pair (sequence, element of its first half).
                #[omp::target_teams_distribute_parallel_for(collapse(2), thread_limit(256))]
                for seq_num in 0..num_seq {
                    for k in 0..h_len {
                        let i = seq_num * seq_len + k;

                        // Check whether increasing or decreasing order.
                        let odd = seq_num / two_power;

                        // Boolean variable used to determine "increasing" or "decreasing" order.
                        let increasing = (odd % 2) == 0;

                        // Swap the elements in the bitonic sequence if needed
                        if ((input[i] > input[i + h_len]) && increasing) || ((input[i] < input[i + h_len]) && !increasing) {
                            let temp = input[i];
                            input[i] = input[i + h_len];
                            input[i + h_len] = temp;
                        }
                    }
                }
            } // end stage
        } // end step

        let time = start.elapsed().as_nanos() as i64;
        println!("Total kernel execution time: {:.6} (ms)", time as f32 * 1e-6f32);
        omp_ports::kernel_time(time as f64 * 1e-9);
    }
}

/// `SwapElements`: loop over the bitonic sequences at each stage in serial.
fn swap_elements(step: i32, stage: i32, num_sequence: i32, seq_len: i32, array: &mut [i32]) {
    for seq_num in 0..num_sequence {
        let odd = (seq_num as f64 / 2f64.powi(step - stage)) as i32;
        let increasing = (odd % 2) == 0;

        let h_len = seq_len / 2;

        // For all elements in a bitonic sequence, swap them if needed
        for i in seq_num * seq_len..seq_num * seq_len + h_len {
            let (i, swapped_ele) = (i as usize, (i + h_len) as usize);

            if ((array[i] > array[swapped_ele]) && increasing) || ((array[i] < array[swapped_ele]) && !increasing) {
                array.swap(i, swapped_ele);
            }
        } // end for all elements in a sequence
    } // end all sequences
}

/// `BitonicSort`: sorts the array of size 2^n in serial.
fn bitonic_sort(a: &mut [i32], n: i32) {
    // step from 0, 1, 2, ...., n-1
    for step in 0..n {
        // for each step s, stage goes s, s-1,..., 0
        for stage in (0..=step).rev() {
            // Sequences (same size) are formed at each stage.
            let num_sequence = 2f64.powi(n - stage - 1) as i32;
            // The length of the sequences (2, 4, ...).
            let sequence_len = 2f64.powi(stage + 1) as i32;

            swap_elements(step, stage, num_sequence, sequence_len, a);
        }
    }
}

fn usage(prog_name: &str, exponent: i32) -> ! {
    println!(" Incorrect parameters");
    println!(" Usage: {prog_name} n k \n");
    println!(" n: Integer exponent presenting the size of the input array. The number of element in");
    println!("    the array must be power of 2 (e.g., 1, 2, 4, ...). Please enter the corresponding");
    println!("    exponent between 0 and {}.", exponent - 1);
    println!(" k: Seed used to generate a random sequence.");
    std::process::exit(255)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let exp_max = (i32::MAX as f64).log2() as i32;

    // Read parameters.
    let prog = args[0].as_str();
    let n: i32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or_else(|| usage(prog, exp_max));
    // Verify the boundary of acceptance.
    if n < 0 || n >= exp_max {
        usage(prog, exp_max);
    }
    let seed: i32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or_else(|| usage(prog, exp_max));
    let size = 2f64.powi(n) as i32;

    println!("\nArray size: {size}, seed: {seed}");

    // Initialize the array randomly using a seed.
    let mut rng = GlibcRand::new(seed as u32);
    let mut data_gpu: Vec<i32> = (0..size).map(|_| rng.rand() % 1000).collect();
    let mut data_cpu = data_gpu.clone();

    println!("Bitonic sort (parallel)..");
    parallel_bitonic_sort(&mut data_gpu, n);

    println!("Bitonic sort (serial)..");
    bitonic_sort(&mut data_cpu, n);

    // Verify
    omp_ports::verdict(data_gpu == data_cpu);
}
