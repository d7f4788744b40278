//! `for` loops over stepped ranges in kernels: what `(start..end).step_by(step)` in a kernel body becomes.
//!
//! `core`'s `StepBy` over an integer range counts its values when it is made (`(end - start).div_ceil(step)`): for
//! `usize` a 64-bit division, some sixty instructions per GPU thread, which a grid-stride loop that reads four
//! values per thread (C's `for (i = row; i < n; i += stride)`) pays once per thread. [`step_by`] yields the same
//! values, `start, start + step, ...` below `end`, with an addition and a comparison per value, and panics for a
//! step of 0 as `step_by(0)` does. The code generator writes it only for the iterable of a `for` loop whose
//! receiver is a parenthesised half-open range (`for i in (a..b).step_by(s)`): there `step_by` can only be
//! `Iterator::step_by` on a `core::ops::Range`, whose values this reproduces. The item type is the range's type
//! parameter itself (as for `core`'s iterator), so the loop variable's type is still inferred from its uses
//! (`(0..16).step_by(4)` indexing a slice is a `usize` range).

use core::ops::Range;

/// The values of `(range.start..range.end).step_by(step)`, as `core` yields them.
#[inline(always)]
#[track_caller]
pub fn step_by<T: Stepped>(range: Range<T>, step: usize) -> StepBy<T> {
    assert!(step != 0, "assertion failed: step != 0");
    // The distance as an offset: exact for any `start < end`.
    let len = if range.start < range.end { T::offset(range.start, range.end) } else { T::Offset::default() };
    // A step beyond the offset type's range passes `len` at once, as the offset type's maximum does.
    StepBy { start: range.start, offset: T::Offset::default(), len, step: T::step(step) }
}

/// A range's values by a step: `start` moved by `offset` while `offset < len`, `offset` growing by `step` and
/// saturating at the offset type's maximum, which is not below `len`, so that a saturated sum ends the loop just
/// as the exact one would.
#[derive(Debug, Clone)]
pub struct StepBy<T: Stepped> {
    start: T,
    offset: T::Offset,
    len: T::Offset,
    step: T::Offset,
}

impl<T: Stepped> Iterator for StepBy<T> {
    type Item = T;

    #[inline(always)]
    fn next(&mut self) -> Option<T> {
        if self.offset < self.len {
            let value = T::moved(self.start, self.offset);
            self.offset = T::advance(self.offset, self.step);
            Some(value)
        } else {
            None
        }
    }
}

/// Types whose ranges [`step_by`] steps through: the integers, with offsets of the unsigned type of their width,
/// and `char`, with offsets counted without the surrogates (`U+D800..=U+DFFF`), as `core` steps it.
pub trait Stepped: Copy + PartialOrd {
    /// Distances between two values.
    type Offset: Copy + PartialOrd + Default;
    /// How far `end` lies past `start` (`start < end`).
    fn offset(start: Self, end: Self) -> Self::Offset;
    /// `step` as an offset, the offset type's maximum where it does not fit.
    fn step(step: usize) -> Self::Offset;
    /// `start` moved by `offset`, which lies below `end`'s offset.
    fn moved(start: Self, offset: Self::Offset) -> Self;
    /// `offset + step`, saturating.
    fn advance(offset: Self::Offset, step: Self::Offset) -> Self::Offset;
}

macro_rules! stepped_int {
    ($($t:ty => $u:ty),* $(,)?) => {$(
        impl Stepped for $t {
            type Offset = $u;
            #[inline(always)]
            fn offset(start: $t, end: $t) -> $u {
                end.wrapping_sub(start) as $u
            }
            #[inline(always)]
            fn step(step: usize) -> $u {
                <$u>::try_from(step).unwrap_or(<$u>::MAX)
            }
            #[inline(always)]
            fn moved(start: $t, offset: $u) -> $t {
                start.wrapping_add(offset as $t)
            }
            #[inline(always)]
            fn advance(offset: $u, step: $u) -> $u {
                offset.saturating_add(step)
            }
        }
    )*};
}

stepped_int!(
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize,
);

/// First code point of the surrogates, which `char` ranges skip, and how many there are.
const SURROGATES: (u32, u32) = (0xD800, 0x800);

/// A `char`'s position among the scalar values (the code point, less the surrogates below it).
#[inline(always)]
fn scalar_index(c: char) -> u32 {
    let c = c as u32;
    if c >= SURROGATES.0 {
        c - SURROGATES.1
    } else {
        c
    }
}

impl Stepped for char {
    type Offset = u32;
    #[inline(always)]
    fn offset(start: char, end: char) -> u32 {
        scalar_index(end) - scalar_index(start)
    }
    #[inline(always)]
    fn step(step: usize) -> u32 {
        u32::try_from(step).unwrap_or(u32::MAX)
    }
    #[inline(always)]
    fn moved(start: char, offset: u32) -> char {
        // Below `end`'s index: a scalar value's index, so the code point is valid.
        let index = scalar_index(start) + offset;
        let code = if index >= SURROGATES.0 { index + SURROGATES.1 } else { index };
        char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
    }
    #[inline(always)]
    fn advance(offset: u32, step: u32) -> u32 {
        offset.saturating_add(step)
    }
}
