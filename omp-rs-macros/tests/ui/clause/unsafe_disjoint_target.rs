// Expected: compile error: `unsafe(disjoint(..))` is for host parallel loops; target regions do not take it.
#[omp::target_teams_distribute_parallel_for(unsafe(disjoint(u)))]
fn halo(n: usize, u: &mut [f64]) {
    for r in 0..4 {
        u[r * (n + 2)] = u[r * (n + 2) + n];
    }
}

fn main() {}
