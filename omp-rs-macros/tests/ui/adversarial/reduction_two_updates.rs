// Expected: compile error naming `s`: two updates with different operators (`s += ..; s *= 2;`) under `+`.
#[omp::parallel_for(reduction(+: s))]
fn f(x: &[i64]) -> i64 {
    let mut s = 1;
    for i in 0..x.len() {
        s += x[i];
        s *= 2;
    }
    s
}

fn main() {}
