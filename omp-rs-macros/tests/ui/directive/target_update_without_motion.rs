#[omp::directives]
fn f(x: &mut [f64]) {
    #[omp::target_data(map(tofrom: x))]
    {
        omp::target_update!(device(0));
    }
}

fn main() {}
