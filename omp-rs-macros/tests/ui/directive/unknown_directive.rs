#[omp::directives]
fn f(x: &mut [f64]) {
    #[omp::paralel_for]
    for i in 0..x.len() {
        x[i] = 1.0;
    }
}

fn main() {}
