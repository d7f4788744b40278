//! Reduction operators and the team-level combine (ARCHITECTURE.md "Reductions").
//!
//! The generated kernel keeps one private value per thread, starting at
//! `<Op as Reducer<T>>::identity()`, folds its iterations into it with `combine`, then calls
//! `team_reduce::<Op, T>(v)` from **every** thread of the team; thread 0 gets `Some(total)` and
//! writes `partials[team_id()]`. The host combines the partials with the original value.

use crate::launch::{team_size, thread_in_team};

/// `+` (wrapping for integers).
#[derive(Debug, Clone, Copy, Default)]
pub struct Add;
/// `*` (wrapping for integers).
#[derive(Debug, Clone, Copy, Default)]
pub struct Mul;
/// `min` (floats: a NaN operand is ignored).
#[derive(Debug, Clone, Copy, Default)]
pub struct Min;
/// `max` (floats: a NaN operand is ignored).
#[derive(Debug, Clone, Copy, Default)]
pub struct Max;
/// `&` (integers, bool).
#[derive(Debug, Clone, Copy, Default)]
pub struct BitAnd;
/// `|` (integers, bool).
#[derive(Debug, Clone, Copy, Default)]
pub struct BitOr;
/// `^` (integers, bool).
#[derive(Debug, Clone, Copy, Default)]
pub struct BitXor;
/// `&&` (bool).
#[derive(Debug, Clone, Copy, Default)]
pub struct LogAnd;
/// `||` (bool).
#[derive(Debug, Clone, Copy, Default)]
pub struct LogOr;

/// A reduction operator on `T`: an identity and an associative, commutative combine.
pub trait Reducer<T> {
    /// The value that leaves any other unchanged under [`Reducer::combine`].
    fn identity() -> T;
    /// Combines two partial results.
    fn combine(a: T, b: T) -> T;
}

macro_rules! reducer {
    ($op:ty, $t:ty, $id:expr, |$a:ident, $b:ident| $e:expr) => {
        impl Reducer<$t> for $op {
            #[inline(always)]
            fn identity() -> $t {
                $id
            }
            #[inline(always)]
            fn combine($a: $t, $b: $t) -> $t {
                $e
            }
        }
    };
}

macro_rules! int_reducers {
    ($($t:ty)*) => {$(
        reducer!(Add, $t, 0, |a, b| a.wrapping_add(b));
        reducer!(Mul, $t, 1, |a, b| a.wrapping_mul(b));
        reducer!(Min, $t, <$t>::MAX, |a, b| if b < a { b } else { a });
        reducer!(Max, $t, <$t>::MIN, |a, b| if b > a { b } else { a });
        reducer!(BitAnd, $t, !0, |a, b| a & b);
        reducer!(BitOr, $t, 0, |a, b| a | b);
        reducer!(BitXor, $t, 0, |a, b| a ^ b);
    )*};
}
int_reducers!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

macro_rules! float_reducers {
    ($($t:ty)*) => {$(
        reducer!(Add, $t, 0.0, |a, b| a + b);
        reducer!(Mul, $t, 1.0, |a, b| a * b);
        reducer!(Min, $t, <$t>::INFINITY, |a, b| a.min(b));
        reducer!(Max, $t, <$t>::NEG_INFINITY, |a, b| a.max(b));
    )*};
}
float_reducers!(f32 f64);

reducer!(LogAnd, bool, true, |a, b| a && b);
reducer!(LogOr, bool, false, |a, b| a || b);
reducer!(BitAnd, bool, true, |a, b| a & b);
reducer!(BitOr, bool, false, |a, b| a | b);
reducer!(BitXor, bool, false, |a, b| a ^ b);

/// Combines `v` over all threads of the calling team; `Some(total)` on thread 0, `None` elsewhere.
///
/// **Every thread of the team must call it** (it contains team barriers), with the same `Op`/`T`.
/// GPUs: a deterministic tree over the team scratch (values first folded into 256 slots, then
/// halved), `ceil(team_size / 256) + ceil(log2(min(team_size, 256))) + 1` barriers, no warp
/// shuffles, so threads that ended through a panic cannot hang it (see [`crate::team`]).
/// Host: a team of one thread, returns `Some(v)`.
/// `T` must be at most 16 bytes with alignment ≤ 16 (checked at compile time).
#[inline(always)]
pub fn team_reduce<Op: Reducer<T>, T: Copy>(v: T) -> Option<T> {
    const {
        assert!(
            core::mem::size_of::<T>() <= crate::team::SCRATCH_SLOT_BYTES
                && core::mem::align_of::<T>() <= crate::team::SCRATCH_SLOT_BYTES,
            "team_reduce: type larger than a 16-byte scratch slot"
        )
    };
    let Some(base) = crate::team::scratch() else {
        return Some(v);
    };
    let n = team_size() as usize;
    let t = thread_in_team() as usize;
    let w = crate::team::SCRATCH_SLOTS;
    let slot = |k: usize| base.wrapping_add(k * crate::team::SCRATCH_SLOT_BYTES) as *mut T;
    // The scratch may still be read by a previous team_reduce of this kernel.
    crate::team::barrier();
    // Fold thread t into slot t % w, one chunk of w threads at a time (same order every launch).
    let chunks = n.div_ceil(w);
    let mut c = 0;
    while c < chunks {
        if t / w == c {
            let p = slot(t % w);
            // SAFETY: slot index < w, inside the scratch; each slot has one writer per chunk.
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
