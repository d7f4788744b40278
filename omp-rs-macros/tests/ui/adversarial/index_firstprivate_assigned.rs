// Expected: compile error naming `s`: a `firstprivate` assigned in the body (`s = i % 2`) is used as the
// coefficient of a written index `y[i * s]`; the value the run-time check would see is not the one each iteration
// uses (issue #4).
#[omp::parallel_for(firstprivate(s), schedule(static, 3))]
fn f(mut s: usize, y: &mut [f64]) {
    for i in 0..y.len() {
        s = i % 2;
        y[i * s] += 1.0;
    }
}

fn main() {}
