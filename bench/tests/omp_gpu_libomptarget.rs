//! omp-gpu through libomptarget without a GPU. When the build also made a host-plugin image
//! (`OMP_RS_OFFLOAD_ARCH=sm_90,host cargo test -p omp-bench`), every target region runs as its
//! outlined kernel through libomptarget's host plugin, under `OMP_TARGET_OFFLOAD=MANDATORY` (a
//! region that does not go through libomptarget is an error), and every checksum is compared with
//! seq. That exercises the device lowering of all 32 kernels and the `target_data` mappings (a
//! wrong map kind, e.g. `to` for an output, fails the checksum) before a GPU run. Skipped when the
//! build made no host image (the default `sm_90` build, or no device toolchain).

use std::process::Command;

#[test]
fn omp_gpu_kernels_through_libomptarget_host_plugin() {
    let manifest = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/omp-rs/manifest.json")).unwrap_or_default();
    if !manifest.contains("host-x86_64") {
        eprintln!(
            "SKIPPED: no host-plugin image (build with OMP_RS_OFFLOAD_ARCH=sm_90,host and the \
             device toolchain)"
        );
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_omp-bench"))
        .env("OMP_TARGET_OFFLOAD", "MANDATORY")
        .env("OMP_RS_HOST_PLUGIN", "1")
        .args(["--variants", "seq,omp-gpu", "--size", "4500", "--reps", "3"])
        .args(["--repeats", "1", "--no-warmup", "--quiet", "--ceiling-gbs", "1"])
        .output()
        .expect("run omp-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // Exit status 0 means no mismatch; also make sure all 32 kernels were compared.
    let passed = stdout.lines().filter(|l| l.contains("| omp-gpu |") && l.ends_with("| ok |")).count();
    assert_eq!(passed, 32, "{stdout}");
}
