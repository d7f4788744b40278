// Expected: compile error: the inner loop's bound `m` is a `let` of the body (`let m = i + 1`). A triangular bound is
// widened to a range valid before the loop by evaluating it at the corners of the parallel space, which only works
// for parallel variables and variables from outside the loop; `m` does not exist there (an outer `m` would even
// mean something else), so the range is not widened and the write is refused.
#[omp::directives]
fn f(n: usize, a: &mut [f64]) {
    let m = 1usize;
    #[omp::parallel_for]
    for i in 0..n {
        let m = i + 1;
        for j in 0..m {
            a[i * n + j] = m as f64;
        }
    }
    let _ = m;
}

fn main() {}
