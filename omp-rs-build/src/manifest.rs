//! `$OUT_DIR/omp-rs/manifest.json`: which kernels exist and which images hold them
//! (ARCHITECTURE.md "Images and manifest").
//!
//! ```json
//! {
//!   "format_version": 1,
//!   "kernels": [{"name": "omp_saxpy_0_1a2b3c4d", "fn": "saxpy", "region": 0,
//!                "slots": ["float64", "array_base", "array_len", "array_base", "array_len",
//!                          "loop_first", "loop_trips", "loop_step"],
//!                "maps": [{"var": "x", "map": "to", "why": "&[f64] parameter"}]}],
//!   "images": [{"arch": "sm_90", "file": "omp_kernels.sm_90.cubin", "kind": "cubin",
//!               "resources": [{"name": "omp_saxpy_0_1a2b3c4d", "registers": 30, …}]},
//!              {"arch": "gfx90a", "file": "omp_kernels.gfx90a.hsaco", "kind": "hsaco"},
//!              {"arch": "host-x86_64", "file": "omp_kernels.host-x86_64.so", "kind": "so"}],
//!   "globals": [{"name": "__omp_rs_panic_record", "size": 8}]
//! }
//! ```
//! `file` is relative to the manifest's directory. The macro expansion embeds an image only when
//! its kernel is listed; `slots` excludes the implicit leading `dyn_ptr`; `maps` is optional.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::arch::ImageKind;
use crate::compile::KernelResources;
use crate::error::{Error, Result};

/// Current `format_version`.
pub const FORMAT_VERSION: u32 = omp_rs_abi::MANIFEST_FORMAT_VERSION;
/// Directory under `OUT_DIR` holding the manifest and the images.
pub const DIR: &str = "omp-rs";
/// The manifest's file name.
pub const FILE: &str = "manifest.json";

/// The manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// The kernel ABI the images were built for (`omp_rs_abi::ABI_VERSION`); the macros refuse another.
    #[serde(default)]
    pub abi_version: u32,
    /// Every kernel of the device crate.
    pub kernels: Vec<KernelEntry>,
    /// Every image built (arches whose toolchain is missing are absent).
    pub images: Vec<ImageEntry>,
    /// Device globals to register with libomptarget.
    pub globals: Vec<GlobalEntry>,
    /// Regions whose meaning the device build cannot reproduce: the macros make each a compile error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<omp_rs_codegen::plan::manifest::Refusal>,
    /// Generic regions that get no kernel and run on the host: the macros quote the reason under `MANDATORY`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_only: Vec<omp_rs_codegen::plan::manifest::HostOnly>,
}

/// One kernel (one target region).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelEntry {
    /// Symbol name (the kernel ABI: `omp_<fn>_<region>_<hash>`).
    pub name: String,
    /// The user function holding the region.
    #[serde(rename = "fn")]
    pub function: String,
    /// Index of the region within the function.
    pub region: u32,
    /// Kinds of the 8-byte argument slots after `dyn_ptr`, in order.
    pub slots: Vec<SlotKind>,
    /// How each captured variable is mapped, and why (for `cargo omp explain`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maps: Vec<MapDecision>,
    /// Where the region is in the user's source (for `cargo omp explain`, which needs no re-reading of the
    /// generated crate to say it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The types of the struct field paths the region uses, which the macro binds its locals with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldType>,
    /// Where the outlined kernel is written out, for `cargo omp explain` (which then reads no generated crate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<KernelSource>,
    /// What the host expansion has rustc confirm about the outliner's choices for this kernel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<omp_rs_codegen::plan::manifest::HostCheck>,
}

/// A kernel's outlined source, written by the build next to the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelSource {
    /// The file holding only this kernel, relative to the manifest's directory (`device/kernels/<name>.rs`).
    pub file: String,
    /// The line of the user's source the file's first line corresponds to (bodies keep the user's lines).
    pub line: usize,
    /// The kernel's slot parameter names, after `dyn_ptr`.
    pub params: Vec<String>,
}

/// A region's place in the user's source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The file, relative to the package (`src/lib.rs`).
    pub file: String,
    /// The line of the region's `for` (1-based).
    pub line: usize,
}

pub use omp_rs_codegen::plan::abi::SlotKind;
pub use omp_rs_codegen::plan::kernel::MapDecision;
pub use omp_rs_codegen::plan::manifest::FieldView as FieldType;

/// One image file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageEntry {
    /// `sm_90`, `gfx90a`, `host-x86_64`.
    pub arch: String,
    /// File name, relative to the manifest.
    pub file: String,
    /// File kind.
    pub kind: ImageKind,
    /// NVIDIA: ptxas resource usage per kernel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<KernelResources>,
}

/// One device global.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalEntry {
    /// Symbol name.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
}

impl Manifest {
    /// An empty manifest (no kernels, no images) with omp_device's globals.
    pub fn new() -> Manifest {
        Manifest {
            format_version: FORMAT_VERSION,
            abi_version: omp_rs_abi::ABI_VERSION,
            kernels: Vec::new(),
            images: Vec::new(),
            globals: crate::device_lib::DEVICE_GLOBALS.iter().map(|(n, s)| GlobalEntry { name: (*n).to_string(), size: *s }).collect(),
            refused: Vec::new(),
            host_only: Vec::new(),
        }
    }

    /// `<out_dir>/omp-rs/manifest.json`.
    pub fn path_in(out_dir: &Path) -> PathBuf {
        out_dir.join(DIR).join(FILE)
    }

    /// The kernel called `name`, if listed.
    pub fn kernel(&self, name: &str) -> Option<&KernelEntry> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Writes it as pretty JSON (atomically: a reader never sees half a file).
    ///
    /// # Errors
    /// I/O or serialisation failure.
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|source| Error::Manifest { path: path.into(), source })?;
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).map_err(Error::io("creating", d))?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(Error::io("writing", &tmp))?;
        std::fs::rename(&tmp, path).map_err(Error::io("writing", path))
    }

    /// Reads a manifest.
    ///
    /// # Errors
    /// I/O or parse failure.
    pub fn read(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path).map_err(Error::io("reading", path))?;
        serde_json::from_str(&text).map_err(|source| Error::Manifest { path: path.into(), source })
    }
}

impl Default for Manifest {
    fn default() -> Self {
        Manifest::new()
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn round_trips() {
        let mut m = Manifest::new();
        m.kernels.push(KernelEntry {
            name: "omp_f_0_deadbeef".into(),
            function: "f".into(),
            region: 0,
            slots: vec![SlotKind::Float64, SlotKind::ArrayBase, SlotKind::ArrayLen],
            maps: vec![MapDecision { var: "x".into(), map: "to".into(), why: "`&[f64]` (read only)".into() }],
            location: Some(Location { file: "src/lib.rs".into(), line: 7 }),
            fields: vec![FieldType { local: "s_x".into(), ty: "Vec < f64 >".into() }],
            source: Some(KernelSource { file: "device/kernels/omp_f_0_deadbeef.rs".into(), line: 7, params: vec!["a".into()] }),
            checks: vec![omp_rs_codegen::plan::manifest::HostCheck::Cfg { pred: "feature = \"x\"".into(), value: true }],
        });
        m.refused.push(omp_rs_codegen::plan::manifest::Refusal {
            kernel: "omp_g_0_deadbeef".into(),
            name: Some("W".into()),
            message: "why".into(),
        });
        m.images.push(ImageEntry { arch: "sm_90".into(), file: "k.sm_90.cubin".into(), kind: ImageKind::Cubin, resources: vec![] });
        let dir = std::env::temp_dir().join(format!("omp-rs-manifest-{}", std::process::id()));
        let p = Manifest::path_in(&dir);
        m.write(&p).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("\"fn\": \"f\"") && text.contains("\"float64\"") && text.contains("\"cubin\""), "{text}");
        assert_eq!(Manifest::read(&p).unwrap(), m);
        assert!(m.kernel("omp_f_0_deadbeef").is_some());
        // `maps` is optional on read (manifests written before it existed)
        let old = r#"{"format_version":1,"kernels":[{"name":"k","fn":"f","region":0,"slots":["int"]}],"images":[],"globals":[]}"#;
        let old: Manifest = serde_json::from_str(old).unwrap();
        assert!(old.kernels[0].maps.is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }
}
