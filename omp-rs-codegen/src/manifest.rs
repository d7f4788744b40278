//! The macros' view of `$OUT_DIR/omp-rs/manifest.json`, which `omp-rs-build` writes before the crate compiles:
//! which kernels have device images, and where the images are. Only the fields the expansion needs are read
//! (the writer is `omp_build::manifest::Manifest`; the two are kept in step by hand until one crate holds the
//! ABI, issue 12).

use std::path::PathBuf;
use std::sync::OnceLock;

use serde::Deserialize;

/// A kernel listed in the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct KernelView {
    /// Symbol name.
    pub name: String,
}

/// An image file listed in the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct ImageView {
    /// `sm_90`, `gfx90a`, `host-x86_64`.
    pub arch: String,
    /// File name relative to the manifest.
    pub file: String,
    /// `cubin`, `hsaco`, `so`.
    pub kind: String,
}

/// The part of the manifest the macros read.
#[derive(Debug, Clone, Deserialize)]
pub struct ManifestView {
    /// Kernels with images.
    pub kernels: Vec<KernelView>,
    /// Images.
    pub images: Vec<ImageView>,
    /// Directory of the manifest (set after reading).
    #[serde(skip)]
    pub dir: PathBuf,
}

impl ManifestView {
    /// Whether a kernel has images.
    pub fn has_kernel(&self, name: &str) -> bool {
        !self.images.is_empty() && self.kernels.iter().any(|k| k.name == name)
    }

    /// Reads `<out_dir>/omp-rs/manifest.json`.
    pub fn read(out_dir: &std::path::Path) -> Option<ManifestView> {
        let dir = out_dir.join("omp-rs");
        let text = std::fs::read_to_string(dir.join("manifest.json")).ok()?;
        let mut m: ManifestView = serde_json::from_str(&text).ok()?;
        m.dir = dir;
        Some(m)
    }
}

/// The manifest of the crate being compiled (`OUT_DIR` is set by cargo for packages with a build script), read
/// once per compiler process.
pub fn current() -> Option<&'static ManifestView> {
    static M: OnceLock<Option<ManifestView>> = OnceLock::new();
    M.get_or_init(|| std::env::var_os("OUT_DIR").and_then(|d| ManifestView::read(std::path::Path::new(&d)))).as_ref()
}
