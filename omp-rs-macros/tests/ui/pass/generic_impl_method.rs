// A target region in a method of a generic `impl`: the impl's `T` is not the method's own parameter (the macro on
// the method cannot see or bound it), so the region has no kernel and runs on the host, compiling as it did.
use std::ops::Mul;

struct Stream<T> {
    a: Vec<T>,
}

impl<T: Copy + Send + Sync + Mul<Output = T>> Stream<T> {
    #[omp::directives]
    fn square_into(&self, out: &mut [T]) {
        let a: &[T] = &self.a;
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..out.len() {
            out[i] = a[i] * a[i];
        }
    }
}

fn main() {
    let s = Stream { a: vec![3.0f64; 5] };
    let mut out = vec![0.0; 5];
    s.square_into(&mut out);
    assert_eq!(out, vec![9.0; 5]);
}
