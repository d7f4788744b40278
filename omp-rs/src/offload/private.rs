//! The API that `#[omp::…]` macro expansions call, re-exported as `omp::__private::offload`. Hidden and
//! versioned with the kernel ABI (`ABI_VERSION`); not for direct use. See `README.md` beside this file for complete
//! expansions.
//!
//! Call sequence of one target region:
//! 1. `static K: KernelRef = KernelRef::new(&IMAGES, "omp_saxpy_0_1a2b3c4d");` (one per region);
//! 2. `should_offload(&K, device, if_cond)?` → [`Decision::Offload`] or [`Decision::Host`];
//! 3. offload: build an [`ArgPack`] in the kernel ABI slot order, `launch(&K, dev, pack, geometry)?`;
//!    [`LaunchOutcome::NotOffloaded`] or [`Decision::Host`] → run the host loop (omp-rs's thread team);
//! 4. reductions: `ran.reduce::<T>(i, original, op)`.

pub use super::data_region::{
    enter_data, exit_data_from, exit_data_release, region_without_image, register_images, update_from, update_to, DataRegion, HostAccess,
    MappedMut, MappedRef,
};
pub use super::device::{Decision, Device, HostReason};
pub use super::early::start_early;
pub use super::image::{DeviceGlobal, Image, ImageKind};
pub use super::launch::{launch, should_offload, ArgPack, Geometry, KernelRef, LaunchOutcome, Ran};
pub use super::map::{ExitKind, MapKind, Modifiers};
pub use super::nowait::{scope, Pending, Scope};
pub use super::registry::ImageSet;
pub use super::repr::{Pod, Scalar};
pub use omp_rs_abi::SlotKind;

/// Kernel ABI version these entry points implement (`omp_rs_abi::ABI_VERSION`; ARCHITECTURE.md "Kernel ABI").
pub const ABI_VERSION: u32 = omp_rs_abi::ABI_VERSION;

/// Compiles only for types a target region may copy to the device: every region states it for its arrays' elements
/// and by-value structs, with or without a device image, so a program does not start failing to build once the
/// device toolchain is installed.
#[inline(always)]
pub fn crosses_to_device<T: Pod>() {}
