#[omp::directives]
fn unstructured(x: &mut Vec<f64>, y: &[f64], out: &mut Vec<usize>) {
    omp::target_enter_data!(map(to: x), map(always, to: y), device(0));
    #[omp::target_teams_distribute_parallel_for(map(present, tofrom: x))]
    for i in 0..x.len() {
        x[i] += y[i];
    }
    omp::target_exit_data!(map(from: x), map(release: y), device(0));
    #[omp::parallel_for]
    for i in 0..x.len() {
        if x[i] > 0.0 {
            #[omp::critical(found)]
            {
                out.push(i);
            }
        }
    }
}
