#[omp::parallel_for]
fn nothing(x: &mut [f64]) {
    x[0] = 1.0;
}

fn main() {}
