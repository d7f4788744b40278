//! The 2-D heat equation (Jacobi sweeps) split by rows over every offload device of one process, as multi-GPU
//! OpenMP codes do it: one host thread per band, each band's arrays on its own device (`target_enter_data!` with
//! `device(d)`), a target region per sweep on that device, and halo rows exchanged through the host between sweeps
//! (`target_update!(from/to: …, device(d))`, then a barrier). The bands' kernels run at the same time, one per GPU.
//!
//!     cargo run --release -p omp-examples --example heat_devices -- [NX NY STEPS [BANDS]]
//!
//! `BANDS` defaults to the number of devices (1 without one: the same code then runs on the CPU cores). Band `b`
//! runs on device `b % devices`. Every cell is computed by the same operations whatever the split, so any number of
//! bands gives the sequential result bit for bit; the program checks that (`HEAT_VERIFY=0` skips the sequential
//! run, for timing large grids) and prints the time of the time loop, for scaling measurements
//! (`scripts/device/multi-gpu.sh`). `examples/mpi-heat` is the same solver with one MPI rank per band.

use std::sync::{Barrier, Mutex};
use std::time::Instant;

#[path = "heat_common.rs"]
mod heat_common;
use heat_common::{band, initial, sweep};

/// Where the bands leave their edge rows for their neighbours, and the barrier that separates publishing from
/// reading.
struct Halos {
    /// `edges[2b]`: band b's first owned row; `edges[2b + 1]`: its last.
    edges: Vec<Mutex<Vec<f64>>>,
    barrier: Barrier,
}

impl Halos {
    fn new(bands: usize) -> Halos {
        Halos { edges: (0..2 * bands).map(|_| Mutex::new(Vec::new())).collect(), barrier: Barrier::new(bands) }
    }

    fn put(&self, slot: usize, row: &[f64]) {
        let mut e = self.edges[slot].lock().unwrap();
        e.clear();
        e.extend_from_slice(row);
    }

    fn get(&self, slot: usize, into: &mut [f64]) {
        into.copy_from_slice(&self.edges[slot].lock().unwrap());
    }
}

/// What one band computed: its owned rows after the last step, its last residual, and how long its time loop took.
struct BandResult {
    rows: Vec<f64>,
    resid: f64,
    seconds: f64,
}

/// Band `b`'s time loop on device `dev`. Local rows 0..rows + 2 are global rows first - 1 ..= first + rows.
#[omp::directives]
fn solve_band(dev: i32, nx: usize, ny: usize, steps: usize, b: usize, bands: usize, halos: &Halos) -> BandResult {
    let (first, rows) = band(ny, b, bands);
    let mut u: Vec<f64> = (0..(rows + 2) * nx).map(|k| initial(first - 1 + k / nx, k % nx, nx, ny)).collect();
    let mut v: Vec<f64> = u.clone();
    omp::target_enter_data!(map(to: u, v), device(dev));
    halos.barrier.wait();
    let start = Instant::now();
    let mut resid = 0.0;
    for _ in 0..steps {
        omp::target_update!(from: u[nx..2 * nx], u[rows * nx..(rows + 1) * nx], device(dev));
        halos.put(2 * b, &u[nx..2 * nx]);
        halos.put(2 * b + 1, &u[rows * nx..(rows + 1) * nx]);
        halos.barrier.wait();
        if b > 0 {
            halos.get(2 * (b - 1) + 1, &mut u[0..nx]);
        }
        if b + 1 < bands {
            halos.get(2 * (b + 1), &mut u[(rows + 1) * nx..(rows + 2) * nx]);
        }
        omp::target_update!(to: u[0..nx], u[(rows + 1) * nx..(rows + 2) * nx], device(dev));
        resid = sweep(dev, nx, rows, &u, &mut v);
        // Every band has read its neighbours' edges before any band publishes the next ones.
        halos.barrier.wait();
        std::mem::swap(&mut u, &mut v);
    }
    let seconds = start.elapsed().as_secs_f64();
    omp::target_exit_data!(map(from: u), map(release: v), device(dev));
    BandResult { rows: u[nx..(rows + 1) * nx].to_vec(), resid, seconds }
}

/// The whole grid after `steps` sweeps split into `bands` bands on `devices` devices (0: the CPU), the residual of
/// the last sweep and the slowest band's time loop in seconds.
fn solve(nx: usize, ny: usize, steps: usize, bands: usize, devices: i32) -> (Vec<f64>, f64, f64) {
    let halos = Halos::new(bands);
    let results: Vec<BandResult> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..bands)
            .map(|b| {
                let halos = &halos;
                let dev = b as i32 % devices.max(1);
                s.spawn(move || solve_band(dev, nx, ny, steps, b, bands, halos))
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a band's thread panicked")).collect()
    });
    let mut grid: Vec<f64> = (0..ny * nx).map(|k| initial(k / nx, k % nx, nx, ny)).collect();
    for (b, r) in results.iter().enumerate() {
        let (first, rows) = band(ny, b, bands);
        grid[first * nx..(first + rows) * nx].copy_from_slice(&r.rows);
    }
    let resid = results.iter().map(|r| r.resid).fold(0.0, f64::max);
    let seconds = results.iter().map(|r| r.seconds).fold(0.0, f64::max);
    (grid, resid, seconds)
}

/// The sequential reference: the whole grid swept `steps` times.
fn solve_seq(nx: usize, ny: usize, steps: usize) -> (Vec<f64>, f64) {
    let mut u: Vec<f64> = (0..ny * nx).map(|k| initial(k / nx, k % nx, nx, ny)).collect();
    let mut v = u.clone();
    let mut resid = 0.0;
    for _ in 0..steps {
        resid = 0.0f64;
        for i in 1..ny - 1 {
            for j in 1..nx - 1 {
                let new = 0.25 * (u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1]);
                resid = resid.max((new - u[i * nx + j]).abs());
                v[i * nx + j] = new;
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    (u, resid)
}

/// Offload devices this process can use. A data mapping registers the crate's device images first (a clang program
/// does that before `main`; omp-rs on first use), after which `omp::get_num_devices` counts the devices they fit.
#[omp::directives]
fn device_count() -> i32 {
    let probe = [0.0f64];
    #[omp::target_data(map(to: probe))]
    {}
    omp::get_num_devices()
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (nx, ny, steps) = (*args.first().unwrap_or(&96), *args.get(1).unwrap_or(&80), *args.get(2).unwrap_or(&200));
    let devices = device_count();
    let bands = *args.get(3).unwrap_or(&(devices.max(1) as usize));
    assert!(nx >= 3 && ny >= 2 + bands && bands >= 1, "need nx >= 3 and at least one interior row per band");
    let (grid, resid, seconds) = solve(nx, ny, steps, bands, devices);
    // Summed in one fixed order, so the printed bits depend on the values only.
    let checksum: f64 = grid.iter().sum();
    println!(
        "heat_devices {nx}x{ny}, {steps} steps, {bands} band(s) on {} device(s): residual {resid:e} checksum \
         {checksum:e} bits {:016x}; time loop {seconds:.4} s ({:.1} us/step)",
        devices.min(bands as i32),
        checksum.to_bits(),
        seconds * 1e6 / steps.max(1) as f64
    );
    if std::env::var("HEAT_VERIFY").is_ok_and(|v| v == "0") {
        return;
    }
    let (want, want_resid) = solve_seq(nx, ny, steps);
    let same = grid.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()) && resid.to_bits() == want_resid.to_bits();
    println!("verification: {}", if same { "PASSED" } else { "FAILED" });
    if !same {
        std::process::exit(1);
    }
}
