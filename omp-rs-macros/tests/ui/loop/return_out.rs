#[omp::parallel_for]
fn check(x: &mut [f64]) {
    for i in 0..x.len() {
        if x[i] < 0.0 {
            return;
        }
        x[i] = 1.0;
    }
}

fn main() {}
