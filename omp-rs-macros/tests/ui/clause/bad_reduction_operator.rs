#[omp::parallel_for(reduction(avg: s))]
fn mean(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

fn main() {}
