// A closure inside a `target_data` block reaches no more than the block's host code: the mapped `a` is a token.
#[omp::directives]
fn f(n: usize, a: &mut [f64]) -> f64 {
    let mut total = 0.0;
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] += 1.0;
        }
        let sum = |k: usize| a[k] + a[k + 1];
        total = sum(0);
    }
    total
}

fn main() {}
