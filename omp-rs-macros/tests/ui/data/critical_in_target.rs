#[omp::directives]
fn f(x: &[f64]) -> f64 {
    let mut best: f64 = 0.0;
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..x.len() {
        #[omp::critical]
        {
            best = best.max(x[i]);
        }
    }
    best
}

fn main() {}
