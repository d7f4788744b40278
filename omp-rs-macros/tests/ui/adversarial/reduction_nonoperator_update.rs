// Expected: compile error naming `s`: `s = s * 0.5 + x[i]` is not an update of the `+` operator, so combining
// per-thread partials with `+` does not give the sequential value (issue #6).
#[omp::parallel_for(reduction(+: s))]
fn decay(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s = s * 0.5 + x[i];
    }
    s
}

fn main() {}
