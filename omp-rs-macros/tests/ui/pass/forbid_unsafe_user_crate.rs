#![forbid(unsafe_code)]

#[omp::parallel_for(collapse(2))]
fn fill(n: usize, m: usize, a: &mut [f64]) {
    for i in 0..n {
        for j in 0..m {
            a[i * m + j] = (i * 10 + j) as f64;
        }
    }
}

fn main() {
    let (n, m) = (7, 5);
    let mut a = vec![0.0; n * m];
    fill(n, m, &mut a);
    for i in 0..n {
        for j in 0..m {
            assert_eq!(a[i * m + j], (i * 10 + j) as f64);
        }
    }
}
