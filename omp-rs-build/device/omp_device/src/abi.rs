//! Decoding kernel ABI slots (ARCHITECTURE.md): every argument arrives as one 8-byte integer-class slot.
//! Generated kernels convert them back with [`from_slot`] and [`loop_value`].

/// Types a scalar slot can carry, with the host's encoding (`omp-rs-abi`).
pub use crate::abi_shared::Scalar as Slot;

/// A scalar argument from its slot.
#[inline(always)]
pub fn from_slot<T: Slot>(bits: u64) -> T {
    T::from_slot(bits)
}

/// Integer types a loop variable can have, decoded as the host encodes them (`omp-rs-abi`).
pub use crate::abi_shared::LoopIndex;

/// The value of a loop variable in iteration `k` of its dimension.
#[inline(always)]
pub fn loop_value<T: LoopIndex>(first: u64, step: u64, k: u64) -> T {
    T::loop_value(first, step, k)
}

/// The same value computed in 32 bits (the loop's fast copy, where [`values_fit_u32`] held for the launch).
#[inline(always)]
pub fn loop_value_u32<T: LoopIndex>(first: u64, step: u64, k: u64) -> T {
    T::loop_value_u32(first, step, k)
}

/// Whether every value of a loop dimension lies in `0..2^32` (one uniform test per launch).
pub use crate::abi_shared::values_fit_u32;
