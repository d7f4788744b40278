//! What the two heat solvers share (`heat_devices.rs`, one band per device; `mpi-heat`, one band per MPI rank):
//! the initial grid and the split into bands. Plain functions, included with `#[path]` by both. The sweep stays in
//! each solver: it is a target region, and the build of `mpi-heat` (its own package) outlines regions from its own
//! files only, so a region here would get no device image there.

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
