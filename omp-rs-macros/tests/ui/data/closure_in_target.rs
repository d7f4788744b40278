// A closure declared before a target region and called in it: a kernel takes arrays and values, so the message
// asks for a `fn` (plain functions are compiled for the device).
#[omp::directives]
fn f(x: &[f64], y: &mut [f64]) {
    let twice = |v: f64| 2.0 * v;
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        y[i] = twice(x[i]);
    }
}

fn main() {}
