// Expected: compile error naming `y`: `omp::get_thread_num()` is a call whose value differs between threads, so
// `y[i + omp::get_thread_num()]` is not a loop-invariant offset (issue #4).
#[omp::parallel_for(schedule(static, 1))]
fn f(y: &mut [f64]) {
    for i in 0..y.len() - 4 {
        y[i + omp::get_thread_num()] += 1.0;
    }
}

fn main() {}
