use std::collections::HashMap;

#[omp::target_teams_distribute_parallel_for]
fn f(m: &HashMap<usize, f64>, y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = m[&i];
    }
}

fn main() {}
