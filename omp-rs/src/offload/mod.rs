//! Target offload over LLVM's libomptarget: policy, images, device selection, data environments, device memory
//! and kernel launch. See `README.md` in this directory for the present-table model, the kernel ABI and the
//! API that macro expansions call (`omp::__private::offload`).
//!
//! Layers (as cudarc): `libomptarget-sys` (raw FFI) → [`result`](self) (one checked wrapper per entry point,
//! private) → the types here. Invariant kept by this module: **libomptarget never sees a call it would abort
//! on** — device numbers, image architectures, kernel names, `present` sections, overlapping sections and launch
//! geometry are checked first and reported as [`Error`](crate::Error).
//!
//! # Environment
//! | variable | effect |
//! |---|---|
//! | `OMP_TARGET_OFFLOAD` | `DEFAULT` (offload when possible), `MANDATORY` (error instead of host), `DISABLED` (host only, libomptarget never loaded) |
//! | `OMP_DEFAULT_DEVICE` | default device number |
//! | `OMP_RS_LOG=info` | one stderr line per region: which path ran and why |
//! | `OMP_RS_PROFILE=1` | at exit, a table of each target region's mean host time per launch by phase (decide, prepare, checks, enqueue, wait, after; see `profile.rs`) |
//! | `OMP_RS_DEVICE_START` | `early` (default: a binary with device images starts the devices before `main`, as clang's do; see `early.rs`), `first-region` |
//! | `OMP_RS_LIBOMPTARGET`, `OMP_RS_LIBOMPTARGET_NO_SEARCH` | where libomptarget is loaded from (see `libomptarget-sys`) |
//! | `OMP_RS_HOST_PLUGIN=1` | allow host-plugin images when an image set also has GPU images (tests) |
//! | `OMP_RS_CUDA_SCHED` | CUDA primary-context scheduling set before libomptarget starts: `spin` (default), `auto`, `blocking`, `keep` |
//! | `OMP_RS_LANES` | queues per device for queued launches (1..=16, default 4): launches on different data overlap, see `lanes.rs` |
//! | `OMP_RS_LAUNCH` | `openmp` (default: regions on resident data go through the device's queue, see `queue.rs`, and wait unless they carry `nowait`), `queued` (every such region stays queued; not OpenMP's end of region, for measurements), `wait` (`nowait` regions wait too), `sync` (every region through libomptarget's synchronous launch) |
//! | `OMP_RS_LIBOFFLOAD` | path of liboffload (default: `libLLVMOffload.so.22.1` beside libomptarget) |
//! | `OMP_RS_TEAMS_PER_SM` | cap of the default grid, teams per SM (default 128; regions with reductions 32) |
//! | `OMP_RS_NEST_ITERATIONS_PER_THREAD` | iterations per thread of a flat collapsed nest's default grid once the GPU is full (default 4) |
//! | `LIBOMPTARGET_INFO` | passed through to libomptarget |

// Only the modules marked `allow(unsafe_code)` call into libomptarget/liboffload or touch memory they own; every
// `unsafe` block there carries its `SAFETY` argument. The others are safe code.
#[allow(unsafe_code)]
mod buffer;
#[allow(unsafe_code)]
mod cuda;
#[allow(unsafe_code)]
mod data;
#[allow(unsafe_code)]
mod data_region;
mod device;
#[allow(unsafe_code)]
mod device_output;
mod early;
mod image;
mod lanes;
#[allow(unsafe_code)]
mod launch;
mod map;
#[allow(unsafe_code)]
mod nowait;
#[allow(unsafe_code)]
mod pinned;
pub(crate) mod policy;
#[doc(hidden)]
pub mod private;
#[allow(unsafe_code)]
mod profile;
#[allow(unsafe_code)]
mod queue;
#[allow(unsafe_code)]
mod registry;
#[allow(unsafe_code)]
mod repr;
#[allow(unsafe_code)]
mod result;

pub(crate) use buffer::device_copy;
pub use buffer::DeviceBuffer;
pub use data::{target_enter_data_raw, target_exit_data_raw};
pub use data_region::{MappedMut, MappedRef};
pub use device::{
    device, get_default_device, get_initial_device, get_num_devices, is_initial_device, set_default_device, target_is_present, Decision,
    Device, HostReason,
};
pub use image::{DeviceGlobal, Image, ImageKind, PANIC_RECORD_GLOBAL};
pub use map::{ExitKind, MapKind, Modifiers};
pub use pinned::HostPinned;
pub use policy::{policy, Policy};
pub use registry::ImageSet;
pub use registry::PanicRecord;
pub use repr::{DeviceScalar, Pod, Scalar};

use crate::Error;

/// Register `set` with libomptarget now (otherwise it happens on the first launch of one of its kernels).
/// Devices count in [`get_num_devices`] once an image for them is registered.
///
/// # Errors
/// [`Error::LibraryNotFound`], [`Error::ImageArchMismatch`], [`Error::KernelMissing`].
pub fn register(set: &'static ImageSet) -> Result<(), Error> {
    if policy::policy() == Policy::Disabled {
        return Ok(());
    }
    registry::ensure_registered(set).map(|_| ())
}

/// Wait for every target region still queued on any device (OpenMP's `taskwait` for target tasks) and report
/// the first failure among them. Regions on data that a `target_data` block maps are queued until the host can
/// observe their results; this is the explicit point to observe them.
///
/// # Errors
/// [`Error::DevicePanic`] naming the queued region that panicked, [`Error::LaunchFailed`].
pub fn taskwait() -> Result<(), Error> {
    queue::sync_all()
}

/// Print libomptarget's present table (host address, device address, size, reference counts) to stderr.
pub fn dump_mapping_tables() {
    if let Some(r) = registry::runtime_if_loaded() {
        r.rt.dump_mapping_tables();
    }
}
