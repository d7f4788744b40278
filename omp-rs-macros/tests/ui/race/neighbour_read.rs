#[omp::parallel_for]
fn shift(y: &mut [f64]) {
    for i in 0..y.len() - 1 {
        y[i] = y[i + 1];
    }
}

fn main() {}
