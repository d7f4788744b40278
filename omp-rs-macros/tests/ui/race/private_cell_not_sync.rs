use std::cell::Cell;

#[omp::parallel_for]
fn f(c: &Cell<f64>, x: &[f64]) {
    for i in 0..x.len() {
        c.set(c.get() + x[i]);
    }
}

fn main() {}
