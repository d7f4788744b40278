// Expected: compile error: inside the body `i` is rebound (`let i = 2 * i;`), so the inner bound `0..i` is not the
// parallel variable any more. Widening it by the parallel dimension's corners would use the outer `i` and own too
// few elements; the bound names a `let` of the body, so it is not widened and the write is refused.
#[omp::directives]
fn f(n: usize, a: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..n {
        let i = 2 * i;
        for j in 0..i {
            a[i * n + j] = 1.0;
        }
    }
}

fn main() {}
