// Expected: compile error about `?`: it would return from the function in the middle of the parallel loop.
#[omp::parallel_for]
fn f(s: &[String], y: &mut [f64]) -> Result<(), std::num::ParseFloatError> {
    for i in 0..y.len() {
        y[i] = s[i].parse::<f64>()?;
    }
    Ok(())
}

fn main() {}
