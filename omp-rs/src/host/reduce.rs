//! Reduction operators (OpenMP's `+ * min max & | ^ && ||`) with their identities. Each thread starts from the
//! identity; the private copies are combined with the original value in thread order, so a run with a static
//! schedule and a fixed team size always gives the same floating-point result.

/// A reduction operator on values of type `T`.
pub trait Reducer<T> {
    /// The value that leaves any other unchanged.
    fn identity() -> T;
    /// Combines two partial results.
    fn combine(a: T, b: T) -> T;
}

/// The identity of operator `R` for the type of `_like` (lets the expansion name the operator, not the type).
pub fn identity_of<R: Reducer<T>, T>(_like: &T) -> T {
    R::identity()
}

/// `+`
#[derive(Debug)]
pub struct Add;
/// `*`
#[derive(Debug)]
pub struct Mul;
/// `min`
#[derive(Debug)]
pub struct Min;
/// `max`
#[derive(Debug)]
pub struct Max;
/// `&`
#[derive(Debug)]
pub struct BitAnd;
/// `|`
#[derive(Debug)]
pub struct BitOr;
/// `^`
#[derive(Debug)]
pub struct BitXor;
/// `&&`
#[derive(Debug)]
pub struct LogAnd;
/// `||`
#[derive(Debug)]
pub struct LogOr;

macro_rules! arithmetic {
    ($($t:ty: $zero:expr, $one:expr, $lo:expr, $hi:expr, $min:ident, $max:ident;)*) => {$(
        impl Reducer<$t> for Add {
            fn identity() -> $t { $zero }
            fn combine(a: $t, b: $t) -> $t { a + b }
        }
        impl Reducer<$t> for Mul {
            fn identity() -> $t { $one }
            fn combine(a: $t, b: $t) -> $t { a * b }
        }
        impl Reducer<$t> for Min {
            fn identity() -> $t { $hi }
            fn combine(a: $t, b: $t) -> $t { a.$min(b) }
        }
        impl Reducer<$t> for Max {
            fn identity() -> $t { $lo }
            fn combine(a: $t, b: $t) -> $t { a.$max(b) }
        }
    )*};
}

arithmetic! {
    f32: 0.0, 1.0, f32::NEG_INFINITY, f32::INFINITY, min, max;
    f64: 0.0, 1.0, f64::NEG_INFINITY, f64::INFINITY, min, max;
    i8: 0, 1, i8::MIN, i8::MAX, min, max;
    i16: 0, 1, i16::MIN, i16::MAX, min, max;
    i32: 0, 1, i32::MIN, i32::MAX, min, max;
    i64: 0, 1, i64::MIN, i64::MAX, min, max;
    i128: 0, 1, i128::MIN, i128::MAX, min, max;
    isize: 0, 1, isize::MIN, isize::MAX, min, max;
    u8: 0, 1, u8::MIN, u8::MAX, min, max;
    u16: 0, 1, u16::MIN, u16::MAX, min, max;
    u32: 0, 1, u32::MIN, u32::MAX, min, max;
    u64: 0, 1, u64::MIN, u64::MAX, min, max;
    u128: 0, 1, u128::MIN, u128::MAX, min, max;
    usize: 0, 1, usize::MIN, usize::MAX, min, max;
}

macro_rules! bitwise {
    ($($t:ty: $ones:expr;)*) => {$(
        impl Reducer<$t> for BitAnd {
            fn identity() -> $t { $ones }
            fn combine(a: $t, b: $t) -> $t { a & b }
        }
        impl Reducer<$t> for BitOr {
            fn identity() -> $t { Default::default() }
            fn combine(a: $t, b: $t) -> $t { a | b }
        }
        impl Reducer<$t> for BitXor {
            fn identity() -> $t { Default::default() }
            fn combine(a: $t, b: $t) -> $t { a ^ b }
        }
    )*};
}

bitwise! {
    i8: !0; i16: !0; i32: !0; i64: !0; i128: !0; isize: !0;
    u8: !0; u16: !0; u32: !0; u64: !0; u128: !0; usize: !0;
    bool: true;
}

impl Reducer<bool> for LogAnd {
    fn identity() -> bool {
        true
    }
    fn combine(a: bool, b: bool) -> bool {
        a && b
    }
}

impl Reducer<bool> for LogOr {
    fn identity() -> bool {
        false
    }
    fn combine(a: bool, b: bool) -> bool {
        a || b
    }
}
