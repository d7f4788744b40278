#[omp::directives]
fn f(x: &[u32], h: &mut [u64]) {
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::atomic]
        h[x[i] as usize] += 1;
        if h[0] > 10 {
            continue;
        }
    }
}

fn main() {}
