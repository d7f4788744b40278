//! Queued launches (issue #9): regions on data that is already on the device are launched without waiting. Each
//! check mixes queued regions with the points where the host observes the device (reductions, updates, the end of
//! a data region, exit data, `taskwait`), so a missing wait shows up as a wrong value. The host-plugin test runs
//! them under every `OMP_RS_LAUNCH` path.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, vec_f64, Check};

/// Every queue check.
pub const CHECKS: &[Check] = &[
    ("queue: a time loop of regions in target_data with reductions between them", check_time_loop),
    ("queue: regions on target_enter_data! data, then exit data copies back", check_enter_exit),
    ("queue: a device panic is reported at the end of the block, naming the region that panicked", check_panic_attribution),
    ("queue: taskwait reports a queued region's panic; the process stays usable", check_taskwait),
    ("queue: nowait regions outside a data region, host work, a dependent region, taskwait", check_nowait),
    ("queue: a region without nowait has finished when it ends (its panic stops the next one)", check_region_end),
    ("queue: one thread ends its mapping of x while another launches regions that find x present", check_threads),
    ("kernels: `continue` in the body, one iteration per thread and several", check_continue),
    ("queue: regions on different data side by side, joined by regions on both (waits between queues)", check_lanes),
];

/// Per step: two slow one-team regions on different arrays (different queues on a GPU), a region reading both (it
/// waits for both queues), one writing what the slow ones read, an independent one. A missing wait between queues
/// reads a stale array.
#[omp::directives]
fn lanes(steps: usize, a: &mut [f64], b: &mut [f64], c: &mut [f64], d: &mut [f64]) {
    let n = a.len();
    #[omp::target_data(map(tofrom: a, b, c, d))]
    {
        for _ in 0..steps {
            #[omp::target_teams_distribute_parallel_for(num_teams(1), thread_limit(32), nowait)]
            for i in 0..n {
                a[i] = 0.5 * a[i] + 1.0;
            }
            #[omp::target_teams_distribute_parallel_for(num_teams(1), thread_limit(32), nowait)]
            for i in 0..n {
                b[i] = 0.25 * b[i] + 2.0;
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                c[i] = a[i] + b[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                b[i] = c[i] - 0.5 * a[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                d[i] = 0.5 * d[i] + 1.0;
            }
        }
    }
}

fn check_lanes(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..200_000);
    let steps = rng.gen_range(1..6);
    let (mut a, mut b, mut c, mut d) = (vec_f64(rng, n), vec_f64(rng, n), vec![0.0; n], vec_f64(rng, n));
    let (mut wa, mut wb, mut wc, mut wd) = (a.clone(), b.clone(), c.clone(), d.clone());
    for _ in 0..steps {
        for i in 0..n {
            wa[i] = 0.5 * wa[i] + 1.0;
            wb[i] = 0.25 * wb[i] + 2.0;
            wc[i] = wa[i] + wb[i];
            wb[i] = wc[i] - 0.5 * wa[i];
            wd[i] = 0.5 * wd[i] + 1.0;
        }
    }
    lanes(steps, &mut a, &mut b, &mut c, &mut d);
    same("a", &a, &wa)?;
    same("b", &b, &wb)?;
    same("c", &c, &wc)?;
    same("d", &d, &wd)
}

/// Two regions per step, a reduction every `every` steps: the reductions read what the queued regions wrote.
#[omp::directives]
fn relax(steps: usize, every: usize, a: &mut [f64], b: &[f64], sums: &mut Vec<f64>) {
    let n = a.len();
    #[omp::target_data(map(tofrom: a), map(to: b))]
    {
        for t in 0..steps {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                a[i] = 0.5 * a[i] + b[i];
            }
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..n {
                a[i] -= 0.25 * b[i];
            }
            if t % every == every - 1 {
                // `taskwait` in the middle of the queue: the regions before it complete, the ones after continue.
                omp::taskwait!();
            }
            if t % every == 0 {
                let mut s: f64 = 0.0;
                #[omp::target_teams_distribute_parallel_for(reduction(+: s))]
                for i in 0..n {
                    s += a[i];
                }
                sums.push(s);
            }
        }
    }
}

fn check_time_loop(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let (steps, every) = (rng.gen_range(1..40), rng.gen_range(1..7));
    let b = vec_f64(rng, n);
    let mut a = vec_f64(rng, n);
    let (mut want, mut want_sums) = (a.clone(), Vec::new());
    for t in 0..steps {
        for i in 0..n {
            want[i] = 0.5 * want[i] + b[i];
        }
        for i in 0..n {
            want[i] -= 0.25 * b[i];
        }
        if t % every == 0 {
            want_sums.push(want.iter().sum::<f64>());
        }
    }
    let mut sums = Vec::new();
    relax(steps, every, &mut a, &b, &mut sums);
    same("a", &a, &want)?;
    if sums.len() != want_sums.len() {
        return Err(format!("{} reductions, sequential {}", sums.len(), want_sums.len()));
    }
    for (k, (g, w)) in sums.iter().zip(&want_sums).enumerate() {
        close(&format!("sum {k}"), *g, *w, n, 2.0)?;
    }
    Ok(())
}

#[omp::directives]
fn scale_resident(steps: usize, x: &mut [f64]) {
    let n = x.len();
    omp::target_enter_data!(map(to: x));
    for _ in 0..steps {
        #[omp::target_teams_distribute_parallel_for(nowait)]
        for i in 0..n {
            x[i] = x[i] * 1.5 - 0.5;
        }
    }
    omp::target_exit_data!(map(from: x));
}

fn check_enter_exit(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..4000);
    let steps = rng.gen_range(1..30);
    let mut x = vec_f64(rng, n);
    let mut want = x.clone();
    for _ in 0..steps {
        for v in &mut want {
            *v = *v * 1.5 - 0.5;
        }
    }
    scale_resident(steps, &mut x);
    same("x", &x, &want)
}

/// The first region reads `x[i + off]` (out of bounds for `off > 0`), the two after it are fine. With `nowait` the
/// regions are queued and the panic is reported as the first region's at the end of the block, after the others ran;
/// without it (OpenMP's end of region) the first region has finished, panic included, before the next one starts.
#[omp::directives]
fn panics_early(off: usize, x: &[f64], y: &mut [f64], z: &mut [f64]) {
    let n = y.len();
    #[omp::target_data(map(to: x), map(tofrom: y, z))]
    {
        #[omp::target_teams_distribute_parallel_for(nowait)]
        for i in 0..n {
            y[i] = x[i + off];
        }
        #[omp::target_teams_distribute_parallel_for(nowait)]
        for i in 0..n {
            z[i] += x[i];
        }
        #[omp::target_teams_distribute_parallel_for(nowait)]
        for i in 0..n {
            z[i] *= 2.0;
        }
    }
}

/// As [`panics_early`], without `nowait`.
#[omp::directives]
fn panics_in_order(off: usize, x: &[f64], y: &mut [f64], z: &mut [f64]) {
    let n = y.len();
    #[omp::target_data(map(to: x), map(tofrom: y, z))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            y[i] = x[i + off];
        }
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            z[i] += x[i];
        }
    }
}

fn check_region_end(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(10..3000);
    let x = vec_f64(rng, n);
    let (mut y, mut z) = (vec![0.0; n], vec![1.0; n]);
    let off = rng.gen_range(1..n);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panics_in_order(off, &x, &mut y, &mut z)));
    let msg = match caught {
        Ok(()) => return Err("an out-of-bounds read did not panic".into()),
        Err(e) => panic_text(&*e),
    };
    if offloading() {
        if !msg.contains("`omp_panics_in_order_0_") {
            return Err(format!("the panic names another region: {msg}"));
        }
        // The first region ended with its panic: the second never ran (`OMP_RS_LAUNCH=queued` is not OpenMP's end).
        if std::env::var("OMP_RS_LAUNCH").map_or(true, |m| m != "queued") && z.iter().any(|v| *v != 1.0) {
            return Err("the region after the panicking one ran: the panicking region had not finished when it ended".into());
        }
    }
    Ok(())
}

/// Whether regions run on a device here (not `OMP_TARGET_OFFLOAD=DISABLED`, a device exists).
fn offloading() -> bool {
    omp::offload::get_num_devices() > 0
}

fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

fn check_panic_attribution(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(10..3000);
    let x = vec_f64(rng, n);
    let (mut y, mut z) = (vec![0.0; n], vec![0.0; n]);
    let off = rng.gen_range(1..n);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panics_early(off, &x, &mut y, &mut z)));
    let msg = match caught {
        Ok(()) => return Err("an out-of-bounds read in a queued region did not panic".into()),
        Err(e) => panic_text(&*e),
    };
    // Regions are numbered in the function: the panicking one is region 0. On the host, Rust's own panic.
    if !offloading() {
        if !msg.contains("out of bounds") {
            return Err(format!("unexpected host panic: {msg}"));
        }
    } else if !msg.contains("`omp_panics_early_0_") || !msg.contains("queued.rs") {
        return Err(format!("the panic names another region: {msg}"));
    }
    // The process stays usable, and the regions after the panicking one ran.
    let (mut y, mut z) = (vec![0.0; n], vec![1.0; n]);
    panics_early(0, &x, &mut y, &mut z);
    same("y", &y, &x)?;
    same("z", &z, &x.iter().map(|v| (1.0 + v) * 2.0).collect::<Vec<_>>())
}

/// `taskwait` inside the block: the host waits for the queued regions and sees their failure there.
#[omp::directives]
fn wait_inside(off: usize, x: &[f64], y: &mut [f64]) -> Result<(), omp::Error> {
    let n = y.len();
    let waited;
    #[omp::target_data(map(to: x), map(tofrom: y))]
    {
        #[omp::target_teams_distribute_parallel_for(nowait)]
        for i in 0..n {
            y[i] = x[i + off] + 1.0;
        }
        waited = omp::offload::taskwait();
    }
    waited
}

fn check_taskwait(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(10..3000);
    let x = vec_f64(rng, n);
    let mut y = vec![0.0; n];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| wait_inside(n, &x, &mut y)));
    match r {
        Ok(Err(omp::Error::DevicePanic { kernel, .. })) if offloading() && kernel.starts_with("omp_wait_inside_0_") => {}
        Err(e) if !offloading() && panic_text(&*e).contains("out of bounds") => {}
        // OMP_RS_LAUNCH=wait or sync: the region waits for itself, so its own launch reports the panic.
        Err(e) if offloading() && panic_text(&*e).contains("`omp_wait_inside_0_") => {}
        Ok(other) => return Err(format!("taskwait after an out-of-bounds region returned {other:?}")),
        Err(e) => return Err(format!("taskwait after an out-of-bounds region panicked: {}", panic_text(&*e))),
    }
    let mut y = vec![0.0; n];
    wait_inside(0, &x, &mut y).map_err(|e| format!("taskwait after a good region: {e}"))?;
    same("y", &y, &x.iter().map(|v| v + 1.0).collect::<Vec<_>>())
}

/// Two `nowait` regions on their own data (no data region around them), host work on other data while they are
/// pending, a region that reads what the first wrote (`depend(in: y)`: the in-order queue runs it after), then
/// `taskwait` and host reads of the results.
#[omp::directives]
fn nowait_regions(x: &[f64], y: &mut [f64], z: &mut [f64], w: &mut [f64], host: &mut [f64]) -> f64 {
    let n = y.len();
    #[omp::target_teams_distribute_parallel_for(nowait, depend(out: y))]
    for i in 0..n {
        y[i] = 2.0 * x[i] + 1.0;
    }
    #[omp::target_teams_distribute_parallel_for(nowait, depend(out: z))]
    for i in 0..n {
        z[i] = x[i] * x[i];
    }
    for i in 0..host.len() {
        host[i] = (i as f64).sqrt();
    }
    #[omp::target_teams_distribute_parallel_for(depend(in: y))]
    for i in 0..n {
        w[i] = y[i] - x[i];
    }
    omp::taskwait!();
    y[0] + z[n - 1]
}

fn check_nowait(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..4000);
    let x = vec_f64(rng, n);
    let (mut y, mut z, mut w, mut host) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; 100]);
    let r = nowait_regions(&x, &mut y, &mut z, &mut w, &mut host);
    let wy: Vec<f64> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    let wz: Vec<f64> = x.iter().map(|v| v * v).collect();
    let ww: Vec<f64> = wy.iter().zip(&x).map(|(a, b)| a - b).collect();
    same("y", &y, &wy)?;
    same("z", &z, &wz)?;
    same("w", &w, &ww)?;
    same("host", &host, &(0..100).map(|i| (i as f64).sqrt()).collect::<Vec<_>>())?;
    if r != wy[0] + wz[n - 1] {
        return Err(format!("returned {r}, sequential {}", wy[0] + wz[n - 1]));
    }
    Ok(())
}

/// A data region over `x` whose block holds one region: ends (unmaps `x`) each time it returns.
#[omp::directives]
fn mapped_briefly(x: &[f64], y: &mut [f64]) {
    #[omp::target_data(map(to: x))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..y.len() {
            y[i] = x[i] * 3.0;
        }
    }
}

/// `z` is mapped here, `x` is not: when another thread's mapping of `x` exists, every argument is present and the
/// region is queued on `x`'s device copy, which that thread may end at any time.
#[omp::directives]
fn plus_one(x: &[f64], z: &mut [f64]) {
    #[omp::target_data(map(tofrom: z))]
    {
        for _ in 0..3 {
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..z.len() {
                z[i] = x[i] + 1.0;
            }
        }
    }
}

/// Thread A maps and unmaps `x` over and over; thread B's regions read `x` and find it present whenever A's
/// mapping exists, so a lookup B makes can race with A's unmapping. Each result must equal the sequential one.
fn check_threads(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(100..3000);
    let x = vec_f64(rng, n);
    let rounds = 60;
    let (wy, wz): (Vec<f64>, Vec<f64>) = (x.iter().map(|v| v * 3.0).collect(), x.iter().map(|v| v + 1.0).collect());
    std::thread::scope(|s| {
        let a = s.spawn(|| {
            let mut y = vec![0.0; n];
            for _ in 0..rounds {
                mapped_briefly(&x, &mut y);
                same("y (thread A)", &y, &wy)?;
            }
            Ok::<(), String>(())
        });
        let b = s.spawn(|| {
            let mut z = vec![0.0; n];
            for _ in 0..rounds {
                plus_one(&x, &mut z);
                same("z (thread B)", &z, &wz)?;
            }
            Ok::<(), String>(())
        });
        a.join().map_err(|e| format!("thread A panicked: {}", panic_text(&*e)))??;
        b.join().map_err(|e| format!("thread B panicked: {}", panic_text(&*e)))?
    })
}

/// `continue` in a target region's body skips to the thread's next iteration: with the default grid each GPU thread
/// runs at most one iteration (the kernel's loop-free path), with `num_teams(1), thread_limit(32)` many (its loop).
/// The host plugin runs a kernel on one thread, so there the one-element case takes the loop-free path.
#[omp::directives]
fn skip_negative(x: &[f64], y: &mut [f64], z: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        if x[i] < 0.0 {
            continue;
        }
        y[i] = x[i] * 2.0;
    }
    #[omp::target_teams_distribute_parallel_for(num_teams(1), thread_limit(32))]
    for i in 0..z.len() {
        if x[i] < 0.0 {
            continue;
        }
        z[i] = x[i] * 2.0;
    }
}

fn check_continue(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let x = vec_f64(rng, n);
    let (mut y, mut z) = (vec![-9.0; n], vec![-9.0; n]);
    skip_negative(&x, &mut y, &mut z);
    let want: Vec<f64> = x.iter().map(|v| if *v < 0.0 { -9.0 } else { v * 2.0 }).collect();
    same("y (one iteration per thread)", &y, &want)?;
    same("z (many iterations per thread)", &z, &want)?;
    for v in [-1.0, 1.5] {
        let (mut y1, mut z1) = (vec![-9.0], vec![-9.0]);
        skip_negative(&[v], &mut y1, &mut z1);
        let w = if v < 0.0 { -9.0 } else { v * 2.0 };
        same("one element", &[y1[0], z1[0]], &[w, w])?;
    }
    Ok(())
}
