//! Jacobi iteration of the 2-D heat equation, split by rows over MPI ranks, as MPI + OpenMP codes run: each rank
//! owns a band of rows plus one ghost row on each side, keeps them on its device (`target_enter_data!`; device
//! `rank % num_devices`, or its CPU cores when there is none), sweeps them with a target region, and exchanges
//! halo rows with its neighbours each step: `target_update!(from: …)` of its edge rows, `MPI_Sendrecv`, then
//! `target_update!(to: …)` of its ghost rows. The residual is an `MPI_Allreduce(max)`; rank 0 gathers the grid.
//!
//! Every cell's value is computed by the same operations in the same order whatever the split, and the residual is
//! a maximum, so N ranks give the single-rank result bit for bit (checked by `examples/tests/mpi.rs`).
//!
//!     cargo build --manifest-path examples/mpi-heat/Cargo.toml
//!     mpirun -n 2 examples/mpi-heat/target/debug/omp-mpi-heat [NX NY STEPS]
//!
//! GPU-aware MPI (device buffers passed to MPI directly) would skip the two updates per step; Debian's Open MPI is
//! not built with CUDA support, so this example stages the halos through the host.

use mpi::collective::SystemOperation;
use mpi::point_to_point as p2p;
use mpi::traits::*;

/// Offload devices this process can use. A data region registers the crate's device images first (a clang program
/// does that before `main`; omp-rs on first use), after which `omp::get_num_devices` counts the devices they fit.
#[omp::directives]
fn device_count() -> i32 {
    let probe = [0.0f64];
    #[omp::target_data(map(to: probe))]
    {}
    omp::get_num_devices()
}

#[path = "../../heat_common.rs"]
mod heat_common;
use heat_common::{band, initial, sweep};

/// Returns the residual of the last sweep, rank 0's time loop in seconds and, on rank 0, the whole grid.
#[omp::directives]
fn run(nx: usize, ny: usize, steps: usize, world: &mpi::topology::SimpleCommunicator) -> (f64, f64, Option<Vec<f64>>) {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let (first, rows) = band(ny, rank, size);
    // Local rows 0..rows + 2 are global rows first - 1 ..= first + rows.
    let mut u: Vec<f64> = (0..(rows + 2) * nx).map(|k| initial(first - 1 + k / nx, k % nx, nx, ny)).collect();
    let mut v: Vec<f64> = u.clone();
    let (up, down) = (rank.checked_sub(1), (rank + 1 < size).then_some(rank + 1));
    let (top, bottom) = (nx..2 * nx, rows * nx..(rows + 1) * nx);
    let (ghost_top, ghost_bottom) = (0..nx, (rows + 1) * nx..(rows + 2) * nx);
    omp::target_enter_data!(map(to: u, v));
    world.barrier();
    let start = std::time::Instant::now();
    let mut resid = 0.0;
    for _ in 0..steps {
        // Halos: edge rows to the host, exchanged, ghost rows back to the device.
        omp::target_update!(from: u[nx..2 * nx], u[rows * nx..(rows + 1) * nx]);
        let (send_top, send_bottom) = (u[top.clone()].to_vec(), u[bottom.clone()].to_vec());
        if let Some(up) = up {
            let p = world.process_at_rank(up as i32);
            p2p::send_receive_into(&send_top[..], &p, &mut u[ghost_top.clone()], &p);
        }
        if let Some(down) = down {
            let p = world.process_at_rank(down as i32);
            p2p::send_receive_into(&send_bottom[..], &p, &mut u[ghost_bottom.clone()], &p);
        }
        omp::target_update!(to: u[0..nx], u[(rows + 1) * nx..(rows + 2) * nx]);
        let local = sweep(omp::get_default_device(), nx, rows, &u, &mut v);
        world.all_reduce_into(&local, &mut resid, SystemOperation::max());
        std::mem::swap(&mut u, &mut v);
    }
    let seconds = start.elapsed().as_secs_f64();
    omp::target_exit_data!(map(from: u), map(release: v));
    // Rank 0 assembles the owned rows of every rank.
    let owned = &u[nx..(rows + 1) * nx];
    if rank == 0 {
        let mut grid: Vec<f64> = (0..ny * nx).map(|k| initial(k / nx, k % nx, nx, ny)).collect();
        grid[first * nx..(first + rows) * nx].copy_from_slice(owned);
        for r in 1..size {
            let (f, n) = band(ny, r, size);
            world.process_at_rank(r as i32).receive_into(&mut grid[f * nx..(f + n) * nx]);
        }
        (resid, seconds, Some(grid))
    } else {
        world.process_at_rank(0).send(owned);
        (resid, seconds, None)
    }
}

fn main() {
    let universe = mpi::initialize().expect("MPI initialises once");
    let world = universe.world();
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (nx, ny, steps) = (*args.first().unwrap_or(&96), *args.get(1).unwrap_or(&80), *args.get(2).unwrap_or(&200));
    assert!(ny - 2 >= world.size() as usize, "at least one interior row per rank");
    let devices = device_count();
    if devices > 0 {
        omp::set_default_device(world.rank() % devices);
    }
    let (resid, seconds, grid) = run(nx, ny, steps, &world);
    if let Some(grid) = grid {
        // Summed in one fixed order on rank 0, so the printed bits depend on the values only.
        let checksum: f64 = grid.iter().sum();
        println!(
            "mpi-heat {nx}x{ny}, {steps} steps, {} rank(s), {devices} device(s): residual {resid:e} checksum {checksum:e} bits {:016x}; time loop {seconds:.4} s",
            world.size(),
            checksum.to_bits()
        );
    }
}
