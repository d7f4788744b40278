// Expected: compile error naming `k`: `for mut k in 0..2 { k *= 2; y[2 * i + k] }` in a target region.
#[omp::target_teams_distribute_parallel_for]
fn f(n: usize, y: &mut [u64]) {
    for i in 0..n {
        for mut k in 0..2 {
            k *= 2;
            y[2 * i + k] += 1;
        }
    }
}

fn main() {}
