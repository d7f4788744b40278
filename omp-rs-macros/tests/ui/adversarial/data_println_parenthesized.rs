// Expected: compile error naming `a`: host code inside `target_data` reads the mapped `a` (in parentheses inside
// `println!`), whose current copy is on the device (issue #6).
#[omp::directives]
fn f(a: &mut [f64]) {
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] *= 2.0;
        }
        println!("{}", (a[0]));
    }
}

fn main() {}
