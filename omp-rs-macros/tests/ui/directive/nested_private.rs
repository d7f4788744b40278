// A nested loop directive runs its loop on the enclosing iteration's thread: its private copies would be one per
// enclosing iteration, not per thread of a team; the message says where to declare them instead.
#[omp::directives]
fn f(n: usize, x: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..n {
        let mut t = 0.0;
        #[omp::parallel_for(private(t))]
        for j in 0..n {
            t += j as f64;
            x[i * n + j] = t;
        }
    }
}

fn main() {}
