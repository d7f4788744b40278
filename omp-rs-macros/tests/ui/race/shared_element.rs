#[omp::parallel_for]
fn total(x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[0] += x[i];
    }
}

fn main() {}
