// Expected: compile error naming `s`: a reduction variable read in the body (`y[i] = s`) sees a thread's partial
// value, not the running sum of sequential Rust (issue #6).
#[omp::parallel_for(reduction(+: s))]
fn prefix(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
        y[i] = s;
    }
    s
}

fn main() {}
