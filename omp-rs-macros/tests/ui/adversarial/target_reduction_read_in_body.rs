// Expected: compile error naming `s`: a reduction variable read in the body of a target region.
#[omp::target_teams_distribute_parallel_for(reduction(+: s))]
fn f(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s: f64 = 0.0;
    for i in 0..x.len() {
        s += x[i];
        y[i] = s;
    }
    s
}

fn main() {}
