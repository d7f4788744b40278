//! Finding the device toolchain: a rustc that can build `core` for GPU targets, LLVM 22 tools,
//! ptxas + libdevice (NVIDIA), ROCm device-library bitcode (AMD).
//!
//! Every component is looked up independently, so NVIDIA builds work while AMD libraries are
//! missing and vice versa ([`Toolchain::check`]). A missing piece is a [`ToolchainError`] whose
//! message names it, where it was looked for, and the command that installs it.
//!
//! | component | override | default search |
//! |---|---|---|
//! | device rustc | `OMP_RS_DEVICE_RUSTC` | `/usr/bin/rustc` (Debian rustc-web ≥ 1.96 with rust-web-src), then rustup toolchains with rust-src (may fail to build `core`) |
//! | LLVM tools | `OMP_RS_LLVM_BIN` (a directory) | `llvm-link-22` … on `PATH`, `/usr/lib/llvm-22/bin` |
//! | ptxas | `OMP_RS_PTXAS` | `$OMP_RS_HOME/cuda/bin/ptxas`, `ptxas` on `PATH`, `/usr/local/cuda/bin/ptxas` |
//! | libdevice | `OMP_RS_LIBDEVICE` | `$OMP_RS_HOME/cuda/nvvm/libdevice/libdevice.10.bc`, `/usr/local/cuda/nvvm/libdevice/libdevice.10.bc` |
//! | ROCm bitcode | `OMP_RS_ROCM_BITCODE` (a directory) | `$OMP_RS_HOME/rocm/usr/lib/x86_64-linux-gnu/amdgcn/bitcode`, `/usr/lib/x86_64-linux-gnu/amdgcn/bitcode`, `/opt/rocm/amdgcn/bitcode` |
//! | host rustc | `OMP_RS_HOST_RUSTC` | the device rustc, then `$RUSTC`, then `rustc` on `PATH` |
//!
//! `OMP_RS_HOME` defaults to `~/.cache/omp-rs`; the sysroot and library caches live there too.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::arch::Arch;

/// The command that installs everything.
pub const SETUP_COMMAND: &str = "`cargo omp setup` (or, as root, `scripts/setup-gpu-toolchain.sh` from the omp-rs repository)";

/// Environment variables that change what is found or built (for `cargo:rerun-if-env-changed`).
pub const ENV_VARS: &[&str] = &[
    "OMP_RS_HOME",
    "OMP_RS_DEVICE_RUSTC",
    "OMP_RS_HOST_RUSTC",
    "OMP_RS_LLVM_BIN",
    "OMP_RS_PTXAS",
    "OMP_RS_PTXAS_ARGS",
    "OMP_RS_OPT_ARGS",
    "OMP_RS_FP_CONTRACT",
    "OMP_RS_FAST_MATH",
    "OMP_RS_LIBDEVICE",
    "OMP_RS_ROCM_BITCODE",
    "OMP_RS_OFFLOAD_ARCH",
];

/// LLVM programs the pipeline runs (unversioned names).
pub const LLVM_TOOLS: &[&str] = &["llvm-link", "opt", "llc", "ld.lld", "llvm-as"];
/// LLVM major version the tools must have (the one Debian's rustc 1.96 is built on).
pub const LLVM_MAJOR: u32 = 22;

/// Which part of the toolchain is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Component {
    /// A rustc able to build `core` for nvptx64/amdgcn.
    DeviceRustc,
    /// An LLVM tool (`llvm-link`, `opt`, `llc`, `ld.lld`, `llvm-as`).
    LlvmTool(&'static str),
    /// NVIDIA's PTX assembler.
    Ptxas,
    /// NVIDIA's libdevice bitcode.
    Libdevice,
    /// ROCm device libraries (ocml, ockl, oclc_*).
    RocmBitcode,
    /// A rustc for the host-plugin `.so`.
    HostRustc,
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Component::DeviceRustc => f.write_str("device rustc (Debian rustc-web ≥ 1.96 with rust-web-src)"),
            Component::LlvmTool(t) => write!(f, "LLVM {LLVM_MAJOR} tool `{t}`"),
            Component::Ptxas => f.write_str("ptxas (CUDA 13.0)"),
            Component::Libdevice => f.write_str("libdevice.10.bc (CUDA)"),
            Component::RocmBitcode => f.write_str("ROCm device libraries (ocml.bc, ockl.bc, oclc_*.bc)"),
            Component::HostRustc => f.write_str("rustc for the host-plugin image"),
        }
    }
}

/// A missing or unusable toolchain component, with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("omp-rs GPU toolchain: {component} not found{detail} (searched: {searched}). Fix: run {SETUP_COMMAND}, or set {env}.",
        detail = if self.detail.is_empty() { String::new() } else { format!(": {}", self.detail) },
        searched = if self.searched.is_empty() { "-".to_string() } else { self.searched.join(", ") })]
pub struct ToolchainError {
    /// What is missing.
    pub component: Component,
    /// Why a candidate was rejected (may be empty).
    pub detail: String,
    /// Everything that was tried.
    pub searched: Vec<String>,
    /// The variable that overrides the search.
    pub env: &'static str,
}

/// The rustc used for GPU targets.
#[derive(Debug, Clone)]
pub struct DeviceRustc {
    /// The executable.
    pub path: PathBuf,
    /// `rustc -vV` output (part of every cache key).
    pub verbose_version: String,
    /// e.g. `1.96.0`.
    pub release: String,
    /// Its sysroot (`--print sysroot`).
    pub sysroot: PathBuf,
    /// `…/lib/rustlib/src/rust/library`.
    pub library: PathBuf,
    /// Found through the rustup fallback (building `core` may fail).
    pub fallback: bool,
}

/// LLVM tools, all of [`LLVM_MAJOR`].
#[derive(Debug, Clone)]
pub struct LlvmTools {
    /// `llvm-link`.
    pub link: PathBuf,
    /// `opt`.
    pub opt: PathBuf,
    /// `llc`.
    pub llc: PathBuf,
    /// `ld.lld`.
    pub lld: PathBuf,
    /// `llvm-as`.
    pub llvm_as: PathBuf,
}

/// NVIDIA tools.
#[derive(Debug, Clone)]
pub struct CudaTools {
    /// `ptxas`.
    pub ptxas: PathBuf,
    /// `libdevice.10.bc`.
    pub libdevice: PathBuf,
}

/// ROCm device libraries.
#[derive(Debug, Clone)]
pub struct RocmTools {
    /// Directory holding `ocml.bc`, `ockl.bc`, `oclc_*.bc`.
    pub bitcode_dir: PathBuf,
}

/// The rustc for the host `.so`.
#[derive(Debug, Clone)]
pub struct HostRustc {
    /// The executable.
    pub path: PathBuf,
    /// `rustc -vV` output.
    pub verbose_version: String,
}

/// Everything found; each component separately.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// `OMP_RS_HOME`: caches and the setup script's installs.
    pub home: PathBuf,
    /// Device rustc.
    pub rustc: Result<DeviceRustc, ToolchainError>,
    /// LLVM tools.
    pub llvm: Result<LlvmTools, ToolchainError>,
    /// ptxas + libdevice.
    pub cuda: Result<CudaTools, ToolchainError>,
    /// ROCm bitcode.
    pub rocm: Result<RocmTools, ToolchainError>,
    /// Host rustc.
    pub host_rustc: Result<HostRustc, ToolchainError>,
}

/// `$OMP_RS_HOME`, else `~/.cache/omp-rs`.
pub fn omp_rs_home() -> PathBuf {
    if let Some(h) = std::env::var_os("OMP_RS_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("omp-rs")
}

impl Toolchain {
    /// Looks every component up (a few `--version` calls, ~50 ms).
    pub fn discover() -> Toolchain {
        let home = omp_rs_home();
        let rustc = find_device_rustc();
        let host_rustc = find_host_rustc(rustc.as_ref().ok());
        Toolchain { llvm: find_llvm(), cuda: find_cuda(&home), rocm: find_rocm(&home), rustc, host_rustc, home }
    }

    /// `Ok` when `arch` can be built.
    ///
    /// # Errors
    /// The first missing component.
    pub fn check(&self, arch: &Arch) -> Result<(), ToolchainError> {
        match arch {
            Arch::Nvidia(_) => {
                self.rustc.as_ref().map_err(Clone::clone)?;
                self.llvm.as_ref().map_err(Clone::clone)?;
                self.cuda.as_ref().map_err(Clone::clone)?;
            }
            Arch::Amd(gfx) => {
                self.rustc.as_ref().map_err(Clone::clone)?;
                self.llvm.as_ref().map_err(Clone::clone)?;
                self.rocm.as_ref().map_err(Clone::clone)?.isa_library(gfx)?;
            }
            Arch::Host => {
                self.host_rustc.as_ref().map_err(Clone::clone)?;
            }
        }
        Ok(())
    }

    /// The device rustc or its error.
    pub fn device_rustc(&self) -> Result<&DeviceRustc, ToolchainError> {
        self.rustc.as_ref().map_err(Clone::clone)
    }
    /// The LLVM tools or their error.
    pub fn llvm_tools(&self) -> Result<&LlvmTools, ToolchainError> {
        self.llvm.as_ref().map_err(Clone::clone)
    }
    /// ptxas + libdevice or their error.
    pub fn cuda_tools(&self) -> Result<&CudaTools, ToolchainError> {
        self.cuda.as_ref().map_err(Clone::clone)
    }
    /// ROCm bitcode or its error.
    pub fn rocm_tools(&self) -> Result<&RocmTools, ToolchainError> {
        self.rocm.as_ref().map_err(Clone::clone)
    }
    /// The host rustc or its error.
    pub fn host(&self) -> Result<&HostRustc, ToolchainError> {
        self.host_rustc.as_ref().map_err(Clone::clone)
    }
}

impl RocmTools {
    /// The bitcode libraries linked into every AMD kernel for `gfx` (code object v5, wave64,
    /// IEEE-correct math), `ocml` and `ockl` first.
    ///
    /// # Errors
    /// When a library is missing.
    pub fn libraries(&self, gfx: &str) -> Result<Vec<PathBuf>, ToolchainError> {
        let mut v = vec![self.bitcode_dir.join("ocml.bc"), self.bitcode_dir.join("ockl.bc")];
        v.push(self.isa_library(gfx)?);
        for f in [
            "oclc_abi_version_500.bc",
            "oclc_finite_only_off.bc",
            "oclc_unsafe_math_off.bc",
            "oclc_daz_opt_off.bc",
            "oclc_correctly_rounded_sqrt_on.bc",
            "oclc_wavefrontsize64_on.bc",
        ] {
            v.push(self.bitcode_dir.join(f));
        }
        match v.iter().find(|p| !p.is_file()) {
            Some(p) => Err(rocm_error(format!("`{}` is missing", p.display()), vec![])),
            None => Ok(v),
        }
    }

    /// `oclc_isa_version_<n>.bc` for `gfx`. ROCm 5.2 (Debian 12) has no 941/942: those use 940,
    /// the same ISA family (what ocml/ockl query it for: dot/fma/packed-math availability).
    ///
    /// # Errors
    /// When neither the exact file nor the family fallback exists.
    pub fn isa_library(&self, gfx: &str) -> Result<PathBuf, ToolchainError> {
        let n = gfx.trim_start_matches("gfx");
        let exact = self.bitcode_dir.join(format!("oclc_isa_version_{n}.bc"));
        if exact.is_file() {
            return Ok(exact);
        }
        let family = match n {
            "941" | "942" => Some("940"),
            _ => None,
        };
        if let Some(f) = family {
            let p = self.bitcode_dir.join(format!("oclc_isa_version_{f}.bc"));
            if p.is_file() {
                return Ok(p);
            }
        }
        Err(rocm_error(format!("no `{}` for {gfx}", exact.display()), vec![]))
    }
}

fn rocm_error(detail: String, searched: Vec<String>) -> ToolchainError {
    ToolchainError { component: Component::RocmBitcode, detail, searched, env: "OMP_RS_ROCM_BITCODE" }
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Every `name` on `PATH`, in order.
fn on_path(name: &str) -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else { return vec![] };
    std::env::split_paths(&path).map(|d| d.join(name)).filter(|p| is_executable(p)).collect()
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// `rustc -vV` and `--print sysroot` of a candidate.
fn probe_rustc(path: &Path) -> Result<(String, String, PathBuf), String> {
    let out = Command::new(path).arg("-vV").output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("`{} -vV` failed", path.display()));
    }
    let vv = String::from_utf8_lossy(&out.stdout).into_owned();
    let release =
        vv.lines().find_map(|l| l.strip_prefix("release: ")).ok_or_else(|| "no `release:` in `rustc -vV`".to_string())?.trim().to_string();
    let out = Command::new(path).args(["--print", "sysroot"]).output().map_err(|e| e.to_string())?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok((vv, release, sysroot))
}

/// (major, minor) of `1.96.0` / `1.97.0-nightly`.
fn version_of(release: &str) -> (u32, u32) {
    let mut it = release.split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

fn device_rustc_at(path: &Path, fallback: bool) -> Result<DeviceRustc, String> {
    let (verbose_version, release, sysroot) = probe_rustc(path)?;
    let library = sysroot.join("lib/rustlib/src/rust/library");
    if !library.join("core/src/lib.rs").is_file() {
        return Err(format!("{} {release} has no library source at {}", path.display(), library.display()));
    }
    Ok(DeviceRustc { path: path.to_path_buf(), verbose_version, release, sysroot, library, fallback })
}

fn find_device_rustc() -> Result<DeviceRustc, ToolchainError> {
    let err = |detail: String, searched: Vec<String>| ToolchainError {
        component: Component::DeviceRustc,
        detail,
        searched,
        env: "OMP_RS_DEVICE_RUSTC",
    };
    if let Some(p) = env_path("OMP_RS_DEVICE_RUSTC") {
        return device_rustc_at(&p, false).map_err(|d| err(d, vec![format!("$OMP_RS_DEVICE_RUSTC={}", p.display())]));
    }
    let mut searched = Vec::new();
    let mut details = Vec::new();
    // Debian's rustc-web: the only toolchain known to build `core` from its own source for GPUs.
    let debian = Path::new("/usr/bin/rustc");
    searched.push(debian.display().to_string());
    match device_rustc_at(debian, false) {
        Ok(r) if version_of(&r.release) >= (1, 96) => return Ok(r),
        Ok(r) => details.push(format!("/usr/bin/rustc is {} (need ≥ 1.96)", r.release)),
        Err(e) => details.push(e),
    }
    // Fallback: a rustup toolchain with rust-src, nightly first.
    let rustup = env_path("RUSTUP_HOME").or_else(|| env_path("HOME").map(|h| h.join(".rustup"))).map(|h| h.join("toolchains"));
    if let Some(dir) = rustup {
        searched.push(format!("{}/*/bin/rustc (with rust-src)", dir.display()));
        let mut tcs: Vec<PathBuf> =
            std::fs::read_dir(&dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        tcs.sort_by_key(|p| (!p.to_string_lossy().contains("nightly"), p.clone()));
        for tc in tcs {
            if let Ok(r) = device_rustc_at(&tc.join("bin/rustc"), true) {
                return Ok(r);
            }
        }
    }
    Err(err(details.join("; "), searched))
}

fn find_host_rustc(device: Option<&DeviceRustc>) -> Result<HostRustc, ToolchainError> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = env_path("OMP_RS_HOST_RUSTC") {
        candidates.push(p);
    } else {
        // Same compiler as the GPU images when possible: one omp_device source, one rustc.
        if let Some(d) = device {
            candidates.push(d.path.clone());
        }
        if let Some(p) = env_path("RUSTC") {
            candidates.push(p);
        }
        candidates.extend(on_path("rustc"));
    }
    for c in &candidates {
        if let Ok((verbose_version, _, _)) = probe_rustc(c) {
            return Ok(HostRustc { path: c.clone(), verbose_version });
        }
    }
    Err(ToolchainError {
        component: Component::HostRustc,
        detail: String::new(),
        searched: candidates.iter().map(|p| p.display().to_string()).collect(),
        env: "OMP_RS_HOST_RUSTC",
    })
}

/// `LLVM version 22.1.8` → 22.
fn llvm_major(tool: &Path) -> Option<u32> {
    let out = Command::new(tool).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text.split("LLVM version ").nth(1)?;
    v.split('.').next()?.trim().parse().ok()
}

fn find_llvm() -> Result<LlvmTools, ToolchainError> {
    let dir = env_path("OMP_RS_LLVM_BIN");
    let mut found = Vec::new();
    for &tool in LLVM_TOOLS {
        let versioned = format!("{tool}-{LLVM_MAJOR}");
        let mut candidates = Vec::new();
        match &dir {
            Some(d) => {
                candidates.push(d.join(tool));
                candidates.push(d.join(&versioned));
            }
            None => {
                candidates.extend(on_path(&versioned));
                candidates.push(PathBuf::from(format!("/usr/lib/llvm-{LLVM_MAJOR}/bin/{tool}")));
            }
        }
        match candidates.iter().find(|p| is_executable(p)) {
            Some(p) => found.push(p.clone()),
            None => {
                return Err(ToolchainError {
                    component: Component::LlvmTool(tool),
                    detail: String::new(),
                    searched: candidates.iter().map(|p| p.display().to_string()).collect(),
                    env: "OMP_RS_LLVM_BIN",
                })
            }
        }
    }
    // Bitcode from rustc's LLVM must be readable by the tools: same major (readers accept older).
    let llc = &found[2];
    match llvm_major(llc) {
        Some(m) if m >= LLVM_MAJOR => {}
        other => {
            return Err(ToolchainError {
                component: Component::LlvmTool("llc"),
                detail: format!("{} is LLVM {}, need ≥ {LLVM_MAJOR}", llc.display(), other.map_or("?".to_string(), |m| m.to_string())),
                searched: vec![llc.display().to_string()],
                env: "OMP_RS_LLVM_BIN",
            })
        }
    }
    let mut it = found.into_iter();
    let mut next = || it.next().unwrap_or_default();
    Ok(LlvmTools { link: next(), opt: next(), llc: next(), lld: next(), llvm_as: next() })
}

fn find_cuda(home: &Path) -> Result<CudaTools, ToolchainError> {
    let mut searched = Vec::new();
    let ptxas = match env_path("OMP_RS_PTXAS") {
        Some(p) => {
            searched.push(format!("$OMP_RS_PTXAS={}", p.display()));
            Some(p).filter(|p| is_executable(p))
        }
        None => {
            let mut c = vec![home.join("cuda/bin/ptxas")];
            c.extend(on_path("ptxas"));
            c.push(PathBuf::from("/usr/local/cuda/bin/ptxas"));
            searched.extend(c.iter().map(|p| p.display().to_string()));
            c.into_iter().find(|p| is_executable(p))
        }
    };
    let Some(ptxas) = ptxas else {
        return Err(ToolchainError { component: Component::Ptxas, detail: String::new(), searched, env: "OMP_RS_PTXAS" });
    };
    let mut searched = Vec::new();
    let libdevice = match env_path("OMP_RS_LIBDEVICE") {
        Some(p) => {
            searched.push(format!("$OMP_RS_LIBDEVICE={}", p.display()));
            Some(p).filter(|p| p.is_file())
        }
        None => {
            let mut c = vec![home.join("cuda/nvvm/libdevice/libdevice.10.bc")];
            // next to the ptxas that was found (a CUDA install: bin/ptxas, nvvm/libdevice/)
            if let Some(root) = ptxas.parent().and_then(Path::parent) {
                c.push(root.join("nvvm/libdevice/libdevice.10.bc"));
            }
            c.push(PathBuf::from("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"));
            searched.extend(c.iter().map(|p| p.display().to_string()));
            c.into_iter().find(|p| p.is_file())
        }
    };
    match libdevice {
        Some(libdevice) => Ok(CudaTools { ptxas, libdevice }),
        None => Err(ToolchainError { component: Component::Libdevice, detail: String::new(), searched, env: "OMP_RS_LIBDEVICE" }),
    }
}

fn find_rocm(home: &Path) -> Result<RocmTools, ToolchainError> {
    let candidates = match env_path("OMP_RS_ROCM_BITCODE") {
        Some(p) => vec![p],
        None => vec![
            home.join("rocm/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"),
            PathBuf::from("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"),
            PathBuf::from("/opt/rocm/amdgcn/bitcode"),
        ],
    };
    match candidates.iter().find(|d| d.join("ocml.bc").is_file() && d.join("ockl.bc").is_file()) {
        Some(d) => Ok(RocmTools { bitcode_dir: d.clone() }),
        None => Err(rocm_error(String::new(), candidates.iter().map(|p| format!("{}/ocml.bc", p.display())).collect())),
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn error_names_the_fix() {
        let e = ToolchainError {
            component: Component::Ptxas,
            detail: String::new(),
            searched: vec!["/x/bin/ptxas".into()],
            env: "OMP_RS_PTXAS",
        };
        let s = e.to_string();
        assert!(s.contains("ptxas"), "{s}");
        assert!(s.contains("/x/bin/ptxas"), "{s}");
        assert!(s.contains("cargo omp setup"), "{s}");
        assert!(s.contains("scripts/setup-gpu-toolchain.sh"), "{s}");
        assert!(s.contains("OMP_RS_PTXAS"), "{s}");
    }

    #[test]
    fn versions() {
        assert_eq!(version_of("1.96.0"), (1, 96));
        assert_eq!(version_of("1.97.0-nightly"), (1, 97));
        assert!(version_of("1.95.0") < (1, 96));
    }
}
