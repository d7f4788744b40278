//! Finding `manifest.json` files: `<target>/<profile>/build/<pkg>-<hash>/out/omp-rs/manifest.json`
//! (also under `<target>/<triple>/<profile>/` for `--target` builds).
//!
//! A package has one such directory per build-script configuration and old ones stay behind, so
//! the newest manifest (by modification time: the build script rewrites it on every run) wins.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use omp_build::manifest;

use crate::error::{Error, Result};

/// One manifest on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Package name (the build directory's name without its hash).
    pub(crate) package: String,
    /// The `manifest.json`.
    pub(crate) manifest: PathBuf,
    /// Its modification time.
    pub(crate) modified: SystemTime,
}

impl Found {
    /// `…/out/omp-rs`: images and device sources are relative to it.
    pub(crate) fn dir(&self) -> &Path {
        self.manifest.parent().unwrap_or(Path::new("."))
    }
}

/// The directory cargo uses for a profile: `dev`/`test` build into `debug`, `bench` into `release`.
pub(crate) fn profile_dir(profile: &str) -> &str {
    match profile {
        "dev" | "test" | "debug" => "debug",
        "bench" | "release" => "release",
        other => other,
    }
}

/// The target directory: `CARGO_TARGET_DIR`, else what `cargo metadata` says, else `./target`.
pub(crate) fn default_target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo).args(["metadata", "--no-deps", "--format-version", "1"]).output();
    out.ok()
        .filter(|o| o.status.success())
        .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
        .and_then(|v| v.get("target_directory").and_then(|d| d.as_str()).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("target"))
}

/// `<pkg>-<hex hash>` → `<pkg>`.
fn package_of(dir_name: &str) -> Option<&str> {
    let (pkg, hash) = dir_name.rsplit_once('-')?;
    (hash.len() >= 8 && hash.chars().all(|c| c.is_ascii_hexdigit()) && !pkg.is_empty()).then_some(pkg)
}

/// `my_pkg` and `my-pkg` name the same package for the user.
fn same_package(a: &str, b: &str) -> bool {
    a.replace('_', "-") == b.replace('_', "-")
}

/// Every `build` directory of the profile: `<target>/<profile>/build` and `<target>/*/<profile>/build`.
fn build_dirs(target_dir: &Path, profile: &str) -> Vec<PathBuf> {
    let p = profile_dir(profile);
    let mut v = vec![target_dir.join(p).join("build")];
    if let Ok(rd) = std::fs::read_dir(target_dir) {
        let mut cross: Vec<PathBuf> = rd.flatten().map(|e| e.path().join(p).join("build")).filter(|d| d.is_dir()).collect();
        cross.sort();
        v.extend(cross);
    }
    v.retain(|d| d.is_dir());
    v
}

/// Every manifest of the profile, newest first.
pub(crate) fn all(target_dir: &Path, profile: &str) -> Vec<Found> {
    let mut v = Vec::new();
    for build in build_dirs(target_dir, profile) {
        let Ok(rd) = std::fs::read_dir(&build) else { continue };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pkg) = package_of(&name) else { continue };
            let m = e.path().join("out").join(manifest::DIR).join(manifest::FILE);
            if let Ok(modified) = m.metadata().and_then(|md| md.modified()) {
                v.push(Found { package: pkg.to_string(), manifest: m, modified });
            }
        }
    }
    // newest first; the path breaks ties so the order is stable
    v.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.manifest.cmp(&b.manifest)));
    v
}

/// The newest manifest (of `package`, when given).
///
/// # Errors
/// [`Error::NoManifest`] naming what was searched, and the packages that do have one.
pub(crate) fn newest(target_dir: &Path, profile: &str, package: Option<&str>) -> Result<Found> {
    let found = all(target_dir, profile);
    let pick = found.iter().find(|f| package.is_none_or(|p| same_package(&f.package, p)));
    if let Some(f) = pick {
        return Ok(f.clone());
    }
    let mut pkgs: Vec<&str> = found.iter().map(|f| f.package.as_str()).collect();
    pkgs.sort_unstable();
    pkgs.dedup();
    let others = if pkgs.is_empty() { String::new() } else { format!("\nPackages with a manifest: {}", pkgs.join(", ")) };
    Err(Error::NoManifest {
        pattern: target_dir
            .join(profile_dir(profile))
            .join("build")
            .join(format!("{}-*", package.unwrap_or("*")))
            .join("out/omp-rs/manifest.json")
            .display()
            .to_string(),
        profile_flag: match profile_dir(profile) {
            "debug" => String::new(),
            "release" => " --release".into(),
            p => format!(" --profile {p}"),
        },
        others,
    })
}

/// Other packages with a manifest (for a hint under the listing).
pub(crate) fn other_packages(target_dir: &Path, profile: &str, chosen: &str) -> Vec<String> {
    let mut v: Vec<String> = all(target_dir, profile).into_iter().map(|f| f.package).filter(|p| !same_package(p, chosen)).collect();
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod test {
    use super::*;
    use std::time::Duration;

    fn put(target: &Path, profile: &str, dir: &str, age_s: u64) -> PathBuf {
        let d = target.join(profile).join("build").join(dir).join("out/omp-rs");
        std::fs::create_dir_all(&d).unwrap();
        let m = d.join("manifest.json");
        std::fs::write(&m, "{}").unwrap();
        let t = SystemTime::now() - Duration::from_secs(age_s);
        std::fs::File::options().write(true).open(&m).unwrap().set_modified(t).unwrap();
        m
    }

    #[test]
    fn newest_by_mtime_across_packages() {
        let t = tempfile::tempdir().unwrap();
        let old_a = put(t.path(), "debug", "pkg-a-0123456789abcdef", 300);
        let new_a = put(t.path(), "debug", "pkg-a-fedcba9876543210", 100);
        let b = put(t.path(), "debug", "pkg_b-00112233aabbccdd", 10);
        let rel = put(t.path(), "release", "pkg-a-aaaaaaaaaaaaaaaa", 1);
        // a build-script directory without out/ and a stray directory are ignored
        std::fs::create_dir_all(t.path().join("debug/build/pkg-a-1111111111111111")).unwrap();
        std::fs::create_dir_all(t.path().join("debug/build/not-a-hash/out/omp-rs")).unwrap();

        let f = newest(t.path(), "debug", None).unwrap();
        assert_eq!((f.package.as_str(), &f.manifest), ("pkg_b", &b));
        let f = newest(t.path(), "dev", Some("pkg-a")).unwrap();
        assert_eq!(f.manifest, new_a);
        assert_ne!(f.manifest, old_a);
        // `_` and `-` are the same to the user
        assert_eq!(newest(t.path(), "debug", Some("pkg-b")).unwrap().manifest, b);
        assert_eq!(newest(t.path(), "release", Some("pkg-a")).unwrap().manifest, rel);
        assert_eq!(f.dir(), new_a.parent().unwrap());
        assert_eq!(all(t.path(), "debug").len(), 3);
        assert_eq!(other_packages(t.path(), "debug", "pkg-a"), vec!["pkg_b".to_string()]);

        let e = newest(t.path(), "debug", Some("nope")).unwrap_err().to_string();
        assert!(e.contains("nope-*") && e.contains("cargo build") && e.contains("pkg-a, pkg_b"), "{e}");
        let e = newest(t.path(), "release", Some("nope")).unwrap_err().to_string();
        assert!(e.contains("--release"), "{e}");
    }

    #[test]
    fn cross_target_builds_are_found() {
        let t = tempfile::tempdir().unwrap();
        let m = put(&t.path().join("x86_64-unknown-linux-gnu"), "debug", "k-0123456789abcdef", 5);
        assert_eq!(newest(t.path(), "debug", Some("k")).unwrap().manifest, m);
    }

    #[test]
    fn names() {
        assert_eq!(package_of("omp-examples-0123456789abcdef"), Some("omp-examples"));
        assert_eq!(package_of("omp-examples"), None);
        assert_eq!(profile_dir("dev"), "debug");
        assert_eq!(profile_dir("bench"), "release");
        assert_eq!(profile_dir("prof"), "prof");
    }
}
