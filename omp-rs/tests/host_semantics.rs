//! The host path against sequential Rust on random inputs: sizes, chunk sizes, team sizes, schedules,
//! collapse depths and every reduction operator (proptest; failures print the seed-independent inputs).

use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------- schedules

#[omp::directives]
fn axpy_sched(kind: u8, a: f64, x: &[f64], y: &mut [f64], nt: usize, chunk: usize) {
    match kind {
        0 =>
        {
            #[omp::parallel_for(num_threads(nt), schedule(static))]
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
        }
        1 =>
        {
            #[omp::parallel_for(num_threads(nt), schedule(static, chunk))]
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
        }
        2 =>
        {
            #[omp::parallel_for(num_threads(nt), schedule(dynamic, chunk))]
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
        }
        3 =>
        {
            #[omp::parallel_for(num_threads(nt), schedule(guided, chunk))]
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
        }
        _ =>
        {
            #[omp::parallel_for(num_threads(nt), schedule(runtime))]
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn schedules_match_sequential(
        x in prop::collection::vec(-1e3f64..1e3, 0..2000),
        a in -10f64..10.0,
        kind in 0u8..5,
        nt in 1usize..6,
        chunk in 1usize..100,
    ) {
        let mut y: Vec<f64> = x.iter().map(|v| v * 0.5 + 1.0).collect();
        let mut want = y.clone();
        for i in 0..want.len() {
            want[i] += a * x[i];
        }
        axpy_sched(kind, a, &x, &mut y, nt, chunk);
        prop_assert_eq!(y, want);
    }
}

// ---------------------------------------------------------------------------------------------- collapse

#[omp::parallel_for(collapse(2), num_threads(nt), schedule(dynamic, chunk))]
fn stencil2(n: usize, m: usize, a: &[f64], b: &mut [f64], nt: usize, chunk: usize) {
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            b[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1]);
        }
    }
}

#[omp::parallel_for(collapse(3), num_threads(nt), schedule(guided, chunk))]
fn init3(ni: usize, nj: usize, nk: usize, out: &mut [f64], nt: usize, chunk: usize) {
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                out[i + ni * (j + nj * k)] = 0.00000001 * i as f64 * j as f64 * k as f64;
            }
        }
    }
}

#[omp::parallel_for(collapse(2), num_threads(nt))]
fn stepped(lo: i32, hi: i32, step: usize, w: usize, out: &mut [i64], nt: usize) {
    for r in (lo..hi).step_by(step) {
        for c in (0..w).rev() {
            out[(r - lo) as usize * w + c] = r as i64 * 1000 + c as i64;
        }
    }
}

/// Subslices inside the body (`&x[i..i + taps]`): range indexes keep their checked `Index` (the bounds-check
/// hoisting must leave them alone), and a fixed-size window next to them is still hoisted.
#[omp::parallel_for(num_threads(nt))]
fn fir(coeff: &[f64], input: &[f64], out: &mut [f64], nt: usize) {
    for i in 0..out.len() {
        let taps = &coeff[..4];
        let window = &input[i..i + 4];
        let mut sum = 0.0;
        for j in 0..4 {
            sum += taps[j] * window[j];
        }
        out[i] = sum + input[i];
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn collapse2_matches_sequential(n in 3usize..40, m in 3usize..40, nt in 1usize..5, chunk in 1usize..50, seed in any::<u64>()) {
        let a: Vec<f64> = (0..n * m).map(|k| ((k as u64).wrapping_mul(seed | 1) % 1000) as f64).collect();
        let mut b = vec![0.0; n * m];
        let mut want = b.clone();
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                want[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1]);
            }
        }
        stencil2(n, m, &a, &mut b, nt, chunk);
        prop_assert_eq!(b, want);
    }

    #[test]
    fn subslice_windows_match_sequential(n in 0usize..300, nt in 1usize..5, seed in any::<u64>()) {
        let coeff = [1.5, -0.25, 3.0, 0.5];
        let input: Vec<f64> = (0..n + 3).map(|k| ((k as u64).wrapping_mul(seed | 1) % 997) as f64).collect();
        let mut out = vec![0.0; n];
        fir(&coeff, &input, &mut out, nt);
        let want: Vec<f64> = (0..n).map(|i| (0..4).fold(0.0, |s, j| s + coeff[j] * input[i + j]) + input[i]).collect();
        prop_assert_eq!(out, want);
    }

    #[test]
    fn collapse3_matches_sequential(ni in 1usize..12, nj in 1usize..12, nk in 1usize..12, nt in 1usize..5, chunk in 1usize..20) {
        let mut out = vec![-1.0; ni * nj * nk];
        init3(ni, nj, nk, &mut out, nt, chunk);
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    prop_assert_eq!(out[i + ni * (j + nj * k)], 0.00000001 * i as f64 * j as f64 * k as f64);
                }
            }
        }
    }

    #[test]
    fn step_and_rev_match_sequential(lo in -20i32..20, len in 0i32..30, step in 1usize..5, w in 1usize..6, nt in 1usize..4) {
        let hi = lo + len;
        let mut out = vec![0i64; len as usize * w];
        stepped(lo, hi, step, w, &mut out, nt);
        let mut want = vec![0i64; len as usize * w];
        for r in (lo..hi).step_by(step) {
            for c in (0..w).rev() {
                want[(r - lo) as usize * w + c] = r as i64 * 1000 + c as i64;
            }
        }
        prop_assert_eq!(out, want);
    }
}

// ---------------------------------------------------------------------------------------------- reductions

#[omp::parallel_for(reduction(+: s), reduction(*: p), reduction(min: lo), reduction(max: hi), num_threads(nt), schedule(dynamic, 3))]
fn float_reductions(x: &[f64], nt: usize) -> (f64, f64, f64, f64) {
    let mut s = 0.0;
    let mut p = 1.0;
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..x.len() {
        s += x[i];
        p *= 1.0 + x[i] * 1e-4;
        lo = lo.min(x[i]);
        hi = hi.max(x[i]);
    }
    (s, p, lo, hi)
}

#[omp::parallel_for(reduction(+: s), reduction(*: p), reduction(min: lo), reduction(max: hi), reduction(&: and), reduction(|: or), reduction(^: xor), num_threads(nt))]
fn int_reductions(x: &[i64], nt: usize) -> (i64, i64, i64, i64, i64, i64, i64) {
    let mut s = 0i64;
    let mut p = 1i64;
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    let mut and = -1i64;
    let mut or = 0i64;
    let mut xor = 0i64;
    for i in 0..x.len() {
        s += x[i];
        p *= if x[i] % 2 == 0 { 1 } else { -1 };
        lo = lo.min(x[i]);
        hi = hi.max(x[i]);
        and &= x[i] | 0x0f;
        or |= x[i];
        xor ^= x[i];
    }
    (s, p, lo, hi, and, or, xor)
}

#[omp::parallel_for(reduction(&&: all), reduction(||: any), num_threads(nt), schedule(guided))]
fn bool_reductions(x: &[u32], limit: u32, nt: usize) -> (bool, bool) {
    let mut all = true;
    let mut any = false;
    for i in 0..x.len() {
        all = all && x[i] < limit;
        any = any || x[i] == limit;
    }
    (all, any)
}

#[omp::parallel_for(reduction(+: count), reduction(max: m), num_threads(nt))]
fn u32_reductions(x: &[u32], nt: usize) -> (u64, u32) {
    let mut count = 0u64;
    let mut m = 0u32;
    for i in 0..x.len() {
        count += u64::from(x[i] % 3 == 0);
        m = m.max(x[i]);
    }
    (count, m)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn float_reductions_match(x in prop::collection::vec(-1e3f64..1e3, 0..3000), nt in 1usize..6) {
        let (s, p, lo, hi) = float_reductions(&x, nt);
        let ws: f64 = x.iter().sum();
        let wp: f64 = x.iter().map(|v| 1.0 + v * 1e-4).product();
        let wlo = x.iter().cloned().fold(f64::INFINITY, f64::min);
        let whi = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        // Sums and products are re-associated across threads: bounded by n·ε·Σ|terms|.
        let bound = 1e-15 * x.len() as f64 * x.iter().map(|v| v.abs()).sum::<f64>() + 1e-300;
        prop_assert!((s - ws).abs() <= bound, "sum {} vs {}", s, ws);
        prop_assert!((p - wp).abs() <= 1e-12 * wp.abs() * (1.0 + x.len() as f64 * 1e-3), "product {} vs {}", p, wp);
        prop_assert_eq!(lo, wlo);
        prop_assert_eq!(hi, whi);
    }

    #[test]
    fn int_reductions_match(x in prop::collection::vec(-1_000_000i64..1_000_000, 0..3000), nt in 1usize..6) {
        let got = int_reductions(&x, nt);
        let want = (
            x.iter().sum::<i64>(),
            x.iter().map(|v| if v % 2 == 0 { 1 } else { -1 }).product::<i64>(),
            x.iter().cloned().fold(i64::MAX, i64::min),
            x.iter().cloned().fold(i64::MIN, i64::max),
            x.iter().fold(-1i64, |a, v| a & (v | 0x0f)),
            x.iter().fold(0i64, |a, v| a | v),
            x.iter().fold(0i64, |a, v| a ^ v),
        );
        prop_assert_eq!(got, want);
    }

    #[test]
    fn bool_and_unsigned_reductions_match(x in prop::collection::vec(0u32..1000, 0..2000), limit in 0u32..1100, nt in 1usize..6) {
        prop_assert_eq!(bool_reductions(&x, limit, nt), (x.iter().all(|v| *v < limit), x.contains(&limit)));
        prop_assert_eq!(u32_reductions(&x, nt), (x.iter().filter(|v| *v % 3 == 0).count() as u64, x.iter().cloned().max().unwrap_or(0)));
    }
}

// ---------------------------------------------------------------------------------------------- atomics, critical

#[omp::directives]
fn histogram(x: &[u32], bins: &mut [u64], weights: &mut [f64], nt: usize) {
    #[omp::parallel_for(num_threads(nt), schedule(dynamic, 16))]
    for i in 0..x.len() {
        let b = (x[i] as usize) % bins.len();
        #[omp::atomic]
        bins[b] += 1;
        #[omp::atomic]
        weights[b] += 0.5;
    }
}

#[omp::directives]
fn ticket_counter(n: usize, tickets: &mut [u64], nt: usize) -> u64 {
    let mut next = 0u64;
    #[omp::parallel_for(num_threads(nt))]
    for i in 0..n {
        #[omp::atomic(capture)]
        let t = (next += 1);
        tickets[i] = t;
    }
    next
}

#[omp::directives]
fn critical_argmax(x: &[f64], nt: usize) -> (f64, usize) {
    let mut best = f64::NEG_INFINITY;
    let mut at = 0usize;
    #[omp::parallel_for(num_threads(nt))]
    for i in 0..x.len() {
        #[omp::critical(argmax)]
        {
            if x[i] > best || (x[i] == best && i < at) {
                best = x[i];
                at = i;
            }
        }
    }
    (best, at)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn atomics_match_sequential(x in prop::collection::vec(0u32..10_000, 0..5000), nbins in 1usize..20, nt in 1usize..6) {
        let mut bins = vec![0u64; nbins];
        let mut weights = vec![0.0; nbins];
        histogram(&x, &mut bins, &mut weights, nt);
        let mut want = vec![0u64; nbins];
        for v in &x {
            want[*v as usize % nbins] += 1;
        }
        prop_assert_eq!(&bins, &want);
        // Halves add exactly in any order.
        prop_assert_eq!(weights, want.iter().map(|c| *c as f64 * 0.5).collect::<Vec<_>>());
    }

    #[test]
    fn captured_tickets_are_a_permutation(n in 0usize..3000, nt in 1usize..6) {
        let mut tickets = vec![0u64; n];
        let last = ticket_counter(n, &mut tickets, nt);
        prop_assert_eq!(last, n as u64);
        tickets.sort_unstable();
        prop_assert_eq!(tickets, (1..=n as u64).collect::<Vec<_>>());
    }

    #[test]
    fn critical_matches_sequential(x in prop::collection::vec(-100i32..100, 1..2000), nt in 1usize..6) {
        let xf: Vec<f64> = x.iter().map(|v| *v as f64).collect();
        let (best, at) = critical_argmax(&xf, nt);
        let wbest = xf.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let wat = xf.iter().position(|v| *v == wbest).unwrap();
        prop_assert_eq!((best, at), (wbest, wat));
    }
}

// ---------------------------------------------------------------------------------------------- team semantics

#[omp::parallel_for(num_threads(nt), schedule(static))]
fn who_static(owner: &mut [usize], sizes: &mut [usize], nt: usize) {
    for i in 0..owner.len() {
        owner[i] = omp::get_thread_num();
        sizes[i] = omp::get_num_threads();
    }
}

#[omp::parallel_for(num_threads(nt), schedule(static, chunk))]
fn who_chunked(owner: &mut [usize], nt: usize, chunk: usize) {
    for i in 0..owner.len() {
        owner[i] = omp::get_thread_num();
    }
}

#[omp::parallel_for(if(parallel: n > 100), num_threads(4))]
fn who_if(n: usize, owner: &mut [usize]) {
    for i in 0..n {
        owner[i] = omp::get_num_threads();
    }
}

#[omp::parallel_for(firstprivate(scratch), private(tmp), num_threads(nt))]
fn with_privates(x: &[f64], y: &mut [f64], nt: usize) {
    let scratch = [1.0, 2.0, 3.0];
    let mut tmp = 0.0;
    for i in 0..x.len() {
        tmp = x[i] * scratch[i % 3];
        y[i] = tmp + scratch[0];
    }
    let _ = tmp;
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn static_schedule_gives_openmp_thread_numbers(n in 0usize..500, nt in 1usize..7, chunk in 1usize..20) {
        let mut owner = vec![usize::MAX; n];
        let mut sizes = vec![0; n];
        who_static(&mut owner, &mut sizes, nt);
        let (q, r) = (n / nt, n % nt);
        for (i, o) in owner.iter().enumerate() {
            // Blocks of q + 1 for the first r threads, then q.
            let t = if i < r * (q + 1) { i / (q + 1) } else { r + (i - r * (q + 1)) / q.max(1) };
            prop_assert_eq!(*o, t);
        }
        prop_assert!(sizes.iter().all(|s| *s == nt));
        let mut owner = vec![usize::MAX; n];
        who_chunked(&mut owner, nt, chunk);
        for (i, o) in owner.iter().enumerate() {
            prop_assert_eq!(*o, (i / chunk) % nt);
        }
    }

    #[test]
    fn privates_and_if_clause(x in prop::collection::vec(-10f64..10.0, 0..1000), nt in 1usize..5, n in 0usize..300) {
        let mut y = vec![0.0; x.len()];
        with_privates(&x, &mut y, nt);
        let s = [1.0, 2.0, 3.0];
        prop_assert_eq!(y, x.iter().enumerate().map(|(i, v)| v * s[i % 3] + 1.0).collect::<Vec<_>>());
        let mut owner = vec![0; n];
        who_if(n, &mut owner);
        let team = if n > 100 { 4 } else { 1 };
        prop_assert!(owner.iter().all(|t| *t == team));
    }
}

#[omp::parallel_for(num_threads(4))]
fn inner_team(inner: &mut [usize]) {
    for j in 0..inner.len() {
        inner[j] = omp::get_num_threads() * 10 + omp::get_level();
    }
}

#[omp::parallel_for(num_threads(3))]
fn nested(n: usize, out: &mut [usize]) {
    for i in 0..n {
        let mut inner = vec![0usize; 4];
        inner_team(&mut inner);
        out[i] = inner.iter().sum();
    }
}

#[test]
fn nested_regions_are_serialised() {
    let mut out = vec![0; 9];
    nested(9, &mut out);
    // Inner team of 1 thread at level 2, for each of the 4 iterations.
    assert!(out.iter().all(|v| *v == 4 * (10 + 2)), "{out:?}");
    assert!(!omp::in_parallel());
    assert_eq!(omp::get_thread_num(), 0);
}

#[omp::parallel_for(num_threads(2))]
fn panics_at(k: usize, y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = 1.0;
        if i == k {
            panic!("iteration {i} failed");
        }
    }
}

#[test]
fn a_panic_in_an_iteration_reaches_the_caller() {
    let mut y = vec![0.0; 100];
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panics_at(77, &mut y))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("iteration 77 failed"), "{msg}");
    // The runtime is still usable afterwards.
    panics_at(1000, &mut y);
    assert!(y.iter().all(|v| *v == 1.0));
}

#[omp::parallel_for(collapse(2))]
fn rows_too_short(n: usize, w: usize, a: &mut [f64]) {
    for i in 0..n {
        for j in 0..w {
            a[i * 4 + j] = 1.0;
        }
    }
}

#[test]
fn overlapping_affine_writes_are_caught_before_the_loop() {
    let mut a = vec![0.0; 100];
    rows_too_short(5, 4, &mut a);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rows_too_short(5, 6, &mut a))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("may write the same element of `a`"), "{msg}");
}

#[omp::parallel_for(collapse(2), num_threads(2))]
fn shifted_rows(n: usize, off: usize, a: &[f64], b: &mut [f64]) {
    for i in 0..n {
        for j in 0..n {
            b[i * n + j] = a[i * n + j + off];
        }
    }
}

#[test]
fn hoisted_bounds_checks_still_catch_out_of_range_indices() {
    let n = 64;
    let a: Vec<f64> = (0..n * n + 3).map(|k| k as f64).collect();
    let mut b = vec![0.0; n * n];
    // In range: every row takes the unchecked copy of the body.
    shifted_rows(n, 3, &a, &mut b);
    assert!(b.iter().enumerate().all(|(k, v)| *v == (k + 3) as f64));
    // The last row reads past the end: the checked body runs there and panics like sequential code.
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shifted_rows(n, 4, &a, &mut b))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("index out of bounds"), "{msg}");
}

// ------------------------------------------------------------------------------ bounds checks in inner loops

/// 3-D 7-point stencil, `collapse(2)` with `k` a sequential loop: the accesses are hoisted over the row and the
/// range of `k`. `kr` reverses `k` inside the index (negative coefficient); `lo..=hi` is an inclusive range.
#[omp::parallel_for(collapse(2), num_threads(nt))]
fn stencil3(n: usize, lo: usize, hi: usize, a: &[f64], b: &mut [f64], nt: usize) {
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            for k in lo..=hi {
                let c = a[k + n * (j + n * i)];
                b[k + n * (j + n * i)] = a[k + n * (j + n * (i + 1))]
                    + a[k + n * (j + n * (i - 1))]
                    + a[k + n * (j + 1 + n * i)]
                    + a[k + n * (j - 1 + n * i)]
                    + a[k + 1 + n * (j + n * i)]
                    + a[k - 1 + n * (j + n * i)]
                    - 6.0 * c
                    + a[(n - 1 - k) + n * (j + n * i)];
            }
        }
    }
}

fn stencil3_seq(n: usize, lo: usize, hi: usize, a: &[f64], b: &mut [f64]) {
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            for k in lo..=hi {
                let c = a[k + n * (j + n * i)];
                b[k + n * (j + n * i)] = a[k + n * (j + n * (i + 1))]
                    + a[k + n * (j + n * (i - 1))]
                    + a[k + n * (j + 1 + n * i)]
                    + a[k + n * (j - 1 + n * i)]
                    + a[k + 1 + n * (j + n * i)]
                    + a[k - 1 + n * (j + n * i)]
                    - 6.0 * c
                    + a[(n - 1 - k) + n * (j + n * i)];
            }
        }
    }
}

/// Row sums over an inner loop whose range is the caller's: `m + extra` reads past the row.
#[omp::parallel_for(num_threads(2))]
fn row_sums(m: usize, extra: usize, x: &[f64], s: &mut [f64]) {
    for i in 0..s.len() {
        let mut t = 0.0;
        for k in 0..m + extra {
            t += x[i * m + k];
        }
        s[i] = t;
    }
}

/// The body rebinds the induction variable: the access must not be hoisted as `x[i]` of the loop's `i`.
#[omp::parallel_for(num_threads(2))]
fn shadowed(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        let i = i + 1;
        y[i - 1] = x[i];
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn inner_loop_stencil_matches_sequential(n in 3usize..14, lo in 1usize..4, len in 0usize..12, nt in 1usize..4, seed in any::<u64>()) {
        let hi = (lo + len).min(n - 2);
        let a: Vec<f64> = (0..n * n * n).map(|k| ((k as u64).wrapping_mul(seed | 1) % 1009) as f64).collect();
        let (mut b, mut want) = (vec![0.0; n * n * n], vec![0.0; n * n * n]);
        stencil3(n, lo, hi, &a, &mut b, nt);
        stencil3_seq(n, lo, hi, &a, &mut want);
        prop_assert_eq!(b, want);
    }
}

#[test]
fn inner_loop_out_of_range_still_panics() {
    let (rows, m) = (50, 8);
    let x: Vec<f64> = (0..rows * m).map(|k| k as f64).collect();
    let mut s = vec![0.0; rows];
    row_sums(m, 0, &x, &mut s);
    assert!(s.iter().enumerate().all(|(i, v)| *v == (0..m).map(|k| (i * m + k) as f64).sum::<f64>()));
    // Inner range empty (m + extra == 0 with m = 0) runs nothing, also on the unchecked path.
    let mut z = vec![1.0; rows];
    row_sums(0, 0, &x, &mut z);
    assert!(z.iter().all(|v| *v == 0.0));
    // The last row's inner loop reads one past the end: panics like sequential code.
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| row_sums(m, 1, &x, &mut s))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("index out of bounds"), "{msg}");
}

#[test]
fn a_rebound_induction_variable_keeps_its_bounds_check() {
    let x: Vec<f64> = (0..101).map(|k| k as f64).collect();
    let mut y = vec![0.0; 100];
    shadowed(&x, &mut y);
    assert!(y.iter().enumerate().all(|(i, v)| *v == (i + 1) as f64));
    let mut y = vec![0.0; 101];
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shadowed(&x, &mut y))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("index out of bounds"), "{msg}");
}

/// `x[i]` both inside a sequential loop and after it: an empty inner loop must not excuse the access after it.
#[omp::parallel_for(num_threads(2))]
fn inside_and_after(m: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        let mut t = 0.0;
        for _k in 0..m {
            t += x[i];
        }
        y[i] = t + x[i];
    }
}

#[test]
fn an_access_outside_an_empty_inner_loop_keeps_its_bounds_check() {
    let x: Vec<f64> = (0..10).map(|k| k as f64).collect();
    let mut y = vec![0.0; 10];
    inside_and_after(3, &x, &mut y);
    assert!(y.iter().enumerate().all(|(i, v)| *v == 4.0 * i as f64));
    let mut y = vec![0.0; 11];
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inside_and_after(0, &x, &mut y))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("index out of bounds"), "{msg}");
}

// ------------------------------------------------------------------------------ regions from several threads

#[omp::parallel_for(num_threads(3))]
fn scaled_copy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = a * x[i] + omp::get_num_threads() as f64;
    }
}

#[test]
fn application_threads_starting_regions_at_once_each_get_a_whole_team() {
    // Two threads race for the persistent team of 3; whichever loses runs its region on a rayon pool of 3.
    let x: Vec<f64> = (0..1000).map(|k| k as f64).collect();
    std::thread::scope(|s| {
        for a in [2.0, -1.5] {
            let x = &x;
            s.spawn(move || {
                let mut y = vec![0.0; x.len()];
                for _ in 0..300 {
                    scaled_copy(a, x, &mut y);
                    assert!(y.iter().zip(x).all(|(y, x)| *y == a * x + 3.0));
                }
            });
        }
    });
}
