//! `cargo omp setup`: installs the device toolchain by running `scripts/setup-gpu-toolchain.sh`.
//!
//! The script is the one source of truth for the install steps; it is embedded here and written
//! to a temporary file (bash needs a real file for `$0` and `BASH_SOURCE`). Its last step
//! pre-builds the `core` sysroots; from a checkout it uses `cargo run -p omp-rs-build`, from
//! cargo-omp it calls back into this executable (`OMP_RS_SYSROOT_CMD` = `cargo-omp
//! __build-sysroots`), so `cargo install`ed users need no repository.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use omp_build::toolchain::omp_rs_home;
use omp_build::{device_lib, Arch, Toolchain};

use crate::error::{Error, Result};

/// The install script, verbatim.
pub(crate) const SCRIPT: &str = include_str!("../../scripts/setup-gpu-toolchain.sh");
/// The hidden subcommand the script calls for its sysroot step.
pub(crate) const SYSROOT_SUBCOMMAND: &str = "__build-sysroots";

/// `setup`'s options.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Skip apt installs.
    pub(crate) no_apt: bool,
    /// Skip pre-building the sysroots.
    pub(crate) no_sysroot: bool,
    /// Arches to pre-build (`OMP_RS_OFFLOAD_ARCH` syntax).
    pub(crate) arch: Option<String>,
}

/// Runs the script, then says where everything is.
///
/// # Errors
/// The script cannot be written or started, or it fails.
pub(crate) fn run(exe: &Path, opts: &Options) -> Result<()> {
    if let Some(a) = &opts.arch {
        // fail before installing anything
        Arch::parse_list(a).map_err(|e| Error::Build(e.into()))?;
    }
    let home = omp_rs_home();
    let dir = std::env::temp_dir().join(format!("cargo-omp-setup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(Error::io("creating", &dir))?;
    let script = dir.join("setup-gpu-toolchain.sh");
    let result =
        std::fs::write(&script, SCRIPT).map_err(Error::io("writing", &script)).and_then(|()| run_script(exe, &script, &home, opts));
    let _ = std::fs::remove_dir_all(&dir);
    result?;
    println!("\n{}", summary(&Toolchain::discover(), &home));
    Ok(())
}

fn run_script(exe: &Path, script: &Path, home: &Path, opts: &Options) -> Result<()> {
    let mut cmd = Command::new("bash");
    cmd.arg(script);
    if opts.no_apt {
        cmd.arg("--no-apt");
    }
    if opts.no_sysroot {
        cmd.arg("--no-sysroot");
    }
    cmd.env("OMP_RS_HOME", home);
    cmd.env("OMP_RS_SYSROOT_CMD", format!("{} {SYSROOT_SUBCOMMAND}", shell_quote(&exe.display().to_string())));
    if let Some(a) = &opts.arch {
        cmd.env("OMP_RS_OFFLOAD_ARCH", a);
    }
    let status = cmd.status().map_err(|source| Error::Spawn { what: "bash (needed to run the setup script)".into(), source })?;
    if status.success() {
        return Ok(());
    }
    Err(Error::Setup { status: status.to_string(), hint: hint(opts) })
}

fn hint(opts: &Options) -> String {
    let mut h = Vec::new();
    if !opts.no_apt && !is_root() {
        h.push("apt installs need root: rerun with sudo, or install the packages yourself and pass --no-apt".to_string());
    }
    h.push("every step is idempotent, so rerunning after a fix continues where it stopped".into());
    h.push("`cargo omp info` shows what is still missing".into());
    h.join("; ")
}

fn is_root() -> bool {
    // no libc dependency just for geteuid: the owner of /proc/self is the effective uid
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

/// `'a b'`, with embedded `'` escaped, for `bash -c`.
pub(crate) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Where things went.
fn summary(tc: &Toolchain, home: &Path) -> String {
    let mut lines = vec![format!("cargo omp setup: installed under OMP_RS_HOME={}", home.display())];
    let mut put = |what: &str, p: std::result::Result<PathBuf, String>| {
        lines.push(match p {
            Ok(p) => format!("  {what:<14} {}", p.display()),
            Err(e) => format!("  {what:<14} MISSING: {e}"),
        });
    };
    put("device rustc", tc.device_rustc().map(|r| r.path.clone()).map_err(|e| e.to_string()));
    put("LLVM tools", tc.llvm_tools().map(|l| l.llc.parent().map(Path::to_path_buf).unwrap_or_default()).map_err(|e| e.to_string()));
    put("ptxas", tc.cuda_tools().map(|c| c.ptxas.clone()).map_err(|e| e.to_string()));
    put("libdevice", tc.cuda_tools().map(|c| c.libdevice.clone()).map_err(|e| e.to_string()));
    put("ROCm bitcode", tc.rocm_tools().map(|r| r.bitcode_dir.clone()).map_err(|e| e.to_string()));
    put("core sysroots", Ok(home.join("sysroot")));
    put("omp_device", Ok(home.join("omp_device")));
    lines.push("`cargo omp info` checks the runtime (libomptarget) and lists the devices.".into());
    lines.join("\n")
}

/// The script's sysroot step: builds (or finds) `core` and `omp_device` for every arch in `list`.
/// Same job as omp-rs-build's `omp-rs-sysroot` binary, reachable from an installed cargo-omp.
///
/// # Errors
/// A bad arch list, or any arch failing (the others are still built).
pub(crate) fn build_sysroots(list: &str) -> Result<()> {
    let archs = Arch::parse_list(list).map_err(|e| Error::Build(e.into()))?;
    let tc = Toolchain::discover();
    if let Ok(r) = &tc.rustc {
        println!("cargo-omp: device rustc {} ({}), cache {}", r.release, r.path.display(), tc.home.display());
    }
    let mut failed = Vec::new();
    for a in &archs {
        if let Err(e) = tc.check(a) {
            println!("cargo-omp: {a}: skipped: {e}");
            failed.push(a.to_string());
            continue;
        }
        let t = Instant::now();
        match device_lib::ensure(&tc, a) {
            Ok(lib) => {
                let core = match lib.sysroot.as_ref().map(|s| s.built_in) {
                    Some(Some(d)) => format!("core built in {:.1} s", d.as_secs_f64()),
                    Some(None) => "core cached".into(),
                    None => "no core needed".into(),
                };
                let dev = match lib.built_in {
                    Some(d) => format!("omp_device built in {:.1} s", d.as_secs_f64()),
                    None => "omp_device cached".into(),
                };
                println!("cargo-omp: {a}: {core}, {dev} ({:.1} s) -> {}", t.elapsed().as_secs_f64(), lib.rlib.display());
            }
            Err(e) => {
                println!("cargo-omp: {a}: FAILED: {e}");
                failed.push(a.to_string());
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::Sysroots { archs: failed.join(", ") })
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn script_is_embedded_and_knows_the_callback() {
        assert!(SCRIPT.starts_with("#!/usr/bin/env bash"));
        assert!(SCRIPT.contains("OMP_RS_SYSROOT_CMD"));
        assert!(SCRIPT.contains("--no-apt") && SCRIPT.contains("--no-sysroot"));
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/a b/cargo-omp"), "'/a b/cargo-omp'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
