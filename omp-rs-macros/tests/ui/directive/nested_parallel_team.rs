// A `parallel` region nested in a target loop's iteration is inactive (a team of one thread runs its statement):
// asking it for its thread number would answer for that team of one, so omp-rs refuses it.
#[omp::directives]
fn f(n: usize, x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for r in 0..n {
        let mut s = 0.0;
        #[omp::parallel(reduction(+: s))]
        for i in 0..4 {
            s += x[4 * r + i] * omp::get_thread_num() as f64;
        }
        y[r] = s;
    }
}

fn main() {}
