#[omp::parallel_for]
fn count(x: &mut [u64]) {
    for i in 0.. {
        x[i] = 1;
    }
}

fn main() {}
