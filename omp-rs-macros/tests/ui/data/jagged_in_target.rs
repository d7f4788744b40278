// Rows of a jagged array cannot be mapped (as `double **` cannot in C without a mapper): a compile error that says
// what to map instead. On the host the same loop runs as written (adversarial rows_under_collapse).
#[omp::target_teams_distribute_parallel_for(collapse(2))]
fn f(x: &[f64], c: &mut [Vec<f64>]) {
    for i in 0..c.len() {
        for j in 0..x.len() {
            c[i][j] += x[j];
        }
    }
}

fn main() {}
