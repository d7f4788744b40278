// A `target` block's clauses apply to its loop directive in OpenMP's split form only (the block is that one
// directive); with more in the block they would be dropped, so they are refused.
#[omp::directives]
fn f(did: i64, x: &[f64], y: &mut [f64]) {
    #[omp::target(device(did))]
    {
        let a = 2.0;
        #[omp::teams_distribute_parallel_for]
        for i in 0..y.len() {
            y[i] = a * x[i];
        }
    }
}

fn main() {}
