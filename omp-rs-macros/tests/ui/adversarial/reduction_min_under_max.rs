// Expected: compile error naming `m`: `m = m.min(x[i])` under `reduction(max: m)`.
#[omp::parallel_for(reduction(max: m))]
fn smallest(x: &[f64]) -> f64 {
    let mut m = f64::INFINITY;
    for i in 0..x.len() {
        m = m.min(x[i]);
    }
    m
}

fn main() {}
