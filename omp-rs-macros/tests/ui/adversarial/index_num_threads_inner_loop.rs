// Expected: compile error naming `k` (or `y`): the inner loop's bound `omp::get_num_threads()` is 1 where a
// check before the region would evaluate it and the team size inside, so `y[i + k]` overlaps between iterations
// (issue #4).
#[omp::parallel_for(schedule(static, 1))]
fn f(y: &mut [u64]) {
    for i in 0..y.len() - 8 {
        for k in 0..omp::get_num_threads() {
            y[i + k] += 1;
        }
    }
}

fn main() {}
