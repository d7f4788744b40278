// Expected: compile error naming `k`: `k` is a reduction variable (each thread holds a partial count), so it
// cannot appear in the index of a written array (issue #4).
#[omp::parallel_for(reduction(+: k), schedule(static, 1))]
fn f(x: &[f64], y: &mut [f64]) -> usize {
    let mut k = 0usize;
    for i in 0..x.len() {
        k += 1;
        y[i + k] = x[i];
    }
    k
}

fn main() {}
