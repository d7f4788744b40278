// Expected: compile error naming `a`: a host read of the mapped `a` inside a plain nested block, inside a closure
// called at once.
#[omp::directives]
fn f(a: &mut [f64]) -> f64 {
    let mut v = 0.0;
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] *= 2.0;
        }
        v = (|| { a[1] })();
    }
    v
}

fn main() {}
