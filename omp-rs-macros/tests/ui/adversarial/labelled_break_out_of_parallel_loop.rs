// Expected: compile error about `break 'outer`: it leaves the parallel loop from inside an inner loop.
#[omp::parallel_for]
fn f(x: &[f64], y: &mut [f64]) {
    'outer: for i in 0..y.len() {
        for k in 0..4 {
            if x[i] > 0.5 {
                break 'outer;
            }
            y[i] += k as f64;
        }
    }
}

fn main() {}
