#[omp::parallel_for]
fn double(x: &mut Vec<f64>) {
    for v in x.iter_mut() {
        *v *= 2.0;
    }
}

fn main() {}
