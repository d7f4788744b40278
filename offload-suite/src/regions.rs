//! The target regions under test, each with its sequential reference and a check on fresh random inputs.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, vec_f64, Check};

/// Every check of the suite.
pub const CHECKS: &[Check] = &[
    ("saxpy (fn-level target_teams_distribute_parallel_for)", check_saxpy),
    ("target_parallel_for, f32 and step_by", check_scale_f32),
    ("collapse(2) 5-point stencil", check_stencil),
    ("collapse(3) nested init, reversed loop", check_nested_init),
    ("collapse(2)/(3) bodies with a loop (tiled walk): partial tiles, few teams, a reduction", check_tiled_walk),
    ("collapse(2)/(3) written column-major, t[col * nr + row] (outer-first walk), with a reduction", check_outer_first_walk),
    (
        "inner loops reading through affine windows: matvec, strided, shifted, a changing offset, past the end, below zero",
        check_affine_reads,
    ),
    (
        "inner step_by loops: grid-stride column sums, i64, char and unsuffixed ranges, a start past the end, a read past the end",
        check_stepped_reads,
    ),
    ("reduction + * min max on f64", check_float_reductions),
    ("reduction & | ^ on i64, + on u64, && || on bool", check_int_reductions),
    ("atomic histogram and atomic scalar sum", check_atomics),
    ("atomic += and -= into small arrays (combined per team) and a larger one, f32 and wrapping u32", check_team_adds),
    ("target_data + nested regions + target_update", check_data_region),
    ("target_enter_data / target_exit_data", check_enter_exit),
    ("explicit maps with sections, num_teams, thread_limit, device(0)", check_explicit_maps),
    ("if(false) runs on the host", check_if_false),
    ("firstprivate / private scalars", check_privates),
    ("target fn with two nested loop regions", check_target_fn),
    ("device panic: out-of-bounds index is reported", check_device_panic),
    ("map(present) on unmapped data is an error, the process continues", check_present),
];

// ---------------------------------------------------------------------------------------------------------------

#[omp::target_teams_distribute_parallel_for]
fn saxpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
}

fn check_saxpy(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(100_000..300_000);
    let (a, x, y0) = (rng.gen_range(-3.0..3.0), vec_f64(rng, n), vec_f64(rng, n));
    let mut y = y0.clone();
    saxpy(a, &x, &mut y);
    let want: Vec<f64> = y0.iter().zip(&x).map(|(y, x)| y + a * x).collect();
    same("y", &y, &want)
}

#[omp::target_parallel_for]
fn scale_f32(s: f32, step: usize, x: &[f32], y: &mut [f32]) {
    for i in (0..x.len()).step_by(step) {
        y[i] = s * x[i] + 1.0;
    }
}

fn check_scale_f32(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(10_000..50_000);
    let step = rng.gen_range(1..5);
    let x: Vec<f32> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let s: f32 = rng.gen_range(0.5..2.0);
    let mut y = vec![-7.0f32; n];
    scale_f32(s, step, &x, &mut y);
    let want: Vec<f32> = (0..n).map(|i| if i % step == 0 { s * x[i] + 1.0 } else { -7.0 }).collect();
    same("y", &y, &want)
}

#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn stencil(n: usize, m: usize, a: &[f64], b: &mut [f64]) {
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            b[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1]);
        }
    }
}

fn check_stencil(rng: &mut StdRng) -> Result<(), String> {
    let (n, m) = (rng.gen_range(50..400), rng.gen_range(50..400));
    let a = vec_f64(rng, n * m);
    let b0 = vec_f64(rng, n * m);
    let mut b = b0.clone();
    stencil(n, m, &a, &mut b);
    let mut want = b0;
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            want[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1]);
        }
    }
    same("b", &b, &want)
}

#[omp::target_teams_distribute_parallel_for(collapse(3))]
fn nested_init(ni: i32, nj: i32, nk: i32, out: &mut [f64]) {
    for k in (0..nk).rev() {
        for j in 0..nj {
            for i in 0..ni {
                out[(i + ni * (j + nj * k)) as usize] = 0.00000001 * i as f64 * j as f64 * k as f64;
            }
        }
    }
}

fn check_nested_init(rng: &mut StdRng) -> Result<(), String> {
    let (ni, nj, nk) = (rng.gen_range(5..60), rng.gen_range(5..60), rng.gen_range(5..60));
    let mut out = vec![-1.0; (ni * nj * nk) as usize];
    nested_init(ni, nj, nk, &mut out);
    let mut want = vec![0.0; out.len()];
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                want[(i + ni * (j + nj * k)) as usize] = 0.00000001 * i as f64 * j as f64 * k as f64;
            }
        }
    }
    same("out", &out, &want)
}

// Nests written column-major, as HeCBench's laplace: the index moves by 1 with the outer loop, so the kernel walks
// with neighbouring threads on neighbouring outer iterations (omp_device::launch::Walk::flat_outer_first). Two arrays
// written at the same index, reads of neighbours, odd sizes, a reduction and a 3-deep nest.

#[omp::target_teams_distribute_parallel_for(collapse(2), reduction(+: sum))]
fn red_sweep(half: usize, num: usize, nr: usize, black: &[f32], red: &mut [f32], change: &mut [f32]) -> f32 {
    let mut sum: f32 = 0.0;
    for row in 1..=half {
        for col in 1..=num {
            let ind = col * nr + row;
            let old = red[ind];
            let new = 0.25 * (black[row + (col - 1) * nr] + black[row + (col + 1) * nr] + black[ind - 1] + black[ind + 1]);
            red[ind] = new;
            change[ind] = (new - old) * (new - old);
            sum += new;
        }
    }
    sum
}

#[omp::target_teams_distribute_parallel_for(collapse(3))]
fn planes_column_major(p: usize, n: usize, m: usize, x: &[f64], out: &mut [f64]) {
    for q in 0..p {
        for i in 0..n {
            for j in 0..m {
                out[q * n * m + j * n + i] = x[q * n * m + i * m + j] * 2.0 + q as f64;
            }
        }
    }
}

fn check_outer_first_walk(rng: &mut StdRng) -> Result<(), String> {
    for (half, num) in [(rng.gen_range(1..70), rng.gen_range(1..300)), (rng.gen_range(200..600), 3), (257, 1)] {
        let nr = half + 2;
        let size = nr * (num + 2);
        let black: Vec<f32> = (0..size).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let mut red: Vec<f32> = (0..size).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let mut change = vec![0.0f32; size];
        let (mut want_red, mut want_change) = (red.clone(), change.clone());
        let mut want_sum = 0.0f32;
        for row in 1..=half {
            for col in 1..=num {
                let ind = col * nr + row;
                let new = 0.25 * (black[row + (col - 1) * nr] + black[row + (col + 1) * nr] + black[ind - 1] + black[ind + 1]);
                want_change[ind] = (new - want_red[ind]) * (new - want_red[ind]);
                want_red[ind] = new;
                want_sum += new;
            }
        }
        let sum = red_sweep(half, num, nr, &black, &mut red, &mut change);
        same("red", &red, &want_red)?;
        same("change", &change, &want_change)?;
        if (sum - want_sum).abs() > 1e-3 * (1.0 + want_sum.abs()) {
            return Err(format!("sum {sum} against {want_sum} ({half} x {num})"));
        }
    }
    let (p, n, m) = (rng.gen_range(1..5), rng.gen_range(1..90), rng.gen_range(1..90));
    let x = vec_f64(rng, p * n * m);
    let mut out = vec![0.0; p * n * m];
    let mut want = out.clone();
    for q in 0..p {
        for i in 0..n {
            for j in 0..m {
                want[q * n * m + j * n + i] = x[q * n * m + i * m + j] * 2.0 + q as f64;
            }
        }
    }
    planes_column_major(p, n, m, &x, &mut out);
    same("out", &out, &want)
}

// Collapsed nests whose body runs a loop walk in tiles on GPUs (omp_device::launch::Walk): shapes with partial tiles
// at both edges, a nest too small for a tile's rows, num_teams(3) (each team walks many tiles), collapse(3), and a
// reduction, whose partials every thread of a team (also those past the edges) contributes to.

#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn matmul(n: usize, m: usize, l: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    for i in 0..n {
        for j in 0..m {
            let mut dot = 0.0;
            for k in 0..l {
                dot += a[i * l + k] * b[k * m + j];
            }
            c[i * m + j] = dot;
        }
    }
}

#[omp::target_teams_distribute_parallel_for(collapse(2), num_teams(3))]
fn matmul_three_teams(n: usize, m: usize, l: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    for i in 0..n {
        for j in 0..m {
            let mut dot = 0.0;
            for k in 0..l {
                dot += a[i * l + k] * b[k * m + j];
            }
            c[i * m + j] = dot;
        }
    }
}

#[omp::target_teams_distribute_parallel_for(collapse(3), reduction(+: total))]
fn prefix_sums(p: usize, n: usize, m: usize, x: &[f64], out: &mut [f64]) -> f64 {
    let mut total: f64 = 0.0;
    for q in 0..p {
        for i in 0..n {
            for j in 0..m {
                let mut acc = 0.0;
                for k in 0..=j {
                    acc += x[(q * n + i) * m + k];
                }
                out[(q * n + i) * m + j] = acc;
                total += 1.0;
            }
        }
    }
    total
}

fn check_tiled_walk(rng: &mut StdRng) -> Result<(), String> {
    for (n, m) in [(rng.gen_range(9..300), rng.gen_range(33..300)), (rng.gen_range(1..8), rng.gen_range(32..90)), (300, 64)] {
        let l = rng.gen_range(1..40);
        let (a, b) = (vec_f64(rng, n * l), vec_f64(rng, l * m));
        let mut want = vec![0.0; n * m];
        for i in 0..n {
            for j in 0..m {
                let mut dot = 0.0;
                for k in 0..l {
                    dot += a[i * l + k] * b[k * m + j];
                }
                want[i * m + j] = dot;
            }
        }
        let mut c = vec![f64::NAN; n * m];
        matmul(n, m, l, &a, &b, &mut c);
        same(&format!("c ({n} x {m} x {l})"), &c, &want)?;
        let mut c = vec![f64::NAN; n * m];
        matmul_three_teams(n, m, l, &a, &b, &mut c);
        same(&format!("c, num_teams(3) ({n} x {m} x {l})"), &c, &want)?;
    }
    let (p, n, m) = (rng.gen_range(1..4), rng.gen_range(5..40), rng.gen_range(32..100));
    let x = vec_f64(rng, p * n * m);
    let mut out = vec![f64::NAN; p * n * m];
    let total = prefix_sums(p, n, m, &x, &mut out);
    let mut want = vec![0.0; p * n * m];
    for r in 0..p * n {
        let mut acc = 0.0;
        for j in 0..m {
            acc += x[r * m + j];
            want[r * m + j] = acc;
        }
    }
    same("prefix sums", &out, &want)?;
    if total != (p * n * m) as f64 {
        return Err(format!("reduction over a tiled walk: {total}, want {}", p * n * m));
    }
    Ok(())
}

// Inner loops whose reads are affine in the loop variable read through windows checked once per loop
// (omp_device::affine): row and column products, a shifted index, an offset the body changes (no window applies to
// it: every read falls back to the ordinary check), a loop variable shadowed in the body, and a window that does not
// fit (the read past the end must panic as the plain index does).

#[omp::target_teams_distribute_parallel_for]
fn matvec_both_ways(n: usize, m: usize, a: &[f64], x: &[f64], z: &[f64], y: &mut [f64]) {
    for i in 0..n {
        let mut row = 0.0;
        let mut col = 0.0;
        for k in 0..m {
            row += a[i * m + k] * x[k];
            col += a[k * n + i] * z[(k + 1) - 1];
        }
        y[i] = row + 2.0 * col;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn drifting_offset(n: usize, m: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..n {
        let mut off = i;
        let mut s = 0.0;
        for k in 0..m {
            s += a[off + k];
            off += 1;
            let k = m - 1 - k;
            s += 0.5 * a[i + k];
        }
        y[i] = s;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn window_past_the_end(n: usize, m: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..n {
        let mut s = 0.0;
        for k in 0..m {
            s += a[i + k];
        }
        y[i] = s;
    }
}

// `i + k - 1` wraps below zero for the first row when `first` is 0: that row's window cannot verify, and the read,
// evaluated as written, panics as the plain index does (overflow, or out of bounds where arithmetic wraps).
#[omp::target_teams_distribute_parallel_for]
fn window_below_zero(first: usize, n: usize, m: usize, a: &[f64], y: &mut [f64]) {
    for i in first..n {
        let mut s = 0.0;
        for k in 0..m {
            s += a[i + k - 1];
        }
        y[i] = s;
    }
}

fn check_affine_reads(rng: &mut StdRng) -> Result<(), String> {
    let (n, m) = (rng.gen_range(50..400), rng.gen_range(1..90));
    let (a, x, z) = (vec_f64(rng, n * m + 2 * (n + m)), vec_f64(rng, m), vec_f64(rng, m));
    let mut y = vec![f64::NAN; n];
    matvec_both_ways(n, m, &a, &x, &z, &mut y);
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let (mut row, mut col) = (0.0, 0.0);
            for k in 0..m {
                row += a[i * m + k] * x[k];
                col += a[k * n + i] * z[k];
            }
            row + 2.0 * col
        })
        .collect();
    same("matvec", &y, &want)?;
    drifting_offset(n, m, &a, &mut y);
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let (mut off, mut s) = (i, 0.0);
            for k in 0..m {
                s += a[off + k];
                off += 1;
                s += 0.5 * a[i + (m - 1 - k)];
            }
            s
        })
        .collect();
    same("drifting offset", &y, &want)?;
    // a has n*m + 2(n+m) elements: with m' = that - n + 2 the last row's window ends two past the end.
    let m2 = a.len() - n + 2;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| window_past_the_end(n, m2, &a, &mut y)));
    let Err(e) = caught else { return Err("a read past the end of a window did not panic".into()) };
    let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
    if !(msg.contains("out of bounds") || msg.contains("panicked")) {
        return Err(format!("unexpected panic message: {msg}"));
    }
    window_past_the_end(n, a.len() - n + 1, &a, &mut y);
    let want: Vec<f64> = (0..n).map(|i| a[i..i + a.len() - n + 1].iter().fold(0.0, |s, v| s + v)).collect();
    same("window that fits exactly", &y, &want)?;
    let mut y = vec![-1.0; n];
    window_below_zero(1, n, m, &a, &mut y);
    let want: Vec<f64> = (0..n).map(|i| if i == 0 { -1.0 } else { a[i - 1..i - 1 + m].iter().fold(0.0, |s, v| s + v) }).collect();
    same("window one below the row", &y, &want)?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| window_below_zero(0, n, m, &a, &mut y)));
    let Err(e) = caught else { return Err("an index wrapping below zero did not panic".into()) };
    let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
    if !(msg.contains("overflow") || msg.contains("out of bounds") || msg.contains("panicked")) {
        return Err(format!("unexpected panic message for an index below zero: {msg}"));
    }
    Ok(())
}

// Inner loops over `(lo..hi).step_by(s)` (C's `for (i = lo; i < hi; i += s)`, the grid-stride loops of ported CUDA
// kernels) mean in a kernel what they mean on the host: column sums (HeCBench stddev's loop), a range of `i64`, a
// range of `char` that steps over the surrogates, an unsuffixed range whose type comes from its use as an index, a
// start past the end, and a read past the end that must panic.

#[omp::target_teams_distribute_parallel_for]
fn strided_column_sums(rows: usize, cols: usize, first: usize, step: usize, a: &[f64], y: &mut [f64]) {
    for c in 0..cols {
        let mut s = 0.0;
        for r in (first..rows).step_by(step) {
            s += a[r * cols + c];
        }
        y[c] = s;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn strided_i64(n: usize, lo: i64, hi: i64, step: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..n {
        let mut s = 0.0;
        for k in (lo..hi).step_by(step) {
            s += a[k as usize + i];
        }
        y[i] = s;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn strided_chars(n: usize, step: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..n {
        let mut s = 0.0;
        for ch in ('\u{D7F0}'..'\u{E010}').step_by(step) {
            s += a[ch as usize - 0xD7F0 + i];
        }
        y[i] = s;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn strided_unsuffixed(n: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..n {
        let mut s = 0.0;
        for k in (0..12).step_by(5) {
            s += a[k + i];
        }
        y[i] = s;
    }
}

fn check_stepped_reads(rng: &mut StdRng) -> Result<(), String> {
    let (rows, cols) = (rng.gen_range(1..300), rng.gen_range(1..64));
    let a = vec_f64(rng, rows * cols);
    let column_sums = |first: usize, step: usize| -> Vec<f64> {
        (0..cols).map(|c| (first..rows).step_by(step).fold(0.0, |s, r| s + a[r * cols + c])).collect()
    };
    let mut y = vec![f64::NAN; cols];
    for (first, step) in [(rng.gen_range(0..rows), rng.gen_range(1..40)), (0, 1), (rows - 1, rows + 5), (rows + 3, 2)] {
        strided_column_sums(rows, cols, first, step, &a, &mut y);
        same(&format!("column sums from row {first} by {step} ({rows} rows)"), &y, &column_sums(first, step))?;
    }
    // One row short: the last row's reads run past the end and must panic as the plain index does.
    let short = &a[..(rows - 1) * cols + cols / 2];
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| strided_column_sums(rows, cols, 0, 1, short, &mut y)));
    if caught.is_ok() {
        return Err("a stepped read past the end of the array did not panic".into());
    }
    let n = rng.gen_range(1..100);
    let (lo, step) = (rng.gen_range(0..50i64), rng.gen_range(1..9));
    let hi = lo + rng.gen_range(0..200);
    let b = vec_f64(rng, hi as usize + n);
    let mut y = vec![f64::NAN; n];
    strided_i64(n, lo, hi, step, &b, &mut y);
    let want: Vec<f64> = (0..n).map(|i| (lo..hi).step_by(step).fold(0.0, |s, k| s + b[k as usize + i])).collect();
    same("an i64 range", &y, &want)?;
    let step = rng.gen_range(1..700);
    let c = vec_f64(rng, 0xE010 - 0xD7F0 + n);
    strided_chars(n, step, &c, &mut y);
    let want: Vec<f64> =
        (0..n).map(|i| ('\u{D7F0}'..'\u{E010}').step_by(step).fold(0.0, |s, ch| s + c[ch as usize - 0xD7F0 + i])).collect();
    same("a char range over the surrogates", &y, &want)?;
    let d = vec_f64(rng, 12 + n);
    strided_unsuffixed(n, &d, &mut y);
    let want: Vec<f64> = (0..n).map(|i| d[i] + d[i + 5] + d[i + 10]).collect();
    same("an unsuffixed range used as an index", &y, &want)
}

#[omp::target_teams_distribute_parallel_for(reduction(+: s), reduction(*: p), reduction(min: lo), reduction(max: hi))]
fn float_reductions(x: &[f64]) -> (f64, f64, f64, f64) {
    let mut s: f64 = 0.0;
    let mut p: f64 = 1.0;
    let mut lo: f64 = f64::INFINITY;
    let mut hi: f64 = f64::NEG_INFINITY;
    for i in 0..x.len() {
        s += x[i];
        p *= 1.0 + x[i] * 1e-6;
        lo = lo.min(x[i]);
        hi = hi.max(x[i]);
    }
    (s, p, lo, hi)
}

fn check_float_reductions(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(100_000..400_000);
    let x = vec_f64(rng, n);
    let (s, p, lo, hi) = float_reductions(&x);
    let ws: f64 = x.iter().sum();
    let wp: f64 = x.iter().map(|v| 1.0 + v * 1e-6).product();
    close("sum", s, ws, n, x.iter().map(|v| v.abs()).sum())?;
    close("product", p, wp, n, wp.abs())?;
    same("min", &[lo], &[x.iter().cloned().fold(f64::INFINITY, f64::min)])?;
    same("max", &[hi], &[x.iter().cloned().fold(f64::NEG_INFINITY, f64::max)])
}

#[omp::target_teams_distribute_parallel_for(reduction(&: and), reduction(|: or), reduction(^: xor), reduction(+: count), reduction(&&: all), reduction(||: any))]
fn int_reductions(v: &[i64], limit: i64) -> (i64, i64, i64, u64, bool, bool) {
    let mut and: i64 = -1;
    let mut or: i64 = 0;
    let mut xor: i64 = 0;
    let mut count: u64 = 0;
    let mut all: bool = true;
    let mut any: bool = false;
    for i in 0..v.len() {
        and &= v[i] | 0x0f0f;
        or |= v[i];
        xor ^= v[i];
        count += (v[i] % 3 == 0) as u64;
        all = all && v[i] < limit;
        any = any || v[i] == limit;
    }
    (and, or, xor, count, all, any)
}

fn check_int_reductions(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(50_000..200_000);
    let v: Vec<i64> = (0..n).map(|_| rng.gen_range(0..1_000_000)).collect();
    let limit = if rng.gen_bool(0.5) { v[n / 2] } else { 2_000_000 };
    let got = int_reductions(&v, limit);
    let want = (
        v.iter().fold(-1i64, |a, x| a & (x | 0x0f0f)),
        v.iter().fold(0, |a, x| a | x),
        v.iter().fold(0, |a, x| a ^ x),
        v.iter().filter(|x| *x % 3 == 0).count() as u64,
        v.iter().all(|x| *x < limit),
        v.iter().any(|x| *x == limit),
    );
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got:?}, sequential {want:?}"))
    }
}

#[omp::directives]
fn histogram(x: &[f64], bins: &mut [u64], total: &mut [f64]) {
    let mut sum: f64 = 0.0;
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..x.len() {
        let b = ((x[i] + 1.0) * 0.5 * bins.len() as f64) as usize;
        #[omp::atomic]
        bins[b.min(bins.len() - 1)] += 1;
        #[omp::atomic]
        sum += 0.25;
    }
    total[0] = sum;
}

fn check_atomics(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(100_000..300_000);
    let x = vec_f64(rng, n);
    let nb = rng.gen_range(3..64);
    let mut bins = vec![0u64; nb];
    let mut total = vec![0.0];
    histogram(&x, &mut bins, &mut total);
    let mut want = vec![0u64; nb];
    for v in &x {
        let b = ((v + 1.0) * 0.5 * nb as f64) as usize;
        want[b.min(nb - 1)] += 1;
    }
    same("bins", &bins, &want)?;
    // Quarters add exactly in any order.
    same("sum", &total, &[n as f64 * 0.25])
}

/// Atomic additions into arrays that fit a GPU team's arena (combined in shared memory per team, then added to the
/// array) and into one that does not (global atomics); `continue` skips some updates, and a short loop leaves most
/// threads of its one team without an iteration (they still meet the team at its barriers).
#[omp::directives]
fn scatter_adds(idx: &[u32], w: &[f32], small: &mut [f32], counts: &mut [u32], large: &mut [f32]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..idx.len() {
        if idx[i] % 7 == 3 {
            continue;
        }
        let k = idx[i] as usize;
        #[omp::atomic]
        small[k % small.len()] += w[i];
        #[omp::atomic]
        small[(k + 1) % small.len()] -= 0.5 * w[i];
        #[omp::atomic]
        counts[k % counts.len()] -= 1;
        #[omp::atomic]
        large[k % large.len()] += w[i];
    }
}

fn check_team_adds(rng: &mut StdRng) -> Result<(), String> {
    for n in [rng.gen_range(50..300), rng.gen_range(100_000..300_000)] {
        let idx: Vec<u32> = (0..n).map(|_| rng.gen()).collect();
        // Small integers and halves: every order of the additions gives the same f32 sums (all below 2^24).
        let w: Vec<f32> = (0..n).map(|_| rng.gen_range(0..8) as f32).collect();
        // Up to the whole arena (8 KiB = 2048 f32), so that `counts` sometimes no longer fits beside it.
        let (ns, nc, nl) = (rng.gen_range(1..=2048), rng.gen_range(1..300), rng.gen_range(2049..5000));
        let (mut small, mut counts, mut large) = (vec![0.0f32; ns], vec![5u32; nc], vec![1.0f32; nl]);
        let (mut want_small, mut want_counts, mut want_large) = (small.clone(), counts.clone(), large.clone());
        for i in 0..n {
            if idx[i] % 7 == 3 {
                continue;
            }
            let k = idx[i] as usize;
            want_small[k % ns] += w[i];
            want_small[(k + 1) % ns] -= 0.5 * w[i];
            want_counts[k % nc] = want_counts[k % nc].wrapping_sub(1);
            want_large[k % nl] += w[i];
        }
        scatter_adds(&idx, &w, &mut small, &mut counts, &mut large);
        same(&format!("small ({ns} of them, {n} iterations)"), &small, &want_small)?;
        same(&format!("counts ({nc} of them, {n} iterations)"), &counts, &want_counts)?;
        same(&format!("large ({nl} of them, {n} iterations)"), &large, &want_large)?;
    }
    Ok(())
}

#[omp::directives]
fn jacobi(n: usize, a: &mut [f64], b: &mut [f64], iters: usize) -> f64 {
    let mut resid: f64 = 0.0;
    #[omp::target_data(map(tofrom: a), map(alloc: b))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for k in 0..n * n {
            b[k] = a[k];
        }
        for _ in 0..iters {
            #[omp::target_teams_distribute_parallel_for(collapse(2))]
            for i in 1..n - 1 {
                for j in 1..n - 1 {
                    b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
                }
            }
            resid = 0.0;
            #[omp::target_teams_distribute_parallel_for(collapse(2), reduction(max: resid))]
            for i in 1..n - 1 {
                for j in 1..n - 1 {
                    resid = resid.max((b[i * n + j] - a[i * n + j]).abs());
                    a[i * n + j] = b[i * n + j];
                }
            }
        }
        omp::target_update!(from: b);
    }
    resid
}

fn jacobi_seq(n: usize, a: &mut [f64], b: &mut [f64], iters: usize) -> f64 {
    let mut resid: f64 = 0.0;
    b.copy_from_slice(a);
    for _ in 0..iters {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
            }
        }
        resid = 0.0;
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                resid = resid.max((b[i * n + j] - a[i * n + j]).abs());
                a[i * n + j] = b[i * n + j];
            }
        }
    }
    resid
}

fn check_data_region(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(40..200);
    let iters = rng.gen_range(3..20);
    let a0 = vec_f64(rng, n * n);
    let (mut a, mut b) = (a0.clone(), vec![0.0; n * n]);
    let r = jacobi(n, &mut a, &mut b, iters);
    let (mut wa, mut wb) = (a0, vec![0.0; n * n]);
    let wr = jacobi_seq(n, &mut wa, &mut wb, iters);
    same("a", &a, &wa)?;
    same("b (target_update from)", &b, &wb)?;
    same("resid", &[r], &[wr])
}

#[omp::directives]
fn enter_exit(x: &mut Vec<f64>, rounds: usize) {
    omp::target_enter_data!(map(to: x));
    for _ in 0..rounds {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..x.len() {
            x[i] = 2.0 * x[i] + 1.0;
        }
    }
    omp::target_exit_data!(map(from: x));
}

fn check_enter_exit(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1000..100_000);
    let rounds = rng.gen_range(1..6);
    let x0 = vec_f64(rng, n);
    let mut x = x0.clone();
    enter_exit(&mut x, rounds);
    let want: Vec<f64> = x0.iter().map(|v| (0..rounds).fold(*v, |a, _| 2.0 * a + 1.0)).collect();
    same("x", &x, &want)
}

#[omp::target_teams_distribute_parallel_for(map(to: x[..n]), map(tofrom: y[..n]), num_teams(7), thread_limit(64), device(0))]
fn prefix_axpy(n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..n {
        y[i] += 3.0 * x[i];
    }
}

fn check_explicit_maps(rng: &mut StdRng) -> Result<(), String> {
    let len = rng.gen_range(1000..20_000);
    let n = rng.gen_range(1..len);
    let x = vec_f64(rng, len);
    let y0 = vec_f64(rng, len);
    let mut y = y0.clone();
    prefix_axpy(n, &x, &mut y);
    let want: Vec<f64> = (0..len).map(|i| if i < n { y0[i] + 3.0 * x[i] } else { y0[i] }).collect();
    same("y", &y, &want)
}

#[omp::target_teams_distribute_parallel_for(if(target: on_device))]
fn maybe_on_device(on_device: bool, x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
}

fn check_if_false(rng: &mut StdRng) -> Result<(), String> {
    let x = vec_f64(rng, 5000);
    let want: Vec<f64> = x.iter().map(|v| v * v).collect();
    for on in [false, true] {
        let mut y = vec![0.0; x.len()];
        maybe_on_device(on, &x, &mut y);
        same(if on { "y (if true)" } else { "y (if false)" }, &y, &want)?;
    }
    Ok(())
}

#[omp::target_teams_distribute_parallel_for(firstprivate(offset), private(tmp))]
fn privates(offset: f64, x: &[f64], y: &mut [f64]) {
    let mut tmp: f64 = 0.0;
    for i in 0..x.len() {
        tmp = x[i] + offset;
        y[i] = tmp * tmp;
    }
    let _ = tmp;
}

fn check_privates(rng: &mut StdRng) -> Result<(), String> {
    let x = vec_f64(rng, 20_000);
    let off: f64 = rng.gen_range(-1.0..1.0);
    let mut y = vec![0.0; x.len()];
    privates(off, &x, &mut y);
    let want: Vec<f64> = x.iter().map(|v| (v + off) * (v + off)).collect();
    same("y", &y, &want)
}

#[omp::target]
fn two_phase(n: usize, x: &[f64], tmp: &mut [f64], y: &mut [f64]) {
    #[omp::teams_distribute_parallel_for]
    for i in 0..n {
        tmp[i] = x[i] * 2.0;
    }
    #[omp::teams_distribute_parallel_for]
    for i in 0..n {
        y[i] = tmp[i] + x[i];
    }
}

fn check_target_fn(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1000..50_000);
    let x = vec_f64(rng, n);
    let (mut tmp, mut y) = (vec![0.0; n], vec![0.0; n]);
    two_phase(n, &x, &mut tmp, &mut y);
    let want: Vec<f64> = x.iter().map(|v| v * 3.0).collect();
    same("y", &y, &want)
}

#[omp::target_teams_distribute_parallel_for]
fn shifted_copy(off: usize, x: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] = 2.0 * x[i + off];
    }
}

fn check_device_panic(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1000..5000);
    let x = vec_f64(rng, n);
    let mut out = vec![0.0; n];
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shifted_copy(7, &x, &mut out)));
    let msg = match caught {
        Ok(()) => return Err("an out-of-bounds index did not panic".into()),
        Err(e) => e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default(),
    };
    if !(msg.contains("out of bounds") || msg.contains("panicked")) {
        return Err(format!("unexpected panic message: {msg}"));
    }
    // The runtime stays usable.
    let mut ok = vec![0.0; n - 7];
    shifted_copy(7, &x, &mut ok);
    same("after the panic", &ok, &x[7..].iter().map(|v| 2.0 * v).collect::<Vec<_>>())
}

#[omp::target_teams_distribute_parallel_for(map(present, to: x), map(tofrom: y))]
fn needs_present(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = x[i] + 1.0;
    }
}

#[omp::directives]
fn with_x_mapped(x: &[f64], y: &mut [f64]) {
    #[omp::target_data(map(to: x))]
    {
        #[omp::target_teams_distribute_parallel_for(map(present, to: x), map(tofrom: y))]
        for i in 0..y.len() {
            y[i] = x[i] + 1.0;
        }
    }
}

fn check_present(rng: &mut StdRng) -> Result<(), String> {
    let x = vec_f64(rng, 1000);
    let want: Vec<f64> = x.iter().map(|v| v + 1.0).collect();
    let mut y = vec![0.0; 1000];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| needs_present(&x, &mut y)));
    match (omp::get_num_devices() > 0, r) {
        (true, Ok(())) => return Err("`present` on unmapped data did not fail".into()),
        (true, Err(e)) => {
            let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
            if !msg.contains("not present") {
                return Err(format!("unexpected message: {msg}"));
            }
        }
        // On the host there is no device copy to require.
        (false, Ok(())) => same("y (host)", &y, &want)?,
        (false, Err(_)) => return Err("the host path panicked".into()),
    }
    let mut y = vec![0.0; 1000];
    with_x_mapped(&x, &mut y);
    same("y (x mapped by target_data)", &y, &want)
}
