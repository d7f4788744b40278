//! laplace: Laplace's equation on a 2-D plate by red-black Gauss-Seidel with SOR (HeCBench `src/laplace-omp/main.cpp`,
//! with `src/laplace-cuda/reference.h`, commit f27000a51), ported as written.
//!
//! The original: `fill_coeffs` builds the five coefficient arrays and the right-hand side on the host; one
//! `target data map(to: aP, aW, aE, aS, aN, b, bl_norm_L2) map(tofrom: temp_red, temp_black)` region holds the
//! iteration loop, whose every iteration runs four `target teams distribute parallel for` regions: the red update
//! (`collapse(2) num_threads(BLOCK_SIZE)`, writing each red cell and its squared change into `bl_norm_L2`), a
//! `reduction(+: norm_L2)` over `bl_norm_L2`, the black update, the same reduction again; the host takes
//! `sqrt(norm_L2 / size)`, prints it every 1000 iterations and stops below the tolerance 1e-6 (at most 1e6
//! iterations). The timer (`StartTimer`/`GetTimer`) spans the iteration loop inside the data region. Verification:
//! the host repeats the solve with `red_ref`/`black_ref` (`parallel for collapse(2) reduction(+)` loops) and counts
//! the cells where the device temperature exceeds the reference by 1e-3 or more; `PASS` when there are none.
//!
//! What changed, and why:
//! - The problem size `NUM` is a `#define` (1024) in the original, which takes no arguments; here it is the optional
//!   first argument (default 1024) so that the panel can run a small plate. It must be even, as in the original.
//!   `((NUM >> 1) + 2)` inside the kernels' indices is the run-time `nr` (= `num_rows`).
//! - `bl_norm_L2` is mapped `map(alloc: ...)` instead of the original's `map(to: ...)`: the original writes it in
//!   the red and black kernels although it maps it `to` (legal in C: the device copy is scratch that nobody reads
//!   back). omp-rs refuses the natural form, `map(to: a_p, a_w, a_e, a_s, a_n, b, bl_norm_l2)`, with
//!   "`bl_norm_l2` is mapped `to:` (copied to the device, never back), but this block writes it: the writes would
//!   be lost on a GPU and kept on the host. Map it `tofrom:` to keep them, copy them back with
//!   `omp::target_update!(from: bl_norm_l2)`, or map it `alloc:` if it is scratch space whose contents after the
//!   block do not matter". omp-rs's `alloc:` starts from the host data, as `to:` does, and copies nothing back, so
//!   the transfers are the original's.
//! - `Real` (`#define Real float`) is `f32` written out: with `type Real = f32;` omp-rs refuses the reduction
//!   variable `let mut norm_l2: Real = 0.0;` ("reduction variable `norm_l2` must be a primitive scalar"), and with
//!   that one written `f32` the device build fails on the mapped arrays typed `&[Real]` (rustc in the kernel crate:
//!   "error[E0425]: cannot find type `Real` in this scope", in the generated kernel's `&[Real; 0]` parameter): the
//!   alias is not carried into the device crate. (That failure is in the package's build script, so it breaks the
//!   build of every binary of the crate, not only this one.)
//! - The coefficient arrays are bound with their types shown, `let (a_p, ..., b): (&[f32], ...) = (&c.a_p, ...)`:
//!   the untyped `let (a_p, ...) = (&c.a_p[..], ...)` gives, for each array, "the device kernel of this target
//!   region needs the type of `a_p`, which its declaration does not show: annotate it".
//! - The original also writes every cell's temperature to `temperature.dat` in the loop that verifies; the port
//!   keeps the verification loop and writes no file (the panel runs in the source tree).
//! - `num_threads(BLOCK_SIZE)` is kept on the two update kernels. On the CPU path it means what it means in the
//!   original's host fallback: a team of 256 host threads for each of those regions, which on 2 cores makes the CPU
//!   path slow at small sizes (GCC's build of the original is slower still).
//! - `kernel time:` is the original's `GetTimer()` span (the whole iteration loop), in seconds.
//!
//! panel-args: 32
//! device-args: 1024
//! device-timeout: 20

use std::time::Instant;

/// SOR relaxation parameter.
const OMEGA: f32 = 1.85;

/// `BLOCK_SIZE` (the kernels' `num_threads`).
const BLOCK_SIZE: usize = 256;

/// `fill_coeffs`: coefficient matrix and right-hand side (`ind = col * rowmax + row`).
#[allow(clippy::too_many_arguments)]
fn fill_coeffs(
    rowmax: usize,
    colmax: usize,
    th_cond: f32,
    dx: f32,
    dy: f32,
    width: f32,
    tn: f32,
    a_p: &mut [f32],
    a_w: &mut [f32],
    a_e: &mut [f32],
    a_s: &mut [f32],
    a_n: &mut [f32],
    b: &mut [f32],
) {
    for col in 0..colmax {
        for row in 0..rowmax {
            let ind = col * rowmax + row;
            b[ind] = 0.0;
            let mut sp: f32 = 0.0;
            if col == 0 {
                // left BC: temp = 0
                a_w[ind] = 0.0;
                sp = -2.0 * th_cond * width * dy / dx;
            } else {
                a_w[ind] = th_cond * width * dy / dx;
            }
            if col == colmax - 1 {
                // right BC: temp = 0
                a_e[ind] = 0.0;
                sp = -2.0 * th_cond * width * dy / dx;
            } else {
                a_e[ind] = th_cond * width * dy / dx;
            }
            if row == 0 {
                // bottom BC: temp = 0
                a_s[ind] = 0.0;
                sp = -2.0 * th_cond * width * dx / dy;
            } else {
                a_s[ind] = th_cond * width * dx / dy;
            }
            if row == rowmax - 1 {
                // top BC: temp = TN
                a_n[ind] = 0.0;
                b[ind] = 2.0 * th_cond * width * dx * tn / dy;
                sp = -2.0 * th_cond * width * dx / dy;
            } else {
                a_n[ind] = th_cond * width * dx / dy;
            }
            a_p[ind] = a_w[ind] + a_e[ind] + a_s[ind] + a_n[ind] - sp;
        }
    }
}

/// The coefficients and right-hand side, read by every kernel.
struct Coeffs {
    a_p: Vec<f32>,
    a_w: Vec<f32>,
    a_e: Vec<f32>,
    a_s: Vec<f32>,
    a_n: Vec<f32>,
    b: Vec<f32>,
}

/// `red_ref` (reference.h): the red update on the host, returning the sum of squared changes.
#[omp::parallel_for(collapse(2), reduction(+: norm_l2))]
fn red_ref(num: usize, c: &Coeffs, temp_black: &[f32], temp_red: &mut [f32]) -> f32 {
    let nr = (num >> 1) + 2;
    let (a_p, a_w, a_e, a_s, a_n, b) = (&c.a_p[..], &c.a_w[..], &c.a_e[..], &c.a_s[..], &c.a_n[..], &c.b[..]);
    let mut norm_l2: f32 = 0.0;
    for col in 1..=num {
        for row in 1..=num / 2 {
            let ind = 2 * row - (col & 1) - 1 + num * (col - 1); // global index
            let ind_red = col * nr + row; // local (red) index
            let temp_old = temp_red[ind_red];
            let mut res = b[ind]
                + a_w[ind] * temp_black[row + (col - 1) * nr]
                + a_e[ind] * temp_black[row + (col + 1) * nr]
                + a_s[ind] * temp_black[row - (col & 1) + col * nr]
                + a_n[ind] * temp_black[row + ((col + 1) & 1) + col * nr];
            let temp_new = temp_old * (1.0 - OMEGA) + OMEGA * (res / a_p[ind]);
            temp_red[ind_red] = temp_new;
            res = temp_new - temp_old;
            norm_l2 += res * res;
        }
    }
    norm_l2
}

/// `black_ref` (reference.h): the black update on the host.
#[omp::parallel_for(collapse(2), reduction(+: norm_l2))]
fn black_ref(num: usize, c: &Coeffs, temp_red: &[f32], temp_black: &mut [f32]) -> f32 {
    let nr = (num >> 1) + 2;
    let (a_p, a_w, a_e, a_s, a_n, b) = (&c.a_p[..], &c.a_w[..], &c.a_e[..], &c.a_s[..], &c.a_n[..], &c.b[..]);
    let mut norm_l2: f32 = 0.0;
    for row in 1..=num / 2 {
        for col in 1..=num {
            let ind = 2 * row - ((col + 1) & 1) - 1 + num * (col - 1); // global index
            let ind_black = col * nr + row; // local (black) index
            let temp_old = temp_black[ind_black];
            let mut res = b[ind]
                + a_w[ind] * temp_red[row + (col - 1) * nr]
                + a_e[ind] * temp_red[row + (col + 1) * nr]
                + a_s[ind] * temp_red[row - ((col + 1) & 1) + col * nr]
                + a_n[ind] * temp_red[row + (col & 1) + col * nr];
            let temp_new = temp_old * (1.0 - OMEGA) + OMEGA * (res / a_p[ind]);
            temp_black[ind_black] = temp_new;
            res = temp_new - temp_old;
            norm_l2 += res * res;
        }
    }
    norm_l2
}

/// The iteration loop of `main` in its data region: returns the `GetTimer()` seconds.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn solve(
    num: usize,
    size: usize,
    tol: f32,
    it_max: usize,
    c: &Coeffs,
    temp_red: &mut [f32],
    temp_black: &mut [f32],
    bl_norm_l2: &mut [f32],
) -> f64 {
    let (a_p, a_w, a_e, a_s, a_n, b): (&[f32], &[f32], &[f32], &[f32], &[f32], &[f32]) = (&c.a_p, &c.a_w, &c.a_e, &c.a_s, &c.a_n, &c.b);
    let nr: usize = (num >> 1) + 2;
    let half: usize = num / 2;
    let size_norm: usize = bl_norm_l2.len();
    let mut iter: usize = 1;
    let runtime: f64;
    #[omp::target_data(map(to: a_p, a_w, a_e, a_s, a_n, b), map(alloc: bl_norm_l2), map(tofrom: temp_red, temp_black))]
    {
        let start = Instant::now(); // StartTimer()
        while iter <= it_max {
            let mut norm_l2: f32 = 0.0;

            #[omp::target_teams_distribute_parallel_for(collapse(2), num_threads(BLOCK_SIZE))]
            for row in 1..=half {
                for col in 1..=num {
                    let ind_red = col * nr + row; // local (red) index
                    let ind = 2 * row - (col & 1) - 1 + num * (col - 1); // global index
                    let temp_old = temp_red[ind_red];
                    let mut res = b[ind]
                        + (a_w[ind] * temp_black[row + (col - 1) * nr]
                            + a_e[ind] * temp_black[row + (col + 1) * nr]
                            + a_s[ind] * temp_black[row - (col & 1) + col * nr]
                            + a_n[ind] * temp_black[row + ((col + 1) & 1) + col * nr]);
                    let temp_new = temp_old * (1.0 - OMEGA) + OMEGA * (res / a_p[ind]);
                    temp_red[ind_red] = temp_new;
                    res = temp_new - temp_old;
                    bl_norm_l2[ind_red] = res * res;
                }
            }
            // add red cell contributions to residual
            #[omp::target_teams_distribute_parallel_for(reduction(+: norm_l2))]
            for i in 0..size_norm {
                norm_l2 += bl_norm_l2[i];
            }

            #[omp::target_teams_distribute_parallel_for(collapse(2), num_threads(BLOCK_SIZE))]
            for row in 1..=half {
                for col in 1..=num {
                    let ind_black = col * nr + row; // local (black) index
                    let ind = 2 * row - ((col + 1) & 1) - 1 + num * (col - 1); // global index
                    let temp_old = temp_black[ind_black];
                    let mut res = b[ind]
                        + (a_w[ind] * temp_red[row + (col - 1) * nr]
                            + a_e[ind] * temp_red[row + (col + 1) * nr]
                            + a_s[ind] * temp_red[row - ((col + 1) & 1) + col * nr]
                            + a_n[ind] * temp_red[row + (col & 1) + col * nr]);
                    let temp_new = temp_old * (1.0 - OMEGA) + OMEGA * (res / a_p[ind]);
                    temp_black[ind_black] = temp_new;
                    res = temp_new - temp_old;
                    bl_norm_l2[ind_black] = res * res;
                }
            }
            // add black cell contributions to residual
            #[omp::target_teams_distribute_parallel_for(reduction(+: norm_l2))]
            for i in 0..size_norm {
                norm_l2 += bl_norm_l2[i];
            }

            // calculate residual
            norm_l2 = (norm_l2 / size as f32).sqrt();
            if iter % 1000 == 0 {
                println!("{iter:5}, {norm_l2:.6}");
            }
            // if tolerance has been reached, end SOR iterations
            if norm_l2 < tol {
                break;
            }
            iter += 1;
        }
        runtime = omp_ports::seconds_since(start); // GetTimer()
        println!("Total time for {iter} iterations: {runtime:.6} s");
    }
    runtime
}

fn main() {
    let num: usize = omp_ports::arg(1, 1024);
    assert!(num >= 2 && num % 2 == 0, "NUM must be even");

    // size of plate
    let l: f32 = 1.0;
    let h: f32 = 1.0;
    let width: f32 = 0.01;
    // thermal conductivity
    let th_cond: f32 = 1.0;
    // temperature at top boundary
    let tn: f32 = 1.0;
    // SOR iteration tolerance
    let tol: f32 = 1.0e-6;

    // number of cells in x and y directions including unused boundary cells
    let num_rows = num / 2 + 2;
    let num_cols = num + 2;
    let size_temp = num_rows * num_cols;
    let size = num * num;

    // size of cells
    let dx = l / num as f32;
    let dy = h / num as f32;

    let it_max: usize = 1_000_000;

    let mut c = Coeffs {
        a_p: vec![0.0; size],
        a_w: vec![0.0; size],
        a_e: vec![0.0; size],
        a_s: vec![0.0; size],
        a_n: vec![0.0; size],
        b: vec![0.0; size],
    };
    fill_coeffs(num, num, th_cond, dx, dy, width, tn, &mut c.a_p, &mut c.a_w, &mut c.a_e, &mut c.a_s, &mut c.a_n, &mut c.b);

    let mut temp_red: Vec<f32> = vec![0.0; size_temp];
    let mut temp_black: Vec<f32> = vec![0.0; size_temp];
    let mut temp_red_ref: Vec<f32> = vec![0.0; size_temp];
    let mut temp_black_ref: Vec<f32> = vec![0.0; size_temp];

    // residual, one for each temperature value
    let size_norm = size_temp;
    let mut bl_norm_l2: Vec<f32> = vec![0.0; size_norm];

    println!("Problem size: {num} x {num} ");

    let runtime = solve(num, size, tol, it_max, &c, &mut temp_red, &mut temp_black, &mut bl_norm_l2);

    // Reference
    for _ in 1..=it_max {
        let mut norm_l2 = red_ref(num, &c, &temp_black_ref, &mut temp_red_ref);
        norm_l2 += black_ref(num, &c, &temp_red_ref, &mut temp_black_ref);
        norm_l2 = (norm_l2 / size as f32).sqrt();
        if norm_l2 < tol {
            break;
        }
    }

    let mut count = 0;
    for row in 1..num + 1 {
        for col in 1..num + 1 {
            if (row + col) % 2 == 0 {
                // even, so red cell
                let ind = col * num_rows + (row + (col % 2)) / 2;
                if (temp_red[ind] - temp_red_ref[ind]) >= 1e-3 {
                    count += 1;
                }
            } else {
                // odd, so black cell
                let ind = col * num_rows + (row + ((col + 1) % 2)) / 2;
                if (temp_black[ind] - temp_black_ref[ind]) >= 1e-3 {
                    count += 1;
                }
            }
        }
    }
    omp_ports::kernel_time(runtime);
    omp_ports::verdict(count == 0);
}
