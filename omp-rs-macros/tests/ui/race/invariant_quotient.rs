// `n / 2` in an index is one value of the whole loop (computed before it, as the body computes it): a write at
// `y[i + n / 2]` is disjoint across iterations, one at `y[n / 2]` is written by every iteration.
#[omp::parallel_for]
fn shifted(n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..n / 2 {
        y[i + n / 2] = x[i];
    }
}

#[omp::parallel_for]
fn middle(n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..n {
        y[n / 2] = x[i];
    }
}

fn main() {
    let x = vec![1.0; 8];
    let mut y = vec![0.0; 8];
    shifted(8, &x, &mut y);
    middle(8, &x, &mut y);
}
