#[omp::target_teams_distribute_parallel_for(map(to: x), map(tofrom: y), num_teams(8), thread_limit(128), device(0), if(n > 10))]
fn saxpy(n: usize, a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..n {
        y[i] += a * x[i];
    }
}
