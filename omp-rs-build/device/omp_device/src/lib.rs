//! `omp_device`: the support library linked into every omp-rs device crate.
//!
//! The same source is compiled three ways by `omp-rs-build` (one rlib per target and CPU, cached):
//! - `nvptx64-nvidia-cuda` (`no_std`, libdevice math, PTX `exit` on panic),
//! - `amdgcn-amd-amdhsa` (`no_std`, ocml/ockl, `s_endpgm` on panic),
//! - the host (`std`), for the libomptarget host-plugin `.so`: one team of one thread, kernels run
//!   under [`host_guard`].
//!
//! Kernel code written for `std` compiles unchanged against it: `use omp_device::prelude::*;` brings
//! [`math::Float`] (so `x.sqrt()`, `x.exp()`, `x.powi(2)` work in `no_std`) and the reduction ops.
//!
//! # How a generated device crate looks
//! ```ignore
//! #![no_std]
//! #![cfg_attr(any(target_arch = "nvptx64", target_arch = "amdgpu"), feature(abi_gpu_kernel))]
//! #![allow(unused_imports, unused_unsafe, unknown_lints, improper_gpu_kernel_arg,
//!          improper_ctypes_definitions, unstable_name_collisions, non_snake_case)]
//! extern crate omp_device;
//! use omp_device::prelude::*;
//!
//! omp_device::kernel! {
//!     /// saxpy: slots = a (f64 bits), x (base, len), y (base, len), loop (first, trips, step)
//!     pub unsafe fn omp_saxpy_0_1a2b3c4d(_dyn: *mut u8, a: u64, x: &[f64; 0], x_len: u64,
//!                                         y: *mut f64, y_len: u64, lo: u64, trips: u64, step: u64) {
//!         let a = f64::from_bits(a);
//!         let x = omp_device::view::ro_slice(x, x_len);      // ld.global.nc on NVIDIA
//!         let mut y = omp_device::View::from_raw_parts(y, y_len as usize);
//!         let mut k = omp_device::launch::global_thread();
//!         while k < trips {
//!             let i = (lo + k * step) as usize;
//!             y[i] += a * x[i];
//!             k += omp_device::launch::num_global_threads();
//!         }
//!     }
//! }
//! ```
//! [`kernel!`] emits `#[no_mangle] extern "gpu-kernel"` on GPUs and `#[no_mangle] extern "C"`
//! wrapped in [`host_guard`] on the host.
//!
//! # Modules
//! | module | what |
//! |---|---|
//! | [`abi`] | slot decoding: [`abi::from_slot`], [`abi::loop_value`] |
//! | [`launch`] | thread / team indices (`global_thread`, `team_id`, …) |
//! | [`view`] | [`View<T>`]: bounds-checked (ptr, len) view over device memory; [`view::ro_slice`] |
//! | [`math`] | [`math::Float`]: libdevice / ocml / std math behind std's method names |
//! | [`reduce`] | reduction ops, [`reduce::Reducer`], [`reduce::team_reduce`] |
//! | [`atomic`] | `atomic_add`, `atomic_update`, … on raw pointers |
//! | [`team`] | team barrier and the shared scratch used by `team_reduce` |
//! | [`panic`] | [`panic::PanicRecord`], the GPU `#[panic_handler]` and [`host_guard`] |
//! | [`print`] | `println!` / `print!` in kernels through the device's printf |
#![cfg_attr(any(target_arch = "nvptx64", target_arch = "amdgpu"), no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(stdarch_nvptx))]
#![cfg_attr(target_arch = "amdgpu", feature(stdarch_amdgpu))]
// `ffi_const` on the vendor math declarations: LLVM then knows them pure, so `y.sin() * y.sin()` calls once (as
// nvcc does for its builtins) and calls in loops can be hoisted.
#![cfg_attr(any(target_arch = "nvptx64", target_arch = "amdgpu"), feature(ffi_const))]
#![allow(internal_features, non_upper_case_globals, unknown_lints)]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]

pub mod abi;
/// The kernel ABI's definitions shared with the host crates (`omp-rs-abi`'s `shared.rs`, written here by the build).
pub mod abi_shared;
pub mod affine;
pub mod atomic;
pub mod launch;
pub mod math;
pub mod nd;
pub mod panic;
pub mod print;
pub mod reduce;
pub mod spmd;
pub mod team;
pub mod view;

pub use crate::panic::{PanicRecord, __omp_rs_panic_record};
#[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
pub use crate::panic::host_guard;
pub use crate::view::View;

/// What kernel code imports: the [`math::Float`] methods, reduction ops and [`View`].
pub mod prelude {
    pub use crate::math::Float;
    // `println!` and kin in kernel code (the device crate is `no_std`).
    pub use crate::{device_print as eprint, device_print as print, device_println as eprintln, device_println as println};
    pub use crate::reduce::{Add, BitAnd, BitOr, BitXor, LogAnd, LogOr, Max, Min, Mul, Reducer};
    pub use crate::view::View;
}

/// The device globals this library defines (name, size); `omp-rs-build` keeps them exported.
pub use crate::abi_shared::DEVICE_GLOBALS;

/// Defines one kernel for every target from a single body.
///
/// GPUs get `#[no_mangle] pub unsafe extern "gpu-kernel" fn`, the host `.so` gets
/// `#[no_mangle] pub unsafe extern "C" fn` whose body runs under [`host_guard`]. Every parameter
/// must be 8 bytes (the kernel ABI); the first one receives libomptarget's `dyn_ptr`.
/// The crate using it needs `#![cfg_attr(any(target_arch = "nvptx64", target_arch = "amdgpu"),
/// feature(abi_gpu_kernel))]`.
#[macro_export]
macro_rules! kernel {
    ($($(#[$m:meta])* $vis:vis unsafe fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $body:block)*) => {$(
        #[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
        $(#[$m])*
        #[no_mangle]
        $vis unsafe extern "gpu-kernel" fn $name($($arg: $ty),*) $body

        #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
        $(#[$m])*
        #[no_mangle]
        $vis unsafe extern "C" fn $name($($arg: $ty),*) {
            $crate::host_guard(move || $body)
        }
    )*};
}
