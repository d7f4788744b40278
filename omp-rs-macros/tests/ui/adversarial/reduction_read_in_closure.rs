// Expected: compile error naming `s`: the reduction variable is read inside a closure in the body.
#[omp::parallel_for(reduction(+: s))]
fn f(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
        let peek = || s * 2.0;
        y[i] = peek();
    }
    s
}

fn main() {}
