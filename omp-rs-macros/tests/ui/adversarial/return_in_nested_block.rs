// Expected: compile error about `return`: inside a nested `if` in the body it leaves the parallel loop.
#[omp::parallel_for]
fn f(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        {
            if x[i] < 0.0 {
                return;
            }
        }
        y[i] = x[i];
    }
}

fn main() {}
