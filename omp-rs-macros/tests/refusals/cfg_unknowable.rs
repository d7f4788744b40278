// A build script cannot know whether the package is compiled as a test.
#[omp::target_teams_distribute_parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = if cfg!(test) { 1.0 } else { 2.0 };
    }
}

fn main() {
    f(&mut [0.0]);
}
