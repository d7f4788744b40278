//! Every port of the panel (`src/bin/*.rs`) at its `panel-args` size: on the CPU path (`OMP_TARGET_OFFLOAD=DISABLED`)
//! and through libomptarget's host plugin (`MANDATORY`, every region through the device pipeline), each must print
//! `PASS` (its original's own verification) and exit with status 0.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Each port's name and small-run arguments, from its header.
fn ports() -> Vec<(String, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin");
    let mut out: Vec<(String, Vec<String>)> = std::fs::read_dir(&dir)
        .expect("src/bin")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("port source");
            let args = text
                .lines()
                .find_map(|l| l.strip_prefix("//! panel-args:"))
                .unwrap_or_else(|| panic!("{} has no `//! panel-args:` line", p.display()))
                .split_whitespace()
                .map(str::to_string)
                .collect();
            (p.file_stem().expect("name").to_string_lossy().into_owned(), args)
        })
        .collect();
    out.sort();
    out
}

/// The port's binary, which `cargo test` builds beside the test binaries' directory.
fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let p = exe.parent().and_then(Path::parent).expect("target dir").join(name);
    assert!(p.is_file(), "port binary {} not built", p.display());
    p
}

fn host_plugin_image_built() -> bool {
    let manifest = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/omp-rs/manifest.json")).unwrap_or_default();
    if manifest.contains("host-x86_64") {
        return true;
    }
    assert!(!std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1"), "no host-plugin image: the device toolchain is missing");
    eprintln!("SKIPPED the host-plugin runs: no host-plugin image (install the device toolchain: scripts/setup-gpu-toolchain.sh)");
    false
}

fn run(name: &str, args: &[String], env: &[(&str, &str)]) -> Result<(), String> {
    let mut cmd = Command::new(binary(name));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().map_err(|e| format!("{name}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && stdout.lines().any(|l| l.trim() == "PASS") {
        Ok(())
    } else {
        Err(format!("{name} {args:?} with {env:?}: {}\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr)))
    }
}

#[test]
fn every_port_passes_its_own_verification() {
    let ports = ports();
    let plugin = host_plugin_image_built();
    let mut failed = Vec::new();
    for (name, args) in &ports {
        let mut paths: Vec<Vec<(&str, &str)>> = vec![vec![("OMP_TARGET_OFFLOAD", "DISABLED")]];
        if plugin {
            paths.push(vec![("OMP_TARGET_OFFLOAD", "MANDATORY"), ("OMP_RS_HOST_PLUGIN", "1")]);
        }
        for env in paths {
            if let Err(e) = run(name, args, &env) {
                failed.push(e);
            }
        }
    }
    assert!(failed.is_empty(), "{} of {} runs failed:\n{}", failed.len(), ports.len() * 2, failed.join("\n\n"));
}
