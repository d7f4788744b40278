#[omp::parallel_for(map(to: x))]
fn scale(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = 2.0 * x[i];
    }
}

fn main() {}
