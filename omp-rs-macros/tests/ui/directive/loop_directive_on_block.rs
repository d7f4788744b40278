#[omp::directives]
fn f(x: &mut [f64]) {
    #[omp::parallel_for]
    {
        x[0] = 1.0;
    }
}

fn main() {}
