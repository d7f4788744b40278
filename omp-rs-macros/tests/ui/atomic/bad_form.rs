#[omp::directives]
fn f(x: &[f64], s: &mut f64) {
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::atomic]
        *s = x[i] * 2.0;
    }
}

fn main() {}
