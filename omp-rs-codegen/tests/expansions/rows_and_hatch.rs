#[omp::directives]
fn rows(nt: usize, x: &[f64], c: &mut [Vec<f64>], p: &[usize], y: &mut [f64]) {
    #[omp::parallel_for(num_threads(nt), collapse(2))]
    for i in 0..c.len() {
        for j in 0..x.len() {
            c[i][j] += x[j];
        }
    }
    #[omp::parallel_for(unsafe(disjoint(y)))]
    for i in 0..p.len() {
        y[p[i]] = x[i];
    }
}
