// Expected: compile error naming `total`: updated both by `#[omp::atomic]` and by a plain assignment.
#[omp::directives]
fn f(x: &[u64]) -> u64 {
    let mut total = 0u64;
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::atomic]
        total += x[i];
        if x[i] == 0 {
            total = 0;
        }
    }
    total
}

fn main() {}
