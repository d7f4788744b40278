#[omp::parallel_for]
fn twice(x: &mut [f64]) {
    for i in 0..x.len() {
        x[i] = 1.0;
    }
    for i in 0..x.len() {
        x[i] += 1.0;
    }
}

fn main() {}
