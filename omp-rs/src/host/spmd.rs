//! SPMD regions with barriers or team-local arrays on the host: the region's teams are shared out among the host
//! team's threads (one team after another on each), and each of a team's threads is a coroutine of the OS thread
//! that runs the team (a stackful coroutine of `corosensei`, on a stack kept for the next region): the OS thread
//! resumes the team's threads in turn, each runs until it reaches a barrier (or its unit's end), and when every one
//! has, the next phase starts. A team of 256 threads so costs 256 switches of a few nanoseconds per barrier instead
//! of 256 OS threads taking turns on the cores. Team-local arrays live in one buffer per OS thread, reused by each of
//! its teams; their accesses are checked by `omp_rs_abi::team_local`, as in the kernels.
//!
//! A team whose threads do not all reach the same barrier (one ends its unit while another waits, or one waits at a
//! barrier while another ends) panics with the rule it broke, where a GPU would hang or mix phases. A panic in a
//! thread ends its team (the other threads' stacks are unwound) and reaches the caller once the host team has
//! finished; the other OS threads start no further teams.

use std::cell::{Cell, RefCell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use omp_rs_abi::team_local::{self, Team, MAX_BYTES};

use super::team::{position, PositionGuard, TeamPosition};
use super::{sharing, Chunk, DisjointArrays};

/// The host's teams (see the module's docs).
#[derive(Debug)]
pub struct HostTeam;

/// Where a team's thread stopped: at a barrier of the team body, or at the end of its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    Barrier,
    UnitEnd,
}

/// The yielder of a team thread's coroutine.
type ThreadYielder = Yielder<(), Arrival>;

/// What the threads of the teams one OS thread runs share.
struct Shared {
    threads: u32,
    memory: Box<[UnsafeCell<u128>]>,
}

thread_local! {
    static CURRENT: Cell<*const Shared> = const { Cell::new(std::ptr::null()) };
    static ME: Cell<u32> = const { Cell::new(0) };
    /// The yielder of the team thread running now on this OS thread (null outside a team thread's coroutine).
    static YIELDER: Cell<*const ThreadYielder> = const { Cell::new(std::ptr::null()) };
    /// Coroutine stacks kept for the next region of this OS thread.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// Bytes of a team thread's stack: what `std::thread::spawn` gives a thread (mapped lazily, with a guard page).
const STACK_BYTES: usize = 2 << 20;

/// The region the calling thread runs a unit of, and its thread number (`None` outside [`team_for`]).
fn current() -> Option<(&'static Shared, u32)> {
    let s = CURRENT.with(Cell::get);
    // SAFETY: set by `run_teams` to its `Shared`, which outlives the teams' run, and given back its enclosing value
    // (null, or an enclosing `run_teams`' live `Shared`) before it returns.
    (!s.is_null()).then(|| (unsafe { &*s }, ME.with(Cell::get)))
}

/// Suspends the calling team thread until its team's other threads have arrived too.
fn arrive(kind: Arrival) {
    let y = YIELDER.with(Cell::get);
    if y.is_null() {
        // Not in a team thread (a barrier of a team of one run outside `team_for`): nothing to wait for.
        return;
    }
    // SAFETY: `YIELDER` is set by the running coroutine to its own yielder (at its start and after each suspend),
    // cleared by `run_teams` whenever a resume returns and given back its enclosing value (that of the coroutine a
    // nested region ran in) when `run_teams` ends, so a non-null value is the yielder of the coroutine this code
    // runs in, which lives while that coroutine runs.
    let y = unsafe { &*y };
    y.suspend(kind);
    YIELDER.with(|c| c.set(y));
}

impl Team for HostTeam {
    fn team_fence() {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }

    fn memory<const BYTES: usize>() -> *mut u8 {
        match current() {
            Some((s, _)) => UnsafeCell::raw_get(s.memory.as_ptr()) as *mut u8,
            None => panic!("omp-rs internal error: a team-local array outside an SPMD region"),
        }
    }

    fn position() -> (u32, u32) {
        current().map_or((0, 1), |(s, me)| (me, s.threads))
    }

    fn barrier() {
        arrive(Arrival::Barrier);
    }
}

/// The region's team memory.
pub type Arena<const BYTES: usize> = team_local::Arena<HostTeam, BYTES>;
/// A team-local array.
pub type TeamLocal<T, const D: usize> = team_local::TeamArray<T, D, HostTeam>;
pub use team_local::{bytes, TeamLocalElement};

/// The region's team memory, `BYTES` bytes (the sum of its arrays' [`bytes`]).
#[inline(always)]
pub fn new_arena<const BYTES: usize>() -> Arena<BYTES> {
    Arena::new()
}

/// `omp::barrier!()`: waits for the team's other threads and starts the next phase.
pub fn barrier(phase: &mut u32) {
    team_local::barrier::<HostTeam>(phase);
}

/// Runs the collapsed nest of an SPMD region with barriers, whose first dimensions count its teams and whose last
/// `thread_dims` count its threads (`[teams, threads]`, or either split in two, see `omp_rs_codegen::desugar::spmd`): unit
/// `team · threads + thread` on thread `thread` of its team (see the module's docs). Returns each team thread's
/// reduction copy (one per thread of each OS thread's teams), as [`super::parallel_for`] does.
pub fn team_for<const D: usize, R, A, F>(counts: [u64; D], thread_dims: usize, init: R, arrays: A, body: F) -> Vec<R>
where
    R: Copy + Send + Sync,
    A: DisjointArrays<D>,
    F: Fn(Chunk<D>, &mut R, A::Views) + Sync,
{
    crate::icv::display_env_once();
    let split = D.saturating_sub(thread_dims);
    let (teams, threads) = (counts[..split].iter().product::<u64>(), counts[split..].iter().product::<u64>());
    let n = usize::try_from(threads).ok().filter(|&t| t < team_local::MAX_TEAM).unwrap_or_else(|| {
        panic!("omp: SPMD regions with barriers or team-local arrays have at most 2047 threads per team, not {threads}")
    });
    let outer = position();
    let (level, active_level) = (outer.map_or(0, |p| p.level) + 1, outer.map_or(0, |p| p.active_level) + usize::from(n > 1));
    let workers = if super::runs_on_its_thread(outer) {
        1
    } else {
        crate::icv::num_threads().min(usize::try_from(teams).unwrap_or(usize::MAX)).max(1)
    };
    let stop = AtomicBool::new(false);
    let work = |worker: usize| -> Vec<R> {
        let first = worker as u64;
        let team_ids = (first..teams).step_by(workers);
        let run_unit = |team: u64, t: usize, acc: &mut R| {
            let unit = team * threads + t as u64;
            // Each unit is one (team, thread) pair, handed out once, so the views own disjoint elements.
            body(Chunk { first: unit, last: unit + 1, counts }, acc, arrays.views(unit, unit + 1, sharing::Token(())));
        };
        let pos = |t: usize| TeamPosition { thread_num: t, num_threads: n, level, active_level };
        run_teams(n, team_ids, init, &stop, pos, run_unit)
    };
    if workers == 1 {
        return work(0);
    }
    super::team::run(workers, work).into_iter().flatten().collect()
}

/// Runs `teams` one after another on the calling OS thread, each as `n` team threads (coroutines) that call
/// `run_unit(team, thread, acc)` in turn between barriers; returns each thread's `acc`.
fn run_teams<R: Copy>(
    n: usize,
    teams: impl Iterator<Item = u64> + Clone,
    init: R,
    stop: &AtomicBool,
    pos: impl Fn(usize) -> TeamPosition,
    run_unit: impl Fn(u64, usize, &mut R),
) -> Vec<R> {
    let shared = Shared { threads: n as u32, memory: (0..MAX_BYTES / 16).map(|_| UnsafeCell::new(0)).collect() };
    let mut stacks = STACKS.with(|s| std::mem::take(&mut *s.borrow_mut()));
    while stacks.len() < n {
        stacks.push(DefaultStack::new(STACK_BYTES).unwrap_or_else(|e| panic!("omp: cannot map a team thread's stack: {e}")));
    }
    let (run_unit, shared_ref) = (&run_unit, &shared);
    // Set between teams only (every thread at its unit's end), so that a team's threads all see the same value.
    let halt = Cell::new(false);
    let halt = &halt;
    // A region nested in a team thread runs here too: the enclosing thread's values come back at the end.
    let saved = (CURRENT.with(Cell::get), ME.with(Cell::get), YIELDER.with(Cell::get));
    let outcome = {
        let mut threads: Vec<Coroutine<(), Arrival, R, &mut DefaultStack>> = stacks[..n]
            .iter_mut()
            .enumerate()
            .map(|(t, stack)| {
                let teams = teams.clone();
                let thread = move |y: &ThreadYielder, ()| {
                    YIELDER.with(|c| c.set(y));
                    let mut acc = init;
                    for team in teams {
                        if halt.get() {
                            break;
                        }
                        run_unit(team, t, &mut acc);
                        // The team's end: the next team reuses the team memory.
                        arrive(Arrival::UnitEnd);
                    }
                    acc
                };
                // SAFETY: `thread` borrows `run_unit`, `halt` and the teams' iterator's captures, all of which outlive
                // `threads`: it is a local dropped at the end of this block, on every path (a panic drops it while
                // unwinding, before those borrows end), and never forgotten. Dropping a suspended coroutine unwinds
                // its stack first.
                unsafe { Coroutine::with_stack_unchecked(stack, thread) }
            })
            .collect();
        CURRENT.with(|c| c.set(shared_ref));
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut results: Vec<Option<R>> = vec![None; n];
            loop {
                let (mut waiting, mut ended) = (None, 0);
                for (t, thread) in threads.iter_mut().enumerate() {
                    ME.with(|m| m.set(t as u32));
                    let step = {
                        let _pos = PositionGuard::enter(pos(t));
                        let step = thread.resume(());
                        YIELDER.with(|c| c.set(std::ptr::null()));
                        step
                    };
                    match step {
                        CoroutineResult::Yield(kind) => {
                            if waiting.is_some_and(|w| w != kind) {
                                mismatched_barriers(t);
                            }
                            waiting = Some(kind);
                        }
                        CoroutineResult::Return(acc) => {
                            results[t] = Some(acc);
                            ended += 1;
                        }
                    }
                }
                if ended == n {
                    return results.into_iter().flatten().collect::<Vec<R>>();
                }
                if ended != 0 {
                    // Some threads ended their unit while the others wait at a barrier: name one that ended.
                    mismatched_barriers(results.iter().position(Option::is_some).unwrap_or(0));
                }
                if waiting == Some(Arrival::UnitEnd) && stop.load(Ordering::Relaxed) {
                    // Another OS thread's team panicked: start no further team.
                    halt.set(true);
                }
            }
        }));
        drop(threads);
        CURRENT.with(|c| c.set(saved.0));
        ME.with(|c| c.set(saved.1));
        YIELDER.with(|c| c.set(saved.2));
        outcome
    };
    STACKS.with(|s| *s.borrow_mut() = stacks);
    match outcome {
        Ok(accs) => accs,
        Err(p) => {
            stop.store(true, Ordering::Relaxed);
            resume_unwind(p)
        }
    }
}

#[cold]
fn mismatched_barriers(thread: usize) -> ! {
    panic!(
        "omp: the threads of an SPMD region's team reached different barriers (thread {thread} did not stop where the \
         others did): every thread of a team must reach each `omp::barrier!()`, none may leave the `parallel` block \
         while others wait at one"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each (team, thread) runs `f(team, thread, phase, arena)` as a team body, and returns nothing.
    fn run_teams(teams: u64, threads: u64, f: impl Fn(u64, u32, &mut u32, &mut Arena<4096>) + Sync) {
        team_for([teams, threads], 1, (), (), |chunk, _, ()| {
            let unit = chunk.first;
            let mut arena = new_arena::<4096>();
            let mut phase = 0;
            f(unit / threads, unit as u32 % threads as u32, &mut phase, &mut arena);
        });
    }

    #[test]
    fn barriers_order_the_phases_of_every_team() {
        let out: Vec<std::sync::atomic::AtomicU64> = (0..6 * 16).map(|_| Default::default()).collect();
        run_teams(6, 16, |team, t, phase, arena| {
            let s = arena.array::<u64, 1>("s", [16], 0, false);
            *phase = arena.start();
            s.write(*phase, [t as usize], team * 100 + u64::from(t));
            barrier(phase);
            let v = s.read(*phase, [15 - t as usize]);
            out[(team * 16 + u64::from(t)) as usize].store(v, std::sync::atomic::Ordering::Relaxed);
        });
        let got: Vec<u64> = out.iter().map(|v| v.load(std::sync::atomic::Ordering::Relaxed)).collect();
        let want: Vec<u64> = (0..6 * 16).map(|u| (u / 16) * 100 + 15 - u % 16).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn threads_that_reach_different_barriers_panic_with_the_rule() {
        let message = |p: Box<dyn std::any::Any + Send>| {
            p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
        };
        // One thread waits at a barrier while the others end their unit.
        let one = std::panic::catch_unwind(|| {
            run_teams(3, 4, |_, t, phase, _| {
                if t == 2 {
                    barrier(phase);
                }
            })
        });
        assert!(message(one.unwrap_err()).contains("reached different barriers"));
        // A panic while the team's other threads wait at a barrier: their stacks unwind, the panic reaches the caller.
        let dropped = std::sync::atomic::AtomicU32::new(0);
        struct Counted<'a>(&'a std::sync::atomic::AtomicU32);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let boom = std::panic::catch_unwind(AssertUnwindSafe(|| {
            run_teams(1, 8, |_, t, phase, _| {
                let _guard = Counted(&dropped);
                barrier(phase);
                assert!(t != 5, "thread 5 fails");
                barrier(phase);
            })
        }));
        assert!(message(boom.unwrap_err()).contains("thread 5 fails"));
        assert_eq!(dropped.load(std::sync::atomic::Ordering::Relaxed), 8, "every thread's frame was unwound");
        // The same team runs again afterwards on the kept stacks.
        let out: Vec<std::sync::atomic::AtomicU64> = (0..4 * 32).map(|_| Default::default()).collect();
        run_teams(4, 32, |team, t, phase, arena| {
            let s = arena.array::<u64, 1>("s", [32], 0, false);
            *phase = arena.start();
            s.write(*phase, [t as usize], team);
            barrier(phase);
            out[(team * 32 + u64::from(t)) as usize].store(s.read(*phase, [31 - t as usize]) + 1, std::sync::atomic::Ordering::Relaxed);
        });
        assert!(out.iter().enumerate().all(|(u, v)| v.load(std::sync::atomic::Ordering::Relaxed) == u as u64 / 32 + 1));
    }

    #[test]
    fn a_region_nested_in_a_team_thread_leaves_the_team_barriers_working() {
        let out: Vec<std::sync::atomic::AtomicU64> = (0..3 * 4).map(|_| Default::default()).collect();
        run_teams(3, 4, |team, t, phase, arena| {
            let s = arena.array::<u64, 1>("s", [4], 0, false);
            *phase = arena.start();
            // A nested SPMD region on this team thread (it runs serially here, with its own barrier).
            run_teams(2, 2, |_, _, inner, _| barrier(inner));
            s.write(*phase, [t as usize], team * 10 + u64::from(t));
            barrier(phase);
            out[(team * 4 + u64::from(t)) as usize].store(s.read(*phase, [3 - t as usize]), std::sync::atomic::Ordering::Relaxed);
        });
        let got: Vec<u64> = out.iter().map(|v| v.load(std::sync::atomic::Ordering::Relaxed)).collect();
        assert_eq!(got, (0..12u64).map(|u| (u / 4) * 10 + 3 - u % 4).collect::<Vec<_>>());
    }

    #[test]
    fn conflicting_accesses_between_two_barriers_panic() {
        // A read of another thread's element where the array is written (checked reads).
        let read = std::panic::catch_unwind(|| {
            run_teams(2, 8, |_, t, phase, arena| {
                let s = arena.array::<u32, 1>("s", [9], 0, true);
                *phase = arena.start();
                s.write(*phase, [t as usize], t);
                let _ = s.read_checked(*phase, [t as usize + 1]);
            })
        });
        assert!(read.is_err());
        // Two writes of one element.
        let write = std::panic::catch_unwind(|| {
            run_teams(1, 4, |_, t, phase, arena| {
                let s = arena.array::<u32, 1>("s", [4], 0, false);
                *phase = arena.start();
                s.write(*phase, [0], t);
            })
        });
        assert!(write.is_err());
        // A plain read in a phase another thread writes in (what a wrong analysis would give) panics too.
        let plain = std::panic::catch_unwind(|| {
            run_teams(1, 2, |_, t, phase, arena| {
                let s = arena.array::<u32, 1>("s", [2], 0, false);
                *phase = arena.start();
                if t == 0 {
                    s.write(*phase, [0], 1);
                } else {
                    let _ = s.read(*phase, [1]);
                }
            })
        });
        assert!(plain.is_err());
        // Atomic updates mix with each other, not with a read of the same phase.
        run_teams(2, 8, |_, t, phase, arena| {
            let s = arena.array::<f64, 1>("s", [2], 0.0, false);
            *phase = arena.start();
            s.atomic_add(*phase, [t as usize % 2], 1.5);
            barrier(phase);
            assert_eq!(s.read(*phase, [t as usize % 2]), 6.0);
        });
        let mixed = std::panic::catch_unwind(|| {
            run_teams(1, 2, |_, t, phase, arena| {
                let s = arena.array::<u32, 1>("s", [1], 0, false);
                *phase = arena.start();
                if t == 0 {
                    s.atomic_add(*phase, [0], 1);
                } else {
                    let _ = s.read(*phase, [0]);
                }
            })
        });
        assert!(mixed.is_err());
        // A thread's claim of an element covers its own further accesses, never another thread's.
        run_teams(2, 8, |_, t, phase, arena| {
            let s = arena.array::<u32, 1>("s", [8], 0, true);
            *phase = arena.start();
            for k in 0..5 {
                let v = s.read_checked(*phase, [t as usize]);
                s.write(*phase, [t as usize], v + k);
            }
            barrier(phase);
            assert_eq!(s.read(*phase, [t as usize]), 10);
        });
        let claimed = std::panic::catch_unwind(|| {
            run_teams(1, 2, |_, t, phase, arena| {
                let s = arena.array::<u32, 1>("s", [1], 0, true);
                *phase = arena.start();
                if t == 0 {
                    for _ in 0..100 {
                        s.write(*phase, [0], 1);
                    }
                } else {
                    for _ in 0..100 {
                        let _ = s.read_checked(*phase, [0]);
                    }
                }
            })
        });
        assert!(claimed.is_err());
        // An element's own thread may read what it wrote in the same phase.
        run_teams(3, 8, |_, t, phase, arena| {
            let s = arena.array::<u32, 1>("s", [8], 0, true);
            *phase = arena.start();
            s.write(*phase, [t as usize], t + 1);
            assert_eq!(s.read_checked(*phase, [t as usize]), t + 1);
        });
    }
}
