//! Team-wide synchronisation and the team's shared scratch memory.
//!
//! Rust has no address-space attribute for statics, so the shared (`addrspace(3)`) buffer and
//! the barrier live in a small per-target LLVM IR helper that omp-rs-build links next to this
//! library (`__omp_rs_team_scratch`, `__omp_rs_team_barrier`, `__omp_rs_thread_exit`,
//! `__omp_rs_atomic_fadd_*`).
//!
//! **Barriers and panicked threads.** A thread that panics ends itself (PTX `exit`, AMD
//! `s_endpgm`). The barrier is PTX `barrier.sync 0` without a thread count, which waits only
//! for *non-exited* threads (PTX ISA, `barrier` and `exit`), and AMD `s_barrier`, which waits only
//! for surviving waves; so a team whose threads panicked before a barrier does not hang. No
//! full-mask warp shuffles are used for the same reason (`shfl.sync` with an exited lane in the
//! mask is undefined).

/// Bytes of team scratch: 256 slots of 16 bytes (enough for `team_reduce` of any type up to 16 B).
pub const SCRATCH_BYTES: usize = SCRATCH_SLOTS * SCRATCH_SLOT_BYTES;
/// Slots in the team scratch.
pub const SCRATCH_SLOTS: usize = 256;
/// Size and alignment of one scratch slot.
pub const SCRATCH_SLOT_BYTES: usize = 16;

#[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
extern "C" {
    fn __omp_rs_team_scratch() -> *mut u8;
    fn __omp_rs_team_arena() -> *mut u8;
    fn __omp_rs_team_barrier();
}

/// Bytes of the team's arena ([`TeamArena`]).
pub use crate::abi_shared::TEAM_ARENA_BYTES;

/// Waits until every (non-exited) thread of the team has arrived; orders the team's memory
/// accesses around it (workgroup scope). No-op on the host (one thread per team).
///
/// Every thread of the team must call it the same number of times.
#[inline(always)]
pub fn barrier() {
    #[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
    // SAFETY: a convergent barrier from the IR helper; no memory is touched.
    unsafe {
        __omp_rs_team_barrier()
    }
}

/// Generic pointer to the team's [`SCRATCH_BYTES`] bytes of shared memory (16-byte aligned).
///
/// Used by [`crate::reduce::team_reduce`]; code that uses it too must not overlap a
/// `team_reduce` call. `None` on the host.
#[inline(always)]
pub fn scratch() -> Option<*mut u8> {
    #[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
    // SAFETY: returns the address of a module global.
    return Some(unsafe { __omp_rs_team_scratch() });
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return None;
}

/// The team's arena: shared memory that a kernel hands out to team-combined arrays ([`crate::view::TeamAdds`]),
/// front to back, 16-byte aligned. Every thread of the team runs the same calls in the same order with the same
/// lengths, so every thread gets the same pieces.
#[derive(Debug)]
pub struct TeamArena {
    used: usize,
}

impl TeamArena {
    /// The whole arena, nothing handed out.
    #[inline(always)]
    pub const fn new() -> Self {
        TeamArena { used: 0 }
    }

    /// `n` elements of `T`, each set to `zero` by the team, or `None` when they do not fit (or on the host). Called by
    /// every thread of the team (it ends with a [`barrier`]).
    #[inline(always)]
    pub fn zeroed<T: Copy>(&mut self, n: usize, zero: T) -> Option<*mut T> {
        let bytes = n.checked_mul(core::mem::size_of::<T>())?;
        let start = self.used.next_multiple_of(16);
        if core::mem::align_of::<T>() > 16 || start + bytes > TEAM_ARENA_BYTES {
            return None;
        }
        let base = arena()?;
        self.used = start + bytes;
        // SAFETY: `start + bytes` fits in the arena, `start` is 16-byte aligned (so aligned for `T`).
        let p = unsafe { base.add(start) } as *mut T;
        let (me, step) = (crate::launch::thread_in_team() as usize, crate::launch::team_size() as usize);
        let mut j = me;
        while j < n {
            // SAFETY: `j < n`: inside this piece, which only this team's threads touch, each its own elements here.
            unsafe { p.add(j).write(zero) };
            j += step;
        }
        barrier();
        Some(p)
    }
}

impl Default for TeamArena {
    fn default() -> Self {
        Self::new()
    }
}

/// Generic pointer to the team's [`TEAM_ARENA_BYTES`] bytes of shared memory (16-byte aligned); `None` on the host.
#[inline(always)]
fn arena() -> Option<*mut u8> {
    #[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
    // SAFETY: returns the address of a module global.
    return Some(unsafe { __omp_rs_team_arena() });
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return None;
}
