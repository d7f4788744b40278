//! scatterAdd (HeCBench `src/scatterAdd-omp/`, `main.cpp` and `kernels.h`, commit f27000a51): PyTorch's `scatter_add_`
//! along dimension 0 with an index of `batch_size` rows into an `output_size × vector_dim` output, each element added
//! with `#pragma omp atomic update`. Two kernels (`kernels.h`), both `target teams distribute parallel for collapse(2)
//! num_threads(512)`: `scatterAdd_kernel` with the dimension loop outermost, `scatterAdd2_kernel` with the batch loop
//! outermost. `main` builds the index with `srand(2); rand() % output_size` and a source of `-1.f`, computes
//! `scatter_add_reference` on the host, and inside one `target data map(to: source, index) map(alloc: output)`: ten
//! times (verify and warm up) zeroes `output` on the host, `target update to(output)`, runs `scatterAdd2_kernel`; then
//! `target update from(output)`, compares with the reference (`|a - b| > 1e-3`) and prints PASS/FAIL; then times
//! `repeat` launches of kernel 1 and `repeat` launches of kernel 2 (steady clock around each loop, printed as the
//! average per launch in µs).
//!
//!     scatter_add <batch size> <output size> <vector dimension> <repeat>     (the four arguments are required)
//!
//! PASS/FAIL is printed where the original prints it (a FAIL exits there with status 1, skipping the timed loops);
//! `kernel time:` is the sum of the two timed loops (the original prints each as an average per launch; those lines are
//! kept).
//!
//! What changed, and why:
//! - The data region is `omp::target_enter_data!(map(to: source, index), map(alloc: output))` …
//!   `omp::target_exit_data!(map(release: …))` instead of a structured `#[omp::target_data(...)]` block, because the
//!   original's host code touches `output` inside its `target data` region (the `memset` before each `target update
//!   to(output)`, and the PASS check after `target update from(output)`). Written as a block, omp-rs refuses both host
//!   accesses: `output[k] = 0.0` and the check's `output[k]` give "error[E0277]: `MappedMut<'_, '_, f32>` is mapped to
//!   the device by an enclosing `#[omp::target_data]` (or a pending `nowait` region before the next
//!   `omp::taskwait!()`): host code there cannot access its elements" (note: "use it in a target region, copy it with
//!   `omp::target_update!(from: …)` and read it after the block, …"), and `output.fill(0.0)` gives "error[E0599]: no
//!   method named `fill` found for mutable reference `&mut MappedMut<'_, '_, f32>`". So `target update to/from` inside
//!   a `target_data` block cannot be used for what it is for in C (the host changing or reading the data between
//!   kernels). Enter/exit data leaves `output` ordinary host data in between and keeps the original's transfers
//!   (`source`/`index` in once, `output` updated to/from as written, no region copies anything, nothing copied back at
//!   the end), except that omp-rs's `map(alloc: output)` copies the host's `output` in too (omp-rs starts
//!   `alloc`/`from` mappings as a copy of the host data, by design; 1 KiB here, before the timed loops; seen with
//!   `LIBOMPTARGET_INFO=32`).
//! - `rand()`/`srand(2)` is glibc's generator (`TYPE_3` additive feedback), written out below so that the index is the
//!   original's on this machine.
//! - The index is `i32` (`int`) as in C; the kernels index with `idx[i] as usize`.
//!
//! panel-args: 1000 32 8 10
//! device-args: 10000000 32 8 1000
//! cpu-args: 1000000 32 8 10

#![allow(clippy::needless_range_loop)] // the original's loops, as written

use omp_ports::GlibcRand;
use std::time::Instant;

/// `MAX_THREADS_PER_BLOCK` of `kernels.h`: the kernels' `num_threads`.
const MAX_THREADS_PER_BLOCK: usize = 512;

/// `scatter_add_reference`: the host reference, dimension loop outermost.
fn scatter_add_reference(batch_size: usize, vector_dim: usize, out: &mut [f32], idx: &[i32], src: &[f32]) {
    for d in 0..vector_dim {
        for i in 0..batch_size {
            let index = idx[i] as usize;
            out[index * vector_dim + d] += src[i * vector_dim + d];
        }
    }
}

/// `scatterAdd_kernel`: the dimension loop outermost.
#[omp::directives]
fn scatter_add_kernel(idx: &[i32], src: &[f32], out: &mut [f32], batch_size: usize, vector_dim: usize) {
    #[omp::target_teams_distribute_parallel_for(collapse(2), num_threads(MAX_THREADS_PER_BLOCK))]
    for d in 0..vector_dim {
        for i in 0..batch_size {
            #[omp::atomic]
            out[idx[i] as usize * vector_dim + d] += src[i * vector_dim + d];
        }
    }
}

/// `scatterAdd2_kernel`: the batch loop outermost.
#[omp::directives]
fn scatter_add2_kernel(idx: &[i32], src: &[f32], out: &mut [f32], batch_size: usize, vector_dim: usize) {
    #[omp::target_teams_distribute_parallel_for(collapse(2), num_threads(MAX_THREADS_PER_BLOCK))]
    for i in 0..batch_size {
        for d in 0..vector_dim {
            #[omp::atomic]
            out[idx[i] as usize * vector_dim + d] += src[i * vector_dim + d];
        }
    }
}

/// `index_accumulate`: builds the inputs, verifies kernel 2 against the reference (PASS/FAIL), times both kernels;
/// returns the two timed spans' seconds.
#[omp::directives]
fn index_accumulate(batch_size: usize, output_size: usize, vector_dim: usize, repeat: usize) -> f64 {
    let mut rng = GlibcRand::new(2);
    let index: Vec<i32> = (0..batch_size).map(|_| rng.rand() % output_size as i32).collect();
    let source: Vec<f32> = vec![-1.0; batch_size * vector_dim]; // or random values
    let mut output: Vec<f32> = vec![0.0; output_size * vector_dim];
    let mut output_ref: Vec<f32> = vec![0.0; output_size * vector_dim];
    scatter_add_reference(batch_size, vector_dim, &mut output_ref, &index, &source);

    // #pragma omp target data map(to: source[0:batch_size * vector_dim], index[0:batch_size])
    //                         map(alloc: output[0:output_size * vector_dim])
    omp::target_enter_data!(map(to: source, index), map(alloc: output));
    // verify and warmup
    for _ in 0..10 {
        output.fill(0.0);
        omp::target_update!(to: output);
        scatter_add2_kernel(&index, &source, &mut output, batch_size, vector_dim);
    }
    omp::target_update!(from: output);
    let mut ok = true;
    for i in 0..output_size * vector_dim {
        if (output[i] - output_ref[i]).abs() > 1e-3 {
            println!("output {i}: {:.6} {:.6}", output[i], output_ref[i]);
            ok = false;
            break;
        }
    }
    omp_ports::verdict(ok); // the original's `printf("%s\n", ok ? "PASS" : "FAIL")`; exits with status 1 on FAIL

    let start = Instant::now();
    for _ in 0..repeat {
        scatter_add_kernel(&index, &source, &mut output, batch_size, vector_dim);
    }
    let time1 = omp_ports::seconds_since(start);
    println!("Average execution time of kernel1: {:.6} (us)", time1 * 1e6 / repeat as f64);

    let start = Instant::now();
    for _ in 0..repeat {
        scatter_add2_kernel(&index, &source, &mut output, batch_size, vector_dim);
    }
    let time2 = omp_ports::seconds_since(start);
    println!("Average execution time of kernel2: {:.6} (us)", time2 * 1e6 / repeat as f64);
    omp::target_exit_data!(map(release: source, index, output));
    time1 + time2
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        println!("Usage: {} <batch size> <output size> <vector dimension> <repeat>", args[0]);
        std::process::exit(1);
    }
    let batch_size: usize = omp_ports::arg(1, 0);
    let output_size: usize = omp_ports::arg(2, 0);
    let vector_dim: usize = omp_ports::arg(3, 0);
    let repeat: usize = omp_ports::arg(4, 0);
    println!("batch_size: {batch_size}");
    println!("output_size (range of index values): {output_size}");
    println!("vector_dimension: {vector_dim}");
    let seconds = index_accumulate(batch_size, output_size, vector_dim, repeat);
    omp_ports::kernel_time(seconds);
}
