//! The iteration space of one loop: `Dim` mirrors `a..b`, `a..=b`, `.step_by(s)` and `.rev()` exactly, so
//! the expansion of `for i in (a..b).step_by(s)` visits the same values as the sequential loop, in a form that
//! can be split into chunks (`at(k)` is the k-th value).

use std::ops::{Range, RangeInclusive};

/// Integer types a parallel loop can count with.
pub trait LoopIndex: Copy + PartialOrd + Send + Sync + 'static {
    /// Number of values in `lo..hi` (0 when empty).
    fn distance(lo: Self, hi: Self) -> u64;
    /// `self + k` (ascending) or `self - k` (descending) for an offset that lands inside the range.
    fn offset(self, k: u64, descending: bool) -> Self;
    /// The value as `i128`, for disjointness checks.
    fn to_i128(self) -> i128;
}

macro_rules! loop_index {
    ($($t:ty),*) => {$(
        impl LoopIndex for $t {
            #[inline]
            fn distance(lo: Self, hi: Self) -> u64 {
                if hi <= lo {
                    return 0;
                }
                let d = (hi as i128) - (lo as i128);
                u64::try_from(d).unwrap_or_else(|_| panic!("omp: a parallel loop of {d} iterations is too long (at most 2^64 - 1)"))
            }
            #[inline(always)]
            fn offset(self, k: u64, descending: bool) -> Self {
                // Wrapping arithmetic on the type is exact here: the true result lies inside the range.
                if descending { self.wrapping_sub(k as $t) } else { self.wrapping_add(k as $t) }
            }
            #[inline]
            fn to_i128(self) -> i128 {
                self as i128
            }
        }
    )*};
}
loop_index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, i128, u128);

/// One dimension of a loop nest: `count` values `start, start ± step, ...`.
#[derive(Debug, Clone, Copy)]
pub struct Dim<T> {
    start: T,
    count: u64,
    step: u64,
    descending: bool,
}

impl<T: LoopIndex> From<Range<T>> for Dim<T> {
    fn from(r: Range<T>) -> Self {
        Dim { start: r.start, count: T::distance(r.start, r.end), step: 1, descending: false }
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
        Dim { start: lo, count, step: 1, descending: false }
    }
}

impl<T: LoopIndex> Dim<T> {
    /// `.step_by(s)`: every s-th value, starting with the first (panics on 0, like `Iterator::step_by`).
    pub fn step_by(self, s: usize) -> Self {
        assert!(s != 0, "omp: `step_by(0)` in a parallel loop (the step must be positive)");
        let s = s as u64;
        let count = if self.count == 0 { 0 } else { (self.count - 1) / s + 1 };
        let step = self.step.checked_mul(s).unwrap_or_else(|| panic!("omp: loop step overflows"));
        Dim { count, step, ..self }
    }

    /// `.rev()`: the same values, last first.
    pub fn rev(self) -> Self {
        if self.count == 0 {
            return self;
        }
        Dim { start: self.at(self.count - 1), descending: !self.descending, ..self }
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
        self.start.offset(k.wrapping_mul(self.step), self.descending)
    }

    /// The first value (meaningless when `count == 0`).
    pub fn first(&self) -> T {
        self.start
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
    fn unsigned_extremes() {
        assert_eq!(values(Dim::from(250u8..=255)), (250u8..=255).collect::<Vec<_>>());
        assert_eq!(values(Dim::from(0usize..3).rev()), vec![2, 1, 0]);
        assert_eq!(Dim::from(5u32..2).count(), 0);
    }
}
