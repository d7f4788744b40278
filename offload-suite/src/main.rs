//! Runs every check of the suite and prints one line each; exit status 1 when any fails.
//! `OMP_SUITE_SEED` repeats a run; `OMP_TARGET_OFFLOAD=MANDATORY` makes sure nothing silently ran on the host.

use std::time::Instant;

fn main() {
    // The child process of the device-print check: run its region and exit (its stdout is the check's input).
    if let Ok(n) = std::env::var(omp_offload_suite::porting::PRINT_PROBE) {
        omp_offload_suite::porting::print_probe(n.parse().unwrap_or(0));
        return;
    }
    let seed: u64 = std::env::var("OMP_SUITE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    // Before any region: the devices started before `main` (their images registered) unless told otherwise.
    let at_start = omp::get_num_devices();
    println!("offload-suite: seed {seed}, OMP_TARGET_OFFLOAD={}", std::env::var("OMP_TARGET_OFFLOAD").unwrap_or_default());
    println!("devices at start: {at_start}");
    let filter = std::env::args().nth(1).unwrap_or_default();
    let mut rng = omp_offload_suite::rng(seed);
    let (mut passed, mut failed) = (0, 0);
    // Panics of the device-panic check are expected; keep their default report quiet.
    std::panic::set_hook(Box::new(|_| {}));
    for (name, check) in omp_offload_suite::checks() {
        if !name.contains(filter.as_str()) {
            continue;
        }
        let t = Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&mut rng)));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match r {
            Ok(Ok(())) => {
                passed += 1;
                println!("PASS  {name} ({ms:.1} ms)");
            }
            Ok(Err(e)) => {
                failed += 1;
                println!("FAIL  {name}: {e}");
            }
            Err(p) => {
                failed += 1;
                let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                println!("FAIL  {name}: panicked: {}", msg.unwrap_or_default());
            }
        }
    }
    println!("{passed} passed, {failed} failed (devices: {})", omp::get_num_devices());
    if failed > 0 {
        std::process::exit(1);
    }
}
