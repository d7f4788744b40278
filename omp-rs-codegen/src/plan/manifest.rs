//! The macros' view of `$OUT_DIR/omp-rs/manifest.json`, which `omp-rs-build` writes before the crate compiles:
//! which kernels have device images, and where the images are. Only the fields the expansion needs are read
//! (the writer is `omp_build::manifest::Manifest`). Its format and kernel ABI versions must be this crate's
//! (`omp-rs-abi`): a manifest of another version makes the region a compile error ([`ManifestView::mismatch`]).

use std::path::PathBuf;
use std::sync::OnceLock;

use serde::Deserialize;

/// A kernel listed in the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct KernelView {
    /// Symbol name.
    pub name: String,
    /// The types of the struct field paths the region uses (`KernelPlan::field_types`).
    #[serde(default)]
    pub fields: Vec<FieldView>,
    /// What the host expansion has rustc confirm about the build's choices (`KernelPlan::host_checks`).
    #[serde(default)]
    pub checks: Vec<HostCheck>,
    /// The kernel's argument slots after `dyn_ptr` (`KernelPlan::slots`), which the launch checks the pack against
    /// (`None` in hand-written manifests: not checked).
    #[serde(default)]
    pub slots: Option<Vec<omp_rs_abi::SlotKind>>,
}

/// One choice of the build that rustc confirms at the region (the host expansion emits it as a compile-time check):
/// the device kernel was rebuilt from the user's tokens in another crate, and these are the places where that
/// rebuilding made a decision of its own.
#[derive(Debug, Clone, serde::Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HostCheck {
    /// The kernel uses the const `name` of type `ty` as the items it copied define it: `items` (their tokens) have
    /// it in scope, so `{ items; name }` is the kernel's value; the host asserts it equals `expr` at the region.
    Const {
        /// The region's spelling of it (`SCALE`, `scales::SCALE`).
        expr: String,
        /// The copy's name in the kernel.
        name: String,
        /// Its declared type.
        ty: String,
        /// Every item the kernel copied, as tokens.
        items: String,
    },
    /// The kernel calls the function that `path` names from the region's module; the host asserts that `name` at
    /// the region is that very function.
    Fn {
        /// The name the region calls.
        name: String,
        /// `self::name`, `super::name`, or the path of the `use` that imports it.
        path: String,
    },
    /// The kernel names the type alias `name`, which the device crate defines as `ty` (the package's one alias of
    /// that name); the host asserts that `name` at the region is that type.
    Type {
        /// The alias as the region names it.
        name: String,
        /// What the device crate's copy of it stands for.
        ty: String,
    },
    /// The build evaluated `cfg(pred)` to `value` for the kernel's code or the choice of an item.
    Cfg {
        /// The predicate's tokens.
        pred: String,
        /// Its value for the build.
        value: bool,
    },
    /// The kernel was compiled with debug assertions on or off (`debug_assert!`, `cfg!(debug_assertions)`).
    DebugAssertions {
        /// The device build's setting.
        value: bool,
    },
}

/// A region whose meaning the build cannot reproduce on the device: the macro turns it into a compile error.
#[derive(Debug, Clone, serde::Serialize, Deserialize, PartialEq, Eq)]
pub struct Refusal {
    /// The kernel's name (the macro finds its region by it).
    pub kernel: String,
    /// The name in the region the refusal is about (the error is reported at its first use), if any.
    #[serde(default)]
    pub name: Option<String>,
    /// What cannot be reproduced, and what to write instead.
    pub message: String,
}

/// A region that gets no kernel and runs on the host though the build has a device toolchain (a generic region whose
/// body the device crate cannot compile for every instance): the build warns, and `OMP_TARGET_OFFLOAD=MANDATORY`
/// quotes the reason instead of blaming a missing toolchain.
#[derive(Debug, Clone, serde::Serialize, Deserialize, PartialEq, Eq)]
pub struct HostOnly {
    /// The kernel's name (the macro finds its region by it).
    pub kernel: String,
    /// The region's file, as the user names it (`src/lib.rs`).
    pub file: String,
    /// The line of its loop.
    pub line: usize,
    /// Why it has no kernel, and what to write instead.
    pub reason: String,
}

/// The type of one struct field path of a region, by the local that stands for it.
#[derive(Debug, Clone, serde::Serialize, Deserialize, PartialEq, Eq)]
pub struct FieldView {
    /// The local (`sd_num_nucs`).
    pub local: String,
    /// The field's type as declared (`Vec<i32>`).
    pub ty: String,
}

/// An image file listed in the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct ImageView {
    /// `sm_90`, `gfx90a`, `host-x86_64`.
    pub arch: String,
    /// File name relative to the manifest.
    pub file: String,
    /// `cubin`, `hsaco`, `so`.
    pub kind: omp_rs_abi::ImageKind,
}

/// The part of the manifest the macros read.
#[derive(Debug, Clone, Deserialize)]
pub struct ManifestView {
    /// The writer's manifest format.
    #[serde(default)]
    pub format_version: u32,
    /// The kernel ABI the images were built for.
    #[serde(default)]
    pub abi_version: u32,
    /// Kernels with images.
    pub kernels: Vec<KernelView>,
    /// Images.
    pub images: Vec<ImageView>,
    /// Regions the build refused (`Refusal`), whether or not images were built.
    #[serde(default)]
    pub refused: Vec<Refusal>,
    /// Regions that run on the host though the build has a toolchain.
    #[serde(default)]
    pub host_only: Vec<HostOnly>,
    /// Directory of the manifest (set after reading).
    #[serde(skip)]
    pub dir: PathBuf,
}

impl ManifestView {
    /// The field types recorded for kernel `name` (`None`: the manifest does not list the kernel).
    pub fn field_types(&self, name: &str) -> Option<&[FieldView]> {
        self.kernels.iter().find(|k| k.name == name).map(|k| k.fields.as_slice())
    }

    /// The checks recorded for kernel `name`.
    pub fn checks(&self, name: &str) -> &[HostCheck] {
        self.kernels.iter().find(|k| k.name == name).map_or(&[], |k| k.checks.as_slice())
    }

    /// The refusals of kernel `name` (or of an instance `name_f32` of it).
    pub fn refusals<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Refusal> + 'a {
        self.refused.iter().filter(move |r| {
            r.kernel == name
                || r.kernel
                    .strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('_'))
                    .is_some_and(|rest| rest.split('_').all(|t| crate::plan::abi::INSTANCES.contains(&t)))
        })
    }

    /// Whether the region whose kernel is named `name` (or, by location, `located`) has a kernel with images, in
    /// itself or in an instance (`name_f32`).
    pub fn has_region(&self, name: &str, located: Option<&str>) -> bool {
        let instance_of = |k: &str, base: &str| {
            k.strip_prefix(base)
                .and_then(|r| r.strip_prefix('_'))
                .is_some_and(|r| r.split('_').all(|t| crate::plan::abi::INSTANCES.contains(&t)))
        };
        !self.images.is_empty()
            && self
                .kernels
                .iter()
                .any(|k| k.name == name || instance_of(&k.name, name) || located.is_some_and(|l| k.name == l || instance_of(&k.name, l)))
    }

    /// The argument slots a kernel was compiled for (`None`: not listed).
    pub fn layout(&self, name: &str) -> Option<&[omp_rs_abi::SlotKind]> {
        self.kernels.iter().find(|k| k.name == name).and_then(|k| k.slots.as_deref())
    }

    /// Why the region whose kernel is named `name` has no kernel, if the build said.
    pub fn host_only(&self, name: &str) -> Option<&str> {
        self.host_only.iter().find(|h| h.kernel == name).map(|h| h.reason.as_str())
    }

    /// Whether a kernel has images.
    pub fn has_kernel(&self, name: &str) -> bool {
        !self.images.is_empty() && self.kernels.iter().any(|k| k.name == name)
    }

    /// Why the manifest cannot be used with this version of the macros, if it cannot: the build helper and the
    /// macros must come from one omp-rs release.
    pub fn mismatch(&self) -> Option<String> {
        let (f, a) = (omp_rs_abi::MANIFEST_FORMAT_VERSION, omp_rs_abi::ABI_VERSION);
        (self.format_version != f || self.abi_version != a).then(|| {
            format!(
                "omp-rs: the device images were built by omp-rs-build for manifest format {} and kernel ABI {}, these \
                 macros expect format {f} and ABI {a}: use one omp-rs version for omp-rs, omp-rs-build and the macros \
                 (cargo update), then rebuild",
                self.format_version, self.abi_version
            )
        })
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

#[cfg(test)]
mod test {
    use super::*;

    fn view(format_version: u32, abi_version: u32) -> ManifestView {
        ManifestView {
            format_version,
            abi_version,
            kernels: Vec::new(),
            images: Vec::new(),
            refused: Vec::new(),
            host_only: Vec::new(),
            dir: PathBuf::new(),
        }
    }

    #[test]
    fn another_abi_or_format_is_refused() {
        let (f, a) = (omp_rs_abi::MANIFEST_FORMAT_VERSION, omp_rs_abi::ABI_VERSION);
        assert!(view(f, a).mismatch().is_none());
        let m = view(f, a + 1).mismatch().expect("another ABI");
        assert!(m.contains(&format!("kernel ABI {}", a + 1)) && m.contains("one omp-rs version"), "{m}");
        assert!(view(f + 1, a).mismatch().is_some(), "another manifest format");
        // A manifest from before the ABI was recorded (abi_version missing, read as 0).
        assert!(view(f, 0).mismatch().is_some());
    }
}
