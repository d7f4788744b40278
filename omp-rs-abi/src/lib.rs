//! The contract between the host side of omp-rs (the `omp` runtime, the macros' code generator, the build helper)
//! and the device side (the `omp_device` library compiled into every image), defined once.
//!
//! The definitions live in `shared.rs`, which has no dependencies and no crate attributes, so that `omp-rs-build`
//! compiles the very same file into `omp_device` for every device target ([`SHARED_SOURCE`]): a field or a constant
//! changed here changes both sides, and a device library built from another version does not match the host's
//! [`ABI_VERSION`] (the build embeds the version in the manifest; the macros refuse a manifest of another version).
#![no_std]

mod shared;

pub use shared::*;

/// Version of the manifest (`$OUT_DIR/omp-rs/manifest.json`) that `omp-rs-build` writes and the macros read.
pub const MANIFEST_FORMAT_VERSION: u32 = 1;

/// The text of `shared.rs`, which `omp-rs-build` compiles into `omp_device` as its `abi_shared` module.
pub const SHARED_SOURCE: &str = include_str!("shared.rs");
