//! Host-device copy bandwidth of the data constructs, as the macros generate them (through libomptarget):
//! `target_enter_data!(map(to: a))` of a new mapping (host to device), `target_update!(from: a)` (device to host) and
//! `target_update!(to: a)` (host to device) of pageable `Vec<f64>` memory, then the same of an `omp::HostPinned`
//! vector (page-locked), `TRANSFER_GIB` GiB (default 4), best of `TRANSFER_REPS` (default 3). The CUDA side of the same table is `bench/cuda/transfers.cu` (pageable, pinned and
//! registered `cudaMemcpy`); `scripts/device/transfers.sh` runs both.
//!
//! Prints Markdown rows; every copy is checked (the device copy is doubled by a target region and read back).

use std::time::Instant;

fn gbs(bytes: usize, t: f64) -> f64 {
    bytes as f64 / t / 1e9
}

/// Double every element on the device, so that a copy back shows the data went there and back.
#[omp::target_teams_distribute_parallel_for]
fn double(a: &mut [f64]) {
    for i in 0..a.len() {
        a[i] *= 2.0;
    }
}

#[omp::directives]
fn enter(a: &[f64]) -> f64 {
    let t = Instant::now();
    omp::target_enter_data!(map(to: a));
    t.elapsed().as_secs_f64()
}

#[omp::directives]
fn update_from(a: &mut [f64]) -> f64 {
    let t = Instant::now();
    omp::target_update!(from: a);
    t.elapsed().as_secs_f64()
}

#[omp::directives]
fn update_to(a: &[f64]) -> f64 {
    let t = Instant::now();
    omp::target_update!(to: a);
    t.elapsed().as_secs_f64()
}

#[omp::directives]
fn release(a: &[f64]) {
    omp::target_exit_data!(map(release: a));
}

/// Best-of-`reps` seconds of (new mapping, update to, update from), checking that each round trip doubled `a`.
fn copies(a: &mut [f64], reps: usize) -> (f64, f64, f64) {
    let (mut h2d_new, mut h2d, mut d2h) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..reps {
        h2d_new = h2d_new.min(enter(a));
        h2d = h2d.min(update_to(a));
        double(a);
        d2h = d2h.min(update_from(a));
        release(a);
        assert!(a.iter().enumerate().all(|(i, v)| *v == (i % 1024) as f64 * 2.0), "the device copy did not come back doubled");
        a.iter_mut().for_each(|v| *v *= 0.5);
    }
    (h2d_new, h2d, d2h)
}

fn main() {
    let gib: f64 = std::env::var("TRANSFER_GIB").ok().and_then(|s| s.parse().ok()).unwrap_or(4.0);
    let reps: usize = std::env::var("TRANSFER_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let n = (gib * (1u64 << 30) as f64) as usize / 8;
    let bytes = n * 8;
    // Pageable and touched (every page present), as a port's arrays are.
    let mut a: Vec<f64> = (0..n).map(|i| (i % 1024) as f64).collect();
    let (h2d_new, h2d, d2h) = copies(&mut a, reps);
    let t = Instant::now();
    let mut pinned = omp::HostPinned::new(a);
    let t_register = t.elapsed().as_secs_f64();
    let registered = pinned.is_registered();
    let (p_new, p_h2d, p_d2h) = copies(&mut pinned, reps);
    println!("| omp-rs copy of {gib} GiB (best of {reps}) | GB/s |");
    println!("|---|---:|");
    println!("| H2D pageable, `target_enter_data!(map(to:))` of a new mapping | {:.1} |", gbs(bytes, h2d_new));
    println!("| H2D pageable, `target_update!(to:)` | {:.1} |", gbs(bytes, h2d));
    println!("| D2H pageable, `target_update!(from:)` | {:.1} |", gbs(bytes, d2h));
    println!("| `omp::HostPinned::new` (registered: {registered}) | {t_register:.3} s |");
    println!("| H2D HostPinned, `target_enter_data!(map(to:))` of a new mapping | {:.1} |", gbs(bytes, p_new));
    println!("| H2D HostPinned, `target_update!(to:)` | {:.1} |", gbs(bytes, p_h2d));
    println!("| D2H HostPinned, `target_update!(from:)` | {:.1} |", gbs(bytes, p_d2h));
}
