// On the device `T` is `f64` and `a[i].max(b[i])` is `f64::max`; here it is `Combine::max`.
trait Combine: Copy {
    fn max(self, other: Self) -> Self;
}
impl Combine for f64 {
    fn max(self, other: f64) -> f64 {
        self + other
    }
}

#[omp::directives]
fn combined<T: Combine>(a: &[T], b: &[T], y: &mut [T]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        y[i] = a[i].max(b[i]);
    }
}

fn main() {
    combined(&[1.0], &[2.0], &mut [0.0]);
}
