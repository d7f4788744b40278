#[omp::parallel_for(collapse(2))]
fn lower(n: usize, a: &mut [f64]) {
    for i in 0..n {
        for j in 0..i {
            a[i * n + j] = 1.0;
        }
    }
}

fn main() {}
