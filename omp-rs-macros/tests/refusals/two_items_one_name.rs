// The region's `OFFSET` is this module's, the helper's its own module's: the kernel holds one scope, so one of them
// would be the other.
mod home {
    pub const OFFSET: f64 = 7.0;
    pub fn shifted(v: f64) -> f64 {
        v + OFFSET
    }
}

use home::shifted;
const OFFSET: f64 = -3.0;

#[omp::target_teams_distribute_parallel_for]
fn shift(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = shifted(x[i]) + OFFSET;
    }
}

fn main() {
    shift(&[1.0], &mut [0.0]);
}
