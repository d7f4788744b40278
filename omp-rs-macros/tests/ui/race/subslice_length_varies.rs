// Element k's subslice `f[8 * k..9 * k]` grows with k, so the subslices of two elements may overlap: its length
// must not depend on the loop variable.
fn fill(f: &mut [f64]) {
    for v in f {
        *v = 1.0;
    }
}

#[omp::directives]
fn f(n: usize, f: &mut [f64]) {
    #[omp::parallel_for]
    for k in 0..n {
        fill(&mut f[8 * k..9 * k]);
    }
}

fn main() {}
