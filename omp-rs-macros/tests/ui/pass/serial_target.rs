// OpenMP's serial target region: no directive inside, one device thread runs the statements; the arrays are
// read and written anywhere, as in the sequential code.
#[omp::target]
fn prefix_sum(a: &mut [f64], n: usize) {
    for i in 1..n {
        a[i] += a[i - 1];
    }
}

#[omp::directives]
fn histogram(keys: &[usize], bins: &mut [u32]) {
    #[omp::target(map(to: keys), map(tofrom: bins))]
    {
        let nb = bins.len();
        for k in 0..keys.len() {
            bins[keys[k] % nb] += 1;
        }
    }
}

fn main() {
    let mut a = vec![1.0; 8];
    prefix_sum(&mut a, 8);
    assert_eq!(a[7], 8.0);
    let mut bins = vec![0u32; 3];
    histogram(&[0, 1, 2, 3, 4], &mut bins);
    assert_eq!(bins, [2, 2, 1]);
}
