// Every iteration writes its own element f[8 * k] and also the subslice f[m..m + 8] that does not move with k.
fn fill(f: &mut [f64]) {
    for v in f {
        *v = 1.0;
    }
}

#[omp::directives]
fn f(n: usize, m: usize, f: &mut [f64]) {
    #[omp::parallel_for]
    for k in 0..n {
        f[8 * k] = 0.0;
        fill(&mut f[m..m + 8]);
    }
}

fn main() {}
