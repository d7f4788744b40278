//! Host `parallel` blocks (`omp_rs_codegen::desugar::host_parallel`) against sequential Rust on random inputs: a team that
//! partitions by thread number, with a reduction and a critical section, and a team of worksharing steps (`for`,
//! `single`, `master`, `critical`, `barrier`) in a time loop.

use proptest::prelude::*;

/// Each thread scales its own block of `x` into `y` (the blocks of `n.div_ceil(p)` elements), adds every `p`-th
/// element starting at its number into `s`, and counts itself in `visits` inside a critical section.
#[omp::directives]
fn by_thread_number(nt: usize, x: &[f64], y: &mut [f64]) -> (f64, usize, usize) {
    let n = x.len();
    let mut s = 0.0;
    let mut visits = 0usize;
    let mut team = 0usize;
    #[omp::parallel(num_threads(nt), reduction(+: s))]
    {
        let t = omp::get_thread_num();
        let p = omp::get_num_threads();
        let chunk = n.div_ceil(p);
        for k in 0..chunk {
            let i = t * chunk + k;
            if i < n {
                y[i] = 2.0 * x[i];
            }
        }
        let mut i = t;
        while i < n {
            s += x[i];
            i += p;
        }
        #[omp::critical]
        {
            visits += 1;
            team = p;
        }
    }
    (s, visits, team)
}

/// A 3-point smoother as a host code writes it: the time loop inside the region, two sweeps per step (the second
/// `nowait` before an explicit barrier), a step counter in `single`, the team size read in `master`, a sum
/// reduction over a shared-out loop and each thread's visit in `critical`.
#[omp::directives]
fn smoother(nt: usize, steps: usize, a: &mut [f64], b: &mut [f64]) -> (f64, usize, usize, usize) {
    let n = a.len();
    let mut sum = 0.0;
    let mut done = 0usize;
    let mut team = 0usize;
    let mut visits = 0usize;
    #[omp::parallel(num_threads(nt))]
    {
        let last = n - 1;
        for _step in 0..steps {
            #[omp::r#for(schedule(static))]
            for i in 1..last {
                b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
            }
            #[omp::r#for(nowait)]
            for i in 1..last {
                a[i] = b[i];
            }
            omp::barrier!();
            #[omp::single]
            {
                done += 1;
            }
        }
        #[omp::master]
        {
            team = team.max(omp::get_num_threads());
        }
        #[omp::r#for(reduction(+: sum))]
        for i in 0..n {
            sum += a[i];
        }
        #[omp::critical]
        {
            visits += 1;
        }
    }
    (sum, done, team, visits)
}

/// Jacobi sweeps until the largest change is at most `tol`, as a convergence loop inside the region: the residual
/// reset in `single`, a max reduction over the sweep, the copy back, and the `while` on the residual every thread
/// sees after the steps.
#[omp::directives]
fn converge(nt: usize, tol: f64, a: &mut [f64], b: &mut [f64]) -> usize {
    let n = a.len();
    let mut err = f64::MAX;
    let mut sweeps = 0usize;
    #[omp::parallel(num_threads(nt))]
    {
        while err > tol {
            #[omp::single]
            {
                err = 0.0;
                sweeps += 1;
            }
            #[omp::r#for(reduction(max: err))]
            for i in 1..n - 1 {
                let v = 0.5 * (a[i - 1] + a[i + 1]);
                b[i] = v;
                err = err.max((v - a[i]).abs());
            }
            #[omp::r#for]
            for i in 1..n - 1 {
                a[i] = b[i];
            }
        }
    }
    sweeps
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_team_by_thread_number_is_sequential_rust(n in 0usize..3000, nt in 1usize..9, seed in any::<u64>()) {
        let x: Vec<f64> = (0..n).map(|i| ((i as u64).wrapping_mul(seed | 1) % 1000) as f64 / 7.0).collect();
        let mut y = vec![f64::NAN; n];
        let (s, visits, team) = by_thread_number(nt, &x, &mut y);
        let want_y: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        prop_assert_eq!(&y, &want_y);
        let want_s: f64 = x.iter().sum();
        prop_assert!((s - want_s).abs() <= 1e-9 * want_s.abs().max(1.0), "sum {} want {}", s, want_s);
        prop_assert_eq!((visits, team), (nt, nt));
    }

    #[test]
    fn worksharing_steps_are_sequential_rust(n in 3usize..800, nt in 1usize..7, steps in 0usize..6, seed in any::<u64>()) {
        let init: Vec<f64> = (0..n).map(|i| ((i as u64 ^ seed).wrapping_mul(0x9e37_79b9) % 997) as f64).collect();
        let (mut a, mut b) = (init.clone(), vec![0.0; n]);
        let (sum, done, team, visits) = smoother(nt, steps, &mut a, &mut b);
        let (mut wa, mut wb) = (init, vec![0.0; n]);
        for _ in 0..steps {
            for i in 1..n - 1 {
                wb[i] = (wa[i - 1] + wa[i] + wa[i + 1]) / 3.0;
            }
            wa[1..n - 1].copy_from_slice(&wb[1..n - 1]);
        }
        prop_assert_eq!(&a, &wa);
        prop_assert_eq!(&b, &wb);
        let want: f64 = wa.iter().sum();
        prop_assert!((sum - want).abs() <= 1e-9 * want.abs().max(1.0), "sum {} want {}", sum, want);
        prop_assert_eq!((done, team, visits), (steps, nt, nt));
    }
}

#[test]
fn a_convergence_loop_in_the_region_is_sequential_rust() {
    for (n, nt) in [(3usize, 1usize), (17, 3), (64, 4), (200, 7)] {
        let init: Vec<f64> = (0..n).map(|i| if i == n - 1 { 1.0 } else { (i % 5) as f64 * 0.1 }).collect();
        let (mut a, mut b) = (init.clone(), vec![0.0; n]);
        let sweeps = converge(nt, 1e-6, &mut a, &mut b);
        let (mut wa, mut wb, mut want_sweeps) = (init, vec![0.0; n], 0);
        let mut err = f64::MAX;
        while err > 1e-6 {
            err = 0.0;
            want_sweeps += 1;
            for i in 1..n - 1 {
                wb[i] = 0.5 * (wa[i - 1] + wa[i + 1]);
                err = err.max((wb[i] - wa[i]).abs());
            }
            wa[1..n - 1].copy_from_slice(&wb[1..n - 1]);
        }
        assert_eq!((sweeps, &a, &b), (want_sweeps, &wa, &wb), "n = {n}, {nt} threads");
    }
}

/// A block in a function called from a parallel loop's body is a nested region: one thread, as OpenMP's nested
/// regions are when only one level is active.
#[test]
fn a_nested_block_has_one_thread() {
    let x = vec![1.0; 64];
    let mut counts = vec![(0.0, 0usize, 0usize); 4];
    let mut scratch = vec![vec![0.0; 64]; 4];
    omp_counts(&x, &mut counts, &mut scratch);
    assert!(counts.iter().all(|c| *c == (64.0, 1, 1)), "{counts:?}");
}

#[omp::directives]
fn omp_counts(x: &[f64], counts: &mut [(f64, usize, usize)], scratch: &mut [Vec<f64>]) {
    #[omp::parallel_for(num_threads(4))]
    for k in 0..counts.len() {
        counts[k] = by_thread_number(3, x, &mut scratch[k]);
    }
}

#[test]
#[should_panic(expected = "num_threads(0)")]
fn a_team_of_no_threads_panics() {
    let x = [1.0; 4];
    let mut y = [0.0; 4];
    by_thread_number(0, &x, &mut y);
}
