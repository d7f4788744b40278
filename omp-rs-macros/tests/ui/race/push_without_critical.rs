#[omp::directives]
fn gather(x: &[u64]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    #[omp::parallel_for]
    for i in 0..x.len() {
        out.push(x[i]);
    }
    out
}

fn main() {}
