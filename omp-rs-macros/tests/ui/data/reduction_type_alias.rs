// A C port's `#define Real float` as a Rust alias on a reduction variable: the message says the alias is not
// followed and what to declare instead.
type Real = f32;

#[omp::directives]
fn total(x: &[Real]) -> Real {
    let mut s: Real = 0.0;
    #[omp::target_teams_distribute_parallel_for(reduction(+: s))]
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

fn main() {}
