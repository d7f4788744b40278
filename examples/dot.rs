//! Dot product with `reduction(+: s)`: each thread (or GPU team) sums privately, the partial sums are combined
//! at the end. The result differs from the sequential sum only by rounding (summation order).

#[omp::target_teams_distribute_parallel_for(reduction(+: s))]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s: f64 = 0.0; // a captured variable's type must be visible to the device kernel
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s
}

fn dot_seq(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s
}

fn main() {
    let n = 1 << 24;
    let mut rng = omp_examples::rng();
    let x = omp_examples::random_vec(&mut rng, n, 0.0, 1.0);
    let y = omp_examples::random_vec(&mut rng, n, 0.0, 1.0);

    let got = dot(&x, &y);
    let want = dot_seq(&x, &y);
    // Reassociating n positive terms: |error| <= n·ε·Σ|xᵢyᵢ| (= n·ε·sum here).
    let tolerance = n as f64 * f64::EPSILON;
    let error = (got - want).abs() / want.abs();
    println!("dot = {got:.12e} (sequential {want:.12e})");

    let seq = omp_examples::best_time(5, || {
        std::hint::black_box(dot_seq(&x, &y));
    });
    let par = omp_examples::best_time(5, || {
        std::hint::black_box(dot(&x, &y));
    });
    omp_examples::report("dot n=2^24", error, tolerance, seq, par);
}
