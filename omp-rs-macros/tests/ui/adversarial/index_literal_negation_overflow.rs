// Expected: an ordinary compile error (from omp-rs naming `y`, or rustc's "literal out of range"), NOT a panic
// inside the macro: negating the constant part -2^127 overflows i128.
#[omp::parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        y[i - (0 - 170141183460469231731687303715884105727 - 1)] = 1.0;
    }
}

fn main() {}
