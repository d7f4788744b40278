// A `macro_rules!` index in a read: the macro could assign or shadow the loop variable it is given, so the write
// that uses the variable cannot be proved disjoint; the message says to keep the variable out of the macro.
macro_rules! idx {
    ($i:expr, $j:expr, $n:expr) => {
        $i * $n + $j
    };
}

#[omp::directives]
fn f(n: usize, x: &[f64], y: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..y.len() {
        y[i] = x[idx!(i, 1, n)];
    }
}

fn main() {}
