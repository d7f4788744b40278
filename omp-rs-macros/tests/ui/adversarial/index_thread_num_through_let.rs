// Expected: compile error naming `y` (or `t`): `let t = omp::get_thread_num();` is an immutable local whose value
// differs between threads; following it into `y[i + t]` must not make the index look loop-invariant.
#[omp::parallel_for(schedule(static, 1))]
fn f(y: &mut [f64]) {
    for i in 0..y.len() - 4 {
        let t = omp::get_thread_num();
        y[i + t] = 1.0;
    }
}

fn main() {}
