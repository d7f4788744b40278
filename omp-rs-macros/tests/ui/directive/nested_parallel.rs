#[omp::directives]
fn f(n: usize, x: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..n {
        #[omp::parallel_for]
        for j in 0..n {
            x[i * n + j] = 1.0;
        }
    }
}

fn main() {}
