// A target region cannot start inside a parallel loop (OpenMP: `target` is not nested in a parallel region here).
#[omp::directives]
fn f(n: usize, x: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..n {
        #[omp::target_teams_distribute_parallel_for]
        for j in 0..n {
            x[i * n + j] = 1.0;
        }
    }
}

fn main() {}
