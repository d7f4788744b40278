// Expected: compile error naming `y`: `y[i..i + 2].fill(..)` writes a subslice that overlaps the next iteration's.
#[omp::parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() - 1 {
        y[i] = 0.5;
        y[i..i + 2].fill(1.0);
    }
}

fn main() {}
