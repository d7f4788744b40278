// Expected: compile error naming `s`: the reduction variable is read through an inline format argument.
#[omp::parallel_for(reduction(+: s))]
fn f(x: &[f64], y: &mut [String]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
        y[i] = format!("{s}");
    }
    s
}

fn main() {}
