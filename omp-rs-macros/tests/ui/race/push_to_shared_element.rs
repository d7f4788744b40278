#[omp::parallel_for]
fn collect(x: &[u64], v: &mut [Vec<u64>]) {
    for i in 0..x.len() {
        v[0].push(x[i]);
    }
}

fn main() {}
