//! Compiling a generated device crate into one image per arch.
//!
//! | arch | pipeline |
//! |---|---|
//! | `sm_XX` | `rustc --emit=llvm-bc` → `llvm-link` (+ omp_device; float remainders made exact, `remainder`) → `llvm-link --only-needed` (core, helper, libdevice) → `opt` (internalize all but the exports, O3) → `llc` → PTX → `ptxas -v` → cubin; kernels above 32 registers once more without machine sinking, kept where more teams fit (`occupancy`) |
//! | `gfxXXX` | same up to `opt` with ocml/ockl/oclc instead of libdevice → `llc -filetype=obj` (code object v5) → `ld.lld -shared --no-undefined` |
//! | host | `rustc --crate-type cdylib` (std, `panic=unwind`) with the host rustc |
//!
//! The crate source is written to `<out_dir>/work/<arch>/src/`, intermediate files stay in
//! `<out_dir>/work/<arch>/`, images land in `<out_dir>/<crate>.<arch>.<ext>` (PTX and the ptxas
//! log next to the cubin).

mod amdgpu;
mod host;
mod nvptx;
pub mod occupancy;
pub mod ptxas;
mod remainder;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::arch::{Arch, ImageKind};
use crate::device_lib::{self, DeviceLib};
use crate::error::{Error, Result};
use crate::toolchain::Toolchain;

pub use ptxas::KernelResources;

/// How GPU kernels compute floating point, from the build-time environment. The default is Rust's arithmetic, as
/// on the host: `a * b + c` rounds twice, `/` and `f32::sqrt` are correctly rounded, so a kernel computes what the
/// host path computes. Two opt-ins, for ports whose originals rely on the C and CUDA compilers' defaults:
/// - `OMP_RS_FP_CONTRACT=fast`: `a * b + c` fused into one `fma` wherever LLVM can, as nvcc and clang compile C and
///   CUDA by default (fewer instructions, results that may differ from the host's in the last bits).
/// - `OMP_RS_FAST_MATH=on`: that contraction, and on NVIDIA GPUs `f32` division to 2 ulp (`div.full.f32`) and an
///   approximate `f32` square root, so `1.0 / x.sqrt()` is one `rsqrt.approx.f32`: what nvcc's `-prec-div=false
///   -prec-sqrt=false` (part of `--use_fast_math`) and CUDA's `rsqrtf` give, and what icpx's default `-fp-model=fast`
///   gives OpenMP C. Subnormals are kept and transcendental functions stay as they are (unlike `--use_fast_math`);
///   AMD kernels get the contraction only.
///
/// The host path never changes: these trade agreement with it in the last bits for speed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct FpModel {
    contract: bool,
    approx_div_sqrt: bool,
}

impl FpModel {
    fn from_env() -> Result<Self> {
        let contract = match std::env::var("OMP_RS_FP_CONTRACT").as_deref() {
            Err(_) | Ok("off") => false,
            Ok("fast") => true,
            Ok(other) => {
                return Err(Error::Unexpected(format!(
                    "OMP_RS_FP_CONTRACT={other} is not `off` (Rust's rounding, the default) or `fast` (fuse `a * b + c` \
                     into fma, as nvcc and clang do)"
                )))
            }
        };
        let fast = match std::env::var("OMP_RS_FAST_MATH").as_deref() {
            Err(_) | Ok("off") => false,
            Ok("on") => true,
            Ok(other) => {
                return Err(Error::Unexpected(format!(
                    "OMP_RS_FAST_MATH={other} is not `off` (Rust's arithmetic, the default) or `on` (fma contraction and \
                     approximate f32 division and square root, as nvcc's `-prec-div=false -prec-sqrt=false`)"
                )))
            }
        };
        Ok(FpModel { contract: contract || fast, approx_div_sqrt: fast })
    }

    /// `llc`'s arguments; the `-nvptx-*` ones only for NVIDIA targets.
    fn llc_args(self, nvptx: bool) -> Vec<&'static str> {
        let mut args = Vec::new();
        if self.contract {
            args.push("-fp-contract=fast");
        }
        if self.approx_div_sqrt && nvptx {
            args.extend(["-nvptx-prec-divf32=1", "-nvptx-prec-sqrtf32=0"]);
        }
        args
    }

    /// What libdevice's `__nvvm_reflect("__CUDA_PREC_SQRT")` answers: 1 (nvcc's default, `-prec-sqrt`) makes its
    /// `sqrtf` the correctly rounded `sqrt.rn.f32`, one ulp closer than `sqrt.approx.f32` and equal to Rust's
    /// `f32::sqrt` on the host.
    fn nvvm_prec_sqrt(self) -> &'static str {
        if self.approx_div_sqrt {
            "-nvvm-reflect-add=__CUDA_PREC_SQRT=0"
        } else {
            "-nvvm-reflect-add=__CUDA_PREC_SQRT=1"
        }
    }
}

/// The device crate the outliner generates.
#[derive(Debug, Clone, Default)]
pub struct DeviceCrate {
    /// Crate name (a Rust identifier), e.g. `omp_kernels`.
    pub name: String,
    /// Source files, paths relative to the crate's `src/`; `lib.rs` is the root.
    pub files: Vec<(PathBuf, String)>,
    /// Symbols to keep: every kernel name and any extra device global. `omp_device`'s globals
    /// ([`device_lib::DEVICE_GLOBALS`]) are always kept.
    pub exports: Vec<String>,
    /// `--remap-path-prefix` pairs (from, to) applied to panic locations; by default the source
    /// directory is remapped to the crate name, so images do not depend on `OUT_DIR`.
    pub remap_path_prefix: Vec<(PathBuf, String)>,
    /// Compile the kernels with `-Coverflow-checks=on`, so that arithmetic that panics on the host panics in
    /// the kernel too (the builder turns it on for cargo's debug profiles, as rustc does for host code).
    pub overflow_checks: bool,
    /// Compile the kernels with `-Cdebug-assertions=on` (`debug_assert!` and `cfg!(debug_assertions)` in kernel
    /// code mean what they mean in the host build: the builder reads the profile, `builder::Profile::debug_assertions`).
    pub debug_assertions: bool,
}

/// Where the time of one image went.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// Looking up (or building, the first time) the core sysroot and omp_device.
    pub setup: Duration,
    /// rustc on the device crate (host: compile and link).
    pub rustc: Duration,
    /// Both llvm-link steps.
    pub link: Duration,
    /// opt.
    pub opt: Duration,
    /// llc.
    pub llc: Duration,
    /// ptxas or ld.lld.
    pub finish: Duration,
    /// NVIDIA: compiling kernels above 32 registers once more without machine sinking (`occupancy`).
    pub occupancy: Duration,
    /// Everything.
    pub total: Duration,
}

/// One built image.
#[derive(Debug, Clone)]
pub struct Image {
    /// Its arch.
    pub arch: Arch,
    /// Its kind.
    pub kind: ImageKind,
    /// The image file.
    pub path: PathBuf,
    /// NVIDIA: the PTX it was assembled from (also a JIT fallback).
    pub ptx: Option<PathBuf>,
    /// NVIDIA: the `ptxas -v` log.
    pub ptxas_log: Option<PathBuf>,
    /// NVIDIA: per-kernel registers, spills, stack, shared memory.
    pub resources: Vec<KernelResources>,
    /// rustc's warnings on the device crate (empty when clean).
    pub diagnostics: String,
    /// Stage times.
    pub timings: Timings,
}

impl DeviceCrate {
    /// Every symbol to keep (exports + omp_device globals), deduplicated.
    pub fn export_list(&self) -> Vec<String> {
        let mut v = self.exports.clone();
        for (g, _) in device_lib::DEVICE_GLOBALS {
            if !v.iter().any(|e| e == g) {
                v.push((*g).to_string());
            }
        }
        v
    }
}

/// Builds `krate` for `arch` into `out_dir`.
///
/// # Errors
/// A missing toolchain component, or a failing tool (its command line and stderr are in the error).
pub fn compile(tc: &Toolchain, krate: &DeviceCrate, arch: &Arch, out_dir: &Path) -> Result<Image> {
    tc.check(arch)?;
    let t0 = Instant::now();
    let lib = device_lib::ensure(tc, arch)?;
    let setup = t0.elapsed();
    let work = out_dir.join("work").join(arch.to_string());
    let src = write_crate(krate, &work)?;
    let image_path = out_dir.join(format!("{}.{arch}.{}", krate.name, arch.image_kind().extension()));
    let job = Job { tc, krate, arch, lib: &lib, src: &src, work: &work, image: &image_path };
    let mut image = match arch {
        Arch::Nvidia(_) => nvptx::compile(&job)?,
        Arch::Amd(_) => amdgpu::compile(&job)?,
        Arch::Host => host::compile(&job)?,
    };
    image.timings.setup = setup;
    image.timings.total = t0.elapsed();
    Ok(image)
}

/// What every back end needs.
struct Job<'a> {
    tc: &'a Toolchain,
    krate: &'a DeviceCrate,
    arch: &'a Arch,
    lib: &'a DeviceLib,
    /// `<work>/src` (holds `lib.rs`).
    src: &'a Path,
    /// `<out_dir>/work/<arch>`: intermediate files.
    work: &'a Path,
    /// The image file to produce.
    image: &'a Path,
}

/// rustc's failure on the generated crate, said in the user's terms ([`Error::KernelsDoNotCompile`]).
fn kernels_do_not_compile(arch: &Arch) -> impl FnOnce(Error) -> Error + '_ {
    move |e| match e {
        Error::Command { stderr, .. } => Error::KernelsDoNotCompile { arch: arch.to_string(), errors: stderr },
        other => other,
    }
}

impl Job<'_> {
    /// The arguments shared by the GPU and host rustc calls.
    fn rustc_common(&self, cmd: &mut std::process::Command) {
        cmd.args(["--edition=2021", "--crate-name", &self.krate.name])
            .args(["-Copt-level=3", "-Cdebuginfo=0"])
            .arg(format!("-Coverflow-checks={}", if self.krate.overflow_checks { "on" } else { "off" }))
            .arg(format!("-Cdebug-assertions={}", if self.krate.debug_assertions { "on" } else { "off" }))
            .arg("--extern")
            .arg(format!("omp_device={}", self.lib.rlib.display()));
        if let Some(dir) = self.lib.rlib.parent() {
            cmd.arg("-L").arg(format!("dependency={}", dir.display()));
        }
        // The source directory reads as the crate name; a per-file mapping (relative paths are inside the source
        // directory) comes later, and rustc applies the last matching one: kernels report the user's file.
        cmd.arg(format!("--remap-path-prefix={}={}", self.src.display(), self.krate.name));
        for (from, to) in &self.krate.remap_path_prefix {
            let from = if from.is_relative() { self.src.join(from) } else { from.clone() };
            cmd.arg(format!("--remap-path-prefix={}={to}", from.display()));
        }
        cmd.arg(self.src.join("lib.rs"));
    }
}

/// Writes the crate's files to `<work>/src/`, returns that directory.
fn write_crate(krate: &DeviceCrate, work: &Path) -> Result<PathBuf> {
    let src = work.join("src");
    if src.exists() {
        std::fs::remove_dir_all(&src).map_err(Error::io("cleaning", &src))?;
    }
    for (rel, text) in &krate.files {
        if rel.is_absolute() || rel.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return Err(Error::Unexpected(format!("device crate file `{}` must be a relative path inside src/", rel.display())));
        }
        let p = src.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(Error::io("creating", d))?;
        }
        std::fs::write(&p, text).map_err(Error::io("writing", &p))?;
    }
    if !src.join("lib.rs").is_file() {
        return Err(Error::Unexpected(format!("device crate `{}` has no lib.rs", krate.name)));
    }
    Ok(src)
}
