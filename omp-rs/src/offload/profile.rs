//! `OMP_RS_PROFILE=1`: where the host's time goes in each target region, printed to stderr when the process exits.
//!
//! A region's host time is cut at the points every launch passes, on the thread that runs it:
//!
//! | phase | from | to |
//! |---|---|---|
//! | `decide` | `should_offload` called | it returns (policy, registration, device) |
//! | `prepare` | `should_offload` returned | `launch` called (the expansion's ownership checks and argument packing) |
//! | `checks` | `launch` called | the enqueue (geometry, presence of the mapped sections, value copies, reduction buffers) |
//! | `enqueue` | the enqueue | it returned (liboffload's launch, or libomptarget's synchronous `__tgt_target_kernel`) |
//! | `wait` | the enqueue returned | `launch` returns (the end-of-region wait: the kernel's run time and the wake-up) |
//! | `after` | `launch` returned | the thread's next region (reduction folds, data-region calls, the host code between) |
//!
//! So a loop of regions is covered without gaps: the sum of a thread's phases is its time from its first region to
//! its last `launch`. Like `LIBOMPTARGET_PROFILE`, it is meant for finding overheads, not for timing kernels: the
//! `wait` of a region holds its kernel's time. Off (one relaxed load per point) unless the variable is `1`.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// A region's host-time phases, in the order a launch passes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Decide,
    Prepare,
    Checks,
    Enqueue,
    Wait,
    After,
}

const PHASES: [&str; 6] = ["decide", "prepare", "checks", "enqueue", "wait", "after"];

#[derive(Default)]
struct RegionTimes {
    kernel: &'static str,
    launches: u64,
    /// The first launch's phases (it loads the kernel and starts the queue), apart from the others'.
    first: [u128; 6],
    nanos: [u128; 6],
}

/// A region's source location: file, line, column.
type RegionKey = (&'static str, u32, u32);

/// Per region: what was measured so far, from every thread.
static TABLE: Mutex<Option<HashMap<RegionKey, RegionTimes>>> = Mutex::new(None);

/// 0: not read yet, 1: off, 2: on.
static STATE: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// The region this thread is in (its key) and when the last point was passed.
    static CURRENT: Cell<Option<(RegionKey, Instant)>> = const { Cell::new(None) };
}

fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let on = match std::env::var("OMP_RS_PROFILE") {
                Err(_) => false,
                Ok(v) => match v.trim() {
                    "1" | "on" => true,
                    "" | "0" | "off" => false,
                    other => {
                        eprintln!(
                            "omp-rs: warning: OMP_RS_PROFILE={other:?} is not valid; accepted values are 1 and 0; profiling stays off"
                        );
                        false
                    }
                },
            };
            if on && STATE.swap(2, Ordering::Relaxed) != 2 {
                at_exit_report();
            } else if !on {
                STATE.store(1, Ordering::Relaxed);
            }
            on
        }
    }
}

fn key(loc: &'static Location<'static>) -> RegionKey {
    (loc.file(), loc.line(), loc.column())
}

fn add(key: RegionKey, phase: Phase, nanos: u128, kernel: Option<&'static str>) {
    let mut t = TABLE.lock().unwrap_or_else(|p| p.into_inner());
    let r = t.get_or_insert_with(HashMap::new).entry(key).or_default();
    if let Some(k) = kernel {
        r.kernel = k;
        r.launches += 1;
    }
    // Every phase, `after` too (added when the thread's next region begins), belongs to the region's latest launch.
    if r.launches == 1 {
        r.first[phase as usize] += nanos;
    } else {
        r.nanos[phase as usize] += nanos;
    }
}

/// A region begins on this thread (`should_offload`): the time since the thread's last point is the previous
/// region's `after`.
pub(crate) fn region_begins(loc: &'static Location<'static>, kernel: &'static str) {
    if !enabled() {
        return;
    }
    let now = Instant::now();
    if let Some((prev, since)) = CURRENT.get() {
        add(prev, Phase::After, now.duration_since(since).as_nanos(), None);
    }
    add(key(loc), Phase::Decide, 0, Some(kernel));
    CURRENT.set(Some((key(loc), now)));
}

/// The current region passed the point that ends `phase`.
pub(crate) fn passed(phase: Phase) {
    if !enabled() {
        return;
    }
    let now = Instant::now();
    if let Some((region, since)) = CURRENT.get() {
        add(region, phase, now.duration_since(since).as_nanos(), None);
        CURRENT.set(Some((region, now)));
    }
}

fn at_exit_report() {
    extern "C" fn report() {
        let t = TABLE.lock().unwrap_or_else(|p| p.into_inner());
        let Some(t) = t.as_ref() else { return };
        let mut rows: Vec<_> = t.iter().collect();
        rows.sort_by_key(|(k, _)| **k);
        eprintln!("omp-rs profile: host µs per launch of each target region by phase (OMP_RS_PROFILE=1): the first launch, then the mean of the others");
        eprintln!("{:<40} {:>9} {}", "region", "launches", PHASES.map(|p| format!("{p:>11}")).join(""));
        for ((file, line, col), r) in rows {
            let later = r.launches.saturating_sub(1);
            let per = |n: u128| if later == 0 { 0.0 } else { n as f64 / 1e3 / later as f64 };
            let firsts: String = r.first.iter().map(|&n| format!("{:>11.2}", n as f64 / 1e3)).collect();
            let means: String = r.nanos.iter().map(|&n| format!("{:>11.2}", per(n))).collect();
            let region = format!("{file}:{line}:{col}");
            eprintln!("{region:<40} {:>9} {firsts}  {} (first)", 1, r.kernel);
            eprintln!("{:<40} {later:>9} {means}", "");
        }
    }
    // SAFETY: registers a plain `extern "C"` function that only locks a static and writes to stderr.
    let _ = unsafe { libc::atexit(report) };
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn phases_split_the_first_launch_from_the_others_and_after_goes_to_the_region_before() {
        STATE.store(2, Ordering::Relaxed); // on, without registering the exit report
        let (a, b) = (Location::caller(), Location::caller());
        let times = |loc: &'static Location<'static>| {
            let t = TABLE.lock().unwrap_or_else(|p| p.into_inner());
            t.as_ref().and_then(|t| t.get(&key(loc)).map(|r| (r.launches, r.first, r.nanos)))
        };
        for k in 0..3 {
            region_begins(a, "ka");
            passed(Phase::Decide);
            // The first launch waits 2 ms, the later ones 10 ms each (sleeps only ever overshoot).
            std::thread::sleep(std::time::Duration::from_millis(if k == 0 { 2 } else { 10 }));
            passed(Phase::Wait);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        region_begins(b, "kb");
        let (launches, first, later) = times(a).expect("region a was recorded");
        assert_eq!(launches, 3);
        // The first launch's wait stands alone; the two later ones add up to 20 ms or more. No upper bound on a
        // sleep (a loaded machine overshoots it): the first is told apart by being the shorter.
        assert!(first[Phase::Wait as usize] >= 2_000_000, "{first:?}");
        assert!(later[Phase::Wait as usize] >= 20_000_000, "{later:?}");
        assert!(first[Phase::Wait as usize] < later[Phase::Wait as usize], "{first:?} {later:?}");
        // Three `after`s (1 ms each): the last one was closed by region b.
        assert!(first[Phase::After as usize] >= 1_000_000 && later[Phase::After as usize] >= 2_000_000, "{later:?}");
        assert_eq!(times(b).map(|t| t.0), Some(1));
        CURRENT.set(None);
    }
}
