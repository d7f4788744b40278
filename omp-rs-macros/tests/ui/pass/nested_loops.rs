// Loop directives inside a parallel loop's body run their loop in the enclosing iteration.
#[omp::directives]
fn rows(n: usize, x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute(num_teams(8))]
    for i in 0..y.len() {
        let mut t = 0.0;
        #[omp::parallel_for(num_threads(32), reduction(+: t))]
        for j in 0..n {
            t += x[i * n + j];
        }
        y[i] = t;
    }
    #[omp::parallel_for]
    for i in 0..y.len() {
        #[omp::parallel_for_simd]
        for j in 0..n {
            #[omp::simd]
            for k in 0..2 {
                y[i] += x[i * n + j] * k as f64;
            }
        }
    }
}

fn main() {
    let (n, x) = (4, vec![1.0; 12]);
    let mut y = vec![0.0; 3];
    rows(n, &x, &mut y);
    assert_eq!(y, [8.0; 3]);
}
