//! Reduction operators and the team-level combine (ARCHITECTURE.md "Reductions").
//!
//! The generated kernel keeps one private value per thread, starting at
//! `<Op as Reducer<T>>::identity()`, folds its iterations into it with `combine`, then calls
//! `team_reduce::<Op, T>(v)` from **every** thread of the team; thread 0 gets `Some(total)` and
//! writes `partials[team_id()]`. The host combines the partials with the original value.

use crate::launch::{team_size, thread_in_team};

/// The largest reduced type [`team_reduce`] combines: 32 slots of it fill the team scratch.
pub const MAX_REDUCED_BYTES: usize = crate::team::SCRATCH_BYTES / 32;

// The operators and their identities: one table for the host runtime and the kernels (`omp-rs-abi`).
pub use crate::abi_shared::reduce::{Add, BitAnd, BitOr, BitXor, LogAnd, LogOr, Max, Min, Mul, Reducer};

/// Combines `v` over all threads of the calling team; `Some(total)` on thread 0, `None` elsewhere.
///
/// **Every thread of the team must call it** (it contains team barriers), with the same `Op`/`T`.
/// GPUs: a deterministic tree over the team scratch (values first folded into `w` slots, then
/// halved; `w` = 256 for types up to 16 bytes, fewer for larger ones, which share the same bytes),
/// `ceil(team_size / w) + ceil(log2(min(team_size, w))) + 1` barriers, no warp shuffles, so threads
/// that ended through a panic cannot hang it (see [`crate::team`]).
/// Host: a team of one thread, returns `Some(v)`.
/// `T` must be at most [`MAX_REDUCED_BYTES`] bytes with alignment ≤ 16 (checked at compile time: a larger type of a
/// user-defined reduction fails the device build with the assertion's message).
#[inline(always)]
pub fn team_reduce<Op: Reducer<T>, T: Copy>(v: T) -> Option<T> {
    const {
        assert!(
            core::mem::size_of::<T>() <= MAX_REDUCED_BYTES && core::mem::align_of::<T>() <= crate::team::SCRATCH_SLOT_BYTES,
            "team_reduce: type larger than 128 bytes or aligned above 16"
        )
    };
    let Some(base) = crate::team::scratch() else {
        return Some(v);
    };
    let n = team_size() as usize;
    let t = thread_in_team() as usize;
    // Slots of the type's size (a multiple of its alignment, so every slot is aligned), at most 256 of them.
    let size = core::mem::size_of::<T>().max(1);
    let w = (crate::team::SCRATCH_BYTES / size).min(crate::team::SCRATCH_SLOTS);
    let slot = |k: usize| base.wrapping_add(k * size) as *mut T;
    // The scratch may still be read by a previous team_reduce of this kernel.
    crate::team::barrier();
    // Fold thread t into slot t % w, one chunk of w threads at a time (same order every launch).
    let chunks = n.div_ceil(w);
    let mut c = 0;
    while c < chunks {
        if t / w == c {
            let p = slot(t % w);
            // SAFETY: slot index < w, w * size <= SCRATCH_BYTES: inside the scratch; each slot has one writer per chunk.
            unsafe { *p = if c == 0 { v } else { Op::combine(*p, v) } };
        }
        crate::team::barrier();
        c += 1;
    }
    // Tree over the first m = min(n, w) slots.
    let mut m = if n < w { n } else { w };
    while m > 1 {
        let half = m.div_ceil(2);
        if t + half < m {
            // SAFETY: t < m - half, t + half < m <= w; slot t has one writer.
            unsafe { *slot(t) = Op::combine(*slot(t), *slot(t + half)) };
        }
        crate::team::barrier();
        m = half;
    }
    if t == 0 {
        // SAFETY: slot 0 holds the team total after the last barrier.
        Some(unsafe { *slot(0) })
    } else {
        None
    }
}
