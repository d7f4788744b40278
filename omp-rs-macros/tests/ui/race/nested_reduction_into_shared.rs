// The nested loop's reduction adds into `total`, which every iteration of the enclosing parallel loop shares: a race
// in OpenMP too (the inner reduction's result is combined into the shared variable unsynchronised).
#[omp::directives]
fn f(n: usize, x: &[f64]) -> f64 {
    let mut total = 0.0;
    #[omp::parallel_for]
    for i in 0..n {
        #[omp::parallel_for(reduction(+: total))]
        for j in 0..n {
            total += x[i * n + j];
        }
    }
    total
}

fn main() {}
