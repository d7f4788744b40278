// Host code inside a `target_data` block cannot read mapped data, also not inside a macro (the borrow of `a` is
// held by the block's mapping token, which has no elements to offer).
#[omp::directives]
fn f(n: usize, a: &mut [f64]) {
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] = 2.0 * a[i];
        }
        println!("{}", a[0]);
    }
}

fn main() {}
