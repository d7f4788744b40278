// Expected: compile error naming `off`: the private `off` (assigned in the body) in the written index of a target
// region (the device kernel has no run-time check to fall back on).
#[omp::target_teams_distribute_parallel_for(private(off))]
fn f(y: &mut [u64]) {
    let mut off: usize = 0;
    for i in 0..y.len() - 1 {
        off = i % 2;
        y[i + off] += 1;
    }
}

fn main() {}
