//! Adversarial target regions, in the style of `regions.rs`: each check runs a region on fresh random inputs next to
//! its sequential reference and returns `Ok` for an acceptable outcome. They run with the other checks: through
//! libomptarget's host plugin in CI, on the host path with `OMP_TARGET_OFFLOAD=DISABLED`, and on the GPU.
//!
//! Expectations (the same three as `omp-rs/tests/adversarial.rs`):
//! - MustEqual: legitimate code; the region must not panic and must equal sequential Rust;
//! - MustPanic: the region must panic (overlapping writes the host path detects at run time must not be
//!   written twice on the device either, issue #5);
//! - PanicOrEqual: if sequential Rust panics (debug: overflow checks; release: the wrapped index is out of bounds),
//!   the region must panic too, otherwise it may panic or must equal sequential Rust.
//!
//! The sequential references are compiled in the suite's profile, so `cargo test` (debug) checks that a device
//! kernel does not silently wrap where debug Rust panics, and `--release` checks the wrapped values.

#![allow(clippy::all, dead_code, unused_mut, unused_assignments, unused_variables, non_upper_case_globals)]

use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, vec_f64, Check};

/// Every adversarial check.
pub const CHECKS: &[Check] = &[
    (
        "adv: a region of a target_data block that runs on the host (if(false)) sees and keeps the device's data",
        check_host_region_in_data_block,
    ),
    ("adv: a host-run region reading a device-current variable through a shared token refuses to run", check_host_region_shared_token),
    ("adv: collapse(2) row longer than its stride must panic (issue #5)", check_row_longer_than_stride),
    ("adv: collapse(2) dense rows, padded rows, transposed write", check_row_layouts),
    ("adv: collapse(2) zero stride at run time must panic", check_zero_stride),
    ("adv: collapse(2) y[i + j] must panic", check_sum_of_both_variables),
    ("adv: collapse(3) middle dimension too long must panic", check_collapse3_too_long),
    ("adv: collapse(2) zero-trip shapes and empty arrays", check_tiny_shapes),
    ("adv: collapse(2) signed ranges, (i + 2) * (c + 3) + j + 3", check_signed_ranges),
    ("adv: inner loop 1..n - 1 with n = 0 (wraps in release)", check_inner_range_n_minus_one),
    ("adv: i8 loop variable, x[(2 * i) as usize] wraps negative", check_i8_doubled_read_index),
    ("adv: u8 0..=255, i8 -128..=127, i32 rev across zero", check_narrow_loop_variables),
    ("adv: step_by beyond the range, rev().step_by, n of 0 and 1", check_steps),
    ("adv: neighbour read x[i + 1] out of bounds must panic", check_neighbour_read_oob),
    ("adv: written index y[i + 3] out of bounds must panic", check_written_oob),
    ("adv: assert! in one iteration panics, next launch is fine", check_panic_then_usable),
    ("adv: i32 overflow in the body (debug: must panic)", check_body_overflow),
    ("adv: u8 sum reduction overflows (debug: must panic)", check_u8_sum_overflow),
    ("adv: huge run-time stride wraps rows onto row 0", check_huge_stride),
    ("adv: reductions with NaNs, initial values, -=, zero trips", check_reductions),
    ("adv: private written first, firstprivate read only", check_privates_legit),
    ("adv: block-local `let x = short` shadows a captured array", check_block_shadow),
    ("adv: body-local `const n` shadows a coefficient", check_const_shadow),
    ("adv: atomic histogram and atomic sum", check_atomics),
    ("adv: target_data: host reads only unmapped data inside, mapped data after", check_data_region_legit),
    ("adv: map(from: y) on a partially written y keeps the other elements", check_map_from_partial),
    ("adv: map(to: x[..n]) section with reads past n", check_section_read_past_end),
    ("adv: if(false) row overlap panics on the host too", check_if_false_overlap),
];

// ---------------------------------------------------------------------------------------------------------------
// Expectations

fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f))
        .map_err(|p| p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default())
}

/// MustPanic.
fn must_panic<T: Debug>(what: &str, got: Result<T, String>) -> Result<(), String> {
    match got {
        Err(_) => Ok(()),
        Ok(v) => Err(format!("{what}: returned {:.200} instead of panicking", format!("{v:?}"))),
    }
}

/// MustEqual through `same` (exact) for slices.
fn must_equal<T: PartialEq + Debug>(what: &str, got: Result<Vec<T>, String>, want: &[T]) -> Result<(), String> {
    match got {
        Err(m) => Err(format!("{what}: panicked: {m}")),
        Ok(v) => same(what, &v, want),
    }
}

/// PanicOrEqual: `want` is the sequential outcome (Err: sequential Rust panicked).
fn panic_or_equal<T: PartialEq + Debug>(what: &str, got: Result<Vec<T>, String>, want: Result<Vec<T>, String>) -> Result<(), String> {
    match (got, want) {
        (Err(_), _) => Ok(()),
        (Ok(g), Ok(w)) => same(what, &g, &w),
        (Ok(_), Err(m)) => Err(format!("{what}: returned where sequential Rust panics ({m})")),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// collapse and run-time disjointness (the host path checks `y[i * n + j]` against the bounds; so must the device)

#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn fill(r: usize, c: usize, stride: usize, y: &mut [u64]) {
    for i in 0..r {
        for j in 0..c {
            y[i * stride + j] += (i * 1000 + j) as u64 + 1;
        }
    }
}

fn fill_seq(r: usize, c: usize, stride: usize, y: &mut [u64]) {
    for i in 0..r {
        for j in 0..c {
            y[i * stride + j] += (i * 1000 + j) as u64 + 1;
        }
    }
}

fn fill_len(r: usize, c: usize, stride: usize) -> usize {
    if r == 0 || c == 0 {
        0
    } else {
        (r - 1) * stride + c
    }
}

fn check_row_longer_than_stride(rng: &mut StdRng) -> Result<(), String> {
    // collapse(2), y[i*n + j] with j in 0..m, m > n: rows overlap (the issue: the kernel wrote 18 elements twice).
    let (rows, n) = (rng.gen_range(2..200), rng.gen_range(1..100));
    let m = n + rng.gen_range(1..8);
    let mut y = vec![0u64; fill_len(rows, m, n)];
    must_panic("y", caught(|| fill(rows, m, n, &mut y)))
}

fn check_row_layouts(rng: &mut StdRng) -> Result<(), String> {
    for (rows, c, stride) in [(rng.gen_range(1..300), 64, 64), (rng.gen_range(1..300), 40, 64), (1, 3, 1)] {
        let mut y = vec![0u64; fill_len(rows, c, stride)];
        let mut want = y.clone();
        fill_seq(rows, c, stride, &mut want);
        must_equal(
            &format!("y ({rows}x{c}, stride {stride})"),
            caught(|| {
                fill(rows, c, stride, &mut y);
                y.clone()
            }),
            &want,
        )?;
    }
    let (rows, c) = (rng.gen_range(1..200), rng.gen_range(1..200));
    let a = vec_f64(rng, rows * c);
    let mut t = vec![0.0; rows * c];
    let mut want = vec![0.0; rows * c];
    for i in 0..rows {
        for j in 0..c {
            want[j * rows + i] = a[i * c + j];
        }
    }
    must_equal(
        "transposed",
        caught(|| {
            transpose(rows, c, &a, &mut t);
            t.clone()
        }),
        &want,
    )
}

#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn transpose(r: usize, c: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..r {
        for j in 0..c {
            y[j * r + i] = a[i * c + j];
        }
    }
}

fn check_zero_stride(rng: &mut StdRng) -> Result<(), String> {
    let (rows, m) = (rng.gen_range(2..200), rng.gen_range(1..50));
    let mut y = vec![0u64; m];
    must_panic("y (stride 0)", caught(|| fill(rows, m, 0, &mut y)))
}

#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn antidiag(r: usize, c: usize, y: &mut [u64]) {
    for i in 0..r {
        for j in 0..c {
            y[i + j] += 1;
        }
    }
}

fn check_sum_of_both_variables(rng: &mut StdRng) -> Result<(), String> {
    let (rows, c) = (rng.gen_range(2..300), rng.gen_range(2..300));
    let mut y = vec![0u64; rows + c];
    must_panic("y[i + j]", caught(|| antidiag(rows, c, &mut y)))
}

#[omp::target_teams_distribute_parallel_for(collapse(3))]
fn cube(nk: usize, nj: usize, ni: usize, jr: usize, y: &mut [u64]) {
    for k in 0..nk {
        for j in 0..jr {
            for i in 0..ni {
                y[(k * nj + j) * ni + i] = (k * 10000 + j * 100 + i) as u64;
            }
        }
    }
}

fn check_collapse3_too_long(rng: &mut StdRng) -> Result<(), String> {
    let (nk, nj, ni) = (rng.gen_range(2..20), rng.gen_range(1..20), rng.gen_range(1..20));
    let mut y = vec![0u64; nk * nj * ni + ni];
    must_panic("y", caught(|| cube(nk, nj, ni, nj + 1, &mut y)))
}

fn check_tiny_shapes(_: &mut StdRng) -> Result<(), String> {
    // Zero-trip nests are legitimate whatever the stride: nothing is written, nothing may panic.
    for rows in 0..3 {
        for c in 0..3 {
            for stride in [0, c] {
                let mut y = vec![7u64; fill_len(rows, c, stride)];
                let mut want = y.clone();
                if rows * c != 0 && (stride != 0 || rows < 2) {
                    fill_seq(rows, c, stride, &mut want);
                } else if rows * c != 0 {
                    continue; // rows overlap: a MustPanic case, covered above
                }
                must_equal(
                    &format!("y ({rows}x{c}, stride {stride})"),
                    caught(|| {
                        fill(rows, c, stride, &mut y);
                        y.clone()
                    }),
                    &want,
                )?;
            }
        }
    }
    Ok(())
}

#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn signed_grid(r: i64, c: i64, y: &mut [i64]) {
    for i in -2i64..r {
        for j in -3i64..c {
            y[((i + 2) * (c + 3) + j + 3) as usize] = i * 100 + j;
        }
    }
}

fn check_signed_ranges(rng: &mut StdRng) -> Result<(), String> {
    let (r, c) = (rng.gen_range(0..60i64), rng.gen_range(0..60i64));
    let len = ((r + 2) * (c + 3)) as usize;
    let mut y = vec![0i64; len];
    let mut want = vec![0i64; len];
    for i in -2i64..r {
        for j in -3i64..c {
            want[((i + 2) * (c + 3) + j + 3) as usize] = i * 100 + j;
        }
    }
    must_equal(
        "y",
        caught(|| {
            signed_grid(r, c, &mut y);
            y.clone()
        }),
        &want,
    )
}

// ---------------------------------------------------------------------------------------------------------------
// wrapping arithmetic, narrow loop variables

#[omp::target_teams_distribute_parallel_for]
fn smooth(m: usize, n: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..m {
        let mut s = 0.0;
        for k in 1..n - 1 {
            s += a[i * n + k - 1] + a[i * n + k + 1];
        }
        y[i] = s;
    }
}

fn smooth_seq(m: usize, n: usize, a: &[f64], y: &mut [f64]) {
    for i in 0..m {
        let mut s = 0.0;
        for k in 1..n - 1 {
            s += a[i * n + k - 1] + a[i * n + k + 1];
        }
        y[i] = s;
    }
}

fn check_inner_range_n_minus_one(rng: &mut StdRng) -> Result<(), String> {
    for n in [0usize, 1, 2, 3, 17] {
        let m = rng.gen_range(4..300);
        let a = vec_f64(rng, m * n);
        let y0 = vec_f64(rng, m);
        let want = caught(|| {
            let mut y = y0.clone();
            smooth_seq(m, n, &a, &mut y);
            y
        });
        let got = caught(|| {
            let mut y = y0.clone();
            smooth(m, n, &a, &mut y);
            y
        });
        panic_or_equal(&format!("y (n = {n})"), got, want)?;
    }
    Ok(())
}

#[omp::target_teams_distribute_parallel_for]
fn even_i8(x: &[f64], y: &mut [f64]) {
    for i in 0i8..=100 {
        y[i as usize] = x[(2 * i) as usize];
    }
}

fn check_i8_doubled_read_index(rng: &mut StdRng) -> Result<(), String> {
    let x = vec_f64(rng, 201);
    let want = caught(|| {
        let mut y = vec![0.0; 101];
        for i in 0i8..=100 {
            y[i as usize] = x[(2 * i) as usize];
        }
        y
    });
    let got = caught(|| {
        let mut y = vec![0.0; 101];
        even_i8(&x, &mut y);
        y
    });
    panic_or_equal("y", got, want)
}

#[omp::target_teams_distribute_parallel_for]
fn all_u8(x: &[f64], y: &mut [f64]) {
    for i in 0u8..=255 {
        y[i as usize] = x[i as usize] * 2.0 + i as f64;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn all_i8(x: &[f64], y: &mut [f64]) {
    for i in -128i8..=127 {
        y[(i as isize + 128) as usize] = x[(i as isize + 128) as usize] + i as f64;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn around_zero(x: &[f64], y: &mut [f64]) {
    for i in (-50i32..50).rev() {
        y[(i + 50) as usize] = x[(49 - i) as usize] * i as f64;
    }
}

fn check_narrow_loop_variables(rng: &mut StdRng) -> Result<(), String> {
    let x = vec_f64(rng, 256);
    let mut y = vec![0.0; 256];
    let want: Vec<f64> = (0..256).map(|i| x[i] * 2.0 + i as f64).collect();
    must_equal(
        "u8 0..=255",
        caught(|| {
            all_u8(&x, &mut y);
            y.clone()
        }),
        &want,
    )?;
    let want: Vec<f64> = (0..256).map(|k| x[k] + (k as f64 - 128.0)).collect();
    must_equal(
        "i8 -128..=127",
        caught(|| {
            all_i8(&x, &mut y);
            y.clone()
        }),
        &want,
    )?;
    let mut z = vec![0.0; 100];
    let want: Vec<f64> = (0..100).map(|k| x[99 - k] * (k as f64 - 50.0)).collect();
    must_equal(
        "i32 rev",
        caught(|| {
            around_zero(&x[..100], &mut z);
            z.clone()
        }),
        &want,
    )
}

#[omp::target_parallel_for]
fn strided(n: usize, s: usize, y: &mut [u64]) {
    for i in (0..n).step_by(s) {
        y[i] = i as u64 * 3 + 1;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn rev_strided(n: usize, s: usize, y: &mut [u64]) {
    for i in (0..n).rev().step_by(s) {
        y[n - 1 - i] += i as u64 + 1;
    }
}

fn check_steps(rng: &mut StdRng) -> Result<(), String> {
    for n in [0usize, 1, 2, rng.gen_range(3..5000)] {
        let s = rng.gen_range(1..2 * n + 2);
        let mut y = vec![0u64; n];
        let mut want = vec![0u64; n];
        for i in (0..n).step_by(s) {
            want[i] = i as u64 * 3 + 1;
        }
        must_equal(
            &format!("step_by (n {n}, s {s})"),
            caught(|| {
                strided(n, s, &mut y);
                y.clone()
            }),
            &want,
        )?;
        let mut y = vec![0u64; n];
        let mut want = vec![0u64; n];
        for i in (0..n).rev().step_by(s) {
            want[n - 1 - i] += i as u64 + 1;
        }
        must_equal(
            &format!("rev().step_by (n {n}, s {s})"),
            caught(|| {
                rev_strided(n, s, &mut y);
                y.clone()
            }),
            &want,
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// panics

#[omp::target_teams_distribute_parallel_for]
fn fwd(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = x[i + 1] - x[i];
    }
}

fn check_neighbour_read_oob(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let x = vec_f64(rng, n);
    let mut y = vec![0.0; n];
    must_panic("y", caught(|| fwd(&x, &mut y)))
}

#[omp::target_teams_distribute_parallel_for]
fn shift3(n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..n {
        y[i + 3] = x[i];
    }
}

fn check_written_oob(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let x = vec_f64(rng, n);
    let mut y = vec![0.0; n + 2];
    must_panic("y", caught(|| shift3(n, &x, &mut y)))
}

#[omp::target_teams_distribute_parallel_for]
fn sqrt_all(x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        assert!(x[i] >= 0.0, "negative input");
        y[i] = x[i].sqrt();
    }
}

fn check_panic_then_usable(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(10..5000);
    let mut x: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..4.0)).collect();
    let good = x.clone();
    x[rng.gen_range(0..n)] = -1.0;
    let mut y = vec![0.0; n];
    must_panic("y (one negative input)", caught(|| sqrt_all(&x, &mut y)))?;
    let want: Vec<f64> = good.iter().map(|v| v.sqrt()).collect();
    must_equal(
        "y (after the panic)",
        caught(|| {
            sqrt_all(&good, &mut y);
            y.clone()
        }),
        &want,
    )
}

#[omp::target_teams_distribute_parallel_for]
fn scale_i32(k: i32, x: &[i32], y: &mut [i32]) {
    for i in 0..x.len() {
        y[i] = x[i] * k;
    }
}

fn check_body_overflow(rng: &mut StdRng) -> Result<(), String> {
    // Debug Rust panics on `x[i] * k` overflowing; release wraps. The kernel must do what the host profile does.
    let n = rng.gen_range(100..5000);
    let x: Vec<i32> = (0..n).map(|_| rng.gen_range(0..100_000)).collect();
    let k = 100_000;
    let want = caught(|| x.iter().map(|v| v * k).collect::<Vec<i32>>());
    let got = caught(|| {
        let mut y = vec![0; n];
        scale_i32(k, &x, &mut y);
        y
    });
    panic_or_equal("y", got, want)
}

#[omp::target_teams_distribute_parallel_for(reduction(+: s))]
fn sum_u8(x: &[u8]) -> u8 {
    let mut s: u8 = 0;
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

fn check_u8_sum_overflow(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(100..5000);
    let x: Vec<u8> = (0..n).map(|_| rng.gen_range(0..20)).collect();
    let want = caught(|| {
        let mut s: u8 = 0;
        for v in &x {
            s += *v;
        }
        vec![s]
    });
    panic_or_equal("s", caught(|| vec![sum_u8(&x)]), want)
}

#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn stride_wrap(n: usize, m: usize, stride: usize, y: &mut [u64]) {
    for i in (0..n).step_by(2) {
        for j in 0..m {
            y[i * stride + j] = y[i * stride + j].wrapping_mul(3).wrapping_add(i as u64);
        }
    }
}

fn check_huge_stride(_: &mut StdRng) -> Result<(), String> {
    // stride 2^63, even i: i * stride wraps to 0 in release (rows all land on row 0: sequential Rust overwrites,
    // an order-dependent update chain; a parallel kernel writes the same elements from many threads); debug Rust
    // panics on the overflow.
    let (n, m) = (200_000, 3);
    let want = caught(|| {
        let mut y = vec![0u64; m];
        for i in (0..n).step_by(2) {
            for j in 0..m {
                y[i * (1usize << 63) + j] = y[i * (1usize << 63) + j].wrapping_mul(3).wrapping_add(i as u64);
            }
        }
        y
    });
    panic_or_equal(
        "y",
        caught(|| {
            let mut y = vec![0u64; m];
            stride_wrap(n, m, 1 << 63, &mut y);
            y
        }),
        want,
    )
}

// ---------------------------------------------------------------------------------------------------------------
// reductions and data-sharing clauses used legitimately

#[omp::target_teams_distribute_parallel_for(reduction(max: hi), reduction(min: lo), reduction(+: s), reduction(+: d))]
fn stats(x: &[f64], s0: f64) -> (f64, f64, f64, i64) {
    let mut hi: f64 = f64::NEG_INFINITY;
    let mut lo: f64 = f64::INFINITY;
    let mut s: f64 = s0;
    let mut d: i64 = 1000;
    for i in 0..x.len() {
        hi = hi.max(x[i]);
        lo = lo.min(x[i]);
        s += x[i];
        d -= (x[i] > 0.0) as i64;
    }
    (hi, lo, s, d)
}

fn check_reductions(rng: &mut StdRng) -> Result<(), String> {
    for n in [0usize, 1, rng.gen_range(2..100_000)] {
        let mut x = vec_f64(rng, n);
        for _ in 0..n / 10 {
            let k = rng.gen_range(0..n);
            x[k] = f64::NAN;
        }
        let s0 = rng.gen_range(-10.0..10.0);
        let (hi, lo, s, d) = caught(|| stats(&x, s0)).map_err(|m| format!("n {n}: panicked: {m}"))?;
        let whi = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let wlo = x.iter().cloned().fold(f64::INFINITY, f64::min);
        same("max", &[hi], &[whi])?;
        same("min", &[lo], &[wlo])?;
        let ws = x.iter().filter(|v| !v.is_nan()).fold(s0, |a, v| a + v);
        if x.iter().any(|v| v.is_nan()) {
            if !s.is_nan() {
                return Err(format!("sum over NaNs = {s}"));
            }
        } else {
            close("sum", s, ws, n + 1, x.iter().map(|v| v.abs()).sum::<f64>() + s0.abs())?;
        }
        same("count", &[d], &[1000 - x.iter().filter(|v| **v > 0.0).count() as i64])?;
    }
    Ok(())
}

#[omp::target_teams_distribute_parallel_for(private(t), firstprivate(c))]
fn privates(c: f64, x: &[f64], y: &mut [f64]) {
    let mut t: f64 = 0.0;
    for i in 0..x.len() {
        t = x[i] * c;
        y[i] = t * t;
    }
    let _ = t;
}

fn check_privates_legit(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..50_000);
    let x = vec_f64(rng, n);
    let c: f64 = rng.gen_range(-2.0..2.0);
    let mut y = vec![0.0; n];
    let want: Vec<f64> = x.iter().map(|v| (v * c) * (v * c)).collect();
    must_equal(
        "y",
        caught(|| {
            privates(c, &x, &mut y);
            y.clone()
        }),
        &want,
    )
}

// ---------------------------------------------------------------------------------------------------------------
// shadowing inside a kernel body

#[omp::target_teams_distribute_parallel_for]
fn block_shadow(x: &[f64], short: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        let mut s = 2.0 * x[i];
        {
            let x = short;
            s += x[i];
        }
        y[i] = s;
    }
}

fn check_block_shadow(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(64..5000);
    let k = rng.gen_range(1..8);
    let (x, short) = (vec_f64(rng, n), vec_f64(rng, k));
    let want = caught(|| (0..n).map(|i| 2.0 * x[i] + short[i]).collect::<Vec<f64>>());
    panic_or_equal(
        "y",
        caught(|| {
            let mut y = vec![0.0; n];
            block_shadow(&x, &short, &mut y);
            y
        }),
        want,
    )
}

#[omp::target_teams_distribute_parallel_for]
fn const_shadow(n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        const n: usize = 1000;
        y[i] = x[i * n];
    }
}

fn check_const_shadow(rng: &mut StdRng) -> Result<(), String> {
    let m = rng.gen_range(16..500);
    let x = vec_f64(rng, m);
    let want = caught(|| (0..m).map(|i| x[i * 1000]).collect::<Vec<f64>>());
    panic_or_equal(
        "y",
        caught(|| {
            let mut y = vec![0.0; m];
            const_shadow(1, &x, &mut y);
            y
        }),
        want,
    )
}

// ---------------------------------------------------------------------------------------------------------------
// atomics

#[omp::directives]
fn histogram(x: &[u32], h: &mut [u64], total: &mut [u64]) {
    let mut sum: u64 = 0;
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..x.len() {
        let k = x[i] as usize % h.len();
        #[omp::atomic]
        h[k] += 1;
        #[omp::atomic]
        sum += x[i] as u64;
    }
    total[0] = sum;
}

fn check_atomics(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..200_000);
    let nb = rng.gen_range(1..40);
    let x: Vec<u32> = (0..n).map(|_| rng.gen_range(0..1_000_000)).collect();
    let (mut h, mut total) = (vec![0u64; nb], vec![0u64]);
    caught(|| histogram(&x, &mut h, &mut total)).map_err(|m| format!("panicked: {m}"))?;
    let mut want = vec![0u64; nb];
    for v in &x {
        want[*v as usize % nb] += 1;
    }
    same("h", &h, &want)?;
    same("total", &total, &[x.iter().map(|v| *v as u64).sum::<u64>()])
}

// ---------------------------------------------------------------------------------------------------------------
// data regions

#[omp::directives]
fn data_legit(n: usize, a: &mut [f64], b: &mut [f64], other: &[f64]) -> f64 {
    let mut host_sum: f64 = 0.0;
    #[omp::target_data(map(tofrom: a), map(to: b))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] = 2.0 * a[i] + b[i];
        }
        // Host code inside the block may use data that is not mapped.
        for v in other {
            host_sum += v;
        }
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] -= 1.0;
        }
    }
    host_sum + a[0]
}

fn check_data_region_legit(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..50_000);
    let (a0, b, other) = (vec_f64(rng, n), vec_f64(rng, n), vec_f64(rng, 100));
    let mut a = a0.clone();
    let mut b2 = b.clone();
    let r = caught(|| data_legit(n, &mut a, &mut b2, &other)).map_err(|m| format!("panicked: {m}"))?;
    let want: Vec<f64> = (0..n).map(|i| 2.0 * a0[i] + b[i] - 1.0).collect();
    same("a", &a, &want)?;
    same("b (map to: unchanged)", &b2, &b)?;
    let ws: f64 = other.iter().fold(0.0, |s, v| s + v) + want[0];
    same("result", &[r], &[ws])
}

#[omp::target_teams_distribute_parallel_for(map(from: y))]
fn evens_only(x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        if i % 2 == 0 {
            y[i] = x[i];
        }
    }
}

fn check_map_from_partial(rng: &mut StdRng) -> Result<(), String> {
    // Sequential Rust leaves the odd elements alone; `map(from:)` must not replace them with uninitialised device
    // memory (or the macro must refuse `from` for an array the region does not write in full).
    let n = rng.gen_range(2..50_000);
    let x = vec_f64(rng, n);
    let y0 = vec_f64(rng, n);
    let mut y = y0.clone();
    let want: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { x[i] } else { y0[i] }).collect();
    must_equal(
        "y",
        caught(|| {
            evens_only(&x, &mut y);
            y.clone()
        }),
        &want,
    )
}

#[omp::target_teams_distribute_parallel_for(map(to: x[..n]), map(tofrom: y[..n]))]
fn section_reads(n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..n {
        y[i] = x[i] + x[i + 1];
    }
}

fn check_section_read_past_end(rng: &mut StdRng) -> Result<(), String> {
    // x has n + 1 elements, so sequential Rust is fine; only x[..n] is mapped. The region may panic (the read is
    // outside the mapped section) but must never read unmapped memory and return.
    let n = rng.gen_range(1..50_000);
    let x = vec_f64(rng, n + 1);
    let want: Vec<f64> = (0..n).map(|i| x[i] + x[i + 1]).collect();
    panic_or_equal(
        "y",
        caught(|| {
            let mut y = vec![0.0; n];
            section_reads(n, &x, &mut y);
            y
        }),
        Ok(want),
    )
}

#[omp::target_teams_distribute_parallel_for(collapse(2), if(on))]
fn fill_if(on: bool, r: usize, c: usize, stride: usize, y: &mut [u64]) {
    for i in 0..r {
        for j in 0..c {
            y[i * stride + j] += 1;
        }
    }
}

fn check_if_false_overlap(rng: &mut StdRng) -> Result<(), String> {
    let (rows, n) = (rng.gen_range(2..100), rng.gen_range(1..50));
    let m = n + 1;
    for on in [false, true] {
        let mut y = vec![0u64; fill_len(rows, m, n)];
        must_panic(&format!("y (if({on}))"), caught(|| fill_if(on, rows, m, n, &mut y)))?;
    }
    Ok(())
}

/// Three steps on `a` inside one data region; the middle one runs on the host (`if(false)`), between two on the
/// device. Without bringing the device copy back it would read stale host data, and the block's copy back at its
/// end would overwrite its writes.
#[omp::directives]
fn device_host_device(a: &mut [f64], on_device: bool) {
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] = 2.0 * a[i] + 1.0;
        }
        #[omp::target_teams_distribute_parallel_for(if(on_device))]
        for i in 0..a.len() {
            a[i] = a[i] * a[i];
        }
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] -= 3.0;
        }
    }
}

fn check_host_region_in_data_block(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..4000);
    let a0 = vec_f64(rng, n);
    let want: Vec<f64> = a0.iter().map(|x| (2.0 * x + 1.0) * (2.0 * x + 1.0) - 3.0).collect();
    for on_device in [false, true] {
        let mut a = a0.clone();
        device_host_device(&mut a, on_device);
        same(if on_device { "a (all on the device)" } else { "a (middle step on the host)" }, &a, &want)?;
    }
    Ok(())
}

/// Reads `x` through a read-only token, on the host when `on_device` is false.
#[omp::directives]
fn copy_maybe_on_host(x: &omp::MappedRef<'_, '_, f64>, y: &mut omp::MappedMut<'_, '_, f64>, on_device: bool) {
    #[omp::target_teams_distribute_parallel_for(if(on_device))]
    for i in 0..y.len() {
        y[i] = x[i];
    }
}

#[omp::directives]
fn shared_token_on_host(x: &mut [f64], y: &mut [f64], on_device: bool) {
    #[omp::target_data(map(tofrom: x, y))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..x.len() {
            x[i] += 1.0;
        }
        copy_maybe_on_host(&x.as_mapped_ref(), &mut y, on_device);
    }
}

fn check_host_region_shared_token(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x0 = vec_f64(rng, n);
    let want: Vec<f64> = x0.iter().map(|v| v + 1.0).collect();
    let (mut x, mut y) = (x0.clone(), vec![0.0; n]);
    shared_token_on_host(&mut x, &mut y, true);
    same("y (on the device)", &y, &want)?;
    // On the host, the read-only token's data would be stale where the block maps onto a device: a panic, not a
    // wrong copy. Where the block itself runs on the host, the host copy is current and the region runs.
    let (mut x, mut y) = (x0.clone(), vec![0.0; n]);
    let r = catch_unwind(AssertUnwindSafe(|| shared_token_on_host(&mut x, &mut y, false)));
    let mapped = omp::get_num_devices() > 0 && !std::env::var("OMP_TARGET_OFFLOAD").is_ok_and(|v| v.eq_ignore_ascii_case("disabled"));
    match (r, mapped) {
        (Err(e), true) => {
            let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
            if msg.contains("is current only on") {
                Ok(())
            } else {
                Err(format!("unexpected panic: {msg}"))
            }
        }
        (Ok(()), false) => same("y (all on the host)", &y, &want),
        (Ok(()), true) => Err("a host-run region read a device-current variable through a shared token".into()),
        (Err(_), false) => Err("the all-host run panicked".into()),
    }
}
