//! HPCCG (Mantevo's conjugate-gradient mini-app, Michael Heroux) ported to omp-rs as its OpenMP version is written:
//! `generate_matrix` builds the 27-point operator on an `nx × ny × nz` grid (rows stored one after another, each
//! with its own count, as the original's `ptr_to_vals_in_row`), `HPCCG` runs 149 CG iterations with tolerance 0,
//! and the kernels `waxpby`, `ddot` and `HPC_sparsemv` are one function each, called from the CG loop, here as target
//! regions on data that a `target_data` region around the loop keeps on the device (the original's
//! `#pragma omp parallel for` loops, offloaded).
//!
//!     cargo run --release -p omp-examples --example hpccg -- [NX NY NZ]
//!
//! Output as the original's: the residual every 15 iterations, the number of iterations, the final residual and the
//! kernels' times. The exact solution is all ones: `verification: PASSED` when the computed one is within 1e-9 of it
//! everywhere (the original keeps that check commented out; the residual trajectory is compared with the original
//! built by `g++ -fopenmp -DUSING_OMP` in `examples/tests/hpccg.rs`).

use omp::{MappedMut, MappedRef};

/// The operator, as `generate_matrix` fills `HPC_Sparse_Matrix`: row `i`'s entries are `vals[start[i]..][..nnz[i]]`
/// with columns `inds[...]`.
struct Matrix {
    nrow: usize,
    nnz_total: usize,
    start: Vec<usize>,
    nnz: Vec<usize>,
    vals: Vec<f64>,
    /// Column indices, `int` as in the original.
    inds: Vec<i32>,
}

/// `generate_matrix`: the 27-point stencil with 27 on the diagonal and -1 elsewhere; `b` makes all-ones the exact
/// solution, `x` starts at zero.
fn generate_matrix(nx: usize, ny: usize, nz: usize) -> (Matrix, Vec<f64>, Vec<f64>, Vec<f64>) {
    let nrow = nx * ny * nz;
    let mut m = Matrix { nrow, nnz_total: 0, start: vec![0; nrow], nnz: vec![0; nrow], vals: Vec::new(), inds: Vec::new() };
    let (mut x, mut b, xexact) = (vec![0.0; nrow], vec![0.0; nrow], vec![1.0; nrow]);
    for iz in 0..nz as i64 {
        for iy in 0..ny as i64 {
            for ix in 0..nx as i64 {
                let row = (iz * (nx * ny) as i64 + iy * nx as i64 + ix) as usize;
                m.start[row] = m.vals.len();
                let mut nnzrow = 0;
                for sz in -1..=1i64 {
                    for sy in -1..=1i64 {
                        for sx in -1..=1i64 {
                            let col = row as i64 + sz * (nx * ny) as i64 + sy * nx as i64 + sx;
                            let inside = ix + sx >= 0 && ix + sx < nx as i64 && iy + sy >= 0 && iy + sy < ny as i64;
                            if inside && col >= 0 && col < nrow as i64 {
                                m.vals.push(if col as usize == row { 27.0 } else { -1.0 });
                                m.inds.push(col as i32);
                                nnzrow += 1;
                            }
                        }
                    }
                }
                m.nnz[row] = nnzrow;
                x[row] = 0.0;
                b[row] = 27.0 - (nnzrow as f64 - 1.0);
            }
        }
    }
    // The original counts 27 per row for its operation totals (boundary rows have fewer).
    m.nnz_total = 27 * nrow;
    (m, x, b, xexact)
}

/// `waxpby`: `w = alpha * x + beta * y` (the original's three loops for alpha = 1, beta = 1 and the general case).
#[omp::directives]
fn waxpby(alpha: f64, x: &MappedRef<'_, '_, f64>, beta: f64, y: &MappedRef<'_, '_, f64>, w: &mut MappedMut<'_, '_, f64>) {
    let n = w.len();
    if alpha == 1.0 {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            w[i] = x[i] + beta * y[i];
        }
    } else if beta == 1.0 {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            w[i] = alpha * x[i] + y[i];
        }
    } else {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            w[i] = alpha * x[i] + beta * y[i];
        }
    }
}

/// `waxpby` whose output is one of its inputs (`waxpby(n, 1.0, x, alpha, p, x)`): `w = alpha * w + beta * y`.
#[omp::directives]
fn waxpby_into(alpha: f64, w: &mut MappedMut<'_, '_, f64>, beta: f64, y: &MappedRef<'_, '_, f64>) {
    let n = w.len();
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        w[i] = alpha * w[i] + beta * y[i];
    }
}

/// `ddot`: `x · y`.
#[omp::directives]
fn ddot(x: &MappedRef<'_, '_, f64>, y: &MappedRef<'_, '_, f64>) -> f64 {
    let n = x.len();
    let mut result: f64 = 0.0;
    #[omp::target_teams_distribute_parallel_for(reduction(+: result))]
    for i in 0..n {
        result += x[i] * y[i];
    }
    result
}

/// `HPC_sparsemv`: `y = A x`, one row per iteration.
#[omp::directives]
fn sparsemv(
    start: &MappedRef<'_, '_, usize>,
    nnz: &MappedRef<'_, '_, usize>,
    vals: &MappedRef<'_, '_, f64>,
    inds: &MappedRef<'_, '_, i32>,
    x: &MappedRef<'_, '_, f64>,
    y: &mut MappedMut<'_, '_, f64>,
) {
    let nrow = y.len();
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..nrow {
        let mut sum = 0.0;
        let (s, cur_nnz) = (start[i], nnz[i]);
        for j in 0..cur_nnz {
            sum += vals[s + j] * x[inds[s + j] as usize];
        }
        y[i] = sum;
    }
}

/// What `HPCCG` reports: iterations, final residual, the residual every `print_freq` iterations, and the times of
/// ddot, waxpby and sparsemv (seconds).
struct CgResult {
    niters: usize,
    normr: f64,
    trace: Vec<(usize, f64)>,
    times: [f64; 4],
}

/// `HPCCG`: CG on `A x = b` from the given `x`, `max_iter` iterations at most, stopping at `tolerance`.
#[omp::directives]
fn hpccg(a: &Matrix, b: &[f64], x: &mut [f64], max_iter: usize, tolerance: f64) -> CgResult {
    let t_begin = omp::get_wtime();
    let nrow = a.nrow;
    let (mut r, mut p, mut ap) = (vec![0.0; nrow], vec![0.0; nrow], vec![0.0; nrow]);
    let (start, nnz, vals, inds) = (&a.start[..], &a.nnz[..], &a.vals[..], &a.inds[..]);
    let print_freq = (max_iter / 10).clamp(1, 50);
    let (mut t1, mut t2, mut t3) = (0.0, 0.0, 0.0);
    let mut trace = Vec::new();
    let mut niters = 0;
    let mut normr: f64;
    #[omp::target_data(map(to: start, nnz, vals, inds, b), map(tofrom: x), map(alloc: r, p, ap))]
    {
        let tick = omp::get_wtime;
        let t0 = tick();
        waxpby(1.0, &x.as_mapped_ref(), 0.0, &x.as_mapped_ref(), &mut p);
        t2 += tick() - t0;
        let t0 = tick();
        sparsemv(&start, &nnz, &vals, &inds, &p.as_mapped_ref(), &mut ap);
        t3 += tick() - t0;
        let t0 = tick();
        waxpby(1.0, &b, -1.0, &ap.as_mapped_ref(), &mut r);
        t2 += tick() - t0;
        let t0 = tick();
        let mut rtrans = ddot(&r.as_mapped_ref(), &r.as_mapped_ref());
        t1 += tick() - t0;
        normr = rtrans.sqrt();
        trace.push((0, normr));
        let mut k = 1;
        while k < max_iter && normr > tolerance {
            if k == 1 {
                let t0 = tick();
                waxpby(1.0, &r.as_mapped_ref(), 0.0, &r.as_mapped_ref(), &mut p);
                t2 += tick() - t0;
            } else {
                let oldrtrans = rtrans;
                let t0 = tick();
                rtrans = ddot(&r.as_mapped_ref(), &r.as_mapped_ref());
                t1 += tick() - t0;
                let beta = rtrans / oldrtrans;
                let t0 = tick();
                waxpby_into(beta, &mut p, 1.0, &r.as_mapped_ref());
                t2 += tick() - t0;
            }
            normr = rtrans.sqrt();
            if k % print_freq == 0 || k + 1 == max_iter {
                trace.push((k, normr));
            }
            let t0 = tick();
            sparsemv(&start, &nnz, &vals, &inds, &p.as_mapped_ref(), &mut ap);
            t3 += tick() - t0;
            let t0 = tick();
            let alpha = rtrans / ddot(&p.as_mapped_ref(), &ap.as_mapped_ref());
            t1 += tick() - t0;
            let t0 = tick();
            waxpby_into(1.0, &mut x, alpha, &p.as_mapped_ref());
            waxpby_into(1.0, &mut r, -alpha, &ap.as_mapped_ref());
            t2 += tick() - t0;
            niters = k;
            k += 1;
        }
    }
    CgResult { niters, normr, trace, times: [omp::get_wtime() - t_begin, t1, t2, t3] }
}

/// `v` as C++'s `cout << v` prints a double (`%g`: 6 significant digits, trailing zeros dropped), so the output
/// compares line by line with the original's.
fn g6(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let exp = v.abs().log10().floor() as i32;
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if (-5..6).contains(&exp) {
        trim(format!("{:.*}", (5 - exp).max(0) as usize, v))
    } else {
        let s = format!("{v:.5e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        format!("{}e{}{:02}", trim(m.to_string()), if e < 0 { '-' } else { '+' }, e.abs())
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (nx, ny, nz) = match args[..] {
        [nx, ny, nz] => (nx, ny, nz),
        _ => (20, 30, 10),
    };
    let (a, mut x, b, xexact) = generate_matrix(nx, ny, nz);
    let r = hpccg(&a, &b, &mut x, 150, 0.0);
    let (fniters, fnrow, fnnz) = (r.niters as f64, a.nrow as f64, a.nnz_total as f64);
    let (ops_ddot, ops_waxpby, ops_sparsemv) = (fniters * 4.0 * fnrow, fniters * 6.0 * fnrow, fniters * 2.0 * fnnz);
    for (k, normr) in &r.trace {
        if *k == 0 {
            println!("Initial Residual = {}", g6(*normr));
        } else {
            println!("Iteration = {k}   Residual = {}", g6(*normr));
        }
    }
    println!("Dimensions: nx {nx} ny {ny} nz {nz}, {} offload device(s)", omp::get_num_devices());
    println!("Number of iterations: {}", r.niters);
    println!("Final residual: {}", g6(r.normr));
    let [total, t1, t2, t3] = r.times;
    println!("Time Summary: Total {total:.6} DDOT {t1:.6} WAXPBY {t2:.6} SPARSEMV {t3:.6}");
    let mflops = |ops: f64, t: f64| if t > 0.0 { ops / t / 1e6 } else { 0.0 };
    println!(
        "MFLOPS Summary: Total {:.1} DDOT {:.1} WAXPBY {:.1} SPARSEMV {:.1}",
        mflops(ops_ddot + ops_waxpby + ops_sparsemv, total),
        mflops(ops_ddot, t1),
        mflops(ops_waxpby, t2),
        mflops(ops_sparsemv, t3)
    );
    let diff = x.iter().zip(&xexact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("Difference between computed and exact = {diff:e}");
    let ok = r.niters == 149 && diff < 1e-9;
    println!("verification: {}", if ok { "PASSED" } else { "FAILED" });
    if !ok {
        std::process::exit(1);
    }
}
