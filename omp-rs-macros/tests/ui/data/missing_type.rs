#[omp::directives]
fn f(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[omp::target_teams_distribute_parallel_for(reduction(+: s))]
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

fn main() {}
