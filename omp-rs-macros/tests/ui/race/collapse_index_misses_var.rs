#[omp::parallel_for(collapse(2))]
fn rows(n: usize, a: &[f64], r: &mut [f64]) {
    for i in 0..n {
        for j in 0..n {
            r[i] = a[i * n + j];
        }
    }
}

fn main() {}
