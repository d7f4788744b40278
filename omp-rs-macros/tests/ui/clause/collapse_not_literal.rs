const DEPTH: u32 = 2;

#[omp::parallel_for(collapse(DEPTH))]
fn zero(n: usize, x: &mut [f64]) {
    for i in 0..n {
        for j in 0..n {
            x[i * n + j] = 0.0;
        }
    }
}

fn main() {}
