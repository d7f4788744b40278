#[omp::parallel_for(collapse(2), schedule(static), collapse(2))]
fn fill(n: usize, a: &mut [f64]) {
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = 1.0;
        }
    }
}

fn main() {}
