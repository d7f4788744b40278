// Every iteration writes row 0 of `b` (`b[[0, j]]`): the flat index `0 * ncols + j` does not involve `i`.
use ndarray::Array2;

#[omp::directives]
fn f(a: &Array2<f64>, b: &mut Array2<f64>) {
    #[omp::parallel_for]
    for i in 0..a.nrows() {
        for j in 0..a.ncols() {
            b[[0, j]] = a[[i, j]];
        }
    }
}

fn main() {}
