// The racy loops of the UI tests, written with the clause the error message suggests.

#[omp::directives]
fn total(x: &[f64], y: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::atomic]
        y[0] += x[i];
    }
}

#[omp::parallel_for(reduction(+: s))]
fn sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

#[omp::directives]
fn scatter_add(idx: &[usize], x: &[f64], a: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::atomic]
        a[idx[i]] += x[i];
    }
}

fn main() {
    let x: Vec<f64> = (0..1000).map(|i| i as f64).collect();
    let mut y = vec![0.0];
    total(&x, &mut y);
    assert_eq!(y[0], 499500.0);
    assert_eq!(sum(&x), 499500.0);
    let idx: Vec<usize> = (0..1000).map(|i| i % 7).collect();
    let mut a = vec![0.0; 7];
    scatter_add(&idx, &x, &mut a);
    for k in 0..7 {
        let want: f64 = (0..1000).filter(|i| i % 7 == k).map(|i| i as f64).sum();
        assert_eq!(a[k], want);
    }
}
