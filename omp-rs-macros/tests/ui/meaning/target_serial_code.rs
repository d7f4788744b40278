// Code of a `target` region outside its loop directives runs on the device in OpenMP (nbody's serial energy sum
// `for (i = 1; i < n; i++) e[0] += e[i];`); omp-rs would run it on the host, over host data the device has outdated.
#[omp::target]
fn energy(n: usize, e: &mut [f64], p: &[f64]) {
    #[omp::teams_distribute_parallel_for]
    for i in 0..n {
        e[i] = 0.5 * p[i] * p[i];
    }
    for i in 1..n {
        e[0] += e[i];
    }
    let first = e[0];
    let scale: f64 = 2.0;
    if scale > 1.0 {
        #[omp::teams_distribute_parallel_for]
        for i in 0..n {
            e[i] *= scale;
        }
    }
    let _ = first;
}

fn main() {}
