// Expected: compile error naming `s`: `s *= x[i]` under `reduction(+: s)` (the partials start at 0, the identity of
// `+`, and stay 0).
#[omp::parallel_for(reduction(+: s))]
fn product(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s *= x[i];
    }
    s
}

fn main() {}
