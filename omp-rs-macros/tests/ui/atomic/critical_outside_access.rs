#[omp::directives]
fn f(x: &[f64]) -> f64 {
    let mut best = 0.0;
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::critical]
        {
            if x[i] > best {
                best = x[i];
            }
        }
        let _ = best;
    }
    best
}

fn main() {}
