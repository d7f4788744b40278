#[omp::parallel_for(collapse(2), private(tmp), firstprivate(scale), if(n > 100))]
fn scale2d(n: usize, m: usize, scale: f64, mut tmp: f64, a: &[f64], b: &mut [f64]) {
    for i in 0..n {
        for j in 0..m {
            tmp = a[i * m + j] * scale;
            tmp += 1.0;
            b[i * m + j] = tmp;
        }
    }
}
