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
    fn __omp_rs_team_barrier();
}

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
