// Expected: compile error naming the critical section (or `s`/`t`): a `critical` block nested in a `critical` of the
// same name can never enter (OpenMP: non-conforming; a lock would deadlock); sequential Rust just runs it.
#[omp::directives]
fn f(x: &[i64]) -> (i64, i64) {
    let mut s = 0;
    let mut t = 0;
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::critical]
        {
            s += x[i];
            #[omp::critical]
            {
                t += 1;
            }
        }
    }
    (s, t)
}

fn main() {}
