// `map(to: y)` copies `y` to the device and never back: the region's writes would be lost on a GPU and kept on the
// host (one program, two results), as a `target_data` block refuses too.
#[omp::target_teams_distribute_parallel_for(map(to: y))]
fn scale(a: f64, y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] *= a;
    }
}

fn main() {}
