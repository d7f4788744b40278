// A `nowait` region is pending until the next `omp::taskwait!()`: host code in between cannot touch the arrays it
// uses (here: read what the region writes), so it can never see a half-written result.
#[omp::directives]
fn f(x: &[f64], y: &mut [f64]) -> f64 {
    let mut early = 0.0;
    #[omp::target_teams_distribute_parallel_for(nowait)]
    for i in 0..y.len() {
        y[i] = 2.0 * x[i];
    }
    early += y[0];
    omp::taskwait!();
    early + y[0]
}

fn main() {}
