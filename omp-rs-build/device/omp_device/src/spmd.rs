//! SPMD regions with barriers: the team's shared memory for team-local arrays, the barrier with the team's phase
//! number, and the kernel's one unit per thread.
//!
//! The checks of team-local accesses are [`crate::abi_shared::team_local`]'s (the host runtime uses the same ones);
//! here is where their memory comes from: a static shared buffer of the smallest of six sizes (2 to 48 KiB) that
//! holds the region's arrays (the IR helper declares them; a kernel is given only the one it reaches). On the host
//! (the libomptarget host plugin, which calls a kernel once) [`each_thread`] runs the team's threads as OS threads,
//! team after team, with a [`SpinBarrier`] and a heap buffer per launch.

use crate::abi_shared::team_local::{Team, TeamArray};

#[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
extern "C" {
    fn __omp_rs_team_fence();
    fn __omp_rs_spmd_arena_2k() -> *mut u8;
    fn __omp_rs_spmd_arena_4k() -> *mut u8;
    fn __omp_rs_spmd_arena_8k() -> *mut u8;
    fn __omp_rs_spmd_arena_16k() -> *mut u8;
    fn __omp_rs_spmd_arena_32k() -> *mut u8;
    fn __omp_rs_spmd_arena_48k() -> *mut u8;
}

/// The kernel's team: a GPU block / workgroup, or on the host the OS threads of [`each_thread`].
#[derive(Debug)]
pub struct KernelTeam;

#[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
impl Team for KernelTeam {
    #[inline(always)]
    fn team_fence() {
        // SAFETY: a fence from the IR helper (PTX `fence.sc.cta`, AMD workgroup `seq_cst`); no memory is touched.
        unsafe { __omp_rs_team_fence() }
    }

    #[inline(always)]
    fn memory<const BYTES: usize>() -> *mut u8 {
        // SAFETY: each returns the address of a module global of the IR helper; `BYTES` picks one at compile time.
        unsafe {
            if BYTES <= 2048 {
                __omp_rs_spmd_arena_2k()
            } else if BYTES <= 4096 {
                __omp_rs_spmd_arena_4k()
            } else if BYTES <= 8192 {
                __omp_rs_spmd_arena_8k()
            } else if BYTES <= 16384 {
                __omp_rs_spmd_arena_16k()
            } else if BYTES <= 32768 {
                __omp_rs_spmd_arena_32k()
            } else {
                __omp_rs_spmd_arena_48k()
            }
        }
    }

    #[inline(always)]
    fn position() -> (u32, u32) {
        (crate::launch::thread_in_team(), crate::launch::team_size())
    }

    #[inline(always)]
    fn barrier() {
        crate::team::barrier();
    }

    #[inline(always)]
    unsafe fn add_f32(p: *mut f32, value: f32) {
        // SAFETY: `p` points into the team's shared memory (the caller's promise); the IR helper's shared-memory
        // `atomicrmw fadd`.
        unsafe { <f32 as crate::atomic::AtomicScalar>::__team_add(p, value) };
    }

    #[inline(always)]
    unsafe fn add_f64(p: *mut f64, value: f64) {
        // SAFETY: as above.
        unsafe { <f64 as crate::atomic::AtomicScalar>::__team_add(p, value) };
    }
}

/// The region's team memory.
pub type Arena<const BYTES: usize> = crate::abi_shared::team_local::Arena<KernelTeam, BYTES>;
/// A team-local array of the kernel.
pub type TeamLocal<T, const D: usize> = TeamArray<T, D, KernelTeam>;
/// Bytes of `len` elements of `T` with their stamps (for the region's `Arena::<BYTES>`).
pub use crate::abi_shared::team_local::{bytes, TeamLocalElement};

/// The region's team memory, `BYTES` bytes (the sum of its arrays' [`bytes`]).
#[inline(always)]
pub fn new_arena<const BYTES: usize>() -> Arena<BYTES> {
    Arena::new()
}

/// `omp::barrier!()`: waits for the team's other threads and starts the next phase.
#[inline(always)]
pub fn barrier(phase: &mut u32) {
    crate::abi_shared::team_local::barrier::<KernelTeam>(phase);
}

/// Runs `unit(u, team, thread)` for the calling thread's unit `u = team · threads + thread` of a kernel whose
/// `units` units are its teams' threads, `threads` per team: the launch must be that grid (a team body's barriers
/// need every thread of the team, each with its own unit), else the kernel panics.
#[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
#[inline(always)]
pub fn each_thread(units: u64, threads: u64, unit: impl Fn(u64, u64, u64)) {
    use crate::launch::{num_teams, team_id, team_size, thread_in_team};
    if u64::from(team_size()) != threads || u64::from(num_teams()) * threads != units {
        wrong_grid(units, threads);
    }
    let (team, thread) = (u64::from(team_id()), u64::from(thread_in_team()));
    unit(team * threads + thread, team, thread);
}

#[cold]
#[inline(never)]
fn wrong_grid(units: u64, threads: u64) -> ! {
    panic!(
        "omp: this SPMD region needs {} teams of exactly {threads} threads, one thread per (team, thread) pair; the device launched another grid",
        units / threads.max(1)
    )
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
pub use host::each_thread;

/// The host plugin's teams: OS threads, one per thread of the team.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
mod host {
    use std::cell::{Cell, UnsafeCell};
    use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

    use crate::abi_shared::team_local::{Poisoned, SpinBarrier, Team as TeamApi, MAX_BYTES};

    impl TeamApi for super::KernelTeam {
        fn team_fence() {
            std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        }

        fn memory<const BYTES: usize>() -> *mut u8 {
            match team() {
                Some((team, _)) => UnsafeCell::raw_get(team.memory.as_ptr()) as *mut u8,
                None => panic!("omp-rs internal error: a team-local array outside an SPMD kernel"),
            }
        }

        fn position() -> (u32, u32) {
            team().map_or((0, 1), |(t, me)| (me, t.barrier.size()))
        }

        fn barrier() {
            team_barrier();
        }
    }

    /// What the threads of one launch share.
    struct Team {
        barrier: SpinBarrier,
        memory: Box<[UnsafeCell<u128>]>,
    }

    // SAFETY: `memory` is reached only through the team-local arrays' handles, whose accesses are checked against
    // each other (`abi_shared::team_local`); the barrier is atomics.
    unsafe impl Sync for Team {}

    thread_local! {
        static TEAM: Cell<*const Team> = const { Cell::new(core::ptr::null()) };
        static ME: Cell<u32> = const { Cell::new(0) };
    }

    /// A `Sync` wrapper for the kernel's per-unit closure.
    struct Shared<F>(F);
    // SAFETY: the closure is the kernel's loop body, whose threads run concurrently on a GPU as they do here: its
    // captures (device views, ownership handles) are shared under the kernel's own rules (each thread reaches the
    // elements its ownership allows, team-local arrays through their checks), which do not depend on which OS
    // thread runs a unit.
    unsafe impl<F> Sync for Shared<F> {}

    /// The team's current thread number and shared state (`None` outside [`each_thread`]).
    fn team() -> Option<(&'static Team, u32)> {
        let t = TEAM.with(Cell::get);
        // SAFETY: set by `each_thread` to a `Team` that outlives the scope its threads run in, and cleared after.
        (!t.is_null()).then(|| (unsafe { &*t }, ME.with(Cell::get)))
    }

    fn team_barrier() {
        let Some((team, _)) = team() else { return };
        if team.barrier.wait(std::thread::yield_now, || {}) == Err(Poisoned) {
            resume_unwind(Box::new(Poisoned));
        }
    }

    /// Runs the kernel's units as `units / threads` teams of `threads` OS threads, team after team.
    pub fn each_thread(units: u64, threads: u64, unit: impl Fn(u64, u64, u64)) {
        let teams = units / threads.max(1);
        let team = Team { barrier: SpinBarrier::new(threads as u32), memory: (0..MAX_BYTES / 16).map(|_| UnsafeCell::new(0)).collect() };
        let (team, unit) = (&team, &Shared(unit));
        std::thread::scope(|s| {
            for me in 0..threads as u32 {
                s.spawn(move || {
                    let team_ptr: *const Team = team;
                    TEAM.with(|t| t.set(team_ptr));
                    ME.with(|m| m.set(me));
                    let mut failed = false;
                    crate::panic::host_guard(|| {
                        let work = AssertUnwindSafe(|| {
                            let unit = unit;
                            for k in 0..teams {
                                (unit.0)(k * threads + u64::from(me), k, u64::from(me));
                                team_barrier();
                            }
                        });
                        match catch_unwind(work) {
                            Ok(()) => {}
                            Err(p) if p.is::<Poisoned>() => {}
                            Err(p) => {
                                failed = true;
                                resume_unwind(p)
                            }
                        }
                    });
                    // After the guard recorded this thread's panic: then the others stop.
                    if failed {
                        team.barrier.poison();
                    }
                    TEAM.with(|t| t.set(core::ptr::null()));
                });
            }
        });
    }
}
