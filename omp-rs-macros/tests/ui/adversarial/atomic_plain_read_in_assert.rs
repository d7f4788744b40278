// Expected: compile error naming `total`: `total` is updated by `#[omp::atomic]`; reading it in `assert!` races.
#[omp::directives]
fn f(x: &[u64]) -> u64 {
    let mut total = 0u64;
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::atomic]
        total += x[i];
        assert!(total < u64::MAX);
    }
    total
}

fn main() {}
