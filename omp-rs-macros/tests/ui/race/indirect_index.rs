#[omp::parallel_for]
fn scatter(idx: &[usize], x: &[f64], a: &mut [f64]) {
    for i in 0..x.len() {
        a[idx[i]] = x[i];
    }
}

fn main() {}
