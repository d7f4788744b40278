#[omp::target_teams_distribute(num_teams(nt))]
fn spmv(nt: usize, tpr: usize, r: &[usize], c: &[usize], v: &[f64], x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        let mut t = 0.0;
        #[omp::parallel_for(num_threads(tpr), reduction(+: t))]
        for j in r[i]..r[i + 1] {
            t += v[j] * x[c[j]];
        }
        y[i] = t;
    }
}
