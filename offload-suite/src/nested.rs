//! Loop directives nested in a parallel loop's body, as HeCBench's OpenMP programs write them: a
//! `target teams distribute` over rows with a `parallel for reduction(+: ..)` over each row (simpleSpmv's
//! `vector_mv_csr_parallel`, accuracy's kernel), and a host `parallel_for` holding a `parallel_for` and a `simd`. The
//! nested loop runs sequentially in its enclosing iteration (`omp_rs_codegen::syntax::body::NestedLoop`), so every result
//! equals the sequential loop's exactly.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{same, vec_f64, Check};

/// Every check of this module.
pub const CHECKS: &[Check] = &[
    ("nested: simpleSpmv's CSR rows (teams distribute) with a parallel_for reduction(+: temp) per row", check_csr_rows),
    ("nested: accuracy's top-k count, a parallel_for reduction per row and an atomic per team", check_accuracy),
    ("nested: a host parallel_for holding a parallel_for reduction(max: m) and a simd loop", check_host_nested),
    ("nested: logprob's parallel reduction(max: ..) and reduction(+: ..) regions in a collapsed target loop's iteration", check_logprob),
    (
        "nested: BabelStream Fortran's copy(), a target loop then an orphaned omp::barrier!(); called in a host team it panics",
        check_orphaned_barrier,
    ),
];

/// logprob-omp's `log_probs_kernel` as written (main.cpp:27-59), `float` as f64: per (batch, step), two nested
/// `parallel` regions with reductions over the vocabulary, each a team of one thread (nested regions are inactive).
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn log_probs(
    logits: &[f64],
    ids: &[usize],
    lengths: &[usize],
    log_probs: &mut [f64],
    batch_size: usize,
    max_input_length: usize,
    vocab_size: usize,
    vocab_size_padded: usize,
) {
    #[omp::target_teams_distribute_parallel_for(collapse(2), num_teams(batch_size * (max_input_length - 1)), num_threads(128))]
    for bidx in 0..batch_size {
        for step in 0..max_input_length - 1 {
            if step + 1 < lengths[bidx] {
                let batch_offset = bidx * max_input_length * vocab_size_padded;
                let step_offset = step * vocab_size_padded;
                let base = batch_offset + step_offset;
                // Step 1: find max(logits) over vocab
                let mut max_val = f64::MIN;
                #[omp::parallel(reduction(max: max_val))]
                for i in 0..vocab_size {
                    let v = logits[base + i];
                    if v > max_val {
                        max_val = v;
                    }
                }
                // Step 2: sum_i exp(logits[i] - max_val)
                let mut sum_exp = 0.0;
                #[omp::parallel(reduction(+: sum_exp))]
                for i in 0..vocab_size {
                    sum_exp += (logits[base + i] - max_val).exp();
                }
                // Step 3: log prob of the next token
                let idx = step + bidx * (max_input_length - 1);
                let token_idx = (step + 1) + bidx * max_input_length;
                log_probs[idx] = logits[base + ids[token_idx]] - max_val - (sum_exp + 1e-9).ln();
            }
        }
    }
}

fn check_logprob(rng: &mut StdRng) -> Result<(), String> {
    let (batch, len, vocab) = (rng.gen_range(1..6), rng.gen_range(2..9), rng.gen_range(1..300));
    let padded = vocab + rng.gen_range(0..4);
    let logits: Vec<f64> = (0..batch * len * padded).map(|_| rng.gen_range(-4.0..4.0)).collect();
    let ids: Vec<usize> = (0..batch * len).map(|_| rng.gen_range(0..vocab)).collect();
    let lengths: Vec<usize> = (0..batch).map(|_| rng.gen_range(0..len + 1)).collect();
    let mut got = vec![7.0; batch * (len - 1)];
    log_probs(&logits, &ids, &lengths, &mut got, batch, len, vocab, padded);
    let mut want = vec![7.0; batch * (len - 1)];
    for b in 0..batch {
        for step in 0..len - 1 {
            if step + 1 < lengths[b] {
                let base = b * len * padded + step * padded;
                let row = &logits[base..base + vocab];
                let m = row.iter().fold(f64::MIN, |m, &v| if v > m { v } else { m });
                let sum: f64 = row.iter().fold(0.0, |s, &v| s + (v - m).exp());
                want[step + b * (len - 1)] = logits[base + ids[step + 1 + b * len]] - m - (sum + 1e-9).ln();
            }
        }
    }
    // The device's `exp`/`ln` may differ from the host's in the last place.
    match got.iter().zip(&want).position(|(g, w)| (g - w).abs() > 1e-12 * w.abs().max(1.0)) {
        None => Ok(()),
        Some(i) => Err(format!("log_probs[{i}] = {}, sequential {}", got[i], want[i])),
    }
}

/// simpleSpmv-omp's `spmv_csr_parallel` kernel as written (kernels.cpp:120-141), `REAL` = f64.
#[omp::directives]
fn spmv_csr_parallel(
    num_teams: usize,
    threads_per_row: usize,
    row_indices: &[usize],
    col_indices: &[usize],
    values: &[f64],
    x: &[f64],
    y: &mut [f64],
) {
    let num_rows = y.len();
    #[omp::target_data(map(to: row_indices, col_indices, values, x), map(from: y))]
    {
        #[omp::target_teams_distribute(num_teams(num_teams))]
        for i in 0..num_rows {
            let row_start = row_indices[i];
            let row_end = row_indices[i + 1];
            let mut temp = 0.0;
            #[omp::parallel_for(num_threads(threads_per_row), reduction(+: temp))]
            for j in row_start..row_end {
                temp += values[j] * x[col_indices[j]];
            }
            y[i] = temp;
        }
    }
}

fn check_csr_rows(rng: &mut StdRng) -> Result<(), String> {
    let num_rows = rng.gen_range(1..600);
    let mut row_indices = vec![0usize];
    let (mut col_indices, mut values) = (Vec::new(), Vec::new());
    for _ in 0..num_rows {
        // Some rows empty, some dense.
        let nnz = if rng.gen_bool(0.2) { 0 } else { rng.gen_range(1..=num_rows.min(40)) };
        for _ in 0..nnz {
            col_indices.push(rng.gen_range(0..num_rows));
            values.push(rng.gen_range(-1.0..1.0));
        }
        row_indices.push(col_indices.len());
    }
    let x = vec_f64(rng, num_rows);
    let mut y = vec![f64::NAN; num_rows];
    spmv_csr_parallel(rng.gen_range(1..64), 32, &row_indices, &col_indices, &values, &x, &mut y);
    let want: Vec<f64> =
        (0..num_rows).map(|i| (row_indices[i]..row_indices[i + 1]).fold(0.0, |t, j| t + values[j] * x[col_indices[j]])).collect();
    same("y", &y, &want)
}

/// accuracy-omp's kernel (main.cpp:56-73): rows whose label's prediction is among the top k.
#[omp::directives]
fn accuracy_kernel(ngrid: usize, nrows: usize, ndims: usize, top_k: i32, label: &[i32], data: &[f32], count: &mut [i32]) {
    #[omp::target_data(map(to: label, data), map(tofrom: count))]
    {
        #[omp::target_teams_distribute(num_teams(ngrid))]
        for row in 0..nrows {
            let label_data = label[row];
            let label_pred = data[row * ndims + label_data as usize];
            let mut ngt = 0;
            #[omp::parallel_for(reduction(+: ngt), num_threads(32))]
            for col in 0..ndims {
                let pred = data[row * ndims + col];
                if pred > label_pred || (pred == label_pred && col as i32 <= label_data) {
                    ngt += 1;
                }
            }
            if ngt <= top_k {
                #[omp::atomic]
                count[0] += 1;
            }
        }
    }
}

fn check_accuracy(rng: &mut StdRng) -> Result<(), String> {
    let (nrows, ndims) = (rng.gen_range(1..2000), rng.gen_range(4..40));
    // At most half the columns, so that some rows miss the top k.
    let top_k = rng.gen_range(1..=ndims as i32 / 2);
    let label: Vec<i32> = (0..nrows).map(|_| rng.gen_range(0..ndims as i32)).collect();
    // Few distinct values, so that ties (`pred == label_pred`) happen.
    let data: Vec<f32> = (0..nrows * ndims).map(|_| rng.gen_range(0..8) as f32 * 0.25).collect();
    let mut count = [0i32];
    accuracy_kernel(nrows / 4 + 1, nrows, ndims, top_k, &label, &data, &mut count);
    let want = (0..nrows)
        .filter(|&row| {
            let lp = data[row * ndims + label[row] as usize];
            let ngt = (0..ndims).filter(|&c| data[row * ndims + c] > lp || (data[row * ndims + c] == lp && c as i32 <= label[row])).count();
            ngt as i32 <= top_k
        })
        .count() as i32;
    same("count", &count, &[want])
}

/// Per row: its maximum (a nested reduction) and the row scaled by it (a nested `simd` loop writing the row).
#[omp::directives]
fn normalise_rows(n: usize, a: &[f64], peak: &mut [f64], out: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..peak.len() {
        let mut m = f64::NEG_INFINITY;
        #[omp::parallel_for(reduction(max: m), schedule(static))]
        for j in 0..n {
            m = m.max(a[i * n + j]);
        }
        peak[i] = m;
        #[omp::simd]
        for j in 0..n {
            out[i * n + j] = a[i * n + j] / m;
        }
    }
}

fn check_host_nested(rng: &mut StdRng) -> Result<(), String> {
    let (rows, n) = (rng.gen_range(1..300), rng.gen_range(1..50));
    let a: Vec<f64> = (0..rows * n).map(|_| rng.gen_range(0.5..2.0)).collect();
    let (mut peak, mut out) = (vec![0.0; rows], vec![0.0; rows * n]);
    normalise_rows(n, &a, &mut peak, &mut out);
    let want_peak: Vec<f64> = (0..rows).map(|i| a[i * n..(i + 1) * n].iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v))).collect();
    let want_out: Vec<f64> = (0..rows * n).map(|k| a[k] / want_peak[k / n]).collect();
    same("peak", &peak, &want_peak)?;
    same("out", &out, &want_out)
}

/// BabelStream's Fortran `copy()` (OpenMPTargetStream.F90) as written: a target loop, then `!$omp barrier` outside
/// every parallel region, which binds to the initial thread's team of one.
#[omp::directives]
fn stream_copy(a: &[f64], c: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..c.len() {
        c[i] = a[i];
    }
    omp::barrier!();
}

/// The same fn called by the threads of a host team: its barrier would bind to that team, which omp-rs refuses at
/// run time (a panic in each thread before any waits), never a hang.
#[omp::directives]
fn stream_copy_in_team(a: &[f64]) -> usize {
    let mut done = 0usize;
    #[omp::parallel(num_threads(2), reduction(+: done))]
    {
        let mut c = vec![0.0; a.len()];
        stream_copy(a, &mut c);
        done += 1;
    }
    done
}

fn check_orphaned_barrier(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let a = vec_f64(rng, n);
    let mut c = vec![0.0; n];
    stream_copy(&a, &mut c);
    same("c", &c, &a)?;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stream_copy_in_team(&a)));
    let why = match r {
        // A team of one thread (the runtime gave no more): the barrier binds to it and waits for nothing.
        Ok(1) => return Ok(()),
        Ok(done) => return Err(format!("the orphaned barrier in a 2-thread team did not panic ({done} threads ran)")),
        Err(p) => p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default(),
    };
    if !why.contains("omp::barrier!()") || !why.contains("move the barrier there") {
        return Err(format!("unexpected panic: {why}"));
    }
    Ok(())
}
