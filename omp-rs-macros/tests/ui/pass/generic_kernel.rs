// A generic target region compiles for any `T: Copy + Add + Mul` the macro's added bound allows (`omp::DeviceScalar`)
// and runs on the host without device images; `triad::<i32>` too.
use std::ops::{Add, Mul};

#[omp::directives]
fn triad<T: Copy + Add<Output = T> + Mul<Output = T>>(a: &mut [T], b: &[T], c: &[T], scalar: T) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..a.len() {
        a[i] = b[i] + scalar * c[i];
    }
}

fn main() {
    let (mut a, b, c) = (vec![0.0f32; 8], vec![1.0f32; 8], vec![2.0f32; 8]);
    triad(&mut a, &b, &c, 3.0);
    assert_eq!(a, vec![7.0; 8]);
    let (mut ai, bi, ci) = (vec![0i32; 4], vec![1; 4], vec![2; 4]);
    triad(&mut ai, &bi, &ci, 3);
    assert_eq!(ai, vec![7; 4]);
}
