#[omp::directives]
fn steps(t: usize, u: &mut [f64], v: &mut [f64], w: &[f64], hist: &mut [u64]) -> f64 {
    let mut total: f64 = 0.0;
    #[omp::target_data(map(tofrom: u), map(alloc: v), map(to: w))]
    {
        for _ in 0..t {
            #[omp::target_teams_distribute_parallel_for]
            for i in 1..u.len() - 1 {
                v[i] = 0.5 * (u[i - 1] + u[i + 1]) + w[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..u.len() {
                u[i] = v[i];
            }
            omp::taskwait!();
            omp::target_update!(from: u[0..2]);
        }
        #[omp::target_teams_distribute_parallel_for(reduction(+: total))]
        for i in 0..u.len() {
            total += u[i];
        }
    }
    #[omp::parallel_for]
    for i in 0..u.len() {
        let b = (u[i].abs() as usize) % hist.len();
        #[omp::atomic]
        hist[b] += 1;
    }
    total
}
