// The kernel holds the section `x[0..n]`, the host path all of `x`: `x.len()` would differ between them.
#[omp::directives]
fn f(n: usize, x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for(map(to: x[0..n]))]
    for i in 0..y.len() {
        y[i] = x[i] + x.len() as f64;
    }
}

fn main() {}
