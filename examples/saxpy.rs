//! y = a·x + y on 2^24 doubles: the "hello world" of offloading. On a GPU build the function runs on the device
//! (`&` is copied there, `&mut` there and back); otherwise on every CPU core.

#[omp::target_teams_distribute_parallel_for]
fn saxpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
}

fn saxpy_seq(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
}

fn main() {
    let n = 1 << 24;
    let mut rng = omp_examples::rng();
    let x = omp_examples::random_vec(&mut rng, n, -1.0, 1.0);
    let y0 = omp_examples::random_vec(&mut rng, n, -1.0, 1.0);
    let a = 2.5;

    let mut y = y0.clone();
    saxpy(a, &x, &mut y);
    let mut want = y0.clone();
    saxpy_seq(a, &x, &mut want);
    let error = omp_examples::max_rel_diff(&y, &want);

    let mut scratch = y0.clone();
    let seq = omp_examples::best_time(5, || saxpy_seq(a, &x, &mut scratch));
    let par = omp_examples::best_time(5, || saxpy(a, &x, &mut scratch));
    omp_examples::report("saxpy n=2^24", error, 0.0, seq, par);
}
