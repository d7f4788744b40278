// Expected: compile error naming `c`: the reduction variable `c` is read as an index (`x[c]`); a thread's partial
// count is not the sequential one.
#[omp::parallel_for(reduction(+: c))]
fn f(x: &[f64], y: &mut [f64]) -> usize {
    let mut c = 0usize;
    for i in 0..y.len() {
        y[i] = x[c];
        c += 1;
    }
    c
}

fn main() {}
