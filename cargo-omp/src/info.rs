//! `cargo omp info`: what can be built and run here.
//!
//! Four questions, each answered from the same code the build and the runtime use: which
//! toolchain components [`Toolchain::discover`] finds (and the fix for each missing one), which
//! offload archs [`Toolchain::check`] accepts, what the `$OMP_RS_HOME` caches hold, and whether
//! libomptarget loads and how many devices it sees ([`runtime_probe`], in a child process).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use omp_build::toolchain::{omp_rs_home, Component, ToolchainError, LLVM_MAJOR};
use omp_build::{Arch, Toolchain};
use serde::Serialize;

use crate::runtime_probe::{self, Plugin, Runtime, Via};

/// Everything `info` reports (also its `--json` shape).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// `$OMP_RS_HOME`.
    pub(crate) omp_rs_home: String,
    /// One entry per toolchain component.
    pub(crate) toolchain: Vec<ComponentReport>,
    /// One entry per offload arch.
    pub(crate) archs: Vec<ArchReport>,
    /// Cache directories under `$OMP_RS_HOME`.
    pub(crate) caches: Vec<CacheEntry>,
    /// libomptarget and its devices.
    pub(crate) runtime: Runtime,
    /// `OMP_TARGET_OFFLOAD`, when set (it changes where target regions run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) omp_target_offload: Option<String>,
}

/// One toolchain component.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ComponentReport {
    /// `device rustc`, `LLVM tools`, `ptxas`, `libdevice`, `ROCm bitcode`, `host rustc`.
    pub(crate) component: String,
    /// Found or missing.
    #[serde(flatten)]
    pub(crate) status: ComponentStatus,
}

/// Whether a component was found.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum ComponentStatus {
    /// Usable.
    Found {
        /// The file or directory.
        path: String,
        /// Its version, when it says.
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<String>,
        /// A caveat.
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Not usable.
    Missing {
        /// The discovery error, whole.
        error: String,
        /// Why a candidate was rejected (may be empty).
        #[serde(skip_serializing_if = "String::is_empty")]
        detail: String,
        /// Everything that was tried.
        searched: Vec<String>,
        /// The command that fixes it.
        fix: String,
        /// The variable that overrides the search.
        env: String,
    },
}

/// One offload arch.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ArchReport {
    /// `sm_90`, `gfx90a`, `host-x86_64`.
    pub(crate) arch: String,
    /// Images for it can be built now.
    pub(crate) buildable: bool,
    /// Built by default (`false`: only when named in `OMP_RS_OFFLOAD_ARCH`).
    pub(crate) default: bool,
    /// GPU archs: a `core` sysroot for it is cached (else the first build compiles it, ~20 s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) core_cached: Option<bool>,
    /// Why it cannot be built.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) missing: Option<String>,
}

/// One cache directory.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CacheEntry {
    /// `sysroot`, `omp_device`, `cuda`, `rocm`.
    pub(crate) kind: String,
    /// Directory name.
    pub(crate) name: String,
    /// Full path.
    pub(crate) path: String,
    /// Size on disk (file lengths, symlinks not followed).
    pub(crate) bytes: u64,
}

/// Collects the report (runs the runtime probe through `exe`).
pub(crate) fn collect(exe: &Path) -> Report {
    let tc = Toolchain::discover();
    let home = omp_rs_home();
    Report {
        omp_rs_home: home.display().to_string(),
        toolchain: components(&tc),
        archs: archs(&tc, &home),
        caches: caches(&home),
        runtime: runtime_probe::probe(exe),
        omp_target_offload: std::env::var("OMP_TARGET_OFFLOAD").ok().filter(|v| !v.is_empty()),
    }
}

fn components(tc: &Toolchain) -> Vec<ComponentReport> {
    let mut v = Vec::new();
    let mut push = |name: &str, status: ComponentStatus| v.push(ComponentReport { component: name.into(), status });
    push(
        "device rustc",
        match &tc.rustc {
            Ok(r) => ComponentStatus::Found {
                path: r.path.display().to_string(),
                version: Some(r.release.clone()),
                note: r
                    .fallback
                    .then(|| "rustup toolchain: building `core` for GPUs may fail; Debian's rustc-web 1.96 is known to work".into()),
            },
            Err(e) => missing(e),
        },
    );
    push(
        &format!("LLVM {LLVM_MAJOR} tools"),
        match &tc.llvm {
            Ok(l) => ComponentStatus::Found {
                path: l.llc.parent().unwrap_or(Path::new("/")).display().to_string(),
                version: llvm_version(&l.llc),
                note: None,
            },
            Err(e) => missing(e),
        },
    );
    // ptxas and libdevice are looked up together; a missing ptxas hides libdevice.
    match &tc.cuda {
        Ok(c) => {
            push("ptxas", ComponentStatus::Found { path: c.ptxas.display().to_string(), version: ptxas_version(&c.ptxas), note: None });
            push("libdevice", ComponentStatus::Found { path: c.libdevice.display().to_string(), version: None, note: None });
        }
        Err(e) => push(if e.component == Component::Libdevice { "libdevice" } else { "ptxas" }, missing(e)),
    }
    push(
        "ROCm bitcode",
        match &tc.rocm {
            Ok(r) => ComponentStatus::Found { path: r.bitcode_dir.display().to_string(), version: None, note: None },
            Err(e) => missing(e),
        },
    );
    push(
        "host rustc",
        match &tc.host_rustc {
            Ok(h) => ComponentStatus::Found {
                path: h.path.display().to_string(),
                version: h.verbose_version.lines().find_map(|l| l.strip_prefix("release: ")).map(|s| s.trim().to_string()),
                note: None,
            },
            Err(e) => missing(e),
        },
    );
    v
}

fn missing(e: &ToolchainError) -> ComponentStatus {
    ComponentStatus::Missing {
        error: e.to_string(),
        detail: e.detail.clone(),
        searched: e.searched.clone(),
        // an override that points nowhere wins over every install: fixing it comes first
        fix: if std::env::var_os(e.env).is_some_and(|v| !v.is_empty()) {
            format!("{} points nowhere usable: fix or unset it, then {}", e.env, fix_for(e.component))
        } else {
            fix_for(e.component)
        },
        env: e.env.to_string(),
    }
}

/// The command that installs `c` (all of them: `cargo omp setup`, which is idempotent).
pub(crate) fn fix_for(c: Component) -> String {
    let apt = match c {
        Component::DeviceRustc => Some("rustc-web rust-web-src"),
        Component::LlvmTool(_) => Some("llvm-22 lld-22"),
        _ => None,
    };
    match apt {
        Some(p) => format!("cargo omp setup   (or, as root: apt-get install {p})"),
        // ptxas/libdevice come from NVIDIA's pip wheels, ROCm bitcode from a .deb: no apt needed
        None if matches!(c, Component::Ptxas | Component::Libdevice | Component::RocmBitcode) => "cargo omp setup --no-apt".into(),
        None => "cargo omp setup".into(),
    }
}

fn archs(tc: &Toolchain, home: &Path) -> Vec<ArchReport> {
    let defaults = Arch::defaults();
    let mut list = defaults.clone();
    // What the build would use instead of the defaults, when set.
    if let Ok(v) = std::env::var("OMP_RS_OFFLOAD_ARCH") {
        if let Ok(chosen) = Arch::parse_list(&v) {
            list.extend(chosen);
        }
    }
    list.push(Arch::Host);
    let mut seen = Vec::new();
    list.retain(|a| {
        let new = !seen.contains(a);
        seen.push(a.clone());
        new
    });
    list.iter()
        .map(|a| {
            let check = tc.check(a);
            ArchReport {
                arch: a.to_string(),
                buildable: check.is_ok(),
                default: defaults.contains(a),
                core_cached: a.cpu().map(|cpu| has_entry(&home.join("sysroot"), &format!("{}-{cpu}-", a.target()))),
                missing: check.err().map(|e| e.component.to_string()),
            }
        })
        .collect()
}

/// A finished cache entry whose name starts with `prefix` (keys hash rustc and the recipe, so an
/// entry may belong to an older rustc: "cached" means "probably no 20 s core build").
fn has_entry(dir: &Path, prefix: &str) -> bool {
    std::fs::read_dir(dir)
        .map(|rd| rd.flatten().any(|e| e.file_name().to_string_lossy().starts_with(prefix) && e.path().join(".complete").is_file()))
        .unwrap_or(false)
}

fn caches(home: &Path) -> Vec<CacheEntry> {
    let mut v = Vec::new();
    for kind in ["sysroot", "omp_device"] {
        let dir = home.join(kind);
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut entries: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            // `.tmp-*` are builds in progress (or killed ones), `*.lock` are lock files
            .filter(|p| p.is_dir() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
            .collect();
        entries.sort();
        for p in entries {
            v.push(entry(kind, &p));
        }
    }
    for kind in ["cuda", "rocm"] {
        let p = home.join(kind);
        if p.is_dir() {
            v.push(entry(kind, &p));
        }
    }
    v
}

fn entry(kind: &str, p: &Path) -> CacheEntry {
    CacheEntry {
        kind: kind.into(),
        name: p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        path: p.display().to_string(),
        bytes: dir_size(p),
    }
}

/// Total length of the files under `p` (symlinks are not followed).
pub(crate) fn dir_size(p: &Path) -> u64 {
    let Ok(m) = p.symlink_metadata() else { return 0 };
    if !m.is_dir() {
        return m.len();
    }
    std::fs::read_dir(p).map(|rd| rd.flatten().map(|e| dir_size(&e.path())).sum()).unwrap_or(0)
}

/// `Debian LLVM version 22.1.8` → `22.1.8`.
fn llvm_version(tool: &Path) -> Option<String> {
    let out = Command::new(tool).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = text.split("LLVM version ").nth(1)?;
    Some(v.split_whitespace().next()?.to_string())
}

/// `Cuda compilation tools, release 13.0, V13.0.88` → `13.0.88`.
fn ptxas_version(ptxas: &Path) -> Option<String> {
    let out = Command::new(ptxas).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = text.rsplit(", V").next().filter(|_| text.contains(", V"))?;
    Some(v.split_whitespace().next()?.to_string())
}

/// `40.1 MiB`.
pub(crate) fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The human-readable report.
pub(crate) fn render(r: &Report, verbose: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Device toolchain (OMP_RS_HOME={})", r.omp_rs_home);
    for c in &r.toolchain {
        match &c.status {
            ComponentStatus::Found { path, version, note } => {
                let _ = writeln!(s, "  {:<14} ok       {:<10} {path}", c.component, version.as_deref().unwrap_or("-"));
                if let Some(n) = note {
                    let _ = writeln!(s, "  {:<14}          note: {n}", "");
                }
            }
            ComponentStatus::Missing { detail, searched, fix, env, .. } => {
                let detail = if detail.is_empty() { String::new() } else { format!("{detail}; ") };
                let _ = writeln!(s, "  {:<14} MISSING  {detail}searched: {}", c.component, searched.join(", "));
                let alt = if fix.contains(env.as_str()) { String::new() } else { format!("   (or point {env} at an existing install)") };
                let _ = writeln!(s, "  {:<14}          fix: {fix}{alt}", "");
            }
        }
    }

    let _ = writeln!(s, "\nOffload archs");
    for a in &r.archs {
        let mut line = format!("  {:<14} ", a.arch);
        if a.buildable {
            line.push_str("buildable");
            match a.core_cached {
                Some(true) => line.push_str(", core sysroot cached"),
                Some(false) => line.push_str(", core not cached yet (the first build compiles it, ~20 s)"),
                None => {}
            }
        } else {
            let _ = write!(line, "not buildable: {} missing", a.missing.as_deref().unwrap_or("a component"));
        }
        if !a.default {
            line.push_str("  [opt-in: OMP_RS_OFFLOAD_ARCH=...,host]");
        }
        let _ = writeln!(s, "{line}");
    }
    if let Ok(v) = std::env::var("OMP_RS_OFFLOAD_ARCH") {
        let _ = writeln!(s, "  (OMP_RS_OFFLOAD_ARCH={v}: builds use exactly this list)");
    }

    let _ = writeln!(s, "\nCaches");
    if r.caches.is_empty() {
        let _ = writeln!(s, "  none yet (`cargo omp setup` or the first package build fills {})", r.omp_rs_home);
    }
    for (name, bytes, n) in cache_groups(&r.caches) {
        let versions = if n > 1 { format!(" ({n} versions)") } else { String::new() };
        let _ = writeln!(s, "  {:>9}  {name}{versions}", human(bytes));
    }
    if !r.caches.is_empty() {
        let total: u64 = r.caches.iter().map(|c| c.bytes).sum();
        let _ = writeln!(s, "  {:>9}  total (entries of older rustc or omp_device versions can be deleted)", human(total));
    }

    let _ = writeln!(s, "\nOffload runtime");
    match &r.runtime {
        Runtime::Found { path, via, version, num_devices, devices, device_info, .. } => {
            let how = match via {
                Via::Env => "from OMP_RS_LIBOMPTARGET",
                Via::Loader => "via the dynamic loader",
                Via::InstallDir => "from an LLVM install directory",
            };
            let ver = version.as_deref().map(|v| format!("{v}, ")).unwrap_or_default();
            let _ = writeln!(s, "  libomptarget   found    {path} ({ver}{how})");
            let disabled = r.omp_target_offload.as_deref().is_some_and(|p| p.eq_ignore_ascii_case("disabled"));
            let summary = if disabled && *num_devices == 0 {
                "0 (OMP_TARGET_OFFLOAD=DISABLED hides every device; target regions run on the host)".to_string()
            } else {
                device_summary(*num_devices, devices)
            };
            let _ = writeln!(s, "  devices        {summary}");
            for d in devices.iter().filter(|d| d.plugin != Plugin::Host) {
                let _ = writeln!(s, "  {:<14} device {}: {}", "", d.id, d.uid.as_deref().unwrap_or("(no uid)"));
            }
            if verbose && !device_info.is_empty() {
                let _ = writeln!(s, "  device info (__tgt_print_device_info):");
                for l in device_info.lines() {
                    let _ = writeln!(s, "    {l}");
                }
            }
        }
        Runtime::NotFound { searched, fix } => {
            let tried: Vec<String> = searched.iter().map(|a| format!("{} ({})", a.candidate, a.error)).collect();
            let _ = writeln!(s, "  libomptarget   not found: searched {}", tried.join(", "));
            let _ = writeln!(s, "  {:<14} fix: {fix}", "");
            let _ = writeln!(s, "  {:<14} target regions run on the host (rayon) without it", "");
        }
        Runtime::ProbeFailed { path, error } => {
            let _ = writeln!(s, "  libomptarget   {}", path.as_deref().map_or("not loaded".to_string(), |p| format!("loaded from {p}")));
            let _ = writeln!(s, "  devices        unknown: {error}");
        }
    }
    if let Some(p) = &r.omp_target_offload {
        let _ = writeln!(s, "  {:<14} OMP_TARGET_OFFLOAD={p}", "policy");
    }
    s
}

/// Entries per `<kind>/<target>-<cpu>` (the `-<key>` suffix dropped): (name, bytes, count), in
/// first-seen order. Several keys for one target are older rustc or omp_device versions.
fn cache_groups(caches: &[CacheEntry]) -> Vec<(String, u64, usize)> {
    let mut v: Vec<(String, u64, usize)> = Vec::new();
    for c in caches {
        let base = match c.name.rsplit_once('-') {
            Some((b, key)) if key.len() == 16 && key.chars().all(|ch| ch.is_ascii_hexdigit()) => b,
            _ => c.name.as_str(),
        };
        let name = if c.kind == base { c.kind.clone() } else { format!("{}/{base}", c.kind) };
        match v.iter_mut().find(|g| g.0 == name) {
            Some(g) => {
                g.1 += c.bytes;
                g.2 += 1;
            }
            None => v.push((name, c.bytes, 1)),
        }
    }
    v
}

/// `4 devices (host plugin: 4 virtual devices are the CPU plugin; no GPU)`.
fn device_summary(n: i32, devices: &[runtime_probe::Device]) -> String {
    let host = devices.iter().filter(|d| d.plugin == Plugin::Host).count();
    let gpu = devices.iter().filter(|d| d.plugin == Plugin::Gpu).count();
    let plural = |k: usize, one: &str, many: &str| if k == 1 { format!("1 {one}") } else { format!("{k} {many}") };
    let total = plural(n.max(0) as usize, "device", "devices");
    match (gpu, host) {
        (0, 0) => format!("{total} (no plugin found hardware; target regions run on the host)"),
        (0, h) => format!("{total} (host plugin: {h} virtual devices are the CPU plugin; no GPU)"),
        (g, 0) => format!("{total}: {}", plural(g, "GPU", "GPUs")),
        (g, h) => format!("{total}: {}, and {h} virtual CPU devices of the host plugin", plural(g, "GPU", "GPUs")),
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::runtime_probe::{Attempt, Device};

    fn sample(runtime: Runtime) -> Report {
        Report {
            omp_rs_home: "/h".into(),
            toolchain: vec![
                ComponentReport {
                    component: "ptxas".into(),
                    status: ComponentStatus::Found { path: "/h/cuda/bin/ptxas".into(), version: Some("13.0.88".into()), note: None },
                },
                ComponentReport {
                    component: "ROCm bitcode".into(),
                    status: ComponentStatus::Missing {
                        error: "e".into(),
                        detail: String::new(),
                        searched: vec!["/opt/rocm/amdgcn/bitcode/ocml.bc".into()],
                        fix: fix_for(Component::RocmBitcode),
                        env: "OMP_RS_ROCM_BITCODE".into(),
                    },
                },
            ],
            archs: vec![ArchReport { arch: "sm_90".into(), buildable: true, default: true, core_cached: Some(true), missing: None }],
            caches: vec![CacheEntry { kind: "cuda".into(), name: "cuda".into(), path: "/h/cuda".into(), bytes: 3 << 20 }],
            runtime,
            omp_target_offload: None,
        }
    }

    #[test]
    fn json_shape() {
        let host = |id| Device { id, uid: Some(format!("x86_64-{id}")), plugin: Plugin::Host };
        let r = sample(Runtime::Found {
            path: "/lib/libomptarget.so.22.1".into(),
            via: Via::Loader,
            version: Some("22.1".into()),
            num_devices: 2,
            devices: vec![host(0), host(1)],
            device_info: String::new(),
            searched: vec![],
        });
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["omp_rs_home"], "/h");
        assert_eq!(j["toolchain"][0]["component"], "ptxas");
        assert_eq!(j["toolchain"][0]["status"], "found");
        assert_eq!(j["toolchain"][0]["version"], "13.0.88");
        assert_eq!(j["toolchain"][1]["status"], "missing");
        assert_eq!(j["toolchain"][1]["fix"], "cargo omp setup --no-apt");
        assert_eq!(j["toolchain"][1]["searched"][0], "/opt/rocm/amdgcn/bitcode/ocml.bc");
        assert!(j["toolchain"][1].get("detail").is_none());
        assert_eq!(j["archs"][0]["arch"], "sm_90");
        assert_eq!(j["archs"][0]["buildable"], true);
        assert_eq!(j["caches"][0]["bytes"], 3 << 20);
        assert_eq!(j["runtime"]["status"], "found");
        assert_eq!(j["runtime"]["num_devices"], 2);
        assert_eq!(j["runtime"]["devices"][1]["plugin"], "host");
        assert!(j.get("omp_target_offload").is_none());

        let r = sample(Runtime::NotFound {
            searched: vec![Attempt { candidate: "/nonexistent".into(), error: "no such file".into() }],
            fix: runtime_probe::FIX.into(),
        });
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["runtime"]["status"], "not_found");
        assert_eq!(j["runtime"]["searched"][0]["candidate"], "/nonexistent");
        let text = render(&r, false);
        assert!(text.contains("not found") && text.contains("liboffload-22"), "{text}");
    }

    #[test]
    fn summaries() {
        let d = |id, plugin| Device { id, uid: None, plugin };
        let hosts: Vec<Device> = (0..4).map(|i| d(i, Plugin::Host)).collect();
        assert_eq!(device_summary(4, &hosts), "4 devices (host plugin: 4 virtual devices are the CPU plugin; no GPU)");
        assert_eq!(device_summary(1, &[d(0, Plugin::Gpu)]), "1 device: 1 GPU");
        let mut mixed = vec![d(0, Plugin::Gpu)];
        mixed.extend((1..5).map(|i| d(i, Plugin::Host)));
        assert!(device_summary(5, &mixed).starts_with("5 devices: 1 GPU, and 4 virtual CPU devices"));
        assert_eq!(human(512), "512 B");
        let e = |kind: &str, name: &str, bytes| CacheEntry { kind: kind.into(), name: name.into(), path: String::new(), bytes };
        let g = cache_groups(&[
            e("omp_device", "host-x86_64-0123456789abcdef", 1),
            e("omp_device", "host-x86_64-fedcba9876543210", 2),
            e("cuda", "cuda", 5),
        ]);
        assert_eq!(g, [("omp_device/host-x86_64".to_string(), 3, 2), ("cuda".to_string(), 5, 1)]);
        assert_eq!(human(40 * 1024 * 1024 + 100 * 1024), "40.1 MiB");
    }
}
