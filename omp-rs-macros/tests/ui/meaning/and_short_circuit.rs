// Sequentially `ok && x[i + 1] > 0.0` stops indexing once `ok` is false (here: at the last element's check); each
// thread's `ok` starts at `true`, so the parallel loop would index where the sequential one never does.
#[omp::target_teams_distribute_parallel_for(reduction(&&: ok))]
fn ascending(x: &[f64]) -> bool {
    let mut ok = true;
    for i in 0..x.len() {
        ok = ok && x[i + 1] > x[i];
    }
    ok
}

fn main() {}
