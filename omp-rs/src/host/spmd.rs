//! SPMD regions with barriers or team-local arrays on the host: the region's (team, thread) pairs run as teams of
//! `threads` OS threads (the region's team size), one team after another, each thread of a team running its pair's
//! unit of the loop nest. A barrier is a [`SpinBarrier`] of the team; team-local arrays live in one buffer of the
//! region's, reused by each team in turn; their accesses are checked by `omp_rs_abi::team_local`, as in the kernels.
//!
//! A thread that panics poisons the barrier, so that its team's other threads stop instead of waiting for it; the
//! panic reaches the caller. The teams run in order on one team of threads: these regions are written for GPUs
//! (a team of 256 threads is 256 OS threads here, which take turns on the cores at every barrier), and the host path
//! is there to run them everywhere with the same results, not fast.

use std::cell::{Cell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use omp_rs_abi::team_local::{self, Poisoned, SpinBarrier, Team, MAX_BYTES};

use super::team::{position, PositionGuard, TeamPosition};
use super::{sharing, Chunk, DisjointArrays};

/// The host's teams (see the module's docs).
#[derive(Debug)]
pub struct HostTeam;

/// What the threads of one region share.
struct Shared {
    barrier: SpinBarrier,
    memory: Box<[UnsafeCell<u128>]>,
}

// SAFETY: `memory` is reached only through team-local arrays' handles, whose accesses are checked against each other
// (`omp_rs_abi::team_local`); the barrier is atomics.
unsafe impl Sync for Shared {}

thread_local! {
    static CURRENT: Cell<*const Shared> = const { Cell::new(std::ptr::null()) };
    static ME: Cell<u32> = const { Cell::new(0) };
}

/// The region the calling thread runs a unit of, and its thread number (`None` outside [`team_for`]).
fn current() -> Option<(&'static Shared, u32)> {
    let s = CURRENT.with(Cell::get);
    // SAFETY: set by `team_for` to its `Shared`, which outlives the team's run, and cleared before it returns.
    (!s.is_null()).then(|| (unsafe { &*s }, ME.with(Cell::get)))
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
        current().map_or((0, 1), |(s, me)| (me, s.barrier.size()))
    }

    fn barrier() {
        if let Some((s, _)) = current() {
            if s.barrier.wait(std::thread::yield_now, || {}).is_err() {
                // Another thread of the team panicked: stop without a message of this thread's own.
                resume_unwind(Box::new(Poisoned));
            }
        }
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
/// `team · threads + thread` on thread `thread` of a team of `threads` OS threads, teams in order. Returns each
/// thread's reduction copy, as [`super::parallel_for`] does.
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
    let shared = Shared { barrier: SpinBarrier::new(n as u32), memory: (0..MAX_BYTES / 16).map(|_| UnsafeCell::new(0)).collect() };
    let outer = position();
    let (level, active_level) = (outer.map_or(0, |p| p.level) + 1, outer.map_or(0, |p| p.active_level) + usize::from(n > 1));
    let run = |thread: usize| -> R {
        let _pos = PositionGuard::enter(TeamPosition { thread_num: thread, num_threads: n, level, active_level });
        CURRENT.with(|c| c.set(&shared));
        ME.with(|m| m.set(thread as u32));
        let mut acc = init;
        let work = AssertUnwindSafe(|| {
            for team in 0..teams {
                let unit = team * threads + thread as u64;
                // Each unit is one (team, thread) pair, handed out once, so the views own disjoint elements.
                body(Chunk { first: unit, last: unit + 1, counts }, &mut acc, arrays.views(unit, unit + 1, sharing::Token(())));
                // The team's end: the next team reuses the team memory.
                HostTeam::barrier();
            }
        });
        let outcome = catch_unwind(work);
        CURRENT.with(|c| c.set(std::ptr::null()));
        match outcome {
            Ok(()) => acc,
            // The thread that panicked reports; this one's copy is never combined.
            Err(p) if p.is::<Poisoned>() => acc,
            Err(p) => {
                shared.barrier.poison();
                resume_unwind(p)
            }
        }
    };
    if n == 1 {
        return vec![run(0)];
    }
    super::team::run(n, run)
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
