// `c[i][j]` under `collapse(2)` with the column loop outermost: the outer variable `j` only picks the element
// inside a row, so iterations that differ in `j` write the same rows. Refused (swap the loops: the row loop
// outermost is split over threads, see the pass case `rows_under_collapse` in omp-rs/tests/adversarial.rs).
#[omp::parallel_for(collapse(2))]
fn f(x: &[f64], c: &mut [Vec<f64>]) {
    for j in 0..x.len() {
        for i in 0..c.len() {
            c[i][j] += x[j];
        }
    }
}

fn main() {}
