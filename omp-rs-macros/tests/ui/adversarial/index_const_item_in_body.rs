// Expected: compile error naming `n` (or `y`): the body declares `const n: usize = 1;`, which shadows the parameter
// `n` inside the body, so `y[i * n + j]` has stride 1 there while a check outside the body sees the parameter.
#[allow(non_upper_case_globals)]
#[omp::parallel_for(collapse(2), schedule(static, 1))]
fn f(n: usize, m: usize, y: &mut [u64]) {
    for i in 0..m {
        for j in 0..n {
            const n: usize = 1;
            y[i * n + j] += 1;
        }
    }
}

fn main() {}
