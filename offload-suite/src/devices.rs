//! Several devices in one process (issue #11): each device has its own mappings, queue and images. The checks use
//! every device there is (libomptarget's host plugin offers four, the two-GPU machine two); with one device the
//! cross-device checks say they were skipped and why, and with none every region runs on the host.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, vec_f64, Check};

/// Every multi-device check.
pub const CHECKS: &[Check] = &[
    ("devices: one host thread per device, each a data region with a time loop over its part of one array", check_parts),
    ("devices: nowait regions on different devices, one taskwait", check_nowait_devices),
    ("devices: data mapped on one device is not present on another (error names the device)", check_not_shared),
    ("devices: an invalid device number is a Rust error naming the valid range", check_invalid_device),
    ("devices: a region on another device than its target_data block's is refused, naming both", check_region_off_block_device),
];

/// A data region on `block`, a region inside it on `region` (OpenMP leaves this undefined; here the data would be
/// copied to `region`'s device and the block's stale copy copied back over the results).
#[omp::directives]
fn cross_device(block: i32, region: i32, a: &mut [f64]) {
    #[omp::target_data(map(tofrom: a), device(block))]
    {
        #[omp::target_teams_distribute_parallel_for(device(region))]
        for i in 0..a.len() {
            a[i] += 1.0;
        }
    }
}

fn check_region_off_block_device(rng: &mut StdRng) -> Result<(), String> {
    let n_dev = omp::get_num_devices();
    let n = rng.gen_range(1..3000);
    let mut a = vec_f64(rng, n);
    let want: Vec<f64> = a.iter().map(|v| v + 1.0).collect();
    // Same device: fine.
    let last = (n_dev - 1).max(0);
    cross_device(last, last, &mut a);
    same("a", &a, &want)?;
    if n_dev < 2 {
        eprintln!("  (skipped: {n_dev} device(s); a region on another device than its block's needs two)");
        return Ok(());
    }
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cross_device(n_dev - 1, 0, &mut a)));
    match r {
        Ok(()) => Err(format!("a region on device 0 inside a block on device {} ran", n_dev - 1)),
        Err(e) => {
            let msg = panic_text(e);
            if msg.contains(&format!("lives on device {}", n_dev - 1)) && msg.contains("runs on device 0") {
                Ok(())
            } else {
                Err(format!("the message should name both devices: {msg}"))
            }
        }
    }
}

/// The devices regions can go to: `0..get_num_devices()`, or device 0 (the host then) when there is none.
fn devices() -> Vec<i32> {
    (0..omp::get_num_devices().max(1)).collect()
}

/// `steps` relaxation sweeps of `a` towards `b` on device `dev`, then the sum of `a` (a reduction on the device).
#[omp::directives]
fn relax_on(dev: i32, steps: usize, a: &mut [f64], b: &[f64]) -> f64 {
    let n = a.len();
    let mut s: f64 = 0.0;
    #[omp::target_data(map(tofrom: a), map(to: b), device(dev))]
    {
        for _ in 0..steps {
            #[omp::target_teams_distribute_parallel_for(device(dev))]
            for i in 0..n {
                a[i] = 0.5 * a[i] + b[i];
            }
        }
        #[omp::target_teams_distribute_parallel_for(device(dev), reduction(+: s))]
        for i in 0..n {
            s += a[i];
        }
    }
    s
}

fn check_parts(rng: &mut StdRng) -> Result<(), String> {
    let devs = devices();
    let n = rng.gen_range(devs.len()..20_000);
    let steps = rng.gen_range(1..30);
    let b = vec_f64(rng, n);
    let mut a = vec_f64(rng, n);
    let mut want = a.clone();
    for _ in 0..steps {
        for (w, bi) in want.iter_mut().zip(&b) {
            *w = 0.5 * *w + bi;
        }
    }
    // Uneven parts: device d gets a chunk of `part` elements, the last one the rest.
    let part = n.div_ceil(devs.len());
    let sums = std::thread::scope(|s| {
        let workers: Vec<_> =
            a.chunks_mut(part).zip(b.chunks(part)).zip(&devs).map(|((a, b), &dev)| s.spawn(move || relax_on(dev, steps, a, b))).collect();
        workers.into_iter().map(|w| w.join().map_err(|_| "a device's thread panicked".to_string())).collect::<Result<Vec<f64>, String>>()
    })?;
    same("a", &a, &want)?;
    for (k, (got, w)) in sums.iter().zip(want.chunks(part)).enumerate() {
        close(&format!("sum of part {k}"), *got, w.iter().sum(), w.len(), 3.0)?;
    }
    Ok(())
}

/// Two deferred regions, one per device, both reading `x`; the host waits for both at the taskwait.
#[omp::directives]
fn on_two_devices(d0: i32, d1: i32, x: &[f64], y: &mut [f64], z: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for(device(d0), nowait)]
    for i in 0..y.len() {
        y[i] = 2.0 * x[i];
    }
    #[omp::target_teams_distribute_parallel_for(device(d1), nowait)]
    for i in 0..z.len() {
        z[i] = x[i] + 3.0;
    }
    omp::taskwait!();
}

fn check_nowait_devices(rng: &mut StdRng) -> Result<(), String> {
    let devs = devices();
    let (d0, d1) = (devs[0], *devs.last().unwrap_or(&0));
    let n = rng.gen_range(1..50_000);
    let x = vec_f64(rng, n);
    let (mut y, mut z) = (vec![0.0; n], vec![0.0; n]);
    on_two_devices(d0, d1, &x, &mut y, &mut z);
    same("y", &y, &x.iter().map(|v| 2.0 * v).collect::<Vec<_>>())?;
    same("z", &z, &x.iter().map(|v| v + 3.0).collect::<Vec<_>>())
}

/// A region on device `dev` that requires `x` to be mapped there already.
#[omp::target_teams_distribute_parallel_for(map(present, to: x), map(tofrom: y), device(dev))]
fn present_on(dev: i32, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = x[i] - 1.0;
    }
}

fn panic_text(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

fn check_not_shared(rng: &mut StdRng) -> Result<(), String> {
    let n_dev = omp::get_num_devices();
    if n_dev < 2 {
        eprintln!("  (skipped: {n_dev} device(s); mapping on one device and using it on another needs two)");
        return Ok(());
    }
    let (on, other) = (n_dev - 1, 0);
    let n = rng.gen_range(1..5000);
    let x = vec_f64(rng, n);
    let want: Vec<f64> = x.iter().map(|v| v - 1.0).collect();
    omp::target_enter_data!(map(to: x), device(on));
    let result = (|| {
        if !omp::target_is_present(&x, on) || omp::target_is_present(&x, other) {
            return Err(format!(
                "x present on device {on}: {}, on {other}: {} (want true, false)",
                omp::target_is_present(&x, on),
                omp::target_is_present(&x, other)
            ));
        }
        let mut y = vec![0.0; x.len()];
        present_on(on, &x, &mut y);
        same("y on the mapping's device", &y, &want)?;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| present_on(other, &x, &mut y)));
        match r {
            Ok(()) => Err(format!("`present` on device {other} passed though x is mapped on device {on} only")),
            Err(e) => {
                let msg = panic_text(e);
                if msg.contains(&format!("not present on device {other}")) {
                    Ok(())
                } else {
                    Err(format!("the message should name device {other}: {msg}"))
                }
            }
        }
    })();
    omp::target_exit_data!(map(release: x), device(on));
    result?;
    if omp::target_is_present(&x, on) {
        return Err(format!("x still present on device {on} after exit data"));
    }
    Ok(())
}

fn check_invalid_device(rng: &mut StdRng) -> Result<(), String> {
    let n_dev = omp::get_num_devices();
    if n_dev == 0 {
        eprintln!("  (skipped: no device; with none, every device number means the host)");
        return Ok(());
    }
    let x = vec_f64(rng, 100);
    let mut y = vec![0.0; 100];
    let bad = n_dev + 1;
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| present_on(bad, &x, &mut y))) {
        Ok(()) => Err(format!("device({bad}) with {n_dev} device(s) ran")),
        Err(e) => {
            let msg = panic_text(e);
            if msg.contains(&bad.to_string()) && msg.contains(&n_dev.to_string()) {
                Ok(())
            } else {
                Err(format!("the message should name device {bad} and the {n_dev} devices: {msg}"))
            }
        }
    }
}
