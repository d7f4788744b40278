//! Which Rust types may cross to the device, and how a scalar fills an 8-byte kernel slot (ARCHITECTURE.md,
//! "Kernel ABI (version 2)").

/// Types whose values may be copied to and from device memory byte for byte: no padding, no pointers, every bit
/// pattern valid (so reading back device memory, possibly uninitialised, is never undefined behaviour).
///
/// # Safety
/// Implement only for types with those three properties.
pub unsafe trait Pod: Copy + Send + Sync + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $(
        // SAFETY: primitive numeric type: no padding, no pointers, every bit pattern valid.
        unsafe impl Pod for $t {}
    )* };
}
pod!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);
// SAFETY: an array of `Pod` has no padding between elements and inherits the element's properties.
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

/// A value passed by value in one 8-byte `LITERAL` slot (the encoding is `omp-rs-abi`'s, which kernels decode).
pub use omp_rs_abi::Scalar;

#[cfg(test)]
mod test {
    use super::Scalar;

    #[test]
    fn slots_follow_abi_v1() {
        assert_eq!((-1i32).to_slot(), u64::MAX);
        assert_eq!(200u8.to_slot(), 200);
        assert_eq!(true.to_slot(), 1);
        assert_eq!(1.5f64.to_slot(), 1.5f64.to_bits());
        assert_eq!(1.5f32.to_slot(), u64::from(1.5f32.to_bits()));
        assert_eq!((1.5f32.to_slot() >> 32), 0);
        // What the kernels decode.
        assert_eq!(i32::from_slot((-7i32).to_slot()), -7);
        assert_eq!(f32::from_slot(1.5f32.to_slot()), 1.5);
    }
}
