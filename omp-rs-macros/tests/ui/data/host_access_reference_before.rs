// A reference taken before a `target_data` block that maps the array `tofrom` cannot be used inside it: the
// block's token holds the array exclusively (the borrow checker says so).
#[omp::directives]
fn f(n: usize, a: &mut [f64]) -> f64 {
    let first = &a[0];
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] += 1.0;
        }
    }
    *first
}

fn main() {}
