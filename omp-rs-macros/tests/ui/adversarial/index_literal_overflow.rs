// Expected: an ordinary compile error naming `y` (the coefficient 2^62 * 2^62 * 8 does not fit the analysis'
// arithmetic), NOT "custom attribute panicked: attempt to multiply with overflow" (issue #7).
#[omp::parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        y[i * 4611686018427387904 * 4611686018427387904 * 8] += 1.0;
    }
}

fn main() {}
