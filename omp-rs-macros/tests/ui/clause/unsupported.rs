#[omp::parallel_for(lastprivate(k))]
fn last(x: &mut [f64]) {
    for i in 0..x.len() {
        x[i] = 0.0;
    }
}

fn main() {}
