//! Launch costs and bandwidth of target regions, as the macros generate them (through libomptarget and liboffload):
//! - a minimal target region whose data is resident (inside `target_data`): without `nowait`, a host clock around
//!   each region (OpenMP: the region has finished when it ends, so this is launch + wait, as BabelStream times its
//!   kernels); with `nowait`, launches queued back to back (one `taskwait` at the end);
//! - saxpy on 2^26 f64 resident, a host clock around each region: implicit mapping (the region maps `x`, `y`, found
//!   present) versus explicit staging (`omp::DeviceBuffer` + `is_device_ptr`: raw device pointers, no present-table
//!   lookups); BabelStream's triad on 2^25 f64 timed the same way (`OFFLOAD_BENCH_BABEL_N`);
//! - per-launch cost of `nowait` launches through the runtime (`omp::__private::offload::scope`) of the minimal
//!   region's kernel, when `OFFLOAD_BENCH_IMAGE=KIND:ARCH:PATH` and `OFFLOAD_BENCH_KERNEL=NAME` name its image file
//!   and kernel (the macros do not expose their image set; the runtime deduplicates the registration).
//! - two independent `nowait` regions of one small team each on resident data, against one of them: whether the
//!   device runs them side by side (`OMP_RS_LANES=1` keeps them in order, for the A/B).
//! Prints a Markdown table. `OFFLOAD_BENCH_N` (default 2^26) and `OFFLOAD_BENCH_REPS` (default 40) set the size;
//! `OMP_RS_LAUNCH=queued|wait|sync` picks the launch path (see `omp::offload`), for A/B runs; `OFFLOAD_BENCH_TRIAD_N`
//! (default 1e6) the size of the triad rep loop.

use std::time::Instant;

/// A host clock around each minimal region without `nowait`: it has finished when it ends.
#[omp::directives]
fn minimal_resident(reps: usize, y: &mut [f64], times: &mut Vec<f64>) {
    #[omp::target_data(map(tofrom: y))]
    {
        for _ in 0..reps {
            let t = Instant::now();
            #[omp::target_teams_distribute_parallel_for]
            for i in 0..1 {
                y[i] += 1.0;
            }
            times.push(t.elapsed().as_secs_f64());
        }
    }
}

#[omp::directives]
fn saxpy_resident(reps: usize, a: f64, x: &[f64], y: &mut [f64], times: &mut Vec<f64>) {
    #[omp::target_data(map(to: x), map(tofrom: y))]
    {
        for _ in 0..reps {
            let t = Instant::now();
            #[omp::target_teams_distribute_parallel_for]
            for i in 0..y.len() {
                y[i] += a * x[i];
            }
            times.push(t.elapsed().as_secs_f64());
        }
    }
}

/// `reps` minimal `nowait` regions on data a data region holds, one `taskwait` at the end: per region.
#[omp::directives]
fn nowait_resident(reps: usize, y: &mut [f64]) -> f64 {
    let per_region;
    #[omp::target_data(map(tofrom: y))]
    {
        let t = Instant::now();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..1 {
                y[i] += 1.0;
            }
        }
        omp::taskwait!();
        per_region = t.elapsed().as_secs_f64() / reps as f64;
    }
    per_region
}

/// BabelStream's triad (`a = b + scalar * c`) with a host clock around each region, as BabelStream's OpenMP
/// version times it: the region has finished when it ends.
#[omp::directives]
fn babel_triad(reps: usize, scalar: f64, a: &mut [f64], b: &[f64], c: &[f64], times: &mut Vec<f64>) {
    #[omp::target_data(map(tofrom: a), map(to: b, c))]
    {
        for _ in 0..reps {
            let t = Instant::now();
            #[omp::target_teams_distribute_parallel_for]
            for i in 0..a.len() {
                a[i] = b[i] + scalar * c[i];
            }
            times.push(t.elapsed().as_secs_f64());
        }
    }
}

/// RAJAPerf's Stream_TRIAD rep loop at its default size (1e6: the arrays fit in an H200's L2), `nowait` regions.
/// Returns the time of the launches alone and of the whole loop (waiting at the end), per rep.
#[omp::directives]
fn triad_reps(reps: usize, alpha: f64, a: &mut [f64], b: &[f64], c: &[f64]) -> (f64, f64) {
    let (launches, total);
    #[omp::target_data(map(tofrom: a), map(to: b, c))]
    {
        let t = Instant::now();
        for _ in 0..reps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..a.len() {
                a[i] = b[i] + alpha * c[i];
            }
        }
        launches = t.elapsed().as_secs_f64() / reps as f64;
        omp::offload::taskwait().unwrap_or_else(|e| panic!("{e}"));
        total = t.elapsed().as_secs_f64() / reps as f64;
    }
    (launches, total)
}

/// One or two `nowait` regions of one team of 64 threads, each iteration `steps` dependent multiply-adds, on
/// different resident arrays, then a `taskwait`: the elapsed time.
#[omp::directives]
fn small_regions(steps: usize, both: bool, x: &mut [f64], y: &mut [f64]) -> f64 {
    let elapsed;
    #[omp::target_data(map(tofrom: x, y))]
    {
        let t = Instant::now();
        #[omp::target_teams_distribute_parallel_for(nowait, num_teams(1), thread_limit(64))]
        for i in 0..x.len() {
            let mut v = x[i];
            for _ in 0..steps {
                v = v * 0.999 + 0.001;
            }
            x[i] = v;
        }
        if both {
            #[omp::target_teams_distribute_parallel_for(nowait, num_teams(1), thread_limit(64))]
            for i in 0..y.len() {
                let mut v = y[i];
                for _ in 0..steps {
                    v = v * 0.999 + 0.001;
                }
                y[i] = v;
            }
        }
        omp::taskwait!();
        elapsed = t.elapsed().as_secs_f64();
    }
    elapsed
}

#[omp::target_teams_distribute_parallel_for(is_device_ptr(x, y))]
fn saxpy_device(n: usize, a: f64, x: &omp::DeviceBuffer<f64>, y: &mut omp::DeviceBuffer<f64>) {
    for i in 0..n {
        y[i] += a * x[i];
    }
}

/// Per-launch time of `launches` back-to-back `nowait` launches of the minimal region's kernel (slots: y as
/// (base, len), one loop dimension), and of the same launches waited for one by one.
fn nowait_cost(launches: usize) -> Option<(f64, f64)> {
    use omp::__private::offload as off;
    let spec = std::env::var("OFFLOAD_BENCH_IMAGE").ok()?;
    let kernel = std::env::var("OFFLOAD_BENCH_KERNEL").ok()?;
    let mut parts = spec.splitn(3, ':');
    let (kind, arch, path) = (parts.next()?, parts.next()?, parts.next()?);
    let kind = match kind {
        "cubin" => off::ImageKind::Cubin,
        "amd" => off::ImageKind::AmdCodeObject,
        _ => off::ImageKind::HostSo,
    };
    let bytes = std::fs::read(path).ok()?;
    let set = off::ImageSet::leak(vec![(kind, arch.to_string(), bytes)], vec![kernel.clone()], vec![]);
    let k: &'static off::KernelRef = Box::leak(Box::new(off::KernelRef::new(set, Box::leak(kernel.into_boxed_str()))));
    let dev = match off::should_offload(k, None, true) {
        Ok(off::Decision::Offload(d)) => d,
        other => panic!("nowait benchmark cannot offload: {other:?}"),
    };
    let y = omp::DeviceBuffer::<f64>::from_slice(&[0.0; 16], None).unwrap_or_else(|e| panic!("{e}"));
    let geometry = off::Geometry::for_iterations(1);
    let pack = || off::ArgPack::new().device_buffer(&y).dim(0, 1, 1);
    let t = Instant::now();
    off::scope(|s| {
        for _ in 0..launches {
            let _ = s.launch_nowait(k, dev, pack(), geometry);
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let t_nowait = t.elapsed().as_secs_f64() / launches as f64;
    let t = Instant::now();
    for _ in 0..launches {
        off::launch(k, dev, pack(), geometry).unwrap_or_else(|e| panic!("{e}"));
    }
    let t_sync = t.elapsed().as_secs_f64() / launches as f64;
    Some((t_nowait, t_sync))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let n: usize = std::env::var("OFFLOAD_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(1 << 26);
    let reps: usize = std::env::var("OFFLOAD_BENCH_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let x: Vec<f64> = (0..n).map(|i| (i % 1000) as f64 * 1e-3).collect();
    let mut y = vec![1.0; n];

    let mut t_min = Vec::new();
    let mut tiny = vec![0.0; 16];
    minimal_resident(2000, &mut tiny, &mut t_min);
    let first_launch = t_min[0];
    let t_min = median(&mut t_min[1..]);
    // `nowait`: 20000 launches back to back, one taskwait.
    let launches = 20_000;
    let t_nowait_regions = nowait_resident(launches, &mut tiny);
    assert_eq!(tiny[0], (2000 + launches) as f64, "every region must add 1");

    let mut t_imp = Vec::new();
    saxpy_resident(reps + 1, 2.0, &x, &mut y, &mut t_imp);
    let t_imp = median(&mut t_imp[1..]);

    let dx = omp::DeviceBuffer::from_slice(&x, None).unwrap_or_else(|e| panic!("{e}"));
    let mut dy = omp::DeviceBuffer::from_slice(&y, None).unwrap_or_else(|e| panic!("{e}"));
    let mut t_exp = Vec::new();
    for _ in 0..reps + 1 {
        let t = Instant::now();
        saxpy_device(n, 2.0, &dx, &mut dy);
        omp::offload::taskwait().unwrap_or_else(|e| panic!("{e}"));
        t_exp.push(t.elapsed().as_secs_f64());
    }
    let t_exp = median(&mut t_exp[1..]);
    let check = dy.to_vec().unwrap_or_else(|e| panic!("{e}"));
    let want_last = y[n - 1] + (reps + 1) as f64 * 2.0 * x[n - 1];
    assert!((check[n - 1] - want_last).abs() <= 1e-9 * want_last.abs(), "explicit saxpy result {} vs {want_last}", check[n - 1]);

    let bn: usize = std::env::var("OFFLOAD_BENCH_BABEL_N").ok().and_then(|s| s.parse().ok()).unwrap_or(1 << 25);
    let (mut ba, bb, bc) = (vec![0.1; bn], vec![0.2; bn], vec![0.0; bn]);
    let mut t_babel = Vec::new();
    babel_triad(reps + 1, 0.4, &mut ba, &bb, &bc, &mut t_babel);
    let t_babel = median(&mut t_babel[1..]);
    assert_eq!(ba[bn - 1], 0.2, "babel triad result");

    let tn: usize = std::env::var("OFFLOAD_BENCH_TRIAD_N").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let (ta, tb, tc) = (vec![0.0; tn], vec![1.0; tn], vec![2.0; tn]);
    let mut ta = ta;
    triad_reps(100, 0.5, &mut ta, &tb, &tc);
    let (triad_launch, triad_rep) = triad_reps(2000, 0.5, &mut ta, &tb, &tc);
    assert_eq!(ta[0], 2.0, "triad result");

    // Overlap of independent regions: medians of 5 after a warm-up, one region against two.
    let steps: usize = std::env::var("OFFLOAD_BENCH_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let (x0, y0): (Vec<f64>, Vec<f64>) = ((0..64).map(|i| i as f64).collect(), (0..64).map(|i| -(i as f64)).collect());
    let (mut ox, mut oy) = (x0.clone(), y0.clone());
    small_regions(steps, true, &mut ox, &mut oy);
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        one.push(small_regions(steps, false, &mut ox.clone(), &mut oy.clone()));
        two.push(small_regions(steps, true, &mut ox.clone(), &mut oy.clone()));
    }
    let (t_one, t_two) = (median(&mut one), median(&mut two));
    let iterate = |v0: f64| (0..steps).fold(v0, |v, _| v * 0.999 + 0.001);
    assert!(ox.iter().zip(&x0).all(|(v, v0)| *v == iterate(*v0)), "nowait region on x: wrong result");
    assert!(oy.iter().zip(&y0).all(|(v, v0)| *v == iterate(*v0)), "nowait region on y: wrong result");

    let gbs = |t: f64| 24.0 * n as f64 / t / 1e9;
    println!("| measurement | value |");
    println!("|---|---|");
    println!("| devices | {} |", omp::get_num_devices());
    println!("| launch path (OMP_RS_LAUNCH) | {} |", std::env::var("OMP_RS_LAUNCH").unwrap_or_else(|_| "openmp (default)".into()));
    println!("| first launch of a region (image load + mapping) | {:.1} µs |", first_launch * 1e6);
    println!("| minimal target region, data resident, host clock around it (launch + wait; median of 2000) | {:.2} µs |", t_min * 1e6);
    println!(
        "| minimal `nowait` region, data resident, back to back (mean of {launches}, one taskwait) | {:.2} µs |",
        t_nowait_regions * 1e6
    );
    println!(
        "| triad n={tn} in target_data, `nowait` back to back (mean of 2000 reps, one wait) | {:.2} µs per rep (launches alone {:.2} µs) |",
        triad_rep * 1e6,
        triad_launch * 1e6
    );
    println!(
        "| BabelStream triad n={bn}, host clock around each region (median of {reps}) | {:.1} µs = {:.0} GB/s |",
        t_babel * 1e6,
        24.0 * bn as f64 / t_babel / 1e9
    );
    println!("| saxpy n={n}, implicit mapping inside target_data (median of {reps}) | {:.1} µs = {:.0} GB/s |", t_imp * 1e6, gbs(t_imp));
    println!("| saxpy n={n}, explicit staging (DeviceBuffer + is_device_ptr) | {:.1} µs = {:.0} GB/s |", t_exp * 1e6, gbs(t_exp));
    println!("| implicit / explicit | {:.3} |", t_imp / t_exp);
    println!(
        "| two independent `nowait` regions (1 team x 64 threads, {steps} steps) / one (OMP_RS_LANES={}) | {:.1} ms / {:.1} ms = {:.2} |",
        std::env::var("OMP_RS_LANES").unwrap_or_else(|_| "4, default".into()),
        t_two * 1e3,
        t_one * 1e3,
        t_two / t_one
    );
    match nowait_cost(2000) {
        Some((nowait, sync)) => {
            println!("| same kernel through the runtime: synchronous launch (mean of 2000) | {:.2} µs |", sync * 1e6);
            println!("| same kernel through the runtime: `nowait` launches, per launch (2000, one wait) | {:.2} µs |", nowait * 1e6);
        }
        None => println!("| runtime-API `nowait` scope | not measured (set OFFLOAD_BENCH_IMAGE and OFFLOAD_BENCH_KERNEL) |"),
    }
}
