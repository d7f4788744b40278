// Reductions on array elements: what cannot be written as scalar reductions, each refused with its fix.

// A section whose bounds are not literals.
#[omp::directives]
fn run_time_section(x: &[f64], s: &mut [f64], k: usize) {
    #[omp::parallel_for(reduction(+: s[..k]))]
    for i in 0..x.len() {
        s[0] += x[i];
    }
}

// The loop uses the array at an element it does not reduce.
#[omp::directives]
fn other_element(x: &[f64], s: &mut [f64]) {
    #[omp::parallel_for(reduction(+: s[0]))]
    for i in 0..x.len() {
        s[0] += x[i] * s[1];
    }
}

// A mapped array reduced by a host loop.
#[omp::directives]
fn mapped_on_the_host(x: &[f64], s: &mut [f64]) {
    #[omp::target_data(map(tofrom: s))]
    {
        #[omp::parallel_for(reduction(max: s[0]))]
        for i in 0..x.len() {
            s[0] = s[0].max(x[i]);
        }
    }
}

// An array whose element type is not declared.
#[omp::directives]
fn untyped(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    s.push(0.0);
    #[omp::parallel_for(reduction(+: s[0]))]
    for i in 0..x.len() {
        s[0] += x[i];
    }
    s[0]
}

// On a function: the statement form only.
#[omp::parallel_for(reduction(+: s[0]))]
fn on_a_fn(x: &[f64], s: &mut [f64]) {
    for i in 0..x.len() {
        s[0] += x[i];
    }
}

fn zeros() -> (f64, f64) {
    (0.0, 0.0)
}

// Fields of a tuple whose type its declaration does not show, in a target region: the kernel needs their types.
#[omp::directives]
fn untyped_tuple_in_target(x: &[f64]) -> f64 {
    let mut acc = zeros();
    #[omp::target_teams_distribute_parallel_for(reduction(+: acc.0, acc.1))]
    for i in 0..x.len() {
        acc.0 += x[i];
        acc.1 += x[i] * x[i];
    }
    acc.0 + acc.1
}

// The loop uses a field it does not reduce, and the tuple whole.
#[omp::directives]
fn other_field(x: &[f64]) -> (f64, f64) {
    let mut acc: (f64, f64) = (0.0, 0.0);
    #[omp::parallel_for(reduction(+: acc.0))]
    for i in 0..x.len() {
        acc.0 += x[i] * acc.1;
        let _whole = acc;
    }
    acc
}

fn main() {}
