#[omp::parallel_for]
fn find(x: &mut [f64]) {
    for i in 0..x.len() {
        if x[i] < 0.0 {
            break;
        }
        x[i] = 1.0;
    }
}

fn main() {}
