//! `omp::Error`: the one error type of the runtime.
//!
//! Every variant carries the context needed to act on it, and its `Display` ends with what to do next.
//! libomptarget aborts the process on any failed map or launch; omp-rs checks every foreseeable cause first and
//! returns one of these instead.

use crate::offload::policy::Policy;

/// An error from the omp-rs runtime.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Offloading was required (`OMP_TARGET_OFFLOAD=MANDATORY`) but cannot happen.
    #[error(
        "no usable offload device ({reason}) while OMP_TARGET_OFFLOAD={policy}; \
         run on a machine with a supported GPU and device images for it, or set OMP_TARGET_OFFLOAD=DEFAULT \
         to run on the host when no device is usable"
    )]
    NoDevice {
        /// The policy in force.
        policy: Policy,
        /// Why no device is usable.
        reason: String,
    },

    /// libomptarget could not be found.
    #[error("{}", library_not_found(searched))]
    LibraryNotFound {
        /// Every candidate tried, with the loader's message.
        searched: Vec<(String, String)>,
    },

    /// libomptarget was found but cannot be used (too old, missing symbols).
    #[error("libomptarget is unusable: {message}")]
    LibraryUnusable {
        /// What is wrong, with the fix.
        message: String,
    },

    /// None of a kernel's images fits the devices of this machine.
    #[error(
        "kernel `{kernel}` has no image for this machine: images {images:?}, devices [{devices}]; \
         rebuild with omp-rs-build for the device's architecture (OMP_RS_OFFLOAD_ARCH=sm_90,...), or run on the host"
    )]
    ImageArchMismatch {
        /// The kernel (or image set) that was to run.
        kernel: String,
        /// The architectures of the available images.
        images: Vec<String>,
        /// The devices found (e.g. `cuda:0 sm_90`).
        devices: String,
    },

    /// A kernel name is not defined in an image that is to be registered.
    #[error(
        "kernel `{kernel}` is not defined in image `{image}`; the image and the host code come from different \
         builds: run `cargo clean -p <your crate>` and rebuild so omp-rs-build regenerates both"
    )]
    KernelMissing {
        /// The missing kernel (or device global) name.
        kernel: String,
        /// The image's architecture.
        image: String,
    },

    /// Data required to be present (`present` modifier, `update`, region views) is not mapped.
    #[error(
        "`{var}` ({bytes} bytes at {addr:#x}) is not present on device {device}: it must be mapped first, by an \
         enclosing target_data region or a target_enter_data before this point (a `present` map modifier asks for \
         exactly this check; without it, a region maps the data itself)"
    )]
    NotPresent {
        /// The variable (or a description of it).
        var: String,
        /// The device number.
        device: i32,
        /// Host address of the section.
        addr: usize,
        /// Its size in bytes.
        bytes: usize,
    },

    /// A map would extend or straddle an existing mapping, which libomptarget treats as fatal.
    #[error(
        "`{var}` ({bytes} bytes at {addr:#x}) overlaps data already mapped on device {device} without being \
         contained in it ({detail}); map the whole array once (e.g. in an enclosing target_data region) and \
         use sections of it inside"
    )]
    MappingConflict {
        /// The variable.
        var: String,
        /// The device number.
        device: i32,
        /// Host address of the section.
        addr: usize,
        /// Its size in bytes.
        bytes: usize,
        /// Which part overlaps.
        detail: String,
    },

    /// A mapping or transfer failed where libomptarget reports the failure instead of aborting.
    #[error("mapping `{var}` on device {device} failed: {detail}")]
    MappingFailed {
        /// The variable.
        var: String,
        /// The device number.
        device: i32,
        /// What failed and what to do.
        detail: String,
    },

    /// The requested launch geometry is invalid for the device.
    #[error("invalid launch geometry for kernel `{kernel}`: {detail}")]
    BadGeometry {
        /// The kernel.
        kernel: String,
        /// What is wrong and the accepted range.
        detail: String,
    },

    /// A thread of the kernel panicked on the device.
    #[error(
        "kernel `{kernel}` (target region at {region}) panicked on device {device} at {file}:{line}:{column} \
         ({count} thread(s) panicked; first: block {block}, thread {thread}); the results of this region are incomplete"
    )]
    DevicePanic {
        /// The kernel.
        kernel: String,
        /// Where the target region is in the source (of a queued region: the one that panicked, not the operation
        /// that waited for it).
        region: String,
        /// The device number.
        device: i32,
        /// Source file of the first panic (`<unknown>` if the device did not record it).
        file: String,
        /// Line of the first panic.
        line: u32,
        /// Column of the first panic.
        column: u32,
        /// How many threads panicked.
        count: u64,
        /// Block (team) of the first panic.
        block: u64,
        /// Thread of the first panic.
        thread: u64,
    },

    /// A device number that does not exist.
    #[error(
        "device {device} does not exist: this process has {num_devices} offload device(s) (valid: {}); \
         pass a number in range, or check OMP_DEFAULT_DEVICE", valid_range(*num_devices)
    )]
    InvalidDevice {
        /// The number asked for.
        device: i64,
        /// `omp_get_num_devices()`.
        num_devices: i32,
    },

    /// Device memory could not be allocated.
    #[error("allocating {bytes} bytes on device {device} failed; free device memory or use a smaller size")]
    AllocFailed {
        /// The request.
        bytes: usize,
        /// The device number.
        device: i32,
    },

    /// A copy between host and device memory failed.
    #[error("copying {bytes} bytes {direction} device {device} failed (omp_target_memcpy returned {code})")]
    MemcpyFailed {
        /// The size.
        bytes: usize,
        /// `"to"` or `"from"`.
        direction: &'static str,
        /// The device number.
        device: i32,
        /// The return code.
        code: i32,
    },

    /// Two lengths that must agree do not.
    #[error("length mismatch in {what}: expected {expected} elements, got {found}")]
    LengthMismatch {
        /// The operation.
        what: String,
        /// Expected element count.
        expected: usize,
        /// Actual element count.
        found: usize,
    },

    /// A typed accessor was used with the wrong element type or a read-only mapping was written.
    #[error("{detail}")]
    InvalidAccess {
        /// What was wrong and the correct call.
        detail: String,
    },

    /// A launch through the device's queue failed (refused when queued, or the queue could not be waited for).
    #[error("queued launch of kernel `{kernel}` (target region at {region}) failed: {detail}")]
    LaunchFailed {
        /// The kernel.
        kernel: String,
        /// Where the target region is in the source.
        region: String,
        /// What the runtime reported.
        detail: String,
    },

    /// The arguments a target region packed are not the slots its kernel was compiled for (an omp-rs defect: the
    /// host expansion and the device kernel come from one plan). Found before the kernel runs.
    #[error(
        "kernel `{kernel}` was compiled for other argument slots than its target region passes ({detail}); nothing \
         was launched. This is an omp-rs bug: please report it with the region's source; `cargo clean -p <your \
         package>` rebuilds stale kernels"
    )]
    KernelLayout {
        /// The kernel.
        kernel: String,
        /// The first slot that differs.
        detail: String,
    },

    /// The asynchronous (`nowait`) launch worker failed.
    #[error("nowait launch of `{kernel}` could not complete: {detail}")]
    Nowait {
        /// The kernel.
        kernel: String,
        /// What happened.
        detail: String,
    },
}

fn library_not_found(searched: &[(String, String)]) -> String {
    let mut s = String::from("libomptarget (LLVM >= 20) was not found; searched:");
    for (cand, msg) in searched {
        s.push_str("\n  ");
        s.push_str(cand);
        s.push_str(": ");
        s.push_str(msg);
    }
    s.push_str(
        "\ninstall it (Debian/Ubuntu: `apt install liboffload-22 libomp5`), or set OMP_RS_LIBOMPTARGET=/path/to/libomptarget.so, \
         or set OMP_TARGET_OFFLOAD=DISABLED to run every target region on the host",
    );
    s
}

fn valid_range(n: i32) -> String {
    if n <= 0 {
        "none; the host runs every region".to_owned()
    } else {
        format!("0..={}", n - 1)
    }
}

impl From<&libomptarget_sys::LoadError> for Error {
    fn from(e: &libomptarget_sys::LoadError) -> Self {
        match e {
            libomptarget_sys::LoadError::NotFound { searched } => Error::LibraryNotFound { searched: searched.clone() },
            other => Error::LibraryUnusable { message: other.to_string() },
        }
    }
}
