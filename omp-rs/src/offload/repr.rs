//! Which Rust types may cross to the device, and how a scalar fills an 8-byte kernel slot (ARCHITECTURE.md,
//! "Kernel ABI").

/// Types whose values may be copied to and from device memory byte for byte: no padding, no pointers, every bit
/// pattern valid (so reading back device memory, possibly uninitialised, is never undefined behaviour).
///
/// These are exactly `bytemuck`'s `Pod` types that may be shared between threads: the primitive numbers, arrays of
/// them, and `#[omp::declare_target]` structs (whose attribute derives `bytemuck::Pod`, which checks `repr(C)`, no
/// padding and `Pod` fields at compile time).
///
/// # Safety
/// Implemented only by the blanket impl below.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be copied to the device",
    label = "not plain data",
    note = "target regions take numbers, arrays of them and `#[omp::declare_target]` structs (`#[derive(Clone, Copy)]`, \
            fields of those types; no `bool`, references or pointers)"
)]
pub unsafe trait Pod: bytemuck::Pod + Send + Sync {}

// SAFETY: `bytemuck::Pod` promises no padding, no pointers (raw pointers only under a feature omp-rs does not
// enable, and they are not `Send`) and every bit pattern valid: the three properties of `Pod`.
unsafe impl<T: bytemuck::Pod + Send + Sync> Pod for T {}

/// What a generic kernel's type parameter must be (`fn triad<T: omp::DeviceScalar>`; the macros add the bound): plain
/// data the device can hold, passed by value in one kernel slot. `f32` and `f64` have kernels (`generic` in
/// omp-rs-codegen); other such types run the region on the host.
pub trait DeviceScalar: Pod + Scalar {}

impl<T: Pod + Scalar> DeviceScalar for T {}

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
