// A struct without `#[omp::declare_target]` is not known to be plain data: it cannot be copied to the device as a
// whole (its fields can: `p.dt` alone would be an `f64` argument).
#[derive(Clone, Copy)]
struct Params {
    dt: f64,
}

#[omp::target_teams_distribute_parallel_for]
fn f(p: Params, y: &mut [f64]) {
    for i in 0..y.len() {
        let q = p;
        y[i] += q.dt;
    }
}

fn main() {}
