//! `omp-rs-build`: compiles the target regions of an omp-rs package into GPU images.
//!
//! ```no_run
//! // build.rs
//! # #[allow(clippy::needless_doctest_main)]
//! fn main() {
//!     omp_build::Builder::new().compile();
//! }
//! ```
//! with `omp-rs-build` in `[build-dependencies]`. The builder scans the package's sources, lets
//! the outliner turn every `#[omp::target…]` region into a kernel of a generated `no_std` device
//! crate, and builds that crate once per offload arch into `$OUT_DIR/omp-rs/`:
//!
//! | arch | image | built with |
//! |---|---|---|
//! | `sm_XX` | `<crate>.sm_XX.cubin` (+ `.ptx`, `.ptxas.log`) | Debian rustc 1.96 → LLVM 22 → ptxas 13.0 |
//! | `gfxXXX` | `<crate>.gfxXXX.hsaco` (code object v5) | Debian rustc 1.96 → LLVM 22 + ROCm device libs → ld.lld |
//! | `host` | `<crate>.host-x86_64.so` | the host rustc (std cdylib, for libomptarget's host plugin) |
//!
//! plus `manifest.json` ([`manifest::Manifest`]) listing kernels, images and device globals.
//!
//! **Arches**: `OMP_RS_OFFLOAD_ARCH=sm_90,gfx90a,gfx942,host` or [`Builder::arch`]; the default is
//! `sm_90,gfx90a,gfx942`, each only when its toolchain is installed. `host` is opt-in: the host
//! plugin runs a kernel on one thread, which is for testing the offload path without a GPU, not
//! for speed (the rayon host path is the fast CPU path).
//!
//! **Tuning knobs** (NVIDIA, for A/B runs; the images are rebuilt when they change): `OMP_RS_OPT_ARGS` (more LLVM
//! `opt` arguments, e.g. `-unroll-runtime-multi-exit=true`), `OMP_RS_PTXAS_ARGS` (more ptxas arguments, e.g.
//! `--maxrregcount=64`). bench/RESULTS.md (2026-12-01) has what both did to the RAJAPerf kernels: neither is a default.
//! `OMP_RS_FP_CONTRACT=fast` lets `llc` fuse `a * b + c` into one `fma` in GPU kernels, as nvcc and clang do by
//! default (the default, `off`, keeps Rust's two roundings, so kernels compute what the host path computes);
//! `OMP_RS_FAST_MATH=on` adds approximate `f32` division and square root on NVIDIA GPUs (`compile::FpModel`).
//! What is automatic: a kernel above 32 registers is compiled once more without LLVM's machine sinking and keeps that
//! version where more teams fit per SM (`compile/occupancy.rs`; `build.log` names such kernels).
//!
//! **Toolchain** ([`toolchain`]): without it the build still succeeds, prints one
//! `cargo:warning` naming `cargo omp setup`, and target regions run on the host. The first build
//! per (rustc, target, cpu) compiles `core` and `omp_device` into `$OMP_RS_HOME` (~20 s per GPU
//! target, once per machine); after that a device crate takes well under a second per arch.
//!
//! | module | job |
//! |---|---|
//! | [`Builder`] | the build-script entry point |
//! | [`scan`] | find and parse the package's source files |
//! | [`outline`] | hand-over to the outliner (plug point) + the demo device crate |
//! | [`toolchain`] | find rustc / LLVM / ptxas / ROCm, typed errors with the fix |
//! | [`sysroot`] | cached `core` sysroots per GPU target |
//! | [`device_lib`] | the `omp_device` support library (embedded source, IR helper, cache) |
//! | [`compile`] | device crate → cubin / code object / `.so` |
//! | [`manifest`] | `manifest.json` |
//!
//! The device-side API used by generated kernels is documented in the `omp_device` crate
//! (`device/omp_device/src/lib.rs`).
#![deny(missing_docs)]

pub mod arch;
mod builder;
mod cache;
mod command;
pub mod compile;
pub mod device_lib;
mod error;
pub mod manifest;
pub mod outline;
pub mod scan;
pub mod sysroot;
pub mod toolchain;

pub use arch::{Arch, ImageKind};
pub use builder::{Builder, Report};
pub use compile::occupancy::register_occupancy;
pub use compile::{compile, DeviceCrate, Image, KernelResources, Timings};
pub use error::{Error, Result};
pub use manifest::Manifest;
pub use toolchain::{Toolchain, ToolchainError};
