//! ndarray arrays in target regions and parallel loops (issue #10): `a[[i, j]]` on `Array1/2/3`, views, `f32` and
//! `f64`, each region next to its sequential reference written with ndarray's own indexing.

use ndarray::{Array1, Array2, Array3, ArrayViewMut1};
use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, Check};

/// Every ndarray check.
pub const CHECKS: &[Check] = &[
    ("ndarray: a 2-D stencil a[[i, j]] under collapse(2) in a target region and a parallel loop", check_stencil),
    ("ndarray: Array3<f32> under collapse(3), a view, a reduction over Array1", check_3d_view_reduction),
    ("ndarray: an index past its axis panics as ndarray's does; a transposed view is refused", check_bounds_and_layout),
    ("ndarray: a heat time loop on Array2 inside target_data (mapped arrays indexed u[[i, j]])", check_data_region),
    ("ndarray: struct fields, self.v[[i, j]] from self.u[[i - 1, j]].. in a method's target region and host loop", check_fields),
    ("rows: hellinger's 2-D arrays (Vec<[f32; N]>) mapped whole in target_data, c[i][j] under collapse(2)", check_hellinger_rows),
    (
        "rows: a [[u64; 256]; 4] table read in a kernel (crc64), rows written in a parallel loop, a column past its row panics",
        check_row_tables,
    ),
];

/// A solver keeping its grids as ndarray fields, as a class would.
struct Jacobi {
    u: Array2<f64>,
    v: Array2<f64>,
    weight: f64,
}

#[omp::directives]
impl Jacobi {
    /// One sweep into `v`, its largest value; `v`'s border keeps its values.
    fn sweep(&mut self) -> f64 {
        let (n, m) = self.u.dim();
        let mut top = f64::NEG_INFINITY;
        #[omp::target_teams_distribute_parallel_for(collapse(2), reduction(max: top))]
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                self.v[[i, j]] = self.weight * (self.u[[i - 1, j]] + self.u[[i + 1, j]] + self.u[[i, j - 1]] + self.u[[i, j + 1]]);
                top = top.max(self.v[[i, j]]);
            }
        }
        top
    }

    /// Averages each element with its right neighbour in place: another iteration's element, refused at run time
    /// before any write (the offsets' distance is the row length, known only then).
    fn smooth_in_place(&mut self) {
        let (n, m) = self.v.dim();
        #[omp::parallel_for(collapse(2))]
        for i in 0..n {
            for j in 0..m - 1 {
                self.v[[i, j]] = 0.5 * (self.v[[i, j]] + self.v[[i, j + 1]]);
            }
        }
    }

    /// The same sweep as a host loop, back into `u`.
    fn sweep_back(&mut self) {
        let (n, m) = self.u.dim();
        #[omp::parallel_for(collapse(2))]
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                self.u[[i, j]] = self.weight * (self.v[[i - 1, j]] + self.v[[i + 1, j]] + self.v[[i, j - 1]] + self.v[[i, j + 1]]);
            }
        }
    }
}

fn check_fields(rng: &mut StdRng) -> Result<(), String> {
    let (n, m) = (rng.gen_range(3..60), rng.gen_range(3..60));
    let mut s = Jacobi { u: random2(rng, n, m), v: random2(rng, n, m), weight: rng.gen_range(0.1..0.3) };
    let mut want = s.v.clone();
    let mut want_top = f64::NEG_INFINITY;
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            want[[i, j]] = s.weight * (s.u[[i - 1, j]] + s.u[[i + 1, j]] + s.u[[i, j - 1]] + s.u[[i, j + 1]]);
            want_top = want_top.max(want[[i, j]]);
        }
    }
    let top = s.sweep();
    same("v", s.v.as_slice().unwrap_or(&[]), want.as_slice().unwrap_or(&[]))?;
    if top != want_top {
        return Err(format!("max {top}, sequential {want_top}"));
    }
    let mut want_u = s.u.clone();
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            want_u[[i, j]] = s.weight * (want[[i - 1, j]] + want[[i + 1, j]] + want[[i, j - 1]] + want[[i, j + 1]]);
        }
    }
    s.sweep_back();
    same("u", s.u.as_slice().unwrap_or(&[]), want_u.as_slice().unwrap_or(&[]))?;
    let before = s.v.clone();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.smooth_in_place())) {
        // The report names the field and its index as written.
        Err(p) if p.downcast_ref::<String>().is_some_and(|m| m.contains("may write the same element of `self.v`: in `self.v[[i, j]]`")) => {
        }
        Err(_) => return Err("smooth_in_place panicked, but not with the overlap report".into()),
        Ok(()) => return Err("smooth_in_place's neighbour reads were not refused".into()),
    }
    same("v after the refused loop", s.v.as_slice().unwrap_or(&[]), before.as_slice().unwrap_or(&[]))
}

/// Explicit 2-D heat steps, ping-pong between `u` and `v`, both resident for the whole loop.
#[omp::directives]
fn heat(u: &mut Array2<f64>, v: &mut Array2<f64>, steps: usize, alpha: f64) -> f64 {
    let mut total = 0.0;
    #[omp::target_data(map(tofrom: u, v))]
    {
        for _ in 0..steps {
            #[omp::target_teams_distribute_parallel_for(collapse(2))]
            for i in 1..u.nrows() - 1 {
                for j in 1..u.ncols() - 1 {
                    v[[i, j]] = u[[i, j]] + alpha * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]] - 4.0 * u[[i, j]]);
                }
            }
            #[omp::target_teams_distribute_parallel_for(collapse(2))]
            for i in 1..u.nrows() - 1 {
                for j in 1..u.ncols() - 1 {
                    u[[i, j]] = v[[i, j]];
                }
            }
        }
        #[omp::target_teams_distribute_parallel_for(reduction(+: total))]
        for i in 0..u.nrows() {
            total += u[[i, 1]];
        }
    }
    total
}

fn check_data_region(rng: &mut StdRng) -> Result<(), String> {
    let (n, m, steps) = (rng.gen_range(3..40), rng.gen_range(3..40), rng.gen_range(1..6));
    let mut u = random2(rng, n, m);
    let mut v = u.clone();
    let (mut wu, mut wv) = (u.clone(), v.clone());
    for _ in 0..steps {
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                wv[[i, j]] = wu[[i, j]] + 0.1 * (wu[[i - 1, j]] + wu[[i + 1, j]] + wu[[i, j - 1]] + wu[[i, j + 1]] - 4.0 * wu[[i, j]]);
            }
        }
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                wu[[i, j]] = wv[[i, j]];
            }
        }
    }
    let want_total: f64 = (0..n).map(|i| wu[[i, 1]]).sum();
    let total = heat(&mut u, &mut v, steps, 0.1);
    same("u", u.as_slice().unwrap_or(&[]), wu.as_slice().unwrap_or(&[]))?;
    same("v", v.as_slice().unwrap_or(&[]), wv.as_slice().unwrap_or(&[]))?;
    close("total", total, want_total, n, 4.0)
}

fn random2(rng: &mut StdRng, n: usize, m: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, m), |_| rng.gen_range(-1.0..1.0))
}

#[omp::directives]
fn stencil(a: &Array2<f64>, b: &mut Array2<f64>, host: &mut Array2<f64>) {
    #[omp::target_teams_distribute_parallel_for(collapse(2))]
    for i in 1..a.nrows() - 1 {
        for j in 1..a.ncols() - 1 {
            b[[i, j]] = 0.25 * (a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]]);
        }
    }
    #[omp::parallel_for]
    for i in 0..a.nrows() {
        for j in 0..a.ncols() {
            host[(i, j)] = 2.0 * a[(i, j)];
        }
    }
}

fn check_stencil(rng: &mut StdRng) -> Result<(), String> {
    let (n, m) = (rng.gen_range(3..80), rng.gen_range(3..80));
    let a = random2(rng, n, m);
    let (mut b, mut host) = (Array2::zeros((n, m)), Array2::zeros((n, m)));
    stencil(&a, &mut b, &mut host);
    let mut want = Array2::zeros((n, m));
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            want[[i, j]] = 0.25 * (a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]]);
        }
    }
    same("b", b.as_slice().unwrap_or(&[]), want.as_slice().unwrap_or(&[]))?;
    let want_host = &a * 2.0;
    same("host", host.as_slice().unwrap_or(&[]), want_host.as_slice().unwrap_or(&[]))
}

#[omp::directives]
fn scale3(c: &mut Array3<f32>, s: f32) {
    #[omp::target_teams_distribute_parallel_for(collapse(3))]
    for i in 0..c.dim().0 {
        for j in 0..c.dim().1 {
            for k in 0..c.dim().2 {
                c[[i, j, k]] = c[[i, j, k]] * s + (i + j + k) as f32;
            }
        }
    }
}

#[omp::directives]
fn shift_and_sum(mut v: ArrayViewMut1<'_, f64>, w: &Array1<f64>) -> f64 {
    let mut total = 0.0;
    #[omp::target_teams_distribute_parallel_for(reduction(+: total))]
    for i in 0..v.len() {
        v[i] += w[[i]];
        total += v[i];
    }
    total
}

fn check_3d_view_reduction(rng: &mut StdRng) -> Result<(), String> {
    let (n0, n1, n2) = (rng.gen_range(1..12), rng.gen_range(1..12), rng.gen_range(1..12));
    let mut c = Array3::from_shape_fn((n0, n1, n2), |_| rng.gen_range(-1.0f32..1.0));
    let s = rng.gen_range(0.5f32..2.0);
    let mut want = c.clone();
    for ((i, j, k), x) in want.indexed_iter_mut() {
        *x = *x * s + (i + j + k) as f32;
    }
    scale3(&mut c, s);
    same("c", c.as_slice().unwrap_or(&[]), want.as_slice().unwrap_or(&[]))?;

    let n = rng.gen_range(1..3000);
    let mut v = Array1::from_shape_fn(n, |_| rng.gen_range(-1.0..1.0));
    let w = Array1::from_shape_fn(n, |_| rng.gen_range(-1.0..1.0));
    let want_v = &v + &w;
    let total = shift_and_sum(v.view_mut(), &w);
    same("v", v.as_slice().unwrap_or(&[]), want_v.as_slice().unwrap_or(&[]))?;
    close("total", total, want_v.sum(), n, 2.0)
}

#[omp::directives]
fn copy_column(a: &Array2<f64>, out: &mut Array1<f64>, col: usize) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..a.nrows() {
        out[[i]] = a[[i, col]];
    }
}

fn check_bounds_and_layout(rng: &mut StdRng) -> Result<(), String> {
    let (n, m) = (rng.gen_range(2..40), rng.gen_range(2..40));
    let a = random2(rng, n, m);
    let mut out = Array1::zeros(n);
    copy_column(&a, &mut out, m - 1);
    same("column", out.as_slice().unwrap_or(&[]), a.column(m - 1).to_vec().as_slice())?;
    // `a[[i, m]]` is past its axis even though `i * m + m` is inside the array: it must panic, not read row i + 1.
    let past = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| copy_column(&a, &mut out, m)));
    if past.is_ok() {
        return Err("a[[i, ncols]] did not panic".into());
    }
    // A transposed view is column-major: no flat row-major slice exists, so the loop must refuse it.
    let transposed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| copy_view_column(a.t(), &mut Array1::zeros(m))));
    if transposed.is_ok() {
        return Err("a transposed view was taken as standard layout".into());
    }
    // Made standard (`as_standard_layout`), the same view works.
    let mut col = Array1::zeros(m);
    copy_view_column(a.t().as_standard_layout().view(), &mut col);
    same("transposed column", col.as_slice().unwrap_or(&[]), a.row(0).to_vec().as_slice())
}

#[omp::directives]
fn copy_view_column(a: ndarray::ArrayView2<'_, f64>, out: &mut Array1<f64>) {
    #[omp::parallel_for]
    for i in 0..a.nrows() {
        out[[i]] = a[[i, 0]];
    }
}

const HN: usize = 24;
const HP: usize = 40;

/// HeCBench hellinger-omp (main.cpp:73-95): `a_host[0:M][0:N]`, `b_host[0:N][0:P]` and `c_back[0:M][0:P]` are C's
/// `FP (*a)[N]` arrays of rows, mapped whole by a data region and indexed `a[i][k]` in a collapsed loop.
#[omp::directives]
fn hellinger(a: &[[f32; HN]], b: &[[f32; HP]], c: &mut [[f32; HP]], repeat: usize) {
    let m = a.len();
    #[omp::target_data(map(to: a, b), map(from: c))]
    {
        for _ in 0..repeat {
            #[omp::target_teams_distribute_parallel_for(collapse(2), thread_limit(256))]
            for i in 0..m {
                for j in 0..HP {
                    let mut sum = 0.0f32;
                    for k in 0..HN {
                        sum += (a[i][k] * b[k][j]).sqrt();
                    }
                    let value = 1.0f32 - sum;
                    let gate = if value.is_sign_negative() { 0.0f32 } else { 1.0 };
                    c[i][j] = (gate * value).sqrt();
                }
            }
        }
    }
}

fn check_hellinger_rows(rng: &mut StdRng) -> Result<(), String> {
    let m = rng.gen_range(1..60);
    let a: Vec<[f32; HN]> = (0..m).map(|_| [1.0 / HN as f32; HN]).collect();
    let mut b: Vec<[f32; HP]> = (0..HN).map(|_| std::array::from_fn(|_| rng.gen_range(0..256) as f32)).collect();
    for j in 0..HP {
        let sum: f32 = (0..HN).map(|i| b[i][j]).sum();
        (0..HN).for_each(|i| b[i][j] /= sum);
    }
    let mut c = vec![[f32::NAN; HP]; m];
    hellinger(&a, &b, &mut c, rng.gen_range(1..3));
    let mut want = vec![[0.0f32; HP]; m];
    for i in 0..m {
        for j in 0..HP {
            let sum: f32 = (0..HN).fold(0.0, |s, k| s + (a[i][k] * b[k][j]).sqrt());
            let value = 1.0f32 - sum;
            let gate = if value.is_sign_negative() { 0.0f32 } else { 1.0 };
            want[i][j] = (gate * value).sqrt();
        }
    }
    same("c", c.as_flattened(), want.as_flattened())
}

/// crc64's two `[0:4][0:256]` tables read at data-dependent rows and columns, as a kernel-local array of rows.
#[omp::directives]
fn table_lookups(table: [[u64; 256]; 4], data: &[u8], out: &mut [u64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..out.len() {
        let b = data[i] as usize;
        out[i] = table[i % 4][b] ^ table[3 - i % 4][255 - b];
    }
}

/// Rows written element by element by a host parallel loop (each iteration its row).
#[omp::directives]
fn scale_rows(rows: &mut [[f64; 5]], s: &[f64]) {
    #[omp::parallel_for]
    for i in 0..rows.len() {
        for j in 0..rows[i].len() {
            rows[i][j] *= s[i];
        }
    }
}

/// A column index past its row, read in a kernel: Rust's panic, not the next row's element.
#[omp::directives]
fn past_the_row(p: &[[f64; 3]], col: usize, out: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..out.len() {
        out[i] = p[i][col];
    }
}

fn check_row_tables(rng: &mut StdRng) -> Result<(), String> {
    let table: [[u64; 256]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| rng.gen()));
    let n = rng.gen_range(0..5000);
    let data: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
    let mut out = vec![0u64; n];
    table_lookups(table, &data, &mut out);
    let want: Vec<u64> = (0..n).map(|i| table[i % 4][data[i] as usize] ^ table[3 - i % 4][255 - data[i] as usize]).collect();
    same("out", &out, &want)?;

    let mut rows: Vec<[f64; 5]> = (0..rng.gen_range(0..300)).map(|_| std::array::from_fn(|_| rng.gen_range(-1.0..1.0))).collect();
    let s: Vec<f64> = (0..rows.len()).map(|_| rng.gen_range(-2.0..2.0)).collect();
    let want: Vec<[f64; 5]> = rows.iter().zip(&s).map(|(r, s)| r.map(|v| v * s)).collect();
    scale_rows(&mut rows, &s);
    same("rows", rows.as_flattened(), want.as_flattened())?;

    let p: Vec<[f64; 3]> = (0..rng.gen_range(2..50)).map(|_| [1.0, 2.0, 3.0]).collect();
    let mut out = vec![0.0; p.len() - 1];
    past_the_row(&p, 2, &mut out);
    same("p[i][2]", &out, &vec![3.0; out.len()])?;
    let past = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| past_the_row(&p, 3, &mut out)));
    if past.is_ok() {
        return Err("p[i][3] on rows of 3 did not panic".into());
    }
    Ok(())
}
