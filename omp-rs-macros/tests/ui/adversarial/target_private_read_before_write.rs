// Expected: compile error naming `acc`: in a target region, a `private` read before it is written carries a value
// between the iterations a device thread (or a host thread) happens to run.
#[omp::target_teams_distribute_parallel_for(private(acc))]
fn f(x: &[f64], y: &mut [f64]) {
    let mut acc: f64 = 0.0;
    for i in 0..x.len() {
        acc += x[i];
        y[i] = acc;
    }
}

fn main() {}
