// A serial target region runs on one device thread: it cannot hand a value back to the host code around it.
#[omp::target]
fn first(a: &mut [f64]) -> f64 {
    a[0] += 1.0;
    a[0]
}

// A single-iteration loop's iteration owns the arrays it writes, but not a captured scalar (a copy per region).
#[omp::directives]
fn count(a: &mut [f64], n: usize) {
    let mut total = 0.0;
    #[omp::target_teams_distribute_parallel_for]
    for _ in 0..1 {
        for i in 0..n {
            total += a[i];
        }
    }
    a[0] = total;
}

fn main() {}
