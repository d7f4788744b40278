// Expected: compile error naming `y`: the body iterates over the whole written array (`y.iter()`), reading elements
// that other iterations write.
#[omp::parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        let s: f64 = y.iter().sum();
        y[i] = s;
    }
}

fn main() {}
