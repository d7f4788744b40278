// Expected: compile errors: the clause covers `u`'s elements; `u.iter()` uses the variable as a whole, and
// `unsafe(shared(u))` is not the escape hatch's spelling.
#[omp::directives]
fn f(u: &mut [f64], v: &mut [f64]) {
    #[omp::parallel_for(unsafe(disjoint(u)))]
    for i in 0..4 {
        u[i] = u.iter().sum();
    }
    #[omp::parallel_for(unsafe(shared(v)))]
    for i in 0..4 {
        v[i] = 1.0;
    }
}

fn main() {}
