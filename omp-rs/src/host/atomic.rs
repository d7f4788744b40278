//! The update operations of `#[omp::atomic]`: compare-and-swap in general, the hardware's fetch-and-op for
//! integers where it exists. Integer updates wrap on overflow, as the hardware instructions do.

use std::sync::atomic::Ordering;

use super::sharing::{AtomicElem, AtomicUpdate};

/// `x += v`
#[derive(Debug)]
pub struct Add;
/// `x -= v`
#[derive(Debug)]
pub struct Sub;
/// `x *= v`
#[derive(Debug)]
pub struct Mul;
/// `x /= v`
#[derive(Debug)]
pub struct Div;
/// `x &= v`
#[derive(Debug)]
pub struct BitAnd;
/// `x |= v`
#[derive(Debug)]
pub struct BitOr;
/// `x ^= v`
#[derive(Debug)]
pub struct BitXor;
/// `x = x.min(v)`
#[derive(Debug)]
pub struct Min;
/// `x = x.max(v)`
#[derive(Debug)]
pub struct Max;
/// `if x < v { x = v; }` (`atomic compare`)
#[derive(Debug)]
pub struct IfLess;
/// `if x > v { x = v; }` (`atomic compare`)
#[derive(Debug)]
pub struct IfGreater;

macro_rules! compare_updates {
    ($($t:ty),*) => {$(
        impl AtomicUpdate<$t> for IfLess { fn op(a: $t, b: $t) -> $t { if a < b { b } else { a } } }
        impl AtomicUpdate<$t> for IfGreater { fn op(a: $t, b: $t) -> $t { if a > b { b } else { a } } }
    )*};
}
compare_updates!(f32, f64, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_updates {
    ($($t:ty),*) => {$(
        impl AtomicUpdate<$t> for Add { fn op(a: $t, b: $t) -> $t { a + b } }
        impl AtomicUpdate<$t> for Sub { fn op(a: $t, b: $t) -> $t { a - b } }
        impl AtomicUpdate<$t> for Mul { fn op(a: $t, b: $t) -> $t { a * b } }
        impl AtomicUpdate<$t> for Div { fn op(a: $t, b: $t) -> $t { a / b } }
        impl AtomicUpdate<$t> for Min { fn op(a: $t, b: $t) -> $t { a.min(b) } }
        impl AtomicUpdate<$t> for Max { fn op(a: $t, b: $t) -> $t { a.max(b) } }
    )*};
}
float_updates!(f32, f64);

macro_rules! int_updates {
    ($($t:ty),*) => {$(
        impl AtomicUpdate<$t> for Add {
            fn op(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline]
            fn apply(a: &<$t as AtomicElem>::Atomic, v: $t) -> ($t, $t) {
                let old = a.fetch_add(v, Ordering::Relaxed);
                (old, old.wrapping_add(v))
            }
        }
        impl AtomicUpdate<$t> for Sub {
            fn op(a: $t, b: $t) -> $t { a.wrapping_sub(b) }
            #[inline]
            fn apply(a: &<$t as AtomicElem>::Atomic, v: $t) -> ($t, $t) {
                let old = a.fetch_sub(v, Ordering::Relaxed);
                (old, old.wrapping_sub(v))
            }
        }
        impl AtomicUpdate<$t> for Mul { fn op(a: $t, b: $t) -> $t { a.wrapping_mul(b) } }
        impl AtomicUpdate<$t> for Div { fn op(a: $t, b: $t) -> $t { a / b } }
        impl AtomicUpdate<$t> for BitAnd {
            fn op(a: $t, b: $t) -> $t { a & b }
            #[inline]
            fn apply(a: &<$t as AtomicElem>::Atomic, v: $t) -> ($t, $t) {
                let old = a.fetch_and(v, Ordering::Relaxed);
                (old, old & v)
            }
        }
        impl AtomicUpdate<$t> for BitOr {
            fn op(a: $t, b: $t) -> $t { a | b }
            #[inline]
            fn apply(a: &<$t as AtomicElem>::Atomic, v: $t) -> ($t, $t) {
                let old = a.fetch_or(v, Ordering::Relaxed);
                (old, old | v)
            }
        }
        impl AtomicUpdate<$t> for BitXor {
            fn op(a: $t, b: $t) -> $t { a ^ b }
            #[inline]
            fn apply(a: &<$t as AtomicElem>::Atomic, v: $t) -> ($t, $t) {
                let old = a.fetch_xor(v, Ordering::Relaxed);
                (old, old ^ v)
            }
        }
        impl AtomicUpdate<$t> for Min {
            fn op(a: $t, b: $t) -> $t { a.min(b) }
            #[inline]
            fn apply(a: &<$t as AtomicElem>::Atomic, v: $t) -> ($t, $t) {
                let old = a.fetch_min(v, Ordering::Relaxed);
                (old, old.min(v))
            }
        }
        impl AtomicUpdate<$t> for Max {
            fn op(a: $t, b: $t) -> $t { a.max(b) }
            #[inline]
            fn apply(a: &<$t as AtomicElem>::Atomic, v: $t) -> ($t, $t) {
                let old = a.fetch_max(v, Ordering::Relaxed);
                (old, old.max(v))
            }
        }
    )*};
}
int_updates!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl AtomicUpdate<bool> for BitAnd {
    fn op(a: bool, b: bool) -> bool {
        a & b
    }
}
impl AtomicUpdate<bool> for BitOr {
    fn op(a: bool, b: bool) -> bool {
        a | b
    }
}
impl AtomicUpdate<bool> for BitXor {
    fn op(a: bool, b: bool) -> bool {
        a ^ b
    }
}
