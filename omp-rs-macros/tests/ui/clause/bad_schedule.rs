#[omp::parallel_for(schedule(fast, 4))]
fn zero(x: &mut [f64]) {
    for i in 0..x.len() {
        x[i] = 0.0;
    }
}

fn main() {}
