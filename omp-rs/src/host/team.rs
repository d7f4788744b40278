//! Teams of threads and the OpenMP thread numbers seen inside a region.
//!
//! A region's team is the calling thread (thread 0, as in OpenMP) plus `n - 1` persistent worker threads, one
//! team per team size (up to 8 sizes), kept for the process: `num_threads(n)` picks the team of size n for that
//! region only.
//! Between regions the workers spin for a while before they sleep, like libgomp's default wait policy
//! (`OMP_WAIT_POLICY`), so a loop of short regions — a time-step loop, a benchmark's reps — does not pay a
//! futex wake-up per thread per region. That wake-up is what a `rayon` broadcast pays (the pool's threads
//! sleep after a few yields, and the caller hands the job to one worker that wakes the others): ~12 µs per
//! region on 2 cores and ~40 µs on 16, against 1.5-1.9 µs and 4.6-5.2 µs here when the workers are still spinning
//! (libgomp: 1.4-1.5 and 3.4-4.5 µs; `cargo run --release -p omp-bench --bin region-overhead`).
//!
//! A region whose team is busy (another application thread is running a region of the same size) runs on a
//! `rayon` pool of that size instead: OpenMP gives every thread that starts a region a team of its own.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rayon_core::{ThreadPool, ThreadPoolBuilder};

use crate::icv::WaitPolicy;

/// Where the current thread stands: its number in the innermost team and that team's size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TeamPosition {
    pub(crate) thread_num: usize,
    pub(crate) num_threads: usize,
    /// Number of enclosing parallel regions (active or not).
    pub(crate) level: usize,
    /// Number of enclosing parallel regions with more than one thread.
    pub(crate) active_level: usize,
}

thread_local! {
    static POSITION: Cell<Option<TeamPosition>> = const { Cell::new(None) };
}

/// The position of the calling thread (`None` outside every parallel region).
pub(crate) fn position() -> Option<TeamPosition> {
    POSITION.with(|p| p.get())
}

/// Sets the thread's position for the lifetime of the guard (restored on drop, also when unwinding).
pub(crate) struct PositionGuard(Option<TeamPosition>);

impl PositionGuard {
    pub(crate) fn enter(pos: TeamPosition) -> Self {
        PositionGuard(POSITION.with(|p| p.replace(Some(pos))))
    }
}

impl Drop for PositionGuard {
    fn drop(&mut self) {
        POSITION.with(|p| p.set(self.0));
    }
}

/// Runs `work(thread_num)` for every thread number of a team of `n` threads (n ≥ 2), the caller being thread 0,
/// and returns the results in thread order. A panic in any thread reaches the caller once the team has finished.
pub(crate) fn run<R: Send + Sync, F: Fn(usize) -> R + Sync>(n: usize, work: F) -> Vec<R> {
    let results: Vec<OnceLock<R>> = (0..n).map(|_| OnceLock::new()).collect();
    let job = |t: usize| {
        let r = work(t);
        // Each thread number runs exactly once per region, so the slot is empty.
        let _ = results[t].set(r);
    };
    match team(n) {
        Claim::Team(team) => team.run(&job),
        // Another application thread is running a region of this size: a rayon pool of the size.
        Claim::Busy => {
            if let Some(pool) = rayon_pool(n) {
                pool.broadcast(|ctx| job(ctx.index()));
            } else {
                run_on_scoped_threads(n, &job);
            }
        }
        Claim::NotKept => run_on_scoped_threads(n, &job),
    }
    results.into_iter().map(|r| r.into_inner().expect("omp: every team thread stores its result")).collect()
}

/// One `T` per team size, kept for the process.
type PerSize<T> = OnceLock<Mutex<Vec<(usize, Arc<T>)>>>;

/// Team sizes kept for the process: each is `n - 1` parked threads (and a rayon pool of `n` once two application
/// threads ran regions of that size at the same time). Regions of further sizes (a program that sweeps
/// `num_threads`) run on threads started for the region and joined at its end, so the process's threads stay
/// bounded.
const KEPT_SIZES: usize = 8;

/// The entry of `registry` for size `n`, made by `make` on first use; `None` when `KEPT_SIZES` other sizes are
/// kept already.
fn per_size<T>(registry: &PerSize<T>, n: usize, make: impl FnOnce() -> Arc<T>) -> Option<Arc<T>> {
    let mut entries = registry.get_or_init(|| Mutex::new(Vec::new())).lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, t)) = entries.iter().find(|(size, _)| *size == n) {
        return Some(Arc::clone(t));
    }
    if entries.len() >= KEPT_SIZES {
        return None;
    }
    let t = make();
    entries.push((n, Arc::clone(&t)));
    Some(t)
}

/// What a region of `n` threads gets from the kept teams.
enum Claim {
    /// The team of size `n`, for this region.
    Team(TeamGuard),
    /// The team of size `n` exists but runs another application thread's region.
    Busy,
    /// `KEPT_SIZES` other sizes are kept.
    NotKept,
}

/// The team of size `n` (created on first use) if it is kept and free.
fn team(n: usize) -> Claim {
    static TEAMS: PerSize<Team> = OnceLock::new();
    let Some(team) = per_size(&TEAMS, n, || Team::start(n)) else { return Claim::NotKept };
    match team.busy.compare_exchange(false, true, SeqCst, SeqCst) {
        Ok(_) => Claim::Team(TeamGuard(team)),
        Err(_) => Claim::Busy,
    }
}

/// `job(t)` for `t` in `0..n` on the calling thread (0) and `n - 1` threads started for this region and joined
/// before it returns; the first panic reaches the caller after all have finished.
fn run_on_scoped_threads(n: usize, job: &(dyn Fn(usize) + Sync)) {
    std::thread::scope(|s| {
        let others: Vec<_> = (1..n).map(|t| s.spawn(move || job(t))).collect();
        let mut panicked = catch_unwind(AssertUnwindSafe(|| job(0))).err();
        for h in others {
            if let Err(p) = h.join() {
                panicked.get_or_insert(p);
            }
        }
        if let Some(p) = panicked {
            resume_unwind(p);
        }
    });
}

/// Exclusive use of a team for one region.
struct TeamGuard(Arc<Team>);

impl Drop for TeamGuard {
    fn drop(&mut self) {
        self.0.busy.store(false, SeqCst);
    }
}

/// The work of the current region, as seen by the workers: a borrowed closure with its lifetime erased.
type Job = &'static (dyn Fn(usize) + Sync);

/// A team's shared state. Workers wait for `epoch` to change, run the job with their thread number, then count
/// themselves in `finished`; a thread that stops spinning registers in `sleepers`/`master_sleeping` before it
/// re-checks the condition it waits for, and the other side notifies whenever it sees a registration (both with
/// SeqCst, so one of the two always sees the other).
struct Team {
    size: usize,
    /// How long an idle thread spins before it sleeps.
    spin: Duration,
    busy: AtomicBool,
    epoch: AtomicU64,
    job: UnsafeCell<Option<Job>>,
    finished: AtomicUsize,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    sleepers: AtomicUsize,
    master_sleeping: AtomicBool,
    lock: Mutex<()>,
    wake_workers: Condvar,
    wake_master: Condvar,
}

// SAFETY: `job` is written only by the thread that holds `busy`, before it publishes the region by bumping
// `epoch` (SeqCst), and read by workers only after they saw that new epoch and before they count themselves in
// `finished`; the writer does not touch it again until every worker has. Everything else is atomics or mutexes.
#[allow(unsafe_code)]
unsafe impl Sync for Team {}

impl Team {
    fn start(size: usize) -> Arc<Team> {
        let team = Arc::new(Team {
            size,
            spin: spin_budget(size),
            busy: AtomicBool::new(false),
            epoch: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            finished: AtomicUsize::new(0),
            panic: Mutex::new(None),
            sleepers: AtomicUsize::new(0),
            master_sleeping: AtomicBool::new(false),
            lock: Mutex::new(()),
            wake_workers: Condvar::new(),
            wake_master: Condvar::new(),
        });
        for t in 1..size {
            let team = Arc::clone(&team);
            std::thread::Builder::new()
                .name(format!("omp-team{size}-{t}"))
                .spawn(move || team.worker(t))
                .unwrap_or_else(|e| panic!("omp: cannot start a team of {size} threads: {e}"));
        }
        team
    }

    fn worker(&self, thread_num: usize) {
        let mut seen = 0;
        loop {
            wait_until(
                self.spin,
                || self.epoch.load(SeqCst) != seen,
                || {
                    let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                    self.sleepers.fetch_add(1, SeqCst);
                    let guard = self.wake_workers.wait_while(guard, |_| self.epoch.load(SeqCst) == seen).unwrap_or_else(|e| e.into_inner());
                    self.sleepers.fetch_sub(1, SeqCst);
                    drop(guard);
                },
            );
            seen = self.epoch.load(SeqCst);
            // SAFETY: see `impl Sync for Team`: the job of epoch `seen` stays valid until we count ourselves.
            #[allow(unsafe_code)]
            let Some(job) = (unsafe { *self.job.get() }) else {
                // A broken internal invariant. Unwinding would end this worker silently and leave the thread that
                // started the region waiting for it forever (rayon-core's `AbortIfPanic` reasoning): abort loudly.
                eprintln!("omp: internal error: a parallel region was published without its job; aborting");
                std::process::abort();
            };
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| job(thread_num))) {
                self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(p);
            }
            if self.finished.fetch_add(1, SeqCst) + 1 == self.size - 1 && self.master_sleeping.load(SeqCst) {
                let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.wake_master.notify_one();
            }
        }
    }
}

impl TeamGuard {
    /// Runs `job` on every thread of the team, the caller being thread 0, and waits for all of them.
    fn run(&self, job: &(dyn Fn(usize) + Sync)) {
        let team = &*self.0;
        // SAFETY: the workers use the job only between the epoch bump below and their count in `finished`, and
        // this function does not return (or unwind: the caller's own part is caught) before all of them counted.
        #[allow(unsafe_code)]
        let job: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(job) };
        // SAFETY: we hold `busy`, and every worker finished the previous region (see `impl Sync for Team`).
        #[allow(unsafe_code)]
        unsafe {
            *team.job.get() = Some(job)
        };
        team.finished.store(0, SeqCst);
        team.epoch.fetch_add(1, SeqCst);
        if team.sleepers.load(SeqCst) > 0 {
            let _guard = team.lock.lock().unwrap_or_else(|e| e.into_inner());
            team.wake_workers.notify_all();
        }
        let own = catch_unwind(AssertUnwindSafe(|| job(0)));
        let all_done = || team.finished.load(SeqCst) == team.size - 1;
        wait_until(team.spin, all_done, || {
            let guard = team.lock.lock().unwrap_or_else(|e| e.into_inner());
            team.master_sleeping.store(true, SeqCst);
            let guard = team.wake_master.wait_while(guard, |_| !all_done()).unwrap_or_else(|e| e.into_inner());
            team.master_sleeping.store(false, SeqCst);
            drop(guard);
        });
        let worker_panic = team.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(p) = own.err().or(worker_panic) {
            resume_unwind(p);
        }
    }
}

/// How long an idle thread of a team of `size` spins before it sleeps (`OMP_WAIT_POLICY`; libgomp's default is
/// a spin of a similar length, and a short one when the team has more threads than the machine has processors).
fn spin_budget(size: usize) -> Duration {
    let procs = std::thread::available_parallelism().map_or(1, |n| n.get());
    match crate::icv::wait_policy() {
        WaitPolicy::Passive => Duration::ZERO,
        // More threads than processors: a spinning thread takes the core a working one needs.
        _ if size > procs => Duration::from_micros(2),
        WaitPolicy::Active => Duration::from_secs(1),
        WaitPolicy::Default => Duration::from_micros(300),
    }
}

/// Spins until `ready()` for at most `budget`, then calls `sleep` (which blocks until `ready()`).
fn wait_until(budget: Duration, ready: impl Fn() -> bool, sleep: impl FnOnce()) {
    if ready() {
        return;
    }
    if !budget.is_zero() {
        let start = Instant::now();
        loop {
            for _ in 0..64 {
                if ready() {
                    return;
                }
                std::hint::spin_loop();
            }
            if start.elapsed() >= budget {
                break;
            }
        }
    }
    sleep();
}

/// The rayon pool with exactly `n` threads (created on first use, `None` beyond `KEPT_SIZES`): the team of a region
/// started while the persistent team of that size is busy.
fn rayon_pool(n: usize) -> Option<Arc<ThreadPool>> {
    static POOLS: PerSize<ThreadPool> = OnceLock::new();
    per_size(&POOLS, n, || {
        Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(move |i| format!("omp-rayon{n}-{i}"))
                .build()
                .unwrap_or_else(|e| panic!("omp: cannot start a team of {n} threads: {e}")),
        )
    })
}
