//! [`Builder`]: the build-script entry point (cc / prost-build style).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::arch::Arch;
use crate::compile::{self, Image};
use crate::error::{Error, Result};
use crate::manifest::{self, ImageEntry, Manifest};
use crate::outline;
use crate::scan;
use crate::toolchain::{Toolchain, ToolchainError, ENV_VARS};

/// Configures and runs the device build of one package.
#[derive(Debug, Clone)]
pub struct Builder {
    archs: Vec<String>,
    package_root: Option<PathBuf>,
    package_name: Option<String>,
    out_dir: Option<PathBuf>,
    cargo_metadata: bool,
    cargo_warnings: bool,
    overflow_checks: Option<bool>,
}

/// What [`Builder::try_compile`] did.
#[derive(Debug, Clone)]
pub struct Report {
    /// `$OUT_DIR/omp-rs/manifest.json`.
    pub manifest_path: PathBuf,
    /// Its content.
    pub manifest: Manifest,
    /// Images built.
    pub images: Vec<Image>,
    /// Arches not built because a toolchain component is missing.
    pub skipped: Vec<(Arch, ToolchainError)>,
    /// Files scanned (parsed or not).
    pub scanned: Vec<PathBuf>,
    /// The `cargo:warning` lines emitted: a missing toolchain, each generic region that runs on the host.
    pub warnings: Vec<String>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// A builder for the package cargo is building (`CARGO_MANIFEST_DIR`, `OUT_DIR`).
    pub fn new() -> Builder {
        Builder {
            archs: Vec::new(),
            package_root: None,
            package_name: None,
            out_dir: None,
            cargo_metadata: true,
            cargo_warnings: true,
            overflow_checks: None,
        }
    }

    /// Builds for `arch` (`sm_90`, `gfx90a`, `gfx942`, `host`, or a comma-separated list);
    /// replaces `OMP_RS_OFFLOAD_ARCH` and the default list. May be called several times.
    pub fn arch(&mut self, arch: &str) -> &mut Self {
        self.archs.push(arch.to_string());
        self
    }

    /// The package directory to scan (default: `CARGO_MANIFEST_DIR`).
    pub fn package_root(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.package_root = Some(dir.into());
        self
    }

    /// The package name given to the outliner (default: `CARGO_PKG_NAME`).
    pub fn package_name(&mut self, name: &str) -> &mut Self {
        self.package_name = Some(name.to_string());
        self
    }

    /// Where `omp-rs/` with the manifest and images goes (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Print `cargo:rerun-if-changed` / `rerun-if-env-changed` (default `true`).
    pub fn cargo_metadata(&mut self, on: bool) -> &mut Self {
        self.cargo_metadata = on;
        self
    }

    /// Print `cargo:warning` when images are skipped (default `true`).
    pub fn cargo_warnings(&mut self, on: bool) -> &mut Self {
        self.cargo_warnings = on;
        self
    }

    /// Compile kernels with integer overflow checks (default: on when cargo's `PROFILE` is `debug`, the
    /// profile rustc checks overflow in), so a kernel's arithmetic means the same as the host fallback's.
    pub fn overflow_checks(&mut self, on: bool) -> &mut Self {
        self.overflow_checks = Some(on);
        self
    }

    /// Like [`Builder::try_compile`], but a failure fails the build script with the error.
    ///
    /// # Panics
    /// On any error of `try_compile` (a missing toolchain is not an error).
    pub fn compile(&self) -> Report {
        match self.try_compile() {
            Ok(r) => r,
            Err(e) => panic!("omp-rs-build: {e}"),
        }
    }

    /// Scans the package, outlines its target regions, builds one image per available arch and
    /// writes `$OUT_DIR/omp-rs/manifest.json`. Arches whose toolchain is missing are skipped with
    /// one `cargo:warning` naming `cargo omp setup`; the package then runs target regions on the host.
    ///
    /// # Errors
    /// Missing `OUT_DIR`/`CARGO_MANIFEST_DIR`, a bad arch name, I/O errors, or a tool failing on
    /// the generated crate.
    pub fn try_compile(&self) -> Result<Report> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => env_dir("OUT_DIR")?,
        };
        let root = match &self.package_root {
            Some(d) => d.clone(),
            None => env_dir("CARGO_MANIFEST_DIR")?,
        };
        let package = self.package_name.clone().or_else(|| std::env::var("CARGO_PKG_NAME").ok()).unwrap_or_default();
        if self.cargo_metadata {
            for v in ENV_VARS {
                println!("cargo:rerun-if-env-changed={v}");
            }
        }
        let scan = scan::scan_package(&root);
        if self.cargo_metadata {
            for p in &scan.watched {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
        let dir = out_dir.join(manifest::DIR);
        std::fs::create_dir_all(&dir).map_err(Error::io("creating", &dir))?;
        let manifest_path = dir.join(manifest::FILE);
        let mut report = Report {
            manifest_path: manifest_path.clone(),
            manifest: Manifest::new(),
            images: Vec::new(),
            skipped: Vec::new(),
            scanned: scan.watched.clone(),
            warnings: Vec::new(),
        };
        // The kernels' arithmetic and assertions follow the profile the package is built in, as its host code does.
        let profile = Profile::of_build(&root);
        let debug_assertions = profile.debug_assertions();
        let (outlined, unbuilt) = outline::outline(&package, &root, &scan.files, debug_assertions)?;
        report.manifest.refused = unbuilt.refused;
        report.manifest.host_only = unbuilt.host_only;
        let Some(mut outlined) = outlined else {
            report.manifest.write(&manifest_path)?;
            return Ok(report);
        };
        outlined.krate.debug_assertions = debug_assertions;
        outlined.krate.overflow_checks =
            self.overflow_checks.unwrap_or_else(|| profile.setting("overflow-checks").unwrap_or(debug_assertions));
        report.manifest.kernels = outlined.kernels.clone();
        // The outlined source, for `cargo omp explain` and for reading panics back to the user's code.
        let device_src = dir.join("device").join("src");
        if device_src.exists() {
            std::fs::remove_dir_all(&device_src).map_err(Error::io("cleaning", &device_src))?;
        }
        for (rel, text) in &outlined.krate.files {
            let p = dir.join("device").join("src").join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(Error::io("creating", parent))?;
            }
            std::fs::write(&p, text).map_err(Error::io("writing", &p))?;
        }
        // Each kernel on its own, where the manifest's `source` says (explain reads it, no generated crate).
        let listings = dir.join("device").join("kernels");
        if listings.exists() {
            std::fs::remove_dir_all(&listings).map_err(Error::io("cleaning", &listings))?;
        }
        for (rel, text) in &outlined.listings {
            let p = dir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(Error::io("creating", parent))?;
            }
            std::fs::write(&p, text).map_err(Error::io("writing", &p))?;
        }

        let tc = Toolchain::discover();
        if self.cargo_metadata && tc.home.is_dir() {
            // notices `cargo omp setup` installing into the home (it only changes files, not env)
            println!("cargo:rerun-if-changed={}", tc.home.display());
        }
        let (archs, explicit) = self.selected_archs()?;
        let mut to_build = Vec::new();
        for a in archs {
            match tc.check(&a) {
                Ok(()) => to_build.push(a),
                // Defaults are "whatever is installed": a missing AMD stack is no news on an NVIDIA box.
                Err(e) => report.skipped.push((a, e)),
            }
        }
        for image in compile_all(&tc, &outlined.krate, &to_build, &dir)? {
            report.manifest.images.push(ImageEntry {
                arch: image.arch.to_string(),
                file: image.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
                kind: image.kind,
                resources: image.resources.clone(),
            });
            report.images.push(image);
        }
        let no_gpu = !to_build.iter().any(Arch::is_gpu);
        if !report.skipped.is_empty() && (explicit || no_gpu) {
            let names: Vec<String> = report.skipped.iter().map(|(a, _)| a.to_string()).collect();
            let w =
                format!("omp-rs: no device image for {} (target regions fall back to the host): {}", names.join(", "), report.skipped[0].1);
            if self.cargo_warnings {
                println!("cargo:warning={w}");
            }
            report.warnings.push(w);
        }
        if !no_gpu && !report.manifest.images.is_empty() {
            for h in &report.manifest.host_only {
                let w = format!("omp-rs: the target region at {}:{} runs on the host: {}", h.file, h.line, h.reason);
                if self.cargo_warnings {
                    println!("cargo:warning={w}");
                }
                report.warnings.push(w);
            }
        }
        // Without images the macros expand every region to the host path (a kernel counts only beside an image,
        // `ManifestView::has_kernel`); the kernels stay listed for the field types they record, which the host path of
        // a region reading struct fields (`g.a[i]`) binds its hoisted paths with.
        report.manifest.write(&manifest_path)?;
        write_build_log(&dir, &report);
        Ok(report)
    }

    /// (arches, whether the user chose them).
    fn selected_archs(&self) -> Result<(Vec<Arch>, bool)> {
        if !self.archs.is_empty() {
            return Ok((Arch::parse_list(&self.archs.join(","))?, true));
        }
        if let Ok(v) = std::env::var("OMP_RS_OFFLOAD_ARCH") {
            return Ok((Arch::parse_list(&v)?, true));
        }
        Ok((Arch::defaults(), false))
    }
}

/// Builds the arches in parallel, at most `NUM_JOBS` (cargo's job count for build scripts) at a
/// time; each arch is a chain of single-threaded tools. Results keep the order of `archs`.
fn compile_all(tc: &Toolchain, krate: &compile::DeviceCrate, archs: &[Arch], dir: &Path) -> Result<Vec<Image>> {
    let jobs = std::env::var("NUM_JOBS").ok().and_then(|j| j.parse::<usize>().ok()).unwrap_or(1).max(1);
    let mut images = Vec::with_capacity(archs.len());
    for chunk in archs.chunks(jobs) {
        let results: Vec<Result<Image>> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk.iter().map(|a| s.spawn(move || compile::compile(tc, krate, a, dir))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::Unexpected("image build thread panicked".into())))).collect()
        });
        for r in results {
            images.push(r?);
        }
    }
    Ok(images)
}

/// The cargo profile the package is built in, read once: its inheritance chain (itself first) and the workspace's
/// `Cargo.toml`, where profiles live.
struct Profile {
    chain: Vec<String>,
    manifest: Option<toml::Table>,
}

impl Profile {
    /// The profile being built is the directory cargo builds into (`target/<dir>/build/...`, `debug` for `dev`), the
    /// one place a build script can read it; `test` inherits `dev` and `bench` `release` unless they say otherwise.
    fn of_build(package_root: &Path) -> Profile {
        let manifest = workspace_manifest(package_root);
        let mut chain = Vec::new();
        let name = std::env::var("OUT_DIR").ok().and_then(|out| {
            let dir = Path::new(&out).ancestors().nth(3)?.file_name()?.to_string_lossy().into_owned();
            Some(if dir == "debug" { "dev".to_string() } else { dir })
        });
        if let Some(mut profile) = name {
            for _ in 0..8 {
                chain.push(profile.clone());
                let inherits =
                    manifest.as_ref().and_then(|m| m.get("profile")?.get(&profile)?.get("inherits")?.as_str().map(str::to_string));
                profile = match inherits {
                    Some(parent) => parent,
                    None if profile == "test" => "dev".into(),
                    None if profile == "bench" => "release".into(),
                    None => break,
                };
            }
        }
        Profile { chain, manifest }
    }

    /// A flag of the profile (`overflow-checks`, `debug-assertions`): `CARGO_PROFILE_<NAME>_<KEY>`, else the profile's
    /// key in the workspace's `Cargo.toml`, following `inherits`; `None` where neither sets it (cargo's default).
    fn setting(&self, key: &str) -> Option<bool> {
        self.chain.iter().find_map(|profile| {
            let env = format!("CARGO_PROFILE_{}_{}", profile.to_ascii_uppercase(), key.to_ascii_uppercase()).replace('-', "_");
            std::env::var(&env)
                .ok()
                .and_then(|v| parse_bool(&v))
                .or_else(|| self.manifest.as_ref().and_then(|m| m.get("profile")?.get(profile)?.get(key)?.as_bool()))
        })
    }

    /// Whether the package's code is built with debug assertions. Cargo 1.93 and later tell build scripts
    /// (`CARGO_CFG_DEBUG_ASSERTIONS`, from the profile); older cargo never sets the variable, so without it the
    /// profile is read as cargo reads it (on by default in profiles built on `dev`, off in those built on `release`),
    /// then `-C debug-assertions` in `CARGO_ENCODED_RUSTFLAGS`, which rustc applies last.
    fn debug_assertions(&self) -> bool {
        let from_profile = std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some()
            || self.setting("debug-assertions").unwrap_or_else(|| self.chain.last().is_none_or(|root| root == "dev"));
        let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
        let flags: Vec<&str> = flags.split('\x1f').collect();
        let mut on = from_profile;
        for (k, flag) in flags.iter().enumerate() {
            let value = match flag.strip_prefix("-C").map(str::trim_start) {
                Some("") => flags.get(k + 1).and_then(|next| next.strip_prefix("debug-assertions")),
                Some(rest) => rest.strip_prefix("debug-assertions"),
                None => None,
            };
            if let Some(value) = value {
                on = parse_bool(value.trim_start_matches('=')).unwrap_or(true);
            }
        }
        on
    }
}

/// `"true"`, `"on"`, `"yes"` and their opposites, as cargo and rustc spell a profile's flags.
fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().trim_matches('"') {
        "true" | "on" | "yes" | "y" => Some(true),
        "false" | "off" | "no" | "n" => Some(false),
        _ => None,
    }
}

/// The workspace's `Cargo.toml` (where profiles live), else the package's own.
fn workspace_manifest(package_root: &Path) -> Option<toml::Table> {
    let workspace = package_root.ancestors().map(|d| d.join("Cargo.toml")).filter(|p| p.is_file()).find_map(|p| {
        let doc: toml::Table = std::fs::read_to_string(&p).ok()?.parse().ok()?;
        doc.contains_key("workspace").then_some(doc)
    });
    workspace.or_else(|| std::fs::read_to_string(package_root.join("Cargo.toml")).ok()?.parse().ok())
}

fn env_dir(var: &'static str) -> Result<PathBuf> {
    std::env::var_os(var).map(PathBuf::from).ok_or(Error::MissingEnv(var))
}

/// `omp-rs/build.log`: per-image stage times and ptxas numbers (for humans; not parsed).
fn write_build_log(dir: &Path, r: &Report) {
    let mut s = String::new();
    for i in &r.images {
        let t = &i.timings;
        let _ = writeln!(
            s,
            "{:<12} {:>7.3}s total: setup {:.3}s rustc {:.3}s link {:.3}s opt {:.3}s llc {:.3}s finish {:.3}s occupancy {:.3}s -> {}",
            i.arch.to_string(),
            t.total.as_secs_f64(),
            t.setup.as_secs_f64(),
            t.rustc.as_secs_f64(),
            t.link.as_secs_f64(),
            t.opt.as_secs_f64(),
            t.llc.as_secs_f64(),
            t.finish.as_secs_f64(),
            t.occupancy.as_secs_f64(),
            i.path.display()
        );
        for l in i.diagnostics.lines() {
            let _ = writeln!(s, "    rustc: {l}");
        }
        for k in &i.resources {
            let unsunk = k.sunk_registers.map(|r| format!(" (without machine sinking; {r} with it)")).unwrap_or_default();
            let _ = writeln!(
                s,
                "    {}: {} registers{unsunk}, {} B stack, {}/{} B spill st/ld, {} B smem, {} barriers",
                k.name, k.registers, k.stack_frame_bytes, k.spill_store_bytes, k.spill_load_bytes, k.smem_bytes, k.barriers
            );
        }
    }
    for (a, e) in &r.skipped {
        let _ = writeln!(s, "{a}: skipped: {e}");
    }
    let _ = std::fs::write(dir.join("build.log"), s);
}
