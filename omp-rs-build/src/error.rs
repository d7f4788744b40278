//! The one error type of omp-rs-build.

use std::path::PathBuf;

use crate::toolchain::ToolchainError;

/// Everything that can fail while building device images.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tool or library of the device toolchain is missing (the message says how to install it).
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    /// A file or directory operation failed.
    #[error("{what} `{}`: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A tool could not be started.
    #[error("could not run `{command}`: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A tool ran and failed.
    #[error("`{command}` failed ({status}):\n{stderr}")]
    Command {
        /// The command line.
        command: String,
        /// Exit status.
        status: String,
        /// Its standard error (and output), truncated.
        stderr: String,
    },
    /// An offload architecture name was not understood.
    #[error(transparent)]
    UnknownArch(#[from] crate::arch::UnknownArch),
    /// A build-script environment variable is missing.
    #[error("environment variable {0} is not set: call omp_build::Builder from a build script or set the path explicitly")]
    MissingEnv(&'static str),
    /// The manifest could not be written or read.
    #[error("manifest `{}`: {source}", path.display())]
    Manifest {
        /// The manifest path.
        path: PathBuf,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
    /// Two target regions get the same kernel name but compile from different sources even after the build named
    /// them by their location (file and line of their `for`): two such regions on one line.
    #[error(
        "the target regions of `{function}` in {first} and in {second} compile differently but have the same kernel \
         name `{kernel}`, even named by file and line (two regions on one line, e.g. from one macro call): put them \
         on different lines or give one of the functions another name"
    )]
    KernelClash {
        /// The kernel name.
        kernel: String,
        /// The user's function.
        function: String,
        /// Where the first region is.
        first: String,
        /// Where the other one is.
        second: String,
    },
    /// rustc refused the generated device crate: the package's target regions (or what they call) do not compile as
    /// kernels. The errors name each region's file and line.
    #[error(
        "the target regions of this package do not compile as {arch} kernels. rustc's errors below name each region's \
         file and line (the column counts in the generated kernel). Kernels are `no_std` code: they may use `core`, \
         the float methods of `omp_device::Float` (`sqrt`, `exp`, ...), the package's plain functions and \
         `#[omp::declare_target]` items; `Vec`, `String`, `format!`, I/O and other `std` items have no device \
         version. Move such code out of the region (or run the region with `if(false)` to try it on the host).\n{errors}"
    )]
    KernelsDoNotCompile {
        /// The offload architecture.
        arch: String,
        /// rustc's errors.
        errors: String,
    },
    /// A tool's output was not what was expected.
    #[error("{0}")]
    Unexpected(String),
}

impl Error {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { what, path, source }
    }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
