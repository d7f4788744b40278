//! Legitimate loop bodies that the directives must ACCEPT (compile) and run exactly like sequential Rust.
//!
//! Companion of `adversarial.rs`, kept apart so that a precision gap (a sound but needless rejection) fails this
//! file only and never hides the soundness cases there. Every case is `MustEqual`. The harness is the same idea,
//! reduced: each case runs with team sizes 1, 2 and 4 and compares with the sequential loop.

#![allow(clippy::all, dead_code, unused_mut, unused_variables, unused_assignments, unused_labels)]

use std::panic::{catch_unwind, AssertUnwindSafe};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn rng() -> StdRng {
    let seed: u64 = std::env::var("ADV_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    println!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

fn vf(rng: &mut StdRng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

/// Every team size must return `want` without panicking.
fn must_equal<T: PartialEq + std::fmt::Debug>(case: &str, par: impl Fn(usize) -> T, want: T) {
    for nt in [1, 2, 4] {
        let got = catch_unwind(AssertUnwindSafe(|| par(nt)));
        let outcome = match &got {
            Err(_) => "panics",
            Ok(g) if *g == want => "equal",
            Ok(_) => "differs",
        };
        println!("OUTCOME {case} nt={nt} {outcome}");
        assert_eq!(outcome, "equal", "{case} (MustEqual) with {nt} threads");
    }
}

// ---- case: labelled_break_to_inner_label — `break 'scan` targets a loop inside the body ----------------------------
#[omp::parallel_for(num_threads(nt))]
fn scan(nt: usize, k: usize, a: &[i32], y: &mut [usize]) {
    for i in 0..y.len() {
        let mut steps = 0;
        'scan: loop {
            for j in 0..k {
                steps += 1;
                if a[i * k + j] < 0 {
                    break 'scan;
                }
            }
            break;
        }
        y[i] = steps;
    }
}

#[test]
fn labelled_break_to_inner_label() {
    let mut r = rng();
    let (n, k) = (r.gen_range(0..300), r.gen_range(1..10));
    let a: Vec<i32> = (0..n * k).map(|_| r.gen_range(-1..6)).collect();
    let want: Vec<usize> = (0..n).map(|i| a[i * k..(i + 1) * k].iter().position(|v| *v < 0).map_or(k, |p| p + 1)).collect();
    must_equal(
        "accept::labelled_break_to_inner_label",
        |nt| {
            let mut y = vec![0; n];
            scan(nt, k, &a, &mut y);
            y
        },
        want,
    );
}

// ---- case: labelled_continue_inner — `continue 'rows` of a loop inside the body -------------------------------------
#[omp::parallel_for(num_threads(nt))]
fn count_rows(nt: usize, k: usize, a: &[i32], y: &mut [usize]) {
    for i in 0..y.len() {
        let mut c = 0;
        'rows: for r in 0..3 {
            for j in 0..k {
                if a[i * k + j] == r {
                    continue 'rows;
                }
            }
            c += 1;
        }
        y[i] = c;
    }
}

#[test]
fn labelled_continue_inner() {
    let mut r = rng();
    let (n, k) = (r.gen_range(0..300), r.gen_range(1..10));
    let a: Vec<i32> = (0..n * k).map(|_| r.gen_range(0..6)).collect();
    let want: Vec<usize> = (0..n).map(|i| (0..3).filter(|rv| !a[i * k..(i + 1) * k].contains(rv)).count()).collect();
    must_equal(
        "accept::labelled_continue_inner",
        |nt| {
            let mut y = vec![0; n];
            count_rows(nt, k, &a, &mut y);
            y
        },
        want,
    );
}

// ---- case: return_and_question_mark_inside_closure — they leave the closure, not the parallel loop ----------------------
#[omp::parallel_for(num_threads(nt))]
fn parse_all(nt: usize, s: &[String], y: &mut [f64]) {
    for i in 0..y.len() {
        let parse = |t: &str| -> Result<f64, std::num::ParseFloatError> {
            if t.is_empty() {
                return Ok(0.0);
            }
            let v: f64 = t.trim().parse()?;
            Ok(v * 2.0)
        };
        y[i] = parse(&s[i]).unwrap_or(-1.0);
    }
}

#[test]
fn return_and_question_mark_inside_closure() {
    let mut r = rng();
    let n = r.gen_range(0..300);
    let s: Vec<String> = (0..n)
        .map(|k| match k % 3 {
            0 => String::new(),
            1 => format!(" {} ", k),
            _ => "x".into(),
        })
        .collect();
    let want: Vec<f64> = (0..n)
        .map(|k| match k % 3 {
            0 => 0.0,
            1 => 2.0 * k as f64,
            _ => -1.0,
        })
        .collect();
    must_equal(
        "accept::return_and_question_mark_inside_closure",
        |nt| {
            let mut y = vec![0.0; n];
            parse_all(nt, &s, &mut y);
            y
        },
        want,
    );
}

// ---- case: atomic_max_form — `#[omp::atomic] m = m.max(v)` (documented update form) -------------------------------
#[omp::directives]
fn atomic_max(nt: usize, x: &[i64]) -> (i64, i64) {
    let mut hi = i64::MIN;
    let mut lo = i64::MAX;
    #[omp::parallel_for(num_threads(nt))]
    for i in 0..x.len() {
        #[omp::atomic]
        hi = hi.max(x[i]);
        #[omp::atomic]
        lo = lo.min(x[i]);
    }
    (hi, lo)
}

#[test]
fn atomic_max_form() {
    let mut r = rng();
    let n = r.gen_range(0..3000);
    let x: Vec<i64> = (0..n).map(|_| r.gen_range(-1_000_000..1_000_000)).collect();
    let want = (x.iter().copied().max().unwrap_or(i64::MIN), x.iter().copied().min().unwrap_or(i64::MAX));
    must_equal("accept::atomic_max_form", |nt| atomic_max(nt, &x), want);
}

// ---- case: braces_in_a_string_value — `format!("{}", "{y}")`: the literal is a value, `y` is not read ----------------
#[omp::parallel_for(num_threads(nt))]
fn brace_value(nt: usize, y: &mut [usize]) {
    for i in 0..y.len() {
        y[i] = format!("{}{}", "{y}", i).len();
    }
}

#[test]
fn braces_in_a_string_value() {
    let mut r = rng();
    let n = r.gen_range(0..300);
    let want: Vec<usize> = (0..n).map(|i| format!("{}{}", "{y}", i).len()).collect();
    must_equal(
        "accept::braces_in_a_string_value",
        |nt| {
            let mut y = vec![0; n];
            brace_value(nt, &mut y);
            y
        },
        want,
    );
}

// ---- case: user_names_like_hidden_ones — user variables named like an expansion's internals -------------------------
#[omp::parallel_for(num_threads(nt), reduction(+: __omp_red))]
fn hidden_names(nt: usize, __omp_values: &[f64], __omp_chunk: f64, __omp_dim0: &mut [f64]) -> f64 {
    let mut __omp_red = 0.0;
    for __omp_k0 in 0..__omp_values.len() {
        __omp_dim0[__omp_k0] = __omp_values[__omp_k0] * __omp_chunk;
        __omp_red += 1.0;
    }
    __omp_red
}

#[test]
fn user_names_like_hidden_ones() {
    let mut r = rng();
    let n = r.gen_range(0..300);
    let x = vf(&mut r, n);
    let want = (n as f64, x.iter().map(|v| v * 3.0).collect::<Vec<f64>>());
    must_equal(
        "accept::user_names_like_hidden_ones",
        |nt| {
            let mut y = vec![0.0; n];
            let s = hidden_names(nt, &x, 3.0, &mut y);
            (s, y)
        },
        want,
    );
}

// ---- case: mapped_name_shadowed_inside_target_data — a new local `a` inside the block is not the mapped `a` ------------
#[omp::directives]
fn shadow_in_data(a: &mut [f64]) -> f64 {
    let mut out = 0.0;
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] += 1.0;
        }
        let a = [2.0, 3.0];
        out = a[0] + a[1];
    }
    out
}

#[test]
fn mapped_name_shadowed_inside_target_data() {
    let mut r = rng();
    let n = r.gen_range(1..300);
    let a0 = vf(&mut r, n);
    let want = (5.0, a0.iter().map(|v| v + 1.0).collect::<Vec<f64>>());
    must_equal(
        "accept::mapped_name_shadowed_inside_target_data",
        |_| {
            let mut a = a0.clone();
            let o = shadow_in_data(&mut a);
            (o, a)
        },
        want,
    );
}

// ---- case: same_index_spelled_differently — `y[i + 1]` and `y[1 + i]`, `y[(i)]`, `y[i * c + j]` and `y[j + c * i]` ----
#[omp::parallel_for(num_threads(nt), collapse(2))]
fn spelled(nt: usize, r: usize, c: usize, y: &mut [f64], z: &mut [f64]) {
    for i in 0..r {
        for j in 0..c {
            y[i * c + j] = 1.0;
            y[j + c * i] += 2.0;
            z[(i * c + j) + 1] = 3.0;
            z[1 + j + i * c] *= 2.0;
        }
    }
}

#[test]
fn same_index_spelled_differently() {
    let mut r = rng();
    let (rows, c) = (r.gen_range(0..40), r.gen_range(0..40));
    let mut wz = vec![0.0; rows * c + 1];
    for k in 1..rows * c + 1 {
        wz[k] = 6.0;
    }
    let want = (vec![3.0; rows * c], wz);
    must_equal(
        "accept::same_index_spelled_differently",
        |nt| {
            let (mut y, mut z) = (vec![0.0; rows * c], vec![0.0; rows * c + 1]);
            spelled(nt, rows, c, &mut y, &mut z);
            (y, z)
        },
        want,
    );
}

// ---- case: read_only_array_after_written_one_in_fn — `y` written by one loop, read freely by the next ---------------
#[omp::directives]
fn two_phase(nt: usize, x: &[f64], y: &mut [f64], z: &mut [f64]) {
    #[omp::parallel_for(num_threads(nt))]
    for i in 0..y.len() {
        y[i] = x[i] * 2.0;
    }
    #[omp::parallel_for(num_threads(nt))]
    for i in 0..z.len() {
        z[i] = y[(i + 1) % y.len()] - y[i];
    }
}

#[test]
fn read_only_array_after_written_one_in_fn() {
    let mut r = rng();
    let n = r.gen_range(1..300);
    let x = vf(&mut r, n);
    let want: Vec<f64> = (0..n).map(|i| x[(i + 1) % n] * 2.0 - x[i] * 2.0).collect();
    must_equal(
        "accept::read_only_array_after_written_one_in_fn",
        |nt| {
            let (mut y, mut z) = (vec![0.0; n], vec![0.0; n]);
            two_phase(nt, &x, &mut y, &mut z);
            z
        },
        want,
    );
}

// ---- case: i8_loop_with_i16_cast — `(i as i16 + 128) as usize`: a widening cast of a signed loop variable -------------
#[omp::parallel_for(num_threads(nt))]
fn i8_i16(nt: usize, y: &mut [i32]) {
    for i in -128i8..=127 {
        y[(i as i16 + 128) as usize] = i as i32 * 3;
    }
}

#[test]
fn i8_loop_with_i16_cast() {
    let want: Vec<i32> = (-128..=127).map(|v| v * 3).collect();
    must_equal(
        "accept::i8_loop_with_i16_cast",
        |nt| {
            let mut y = vec![0; 256];
            i8_i16(nt, &mut y);
            y
        },
        want,
    );
}

// ---- case: max_reduction_if_form — `if x[i] > m { m = x[i] }` under `reduction(max: m)` (the pre-3.1 C idiom) ----------
// (Deliberately listed here and not in adversarial.rs: a design that refuses every read of a reduction variable in the
//  body will reject it; if so, delete this case and say so in the docs.)
#[omp::parallel_for(num_threads(nt), reduction(max: m))]
fn if_max(nt: usize, x: &[i64]) -> i64 {
    let mut m = i64::MIN;
    for i in 0..x.len() {
        if x[i] > m {
            m = x[i];
        }
    }
    m
}

#[test]
fn max_reduction_if_form() {
    let mut r = rng();
    let n = r.gen_range(0..3000);
    let x: Vec<i64> = (0..n).map(|_| r.gen()).collect();
    let want = x.iter().copied().max().unwrap_or(i64::MIN);
    must_equal("accept::max_reduction_if_form", |nt| if_max(nt, &x), want);
}
