// Expected: compile error naming `ok`: `ok = ok || ..` under `reduction(&&: ok)`.
#[omp::parallel_for(reduction(&&: ok))]
fn any_positive(x: &[f64]) -> bool {
    let mut ok = false;
    for i in 0..x.len() {
        ok = ok || x[i] > 0.0;
    }
    ok
}

fn main() {}
