// `m.max(x)` turns a NaN start into a number, `if x > m { m = x }` keeps it: the parallel combination can follow
// one form, not a mix (and not `!(x <= m)`, whose NaN behaviour is a third).
#[omp::parallel_for(reduction(max: m))]
fn peak(m0: f64, x: &[f64], y: &[f64]) -> f64 {
    let mut m = m0;
    for i in 0..x.len() {
        m = m.max(y[i]);
        if x[i] > m {
            m = x[i];
        }
    }
    m
}

#[omp::parallel_for(reduction(max: m))]
fn negated(m0: f64, x: &[f64]) -> f64 {
    let mut m = m0;
    for i in 0..x.len() {
        if !(x[i] <= m) {
            m = x[i];
        }
    }
    m
}

fn main() {}
