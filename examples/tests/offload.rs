//! The examples through the device pipeline: every target region has an sm_90 cubin, gfx90a and gfx942 code objects
//! with no undefined symbols and a host-plugin image; each example runs through libomptarget's host plugin with
//! `OMP_TARGET_OFFLOAD=MANDATORY`, and on the CPU when libomptarget is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::example;

fn manifest() -> Option<String> {
    std::fs::read_to_string(concat!(env!("OUT_DIR"), "/omp-rs/manifest.json")).ok()
}

fn toolchain_or_skip() -> Option<String> {
    let m = manifest().filter(|m| m.contains("\"images\": [\n    {"));
    if m.is_none() {
        assert!(
            !std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1"),
            "the examples were built without device images, but OMP_RS_REQUIRE_TOOLCHAIN=1"
        );
        eprintln!("SKIPPED: no device images (install the device toolchain: scripts/setup-gpu-toolchain.sh)");
    }
    m
}

fn out_file(name: &str) -> PathBuf {
    Path::new(env!("OUT_DIR")).join("omp-rs").join(name)
}

fn elf_machine(bytes: &[u8]) -> u16 {
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    u16::from_le_bytes([bytes[18], bytes[19]])
}

fn kernel_names(m: &str) -> Vec<String> {
    m.lines()
        .filter_map(|l| l.trim().strip_prefix("\"name\": \"omp_"))
        .map(|rest| format!("omp_{}", rest.trim_end_matches(['"', ','])))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[test]
fn every_region_has_every_image() {
    let Some(m) = toolchain_or_skip() else { return };
    let kernels = kernel_names(&m);
    assert!(kernels.len() >= 6, "expected the examples' target regions: {kernels:?}");
    let cubin = std::fs::read(out_file("omp_kernels_omp_examples.sm_90.cubin")).expect("sm_90 cubin");
    assert_eq!(elf_machine(&cubin), 190, "EM_CUDA");
    let ptx = std::fs::read_to_string(out_file("omp_kernels_omp_examples.sm_90.ptx")).expect("PTX");
    assert!(ptx.contains("ld.global.nc"), "read-only arrays should load through the non-coherent cache");
    let log = std::fs::read_to_string(out_file("omp_kernels_omp_examples.sm_90.ptxas.log")).expect("ptxas log");
    assert!(
        !log.contains("bytes spill stores")
            || log.lines().filter(|l| l.contains("spill")).all(|l| l.contains(" 0 bytes spill stores, 0 bytes spill loads")),
        "spills:\n{log}"
    );
    for k in &kernels {
        assert!(ptx.contains(&format!(".entry {k}(")), "{k} missing from the PTX");
    }
    for arch in ["gfx90a", "gfx942"] {
        let path = out_file(&format!("omp_kernels_omp_examples.{arch}.hsaco"));
        assert_eq!(elf_machine(&std::fs::read(&path).expect(arch)), 224, "EM_AMDGPU");
        let nm = Command::new("llvm-nm-22").arg("--undefined-only").arg(&path).output().expect("llvm-nm-22");
        assert!(nm.status.success());
        assert!(nm.stdout.is_empty(), "{arch}: undefined symbols:\n{}", String::from_utf8_lossy(&nm.stdout));
        let defined = Command::new("llvm-nm-22").arg("--defined-only").arg(&path).output().expect("llvm-nm-22");
        let defined = String::from_utf8_lossy(&defined.stdout);
        for k in &kernels {
            assert!(defined.contains(k.as_str()), "{arch}: {k} not defined");
        }
    }
    let so = std::fs::read(out_file("omp_kernels_omp_examples.host-x86_64.so")).expect("host .so");
    assert_eq!(elf_machine(&so), 62, "EM_X86_64");
}

#[test]
fn examples_run_through_libomptarget() {
    if toolchain_or_skip().is_none() {
        return;
    }
    for name in ["saxpy", "dot", "jacobi2d", "nbody", "advect1d", "heat_devices"] {
        let out = Command::new(example(name))
            .env("OMP_TARGET_OFFLOAD", "MANDATORY")
            .env("OMP_RS_HOST_PLUGIN", "1")
            .env("ADVECT_STEPS", "60")
            .output()
            .expect("run example");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && text.contains("verification: PASSED"), "{name}:\n{text}");
    }
}

/// heat_devices splits one grid over 1..=3 of the host plugin's devices (one host thread each) and over CPU bands;
/// each run checks its grid bit for bit against the sequential sweep.
#[test]
fn heat_devices_any_split_equals_sequential() {
    let plugin = toolchain_or_skip().is_some();
    for bands in ["1", "2", "3"] {
        let mut runs = vec![("DISABLED", Command::new(example("heat_devices")))];
        if plugin {
            let mut c = Command::new(example("heat_devices"));
            c.env("OMP_RS_HOST_PLUGIN", "1");
            runs.push(("MANDATORY", c));
        }
        for (policy, mut cmd) in runs {
            let out = cmd.args(["64", "40", "30", bands]).env("OMP_TARGET_OFFLOAD", policy).output().expect("run");
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert!(out.status.success() && text.contains("verification: PASSED"), "{bands} bands, {policy}:\n{text}");
            if policy == "MANDATORY" {
                assert!(text.contains(&format!("on {bands} device(s)")), "one device per band:\n{text}");
            }
        }
    }
}

#[test]
fn without_libomptarget_the_same_binary_runs_on_the_cpu() {
    let run = |policy: &str| {
        Command::new(example("saxpy"))
            .env("OMP_TARGET_OFFLOAD", policy)
            .env("OMP_RS_LIBOMPTARGET", "/nonexistent/libomptarget.so")
            .env("OMP_RS_LIBOMPTARGET_NO_SEARCH", "1")
            .output()
            .expect("run example")
    };
    let out = run("DEFAULT");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("verification: PASSED"));
    // MANDATORY: a clear error and a normal exit code of a Rust panic (101), not an abort (134).
    let out = run("MANDATORY");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{err}");
    assert!(err.contains("libomptarget") || err.contains("device image"), "{err}");
}
