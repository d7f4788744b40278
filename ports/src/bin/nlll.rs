//! nlll: the forward pass of the negative log-likelihood loss, reduced by one team through two team-local arrays
//! and a barrier, thread 0 summing the threads' parts (HeCBench `src/nlll-omp/main.cpp` with
//! `src/nlll-cuda/reference.h`, commit f27000a51), ported as written.
//!
//! The original: `nframe` × `n_classes` inputs and `nframe` weights from `uniform_real_distribution<float>(-1, 1)`,
//! `nframe` targets from `uniform_int_distribution<int>(0, n_classes - 1)`, one `std::default_random_engine(123)`;
//! the host's `reference`; then for team sizes 64, 128, ..., 1024 (`eval<.., GPU_THREADS>`) a `target data` region
//! holding `repeat` calls of `nll_loss_forward_reduce2d_kernel`: `target teams num_teams(1)
//! thread_limit(NLL_LOSS_THREADS)` around `accscalar_t sm_inputs[NLL_LOSS_THREADS], acc_weight[NLL_LOSS_THREADS]`,
//! a `parallel` block where each thread accumulates its frames (`i = tid; i < nframe; i += nthreads`), a barrier,
//! and thread 0 summing the parts into `*output` and `*total_weight`. Each size prints its average time per call
//! and checks both values within 0.1 of the reference.
//!
//! What changed, and why:
//! - The team size is a template parameter of the kernel (`NLL_LOSS_THREADS`, the team-local arrays' length); here
//!   it is the function's argument, the arrays are 1024 long (the largest size) and the team has `threads`
//!   threads: a region's team-local arrays have a const length, and a const generic parameter cannot reach the
//!   device kernel.
//! - `weights != nullptr ? weights[t] : 1` is `weights[t]`: the program always passes weights.
//! - The generator is libstdc++'s (`omp_ports::Minstd`: `minstd_rand0`, `generate_canonical<float>`, the integer
//!   down-scaling).
//! - `kernel time:` is the sum over the five sizes of the original's span (each size's repeat loop), in seconds.
//!
//! panel-args: 256 100 2
//! device-args: 2048 1000 1000
//! cpu-args: 2048 1000 10

use std::time::Instant;

use omp::{MappedMut, MappedRef};

/// `NLL_LOSS_THREADS` at its largest: the team-local arrays' length.
const MAX_THREADS: usize = 1024;

/// `nll_loss_forward_reduce2d_kernel<float, float, int, threads>`.
#[allow(clippy::too_many_arguments)]
#[omp::directives]
fn nll_loss_forward_reduce2d_kernel(
    threads: usize,
    output: &mut MappedMut<'_, '_, f32>,
    total_weight: &mut MappedMut<'_, '_, f32>,
    input: &MappedRef<'_, '_, f32>,
    target: &MappedRef<'_, '_, i32>,
    weights: &MappedRef<'_, '_, f32>,
    size_average: bool,
    nframe: i64,
    kdim: i64,
    ignore_index: i64,
) {
    #[omp::target_teams(num_teams(1), thread_limit(threads))]
    {
        let mut sm_inputs = [0.0f32; MAX_THREADS];
        let mut acc_weight = [0.0f32; MAX_THREADS];
        #[omp::parallel]
        {
            let tid = omp::get_thread_num();
            let nthreads = omp::get_num_threads();

            sm_inputs[tid] = 0.0;
            acc_weight[tid] = 0.0;

            for i in (tid as i64..nframe).step_by(nthreads) {
                let t = target[i as usize];
                if t as i64 != ignore_index {
                    let cur_weight = weights[t as usize];
                    sm_inputs[tid] -= input[(i * kdim + t as i64) as usize] * cur_weight;
                    acc_weight[tid] += cur_weight;
                }
            }

            omp::barrier!();

            if tid == 0 {
                let mut output_acc = 0.0f32;
                let mut total_weight_acc = 0.0f32;
                for i in 0..nthreads {
                    output_acc += sm_inputs[i];
                    total_weight_acc += acc_weight[i];
                }
                total_weight[0] = total_weight_acc;
                if size_average {
                    output[0] = output_acc / total_weight_acc;
                } else {
                    output[0] = output_acc;
                }
            }
        }
    }
}

/// `reference` (reference.h).
fn reference(input: &[f32], target: &[i32], weights: &[f32], size_average: bool, nframe: i64, kdim: i64, ignore_index: i64) -> (f32, f32) {
    let (mut output_acc, mut total_weight_acc) = (0.0f32, 0.0f32);
    for i in 0..nframe {
        let t = target[i as usize];
        if t as i64 != ignore_index {
            let cur_weight = weights[t as usize];
            output_acc -= input[(i * kdim + t as i64) as usize] * cur_weight;
            total_weight_acc += cur_weight;
        }
    }
    (if size_average { output_acc / total_weight_acc } else { output_acc }, total_weight_acc)
}

/// `eval<float, int, threads>`: the timed calls at one team size and their check; the span in seconds.
#[allow(clippy::too_many_arguments)]
#[omp::directives]
fn eval(
    threads: usize,
    nframe: i64,
    n_classes: i64,
    size_average: bool,
    ignore_index: i64,
    r_output: f32,
    r_total_weight: f32,
    h_input: &[f32],
    h_weights: &[f32],
    h_target: &[i32],
    repeat: usize,
) -> (f64, bool) {
    let _ = n_classes;
    let mut h_output = vec![0.0f32; 1];
    let mut h_total_weight = vec![0.0f32; 1];
    let time;
    #[omp::target_data(map(to: h_input, h_weights, h_target), map(from: h_output, h_total_weight))]
    {
        let start = Instant::now();
        for _ in 0..repeat {
            nll_loss_forward_reduce2d_kernel(
                threads,
                &mut h_output,
                &mut h_total_weight,
                &h_input,
                &h_target,
                &h_weights,
                size_average,
                nframe,
                n_classes,
                ignore_index,
            );
        }
        time = omp_ports::seconds_since(start);
        println!("\nThread block size: {threads}");
        println!("Average execution time of nll loss forward kernel: {:.6} (us)", time * 1e6 / repeat as f64);
    }
    let mut ok = true;
    if (h_output[0] - r_output).abs() > 1e-1 || (h_total_weight[0] - r_total_weight).abs() > 1e-1 {
        println!("{:.6} {:.6} {:.6} {:.6}", h_output[0], r_output, h_total_weight[0], r_total_weight);
        ok = false;
    }
    println!("{}", if ok { "PASS" } else { "FAIL" });
    (time, ok)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        println!("Usage: {} <minibatch size> <number of classes> <repeat>", args[0]);
        std::process::exit(1);
    }
    println!("=========== Data type is FP32 ==========");
    let nframe: i64 = omp_ports::arg(1, 1);
    let n_classes: i64 = omp_ports::arg(2, 1);
    let repeat: usize = omp_ports::arg(3, 1);

    let input_size = (nframe * n_classes) as usize;
    let (weights_size, target_size) = (nframe as usize, nframe as usize);

    let mut g = omp_ports::Minstd::new(123);
    println!("Initialization of input data may take a while..");
    let h_input: Vec<f32> = (0..input_size).map(|_| g.uniform_f32(-1.0, 1.0)).collect();
    let h_weights: Vec<f32> = (0..weights_size).map(|_| g.uniform_f32(-1.0, 1.0)).collect();
    let h_target: Vec<i32> = (0..target_size).map(|_| g.uniform_int(0, n_classes as u64 - 1) as i32).collect();

    let size_average = true;
    // the index may not necessarily be in the class range
    let ignore_index = n_classes / 2;

    // verify the loss function
    let (r_output, r_total_weight) = reference(&h_input, &h_target, &h_weights, size_average, nframe, n_classes, ignore_index);

    let mut total = 0.0;
    let mut all_ok = true;
    for threads in [64, 128, 256, 512, 1024] {
        let (time, ok) =
            eval(threads, nframe, n_classes, size_average, ignore_index, r_output, r_total_weight, &h_input, &h_weights, &h_target, repeat);
        total += time;
        all_ok &= ok;
    }
    if !all_ok {
        std::process::exit(1);
    }
    omp_ports::kernel_time(total);
}
