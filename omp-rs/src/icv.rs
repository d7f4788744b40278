//! Internal control variables (OpenMP's ICVs) of the host path and the `OMP_*` environment variables that set them
//! (`OMP_TARGET_OFFLOAD` and `OMP_DEFAULT_DEVICE` belong to `offload::policy`). Read once,
//! at first use; a malformed value is ignored with one warning that names the variable and what it accepts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

use crate::host::schedule::Schedule;

#[derive(Debug)]
struct Icvs {
    nthreads: AtomicUsize,
    run_schedule: Schedule,
    display_env: Option<bool>,
    wait_policy: WaitPolicy,
}

/// `OMP_WAIT_POLICY`: how the idle threads of a team wait for the next region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitPolicy {
    /// Unset: spin briefly (~0.3 ms), then sleep.
    Default,
    /// `ACTIVE`: spin up to a second before sleeping.
    Active,
    /// `PASSIVE`: sleep at once.
    Passive,
}

fn warn(var: &str, value: &str, accepted: &str) {
    eprintln!("omp: warning: ignoring {var}='{value}': expected {accepted}");
}

fn env(var: &str) -> Option<String> {
    std::env::var(var).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

fn icvs() -> &'static Icvs {
    static ICVS: OnceLock<Icvs> = OnceLock::new();
    ICVS.get_or_init(|| {
        let procs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let nthreads = match env("OMP_NUM_THREADS") {
            None => procs,
            Some(v) => match parse_num_threads(&v) {
                Some(n) => n,
                None => {
                    warn("OMP_NUM_THREADS", &v, "a positive integer (or a comma-separated list of them)");
                    procs
                }
            },
        };
        let run_schedule = match env("OMP_SCHEDULE") {
            None => Schedule::Static(None),
            Some(v) => parse_schedule(&v).unwrap_or_else(|| {
                warn("OMP_SCHEDULE", &v, "`static`, `dynamic`, `guided` or `auto`, optionally followed by `,chunk`");
                Schedule::Static(None)
            }),
        };
        let display_env = match env("OMP_DISPLAY_ENV") {
            None => None,
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" => Some(false),
                "verbose" => Some(true),
                "false" => None,
                _ => {
                    warn("OMP_DISPLAY_ENV", &v, "`TRUE`, `VERBOSE` or `FALSE`");
                    None
                }
            },
        };
        if let Some(v) = env("OMP_PROC_BIND") {
            let ok = v
                .split(',')
                .all(|p| ["true", "false", "primary", "master", "close", "spread"].contains(&p.trim().to_ascii_lowercase().as_str()));
            if !ok {
                warn("OMP_PROC_BIND", &v, "`true`, `false`, `primary`, `close` or `spread` (omp-rs does not pin threads)");
            }
        }
        let wait_policy = match env("OMP_WAIT_POLICY") {
            None => WaitPolicy::Default,
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "active" => WaitPolicy::Active,
                "passive" => WaitPolicy::Passive,
                _ => {
                    warn("OMP_WAIT_POLICY", &v, "`ACTIVE` or `PASSIVE`");
                    WaitPolicy::Default
                }
            },
        };
        Icvs { nthreads: AtomicUsize::new(nthreads), run_schedule, display_env, wait_policy }
    })
}

/// `OMP_NUM_THREADS=4` or `4,2` (the first level is what a non-nested region uses).
pub(crate) fn parse_num_threads(v: &str) -> Option<usize> {
    let first = v.split(',').next()?.trim();
    first.parse::<usize>().ok().filter(|n| *n > 0)
}

/// `OMP_SCHEDULE=[modifier:]kind[,chunk]`, case-insensitive.
pub(crate) fn parse_schedule(v: &str) -> Option<Schedule> {
    let v = v.to_ascii_lowercase();
    let body = match v.split_once(':') {
        Some((m, rest)) if ["monotonic", "nonmonotonic"].contains(&m.trim()) => rest,
        Some(_) => return None,
        None => v.as_str(),
    };
    let (kind, chunk) = match body.split_once(',') {
        Some((k, c)) => (k.trim(), Some(c.trim().parse::<u64>().ok().filter(|c| *c > 0)?)),
        None => (body.trim(), None),
    };
    Some(match kind {
        "static" => Schedule::Static(chunk),
        "dynamic" => Schedule::Dynamic(chunk),
        "guided" => Schedule::Guided(chunk),
        "auto" if chunk.is_none() => Schedule::Auto,
        _ => return None,
    })
}

/// nthreads-var: the team size of a region without `num_threads`.
pub(crate) fn num_threads() -> usize {
    icvs().nthreads.load(Ordering::Relaxed)
}

pub(crate) fn set_num_threads(n: usize) {
    icvs().nthreads.store(n.max(1), Ordering::Relaxed);
}

/// run-sched-var: the schedule of `schedule(runtime)`.
pub(crate) fn run_schedule() -> Schedule {
    match icvs().run_schedule {
        Schedule::Auto => Schedule::Static(None),
        s => s,
    }
}

pub(crate) fn wait_policy() -> WaitPolicy {
    icvs().wait_policy
}

/// Prints the ICVs once, in OpenMP's format, when `OMP_DISPLAY_ENV` asks for it.
pub(crate) fn display_env_once() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let icv = icvs();
        let Some(verbose) = icv.display_env else { return };
        let sched = match icv.run_schedule {
            Schedule::Static(c) => format!("STATIC{}", c.map(|c| format!(",{c}")).unwrap_or_default()),
            Schedule::Dynamic(c) => format!("DYNAMIC{}", c.map(|c| format!(",{c}")).unwrap_or_default()),
            Schedule::Guided(c) => format!("GUIDED{}", c.map(|c| format!(",{c}")).unwrap_or_default()),
            Schedule::Auto | Schedule::Runtime => "AUTO".to_string(),
        };
        let mut out = String::from("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP = '202111'\n");
        out += &format!("  OMP_NUM_THREADS = '{}'\n", num_threads());
        out += &format!("  OMP_SCHEDULE = '{sched}'\n");
        out += &format!("  OMP_DEFAULT_DEVICE = '{}'\n", crate::offload::get_default_device());
        out += &format!("  OMP_TARGET_OFFLOAD = '{}'\n", crate::offload::policy());
        let wait = match icv.wait_policy {
            WaitPolicy::Active => "ACTIVE",
            WaitPolicy::Default | WaitPolicy::Passive => "PASSIVE",
        };
        out += &format!("  OMP_WAIT_POLICY = '{wait}'\n");
        out += "  OMP_MAX_ACTIVE_LEVELS = '1'\n  OMP_PROC_BIND = 'FALSE'\n";
        if verbose {
            out += &format!("  [host] OMP_NUM_PROCS = '{}'\n", crate::get_num_procs());
        }
        out += "OPENMP DISPLAY ENVIRONMENT END\n";
        eprint!("{out}");
    });
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn env_values() {
        assert_eq!(parse_num_threads("4"), Some(4));
        assert_eq!(parse_num_threads(" 3,2"), Some(3));
        assert_eq!(parse_num_threads("0"), None);
        assert_eq!(parse_num_threads("many"), None);
        assert_eq!(parse_schedule("dynamic,4"), Some(Schedule::Dynamic(Some(4))));
        assert_eq!(parse_schedule("GUIDED"), Some(Schedule::Guided(None)));
        assert_eq!(parse_schedule("nonmonotonic:dynamic, 2"), Some(Schedule::Dynamic(Some(2))));
        assert_eq!(parse_schedule("static,0"), None);
        assert_eq!(parse_schedule("fast"), None);
    }
}
