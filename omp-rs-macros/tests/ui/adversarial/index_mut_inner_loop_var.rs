// Expected: compile error naming `k`: `for mut k in 0..2 { k *= 2; .. }` reassigns the inner loop variable, so
// `y[2 * i + k]` reaches 2i + 2 = 2(i + 1) + 0, the element of the next iteration (issue #4).
#[omp::parallel_for(schedule(static, 1))]
fn f(n: usize, y: &mut [u64]) {
    for i in 0..n {
        for mut k in 0..2 {
            k *= 2;
            y[2 * i + k] += 1;
        }
    }
}

fn main() {}
