#[omp::directives]
fn f(n: usize, a: &mut [f64]) -> f64 {
    let mut first: f64 = 0.0;
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] = 2.0 * a[i];
        }
        first = a[0];
    }
    first
}

fn main() {}
