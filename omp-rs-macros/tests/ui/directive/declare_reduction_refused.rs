// `#[omp::declare_reduction]`: what does not declare a reduction, and uses of one that are refused, each with its fix.

#[derive(Clone, Copy)]
struct Pair {
    val: f64,
    idx: i64,
}

// No identity.
#[omp::declare_reduction]
fn no_identity(a: Pair, b: Pair) -> Pair {
    if b.val < a.val { b } else { a }
}

// Another key than `identity`.
#[omp::declare_reduction(init = Pair { val: 0.0, idx: -1 })]
fn wrong_key(a: Pair, b: Pair) -> Pair {
    if b.val < a.val { b } else { a }
}

// Three operands.
#[omp::declare_reduction(identity = 0.0)]
fn three(a: f64, b: f64, c: f64) -> f64 {
    a + b + c
}

// Operands of two types.
#[omp::declare_reduction(identity = 0.0)]
fn mixed(a: f64, b: f32) -> f64 {
    a + b as f64
}

// Generic.
#[omp::declare_reduction(identity = T::default())]
fn generic<T: std::ops::Add<Output = T> + Default>(a: T, b: T) -> T {
    a + b
}

// Not a fn.
#[omp::declare_reduction(identity = 0)]
struct NotAFn;

#[omp::declare_reduction(identity = Pair { val: f64::INFINITY, idx: -1 })]
fn minloc(a: Pair, b: Pair) -> Pair {
    if b.val < a.val { b } else { a }
}

// A user-defined reduction on an array element.
#[omp::directives]
fn on_an_element(x: &[f64], best: &mut [Pair]) {
    #[omp::parallel_for(reduction(minloc: best[0]))]
    for i in 0..x.len() {
        best[0] = minloc(best[0], Pair { val: x[i], idx: i as i64 });
    }
}

// An atomic update of the private copy.
#[omp::directives]
fn atomic_on_the_copy(x: &[f64]) -> Pair {
    let mut best = Pair { val: f64::INFINITY, idx: -1 };
    #[omp::parallel_for(reduction(minloc: best))]
    for i in 0..x.len() {
        #[omp::atomic]
        best.val += x[i];
    }
    best
}

// A path instead of the reduction's name.
#[omp::directives]
fn by_path(x: &[f64]) -> Pair {
    let mut best = Pair { val: f64::INFINITY, idx: -1 };
    #[omp::parallel_for(reduction(self::minloc: best))]
    for i in 0..x.len() {
        best = minloc(best, Pair { val: x[i], idx: i as i64 });
    }
    best
}

fn main() {}
