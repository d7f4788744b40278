#[omp::parallel_for]
fn largest(x: &[f64]) -> f64 {
    let mut m = f64::MIN;
    for i in 0..x.len() {
        m = m.max(x[i]);
    }
    m
}

fn main() {}
