//! The one error type of cargo-omp; every message ends with what to do.

use std::path::PathBuf;

/// Everything a subcommand can fail with.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// No manifest under the target directory.
    #[error(
        "no omp-rs manifest found (looked for {pattern}).\n\
             Build the package first (`cargo build`{profile_flag}); it needs `omp-rs-build` in [build-dependencies] \
             and `omp_build::Builder::new().compile()` in build.rs.{others}"
    )]
    NoManifest {
        /// The glob that was searched.
        pattern: String,
        /// ` --release` etc.
        profile_flag: String,
        /// Packages that do have manifests, when `--package` excluded them.
        others: String,
    },
    /// The kernel is not in the manifest.
    #[error("no kernel `{query}` in {}.\nKernels: {available}\n(`cargo omp explain` without a name lists them)", manifest.display())]
    UnknownKernel {
        /// What the user typed.
        query: String,
        /// The manifest searched.
        manifest: PathBuf,
        /// Names it lists.
        available: String,
    },
    /// The name matches several kernels.
    #[error("`{query}` matches {count} kernels: {names}.\nGive the full kernel name.")]
    AmbiguousKernel {
        /// What the user typed.
        query: String,
        /// How many matched.
        count: usize,
        /// The matches.
        names: String,
    },
    /// `--arch` names an arch without an image.
    #[error("no {arch} image in {}; built: {available}.\n\
             Rebuild with OMP_RS_OFFLOAD_ARCH={arch} (and its toolchain: `cargo omp info`).", manifest.display())]
    NoImage {
        /// The arch asked for.
        arch: String,
        /// The manifest.
        manifest: PathBuf,
        /// Arches it has.
        available: String,
    },
    /// An error of omp-rs-build (manifest parsing, arch names).
    #[error(transparent)]
    Build(omp_build::Error),
    /// A file operation failed.
    #[error("{what} `{}`: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A program could not be started.
    #[error("could not start {what}: {source}")]
    Spawn {
        /// Which program and why it is needed.
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The setup script failed.
    #[error("the setup script failed ({status}): {hint}")]
    Setup {
        /// Its exit status.
        status: String,
        /// What to try.
        hint: String,
    },
    /// Some sysroots could not be built.
    #[error("could not build the core sysroot / omp_device for {archs} (see above); `cargo omp info` shows what is missing")]
    Sysroots {
        /// The arches that failed.
        archs: String,
    },
    /// JSON output failed.
    #[error("could not write JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl Error {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { what, path, source }
    }
}

/// Result alias.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;
