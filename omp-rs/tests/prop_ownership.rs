//! Property tests of the written-array ownership: random run-time coefficients, offsets and shapes for the index
//! forms real loops use (`y[a*i + b*j + c]` under `collapse(2)`, a stride walked by an inner sequential loop, a
//! negative coefficient). For every input, the parallel loop either panics or gives the sequential result, and it
//! may only return when the sequential loop wrote no element twice (two iterations writing one element would race)
//! and stayed in bounds. `OMP_RS_PROP_CASES` sets the number of cases (default 300 per property).

use std::panic::{catch_unwind, AssertUnwindSafe};

use proptest::prelude::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("OMP_RS_PROP_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(300);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn quiet() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

/// How one input ended, against the sequential loop with the same writes. `race`: some element is written by
/// two different parallel iterations (an inner sequential loop may write one element twice in one iteration).
fn judge(par: Result<Vec<u32>, ()>, seq: Result<Vec<u32>, ()>, race: bool) -> Result<(), TestCaseError> {
    match (par, seq) {
        (Err(()), _) => Ok(()),
        (Ok(_), Err(())) => Err(TestCaseError::fail("returned where the sequential loop panics")),
        (Ok(p), Ok(s)) => {
            prop_assert!(!race, "returned although two iterations write one element");
            prop_assert_eq!(p, s);
            Ok(())
        }
    }
}

/// Whether two parallel iterations write one element: `writes` yields (parallel iteration, element index), the
/// index computed as the loop computes it in release (wrapping).
fn races(writes: impl Iterator<Item = (usize, usize)>) -> bool {
    let mut owner = std::collections::HashMap::new();
    writes.into_iter().any(|(it, idx)| *owner.entry(idx).or_insert(it) != it)
}

#[omp::parallel_for(collapse(2), num_threads(nt))]
fn collapse2(nt: usize, (a, b, c): (usize, usize, usize), rows: usize, cols: usize, y: &mut [u32]) {
    for i in 0..rows {
        for j in 0..cols {
            y[a * i + b * j + c] += 1;
        }
    }
}

fn collapse2_seq((a, b, c): (usize, usize, usize), rows: usize, cols: usize, y: &mut [u32]) {
    for i in 0..rows {
        for j in 0..cols {
            y[a * i + b * j + c] += 1;
        }
    }
}

#[omp::parallel_for(num_threads(nt))]
fn strided(nt: usize, (a, b, c): (usize, usize, usize), rows: usize, inner: usize, y: &mut [u32]) {
    for i in 0..rows {
        for k in 0..inner {
            y[c + a * i + b * k] += 1;
        }
    }
}

fn strided_seq((a, b, c): (usize, usize, usize), rows: usize, inner: usize, y: &mut [u32]) {
    for i in 0..rows {
        for k in 0..inner {
            y[c + a * i + b * k] += 1;
        }
    }
}

#[omp::parallel_for(collapse(2), num_threads(nt))]
fn mirrored(nt: usize, (a, b, c): (usize, usize, usize), rows: usize, cols: usize, y: &mut [u32]) {
    for i in 0..rows {
        for j in 0..cols {
            y[c + a * i - b * j] += 1;
        }
    }
}

fn mirrored_seq((a, b, c): (usize, usize, usize), rows: usize, cols: usize, y: &mut [u32]) {
    for i in 0..rows {
        for j in 0..cols {
            y[c + a * i - b * j] += 1;
        }
    }
}

type Kernel = fn(usize, (usize, usize, usize), usize, usize, &mut [u32]);
type Sequential = fn((usize, usize, usize), usize, usize, &mut [u32]);

#[allow(clippy::too_many_arguments)]
fn run(
    par: Kernel,
    seq: Sequential,
    nt: usize,
    abc: (usize, usize, usize),
    rows: usize,
    cols: usize,
    len: usize,
    race: bool,
) -> Result<(), TestCaseError> {
    quiet();
    let p = catch_unwind(AssertUnwindSafe(|| {
        let mut y = vec![0u32; len];
        par(nt, abc, rows, cols, &mut y);
        y
    }))
    .map_err(|_| ());
    let s = catch_unwind(AssertUnwindSafe(|| {
        let mut y = vec![0u32; len];
        seq(abc, rows, cols, &mut y);
        y
    }))
    .map_err(|_| ());
    judge(p, s, race)
}

/// Every (i, j) of a `rows × cols` nest with `index(i, j)`; `per_row`: the parallel iteration is the row alone.
fn nest(rows: usize, cols: usize, per_row: bool, index: impl Fn(usize, usize) -> usize) -> impl Iterator<Item = (usize, usize)> {
    (0..rows).flat_map(move |i| (0..cols).map(move |j| (i, j))).map(move |(i, j)| (if per_row { i } else { i * cols + j }, index(i, j)))
}

/// Coefficients around the shape (so that rows touch, overlap or leave gaps), and sometimes huge ones.
fn coefficient() -> impl Strategy<Value = usize> {
    prop_oneof![8 => 0usize..24, 1 => Just(usize::MAX / 2 + 1), 1 => any::<usize>()]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn collapse2_affine_writes(a in coefficient(), b in coefficient(), c in 0usize..40, rows in 0usize..20, cols in 0usize..20, len in 0usize..400, nt in 1usize..5) {
        let race = races(nest(rows, cols, false, |i, j| a.wrapping_mul(i).wrapping_add(b.wrapping_mul(j)).wrapping_add(c)));
        run(collapse2, collapse2_seq, nt, (a, b, c), rows, cols, len, race)?;
    }

    #[test]
    fn strided_inner_loop_writes(a in coefficient(), b in coefficient(), c in 0usize..40, rows in 0usize..20, inner in 0usize..20, len in 0usize..400, nt in 1usize..5) {
        let race = races(nest(rows, inner, true, |i, k| c.wrapping_add(a.wrapping_mul(i)).wrapping_add(b.wrapping_mul(k))));
        run(strided, strided_seq, nt, (a, b, c), rows, inner, len, race)?;
    }

    #[test]
    fn negative_coefficient_writes(a in coefficient(), b in coefficient(), c in 0usize..400, rows in 0usize..20, cols in 0usize..20, len in 0usize..400, nt in 1usize..5) {
        let race = races(nest(rows, cols, false, |i, j| c.wrapping_add(a.wrapping_mul(i)).wrapping_sub(b.wrapping_mul(j))));
        run(mirrored, mirrored_seq, nt, (a, b, c), rows, cols, len, race)?;
    }
}
