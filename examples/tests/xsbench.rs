//! The XSBench port (`examples/xsbench.rs`) against the original's own verification: XSBench's `openmp-offload`
//! variant (ANL-CESAR/XSBench at ba08e52, version 20) built with `gcc -std=gnu99 -O3 -fopenmp -foffload=disable
//! *.c -lm` (gcc 12.2, Debian 12) printed these checksums on 2026-12-01 for the same inputs (`-m event`). The port
//! must print the same, on the CPU and through libomptarget's host plugin, for every lookup method. (The default
//! inputs, 17,000,000 lookups, give the published 945990 for H-M small on both; too long for a debug-built test.)

use std::process::Command;

mod common;
use common::example;

/// (arguments, the original's checksum).
const ORIGINAL: &[(&[&str], &str)] = &[
    (&["-s", "small", "-g", "2000", "-l", "20000", "-G", "unionized"], "59910"),
    (&["-s", "small", "-g", "2000", "-l", "20000", "-G", "nuclide"], "59910"),
    (&["-s", "small", "-g", "2000", "-l", "20000", "-G", "hash"], "59910"),
    (&["-s", "large", "-g", "500", "-l", "20000", "-G", "nuclide"], "60545"),
    (&["-s", "large", "-g", "500", "-l", "20000", "-G", "hash"], "60545"),
];

fn checksum(args: &[&str], envs: &[(&str, &str)]) -> String {
    let mut c = Command::new(example("xsbench"));
    c.args(args).env("OMP_NUM_THREADS", "2");
    for (k, v) in envs {
        c.env(k, v);
    }
    let out = c.output().expect("run xsbench");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = stdout.lines().find(|l| l.starts_with("Verification checksum:")).unwrap_or_else(|| panic!("no checksum:\n{stdout}"));
    line.split_whitespace().nth(2).unwrap_or_default().to_string()
}

#[test]
fn xsbench_checksums_equal_the_originals_on_the_cpu_and_through_libomptarget() {
    let manifest = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/omp-rs/manifest.json")).unwrap_or_default();
    let host_plugin = manifest.contains("host-x86_64");
    if !host_plugin {
        eprintln!("SKIPPED (host plugin part): no host-plugin image (install the device toolchain)");
    }
    for (args, want) in ORIGINAL {
        assert_eq!(checksum(args, &[("OMP_TARGET_OFFLOAD", "DISABLED")]), *want, "CPU, {args:?}");
        if host_plugin {
            assert_eq!(checksum(args, &[("OMP_TARGET_OFFLOAD", "MANDATORY"), ("OMP_RS_HOST_PLUGIN", "1")]), *want, "host plugin, {args:?}");
        }
    }
}
