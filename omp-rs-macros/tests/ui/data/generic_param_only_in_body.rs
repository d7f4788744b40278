// The kernel is compiled once per instance of the type parameters its values are typed with (`f32`, `f64`): a
// parameter that only the body names has no instance.
#[omp::directives]
fn fill<T: Default + Into<f64>>(y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        y[i] = T::default().into();
    }
}

fn main() {}
