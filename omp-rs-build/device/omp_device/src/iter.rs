//! `for` loops over stepped ranges in kernels: what `(start..end).step_by(step)` in a kernel body becomes.
//!
//! `core`'s `StepBy` over an integer range counts its values when it is made (`(end - start).div_ceil(step)`): for
//! `usize` a 64-bit division, some sixty instructions per GPU thread, which a grid-stride loop that reads four
//! values per thread (C's `for (i = row; i < n; i += stride)`) pays once per thread. [`step_by`] yields the same
//! values, `start, start + step, ...` below `end`, with an addition and a comparison per value, and panics for a
//! step of 0 as `step_by(0)` does. The code generator writes it only for the iterable of a `for` loop whose
//! receiver is a parenthesised half-open range (`for i in (a..b).step_by(s)`): there `step_by` can only be
//! `Iterator::step_by` on a `core::ops::Range`, whose values this reproduces.

use core::ops::Range;

/// The values of `(range.start..range.end).step_by(step)`, as `core` yields them.
#[inline(always)]
#[track_caller]
pub fn step_by<T: Stepped>(range: Range<T>, step: usize) -> T::Iter {
    assert!(step != 0, "assertion failed: step != 0");
    T::step_by(range, step)
}

/// Types whose ranges [`step_by`] steps through: the integers (by offsets from the start, without division) and
/// `char` (through `core`'s `StepBy`, which skips the surrogates).
pub trait Stepped: Sized {
    /// The iterator.
    type Iter: Iterator<Item = Self>;
    /// The iterator over `range` by `step` (not 0).
    fn step_by(range: Range<Self>, step: usize) -> Self::Iter;
}

/// An integer range's values by a step: `start + offset` while `offset < len`, `offset` growing by `step` and
/// saturating at the offset type's maximum, which is not below `len`, so that a saturated sum ends the loop just
/// as the exact one would.
#[derive(Debug, Clone)]
pub struct IntStepBy<T, U> {
    start: T,
    offset: U,
    len: U,
    step: U,
}

macro_rules! stepped_int {
    ($($t:ty => $u:ty),* $(,)?) => {$(
        impl Stepped for $t {
            type Iter = IntStepBy<$t, $u>;
            #[inline(always)]
            fn step_by(range: Range<$t>, step: usize) -> Self::Iter {
                // The distance as the unsigned type of the same width: exact for any `start < end`.
                let len = if range.start < range.end { range.end.wrapping_sub(range.start) as $u } else { 0 };
                // A step beyond the offset type's range passes `len` at once, as its maximum does.
                let step = <$u>::try_from(step).unwrap_or(<$u>::MAX);
                IntStepBy { start: range.start, offset: 0, len, step }
            }
        }

        impl Iterator for IntStepBy<$t, $u> {
            type Item = $t;
            #[inline(always)]
            fn next(&mut self) -> Option<$t> {
                if self.offset < self.len {
                    let value = self.start.wrapping_add(self.offset as $t);
                    self.offset = self.offset.saturating_add(self.step);
                    Some(value)
                } else {
                    None
                }
            }
        }
    )*};
}

stepped_int!(
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize,
);

impl Stepped for char {
    type Iter = core::iter::StepBy<Range<char>>;
    #[inline(always)]
    fn step_by(range: Range<char>, step: usize) -> Self::Iter {
        range.step_by(step)
    }
}
