fn touch(_: &mut [f64]) {}

#[omp::parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = 1.0;
        touch(y);
    }
}

fn main() {}
