// Expected: compile error naming `a`: `println!("{a:?}")` inside `target_data` reads the mapped `a` through an
// inline format argument.
#[omp::directives]
fn f(a: &mut [f64]) {
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] *= 2.0;
        }
        println!("{a:?}");
    }
}

fn main() {}
