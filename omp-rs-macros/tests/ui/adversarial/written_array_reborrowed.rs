// Expected: compile error naming `y`: the written array is re-borrowed whole (`let z = &mut *y;`) inside the body.
#[omp::parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        let z = &mut *y;
        z[0] += 1.0;
        y[i] = 2.0;
    }
}

fn main() {}
