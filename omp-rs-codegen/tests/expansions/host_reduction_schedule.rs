#[omp::parallel_for(reduction(+: s), reduction(max: m), schedule(dynamic, 4), num_threads(nt))]
fn dot(nt: usize, x: &[f64], y: &[f64], mut s: f64, mut m: f64) -> (f64, f64) {
    for i in 0..x.len() {
        s += x[i] * y[i];
        m = m.max(x[i]);
    }
    (s, m)
}
