// A reduction clause naming an operator no `#[omp::declare_reduction]` declares: rustc's error at the clause's name.

#[omp::directives]
fn misspelt(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[omp::parallel_for(reduction(sum: s))]
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

#[derive(Clone, Copy)]
struct Pair {
    val: f64,
}

#[omp::declare_reduction(identity = Pair { val: 0.0 })]
fn pair_sum(a: Pair, b: Pair) -> Pair {
    Pair { val: a.val + b.val }
}

// A reducer of another type.
#[omp::directives]
fn wrong_type(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[omp::parallel_for(reduction(pair_sum: s))]
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

fn main() {}
