// Expected: compile error naming `acc`: the private `acc` is read before it is written in the iteration (`acc +=`),
// so it carries a value from the thread's previous iteration instead of the sequential running value.
#[omp::parallel_for(private(acc))]
fn f(x: &[f64], y: &mut [f64]) {
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc += x[i];
        y[i] = acc;
    }
}

fn main() {}
