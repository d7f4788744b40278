//! What the two heat solvers share (`heat_devices.rs`, one band per device; `mpi-heat`, one band per MPI rank):
//! the initial grid, the split into bands and the sweep, included with `#[path]` by both (omp-rs-build follows
//! `#[path]` as rustc does, so the sweep's target region gets device images in both packages).

/// The initial value of global cell (row, col): hot top edge, a warm spot inside, cold elsewhere.
pub(crate) fn initial(row: usize, col: usize, nx: usize, ny: usize) -> f64 {
    if row == 0 {
        100.0
    } else if (row * 3 / ny, col * 3 / nx) == (1, 1) {
        (row * nx + col) as f64 % 17.0
    } else {
        0.0
    }
}

/// The interior rows (first global row, count) of band `b` of `bands` (as even as possible) of the interior rows
/// `1..ny - 1`.
pub(crate) fn band(ny: usize, b: usize, bands: usize) -> (usize, usize) {
    let interior = ny - 2;
    let (base, extra) = (interior / bands, interior % bands);
    (1 + b * base + b.min(extra), base + usize::from(b < extra))
}

/// One Jacobi sweep over the owned rows `1..=rows` of a band of `rows + 2` rows of `nx` cells, on device `dev`;
/// returns the largest change.
#[omp::directives]
pub(crate) fn sweep(dev: i32, nx: usize, rows: usize, u: &[f64], v: &mut [f64]) -> f64 {
    let mut resid: f64 = 0.0;
    #[omp::target_teams_distribute_parallel_for(collapse(2), reduction(max: resid), device(dev))]
    for i in 1..rows + 1 {
        for j in 1..nx - 1 {
            let new = 0.25 * (u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1]);
            resid = resid.max((new - u[i * nx + j]).abs());
            v[i * nx + j] = new;
        }
    }
    resid
}
