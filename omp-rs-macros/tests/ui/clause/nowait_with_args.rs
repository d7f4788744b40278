#[omp::target_teams_distribute_parallel_for(nowait(1))]
fn zero(x: &mut [f64]) {
    for i in 0..x.len() {
        x[i] = 0.0;
    }
}

fn main() {}
