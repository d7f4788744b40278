// The kernel needs each captured scalar's type; a literal (`0.0` is f64) or typed expression shows it, a call
// does not.
fn start(x: &[f64]) -> f64 {
    x.first().copied().unwrap_or(0.0)
}

#[omp::directives]
fn f(x: &[f64]) -> f64 {
    let mut s = start(x);
    #[omp::target_teams_distribute_parallel_for(reduction(+: s))]
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

fn main() {}
