//! The iteration space of one loop: `Dim` mirrors `a..b`, `a..=b`, `.step_by(s)` and `.rev()` exactly, so
//! the expansion of `for i in (a..b).step_by(s)` visits the same values as the sequential loop, in a form that
//! can be split into chunks (`at(k)` is the k-th value).

use std::ops::{Range, RangeInclusive};

/// Integer types a parallel loop can count with.
pub trait LoopIndex: Copy + PartialOrd + Send + Sync + 'static {
    /// Number of values in `lo..hi` (0 when empty).
    fn distance(lo: Self, hi: Self) -> u64;
    /// `self + k·step` in the type's wrapping arithmetic (`step` may be a negated step, see [`LoopIndex::negate`]).
    fn advance(self, k: u64, step: Self) -> Self;
    /// `step` as this type, negated for descending loops (two's complement, so `advance` subtracts).
    fn step_of(step: u64, descending: bool) -> Self;
    /// The value as `i128`, for disjointness checks.
    fn to_i128(self) -> i128;
    /// `start + first .. start + last` as a plain range, when its end is representable.
    fn shifted_range(start: Self, first: u64, last: u64) -> Option<std::ops::Range<Self>>;
    /// The type's smallest and largest values (`i128::MAX` for larger ones).
    fn bounds() -> (i128, i128);
    /// A number per type, so that a `const` can compare two loop types (`check::kernel_loop_type`).
    const KIND: u8;
}

macro_rules! loop_index {
    ($($t:ty = $kind:literal),*) => {$(
        impl LoopIndex for $t {
            const KIND: u8 = $kind;
            #[inline]
            fn distance(lo: Self, hi: Self) -> u64 {
                if hi <= lo {
                    return 0;
                }
                let d = (hi as i128) - (lo as i128);
                u64::try_from(d).unwrap_or_else(|_| panic!("omp: a parallel loop of {d} iterations is too long (at most 2^64 - 1)"))
            }
            #[inline(always)]
            fn advance(self, k: u64, step: Self) -> Self {
                // Wrapping arithmetic on the type is exact here: the true result lies inside the range. No branch,
                // so the loop over `at(k)` vectorises like a plain range loop.
                self.wrapping_add((k as $t).wrapping_mul(step))
            }
            #[inline]
            fn step_of(step: u64, descending: bool) -> Self {
                let s = step as $t;
                if descending { s.wrapping_neg() } else { s }
            }
            #[inline]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline]
            fn bounds() -> (i128, i128) {
                (<$t>::MIN as i128, i128::try_from(<$t>::MAX).unwrap_or(i128::MAX))
            }
            #[inline]
            fn shifted_range(start: Self, first: u64, last: u64) -> Option<std::ops::Range<Self>> {
                let end = (start as i128).checked_add(last as i128)?;
                if end > <$t>::MAX as i128 {
                    return None; // `a..=MAX`: the general path handles it
                }
                Some(start.wrapping_add(first as $t)..end as $t)
            }
        }
    )*};
}
loop_index!(u8 = 1, u16 = 2, u32 = 3, u64 = 4, usize = 5, i8 = 6, i16 = 7, i32 = 8, i64 = 9, isize = 10, i128 = 11, u128 = 12);

/// One dimension of a loop nest: `count` values `start, start ± step, ...`.
#[derive(Debug, Clone, Copy)]
pub struct Dim<T> {
    start: T,
    count: u64,
    step: u64,
    descending: bool,
    /// `step` in `T`, negated when descending.
    delta: T,
}

impl<T: LoopIndex> From<Range<T>> for Dim<T> {
    fn from(r: Range<T>) -> Self {
        Dim { start: r.start, count: T::distance(r.start, r.end), step: 1, descending: false, delta: T::step_of(1, false) }
    }
}

impl<T: LoopIndex> From<RangeInclusive<T>> for Dim<T> {
    fn from(r: RangeInclusive<T>) -> Self {
        let (lo, hi) = r.into_inner();
        let count = if hi < lo {
            0
        } else {
            T::distance(lo, hi).checked_add(1).unwrap_or_else(|| panic!("omp: a parallel loop of 2^64 iterations is too long"))
        };
        Dim { start: lo, count, step: 1, descending: false, delta: T::step_of(1, false) }
    }
}

impl<T: LoopIndex> Dim<T> {
    /// `.step_by(s)`: every s-th value, starting with the first (panics on 0, like `Iterator::step_by`).
    pub fn step_by(self, s: usize) -> Self {
        assert!(s != 0, "omp: `step_by(0)` in a parallel loop (the step must be positive)");
        let s = s as u64;
        let count = if self.count == 0 { 0 } else { (self.count - 1) / s + 1 };
        let step = self.step.checked_mul(s).unwrap_or_else(|| panic!("omp: loop step overflows"));
        Dim { count, step, delta: T::step_of(step, self.descending), ..self }
    }

    /// `.rev()`: the same values, last first.
    pub fn rev(self) -> Self {
        if self.count == 0 {
            return self;
        }
        let descending = !self.descending;
        Dim { start: self.at(self.count - 1), descending, delta: T::step_of(self.step, descending), ..self }
    }
}

impl<T: LoopIndex> Dim<T> {
    /// Number of iterations.
    #[inline]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The `k`-th value (`k < count`).
    #[inline(always)]
    pub fn at(&self, k: u64) -> T {
        self.start.advance(k, self.delta)
    }

    /// The values of iterations `ks` as a plain `a..b` range when the step is 1 and ascending: a loop over it
    /// compiles like the sequential one (vectorised, no index arithmetic).
    #[inline]
    pub fn unit_range(&self, ks: std::ops::Range<u64>) -> Option<std::ops::Range<T>> {
        if self.step == 1 && !self.descending {
            T::shifted_range(self.start, ks.start, ks.end)
        } else {
            None
        }
    }

    /// The first value (meaningless when `count == 0`).
    pub fn first(&self) -> T {
        self.start
    }

    /// The last value (the first when the loop is empty).
    #[inline]
    pub fn last(&self) -> T {
        self.at(self.count.saturating_sub(1))
    }

    /// The first value as the kernel ABI passes it (`omp_rs_abi::loop_slot`).
    pub fn slot_first(&self) -> i64 {
        omp_rs_abi::loop_slot(self.start.to_i128()) as i64
    }

    /// The step as the kernel ABI passes it (negative for descending loops).
    pub fn slot_step(&self) -> i64 {
        omp_rs_abi::loop_slot(self.signed_step()) as i64
    }

    /// The range of the loop variable's type, for index arithmetic done in it.
    pub fn type_bounds(&self) -> (i128, i128) {
        T::bounds()
    }

    /// The signed distance between consecutive values.
    pub fn signed_step(&self) -> i128 {
        if self.descending {
            -(self.step as i128)
        } else {
            self.step as i128
        }
    }
}

#[cfg(test)]
mod test {
    use super::Dim;

    fn values<T: super::LoopIndex>(d: Dim<T>) -> Vec<T> {
        (0..d.count()).map(|k| d.at(k)).collect()
    }

    #[test]
    fn mirrors_std_ranges() {
        for lo in -5i32..6 {
            for hi in -5i32..8 {
                assert_eq!(values(Dim::from(lo..hi)), (lo..hi).collect::<Vec<_>>());
                assert_eq!(values(Dim::from(lo..=hi)), (lo..=hi).collect::<Vec<_>>());
                for s in 1..5 {
                    assert_eq!(values(Dim::from(lo..hi).step_by(s)), (lo..hi).step_by(s).collect::<Vec<_>>());
                    assert_eq!(values(Dim::from(lo..hi).step_by(s).rev()), (lo..hi).step_by(s).rev().collect::<Vec<_>>());
                    assert_eq!(values(Dim::from(lo..hi).rev().step_by(s)), (lo..hi).rev().step_by(s).collect::<Vec<_>>());
                    assert_eq!(values(Dim::from(lo..=hi).rev().step_by(s)), (lo..=hi).rev().step_by(s).collect::<Vec<_>>());
                }
            }
        }
    }

    #[test]
    fn unit_ranges() {
        assert_eq!(Dim::from(3u32..10).unit_range(2..5), Some(5..8));
        assert_eq!(Dim::from(250u8..=255).unit_range(0..6), None);
        assert_eq!(Dim::from(250u8..=255).unit_range(0..5), Some(250..255));
        assert_eq!(Dim::from(0i32..10).step_by(2).unit_range(0..5), None);
        assert_eq!(Dim::from(0i32..10).rev().unit_range(0..5), None);
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)] // `5..2`: an empty range on purpose
    fn unsigned_extremes() {
        assert_eq!(values(Dim::from(250u8..=255)), (250u8..=255).collect::<Vec<_>>());
        assert_eq!(values(Dim::from(0usize..3).rev()), vec![2, 1, 0]);
        assert_eq!(Dim::from(5u32..2).count(), 0);
    }
}
