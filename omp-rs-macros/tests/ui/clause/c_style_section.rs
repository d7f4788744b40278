#[omp::target_teams_distribute_parallel_for(map(to: x[0:n]))]
fn copy(n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..n {
        y[i] = x[i];
    }
}

fn main() {}
