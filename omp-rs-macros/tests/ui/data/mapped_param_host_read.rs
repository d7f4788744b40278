// A function of the caller's mapped variable may use it in target regions, not read it on the host.
#[omp::directives]
fn step(u: &mut omp::MappedMut<'_, '_, f64>) -> f64 {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..u.len() {
        u[i] += 1.0;
    }
    u[0]
}

fn main() {}
