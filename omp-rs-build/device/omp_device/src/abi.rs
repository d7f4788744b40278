//! Decoding kernel ABI v2 slots (ARCHITECTURE.md): every argument arrives as one 8-byte integer-class slot.
//! Generated kernels convert them back with [`from_slot`] and [`loop_value`].

/// Types a scalar slot can carry, with the host's encoding (`omp-rs-abi`).
pub use crate::abi_shared::Scalar as Slot;

/// A scalar argument from its slot.
#[inline(always)]
pub fn from_slot<T: Slot>(bits: u64) -> T {
    T::from_slot(bits)
}

/// Integer types a loop variable can have.
pub trait LoopIndex: Copy {
    /// `first + k·step` in the type's wrapping arithmetic (`first` and `step` are the host's values widened to
    /// 64 bits, `step` negative for `.rev()`).
    fn loop_value(first: u64, step: u64, k: u64) -> Self;
}

macro_rules! loop_index {
    ($($t:ty),*) => {$(
        impl LoopIndex for $t {
            #[inline(always)]
            fn loop_value(first: u64, step: u64, k: u64) -> Self {
                (first as $t).wrapping_add((k as $t).wrapping_mul(step as $t))
            }
        }
    )*};
}
loop_index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// The value of a loop variable in iteration `k` of its dimension.
#[inline(always)]
pub fn loop_value<T: LoopIndex>(first: u64, step: u64, k: u64) -> T {
    T::loop_value(first, step, k)
}
