// Expected: compile error at the clause's `unsafe`: the escape hatch is unsafe code, so a crate that forbids unsafe
// code cannot use it (the expansion's unsafe block carries the user's keyword).
#![forbid(unsafe_code)]

#[omp::parallel_for(unsafe(disjoint(u)))]
fn halo(n: usize, u: &mut [f64]) {
    for r in 0..4 {
        u[r * (n + 2)] = u[r * (n + 2) + n];
    }
}

fn main() {}
