// Expected: compile error naming `best`: written inside `critical`, read outside it (in a `format!` inline argument).
#[omp::directives]
fn f(x: &[f64], y: &mut [String]) -> f64 {
    let mut best = f64::MIN;
    #[omp::parallel_for]
    for i in 0..x.len() {
        #[omp::critical]
        {
            best = best.max(x[i]);
        }
        y[i] = format!("{best}");
    }
    best
}

fn main() {}
