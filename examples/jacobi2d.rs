//! Jacobi iteration for the Laplace equation on an n×n grid (the classic OpenMP offload example): the arrays stay
//! on the device for all iterations (`target_data`), each sweep is a `collapse(2)` loop, and the convergence
//! check is a `max` reduction.

#[omp::directives]
fn jacobi(n: usize, a: &mut [f64], b: &mut [f64], iters: usize) -> f64 {
    let mut resid: f64 = 0.0;
    #[omp::target_data(map(tofrom: a), map(alloc: b))]
    {
        for _ in 0..iters {
            #[omp::target_teams_distribute_parallel_for(collapse(2))]
            for i in 1..n - 1 {
                for j in 1..n - 1 {
                    b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
                }
            }
            resid = 0.0;
            #[omp::target_teams_distribute_parallel_for(collapse(2), reduction(max: resid))]
            for i in 1..n - 1 {
                for j in 1..n - 1 {
                    resid = resid.max((b[i * n + j] - a[i * n + j]).abs());
                    a[i * n + j] = b[i * n + j];
                }
            }
        }
    }
    resid
}

fn jacobi_seq(n: usize, a: &mut [f64], b: &mut [f64], iters: usize) -> f64 {
    let mut resid: f64 = 0.0;
    for _ in 0..iters {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
            }
        }
        resid = 0.0;
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                resid = resid.max((b[i * n + j] - a[i * n + j]).abs());
                a[i * n + j] = b[i * n + j];
            }
        }
    }
    resid
}

fn main() {
    let (n, iters) = (1024, 100);
    let mut rng = omp_examples::rng();
    let a0 = omp_examples::random_vec(&mut rng, n * n, 0.0, 1.0);

    let (mut a, mut b) = (a0.clone(), a0.clone());
    let resid = jacobi(n, &mut a, &mut b, iters);
    let (mut wa, mut wb) = (a0.clone(), a0.clone());
    let want = jacobi_seq(n, &mut wa, &mut wb, iters);
    println!("jacobi {n}x{n}, {iters} sweeps: residual {resid:.6e} (sequential {want:.6e})");
    let error = omp_examples::max_rel_diff(&a, &wa).max((resid - want).abs());

    let seq = omp_examples::best_time(2, || {
        let (mut a, mut b) = (a0.clone(), a0.clone());
        jacobi_seq(n, &mut a, &mut b, iters);
    });
    let par = omp_examples::best_time(2, || {
        let (mut a, mut b) = (a0.clone(), a0.clone());
        jacobi(n, &mut a, &mut b, iters);
    });
    omp_examples::report("jacobi2d", error, 0.0, seq, par);
}
