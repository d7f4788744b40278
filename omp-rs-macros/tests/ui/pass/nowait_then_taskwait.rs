// `nowait` regions, host work that does not touch their arrays, `taskwait`, then the results.
#[omp::directives]
fn f(x: &[f64], y: &mut [f64], z: &mut [f64]) -> f64 {
    let n = y.len();
    let mut host = 0.0;
    #[omp::target_teams_distribute_parallel_for(nowait)]
    for i in 0..n {
        y[i] = 2.0 * x[i];
    }
    #[omp::target_teams_distribute_parallel_for(depend(out: z), nowait)]
    for i in 0..n {
        z[i] = x[i] + 1.0;
    }
    for k in 0..10 {
        host += k as f64;
    }
    omp::taskwait!();
    host + y[0] + z[0]
}

fn main() {
    let x = vec![1.0; 8];
    let (mut y, mut z) = (vec![0.0; 8], vec![0.0; 8]);
    assert_eq!(f(&x, &mut y, &mut z), 45.0 + 2.0 + 2.0);
}
