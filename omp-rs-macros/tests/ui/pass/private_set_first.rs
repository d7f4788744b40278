// C's `int ind;` (or `int ind = 0;`) + `private(ind)` with `ind = ...;` first thing in every iteration: each
// iteration's copy holds one value set before any use, a `let` of the body, so the write index through it is the
// affine form it holds. Checked against sequential Rust on the host path.
#![deny(unused_mut, unused_assignments)]

#[omp::directives]
fn gather(nz: usize, nx: usize, x: &[f64], y: &mut [f64]) {
    let mut ind: usize = 0;
    #[omp::target_teams_distribute_parallel_for(collapse(2), private(ind))]
    for k in 0..nz {
        for i in 0..nx {
            ind = k * nx + i;
            y[ind] = 2.0 * x[ind];
        }
    }
    let mut inds: usize;
    #[omp::parallel_for(private(inds))]
    for i in 0..nz * nx {
        inds = i;
        y[inds] += 1.0;
    }
}

fn main() {
    let (nz, nx) = (7, 9);
    let x: Vec<f64> = (0..nz * nx).map(|i| i as f64).collect();
    let mut y = vec![0.0; nz * nx];
    gather(nz, nx, &x, &mut y);
    assert_eq!(y, x.iter().map(|v| 2.0 * v + 1.0).collect::<Vec<f64>>());
}
