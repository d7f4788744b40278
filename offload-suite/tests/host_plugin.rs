//! Every target construct through libomptarget's host plugin (no GPU needed): the suite binary runs with
//! `OMP_TARGET_OFFLOAD=MANDATORY` and host-plugin images enabled, so a region that does not offload is an error,
//! and every result is compared with sequential Rust.

use std::process::Command;

/// Whether this package was built with a host-plugin image. Without one the test skips visibly, unless
/// `OMP_RS_REQUIRE_TOOLCHAIN=1` (CI), where a missing toolchain fails it.
fn host_plugin_image_built() -> bool {
    let manifest = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/omp-rs/manifest.json")).unwrap_or_default();
    if manifest.contains("host-x86_64") {
        return true;
    }
    let required = std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1");
    assert!(!required, "no host-plugin image was built: the device toolchain is missing");
    eprintln!("SKIPPED: no host-plugin image (install the device toolchain: scripts/setup-gpu-toolchain.sh)");
    false
}

#[test]
fn every_construct_through_libomptarget() {
    if !host_plugin_image_built() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_omp-offload-suite"))
        .env("OMP_TARGET_OFFLOAD", "MANDATORY")
        .env("OMP_RS_HOST_PLUGIN", "1")
        .output()
        .expect("run the suite");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}\n{stderr}");
    assert!(out.status.success(), "suite failed");
    assert!(stdout.contains(" 0 failed"), "{stdout}");
    assert!(!stdout.contains("devices: 0"), "nothing ran through libomptarget: {stdout}");
}

/// The A/B switches pass the same checks as OpenMP's default: `nowait` regions waiting too (`wait`), every region on
/// resident data queued (`queued`), every region through libomptarget's synchronous launch (`sync`).
#[test]
fn every_launch_path_passes() {
    if !host_plugin_image_built() {
        return;
    }
    for mode in ["wait", "sync", "queued"] {
        let out = Command::new(env!("CARGO_BIN_EXE_omp-offload-suite"))
            .env("OMP_TARGET_OFFLOAD", "MANDATORY")
            .env("OMP_RS_HOST_PLUGIN", "1")
            .env("OMP_RS_LAUNCH", mode)
            .output()
            .expect("run the suite");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(" 0 failed"),
            "OMP_RS_LAUNCH={mode}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The differential mode over the whole suite: every region that ran through libomptarget runs again on the host from
/// the same inputs and must agree (and the one check built to disagree, a stale device copy, must be caught).
#[test]
fn every_region_agrees_with_its_host_rerun() {
    if !host_plugin_image_built() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_omp-offload-suite"))
        .env("OMP_TARGET_OFFLOAD", "MANDATORY")
        .env("OMP_RS_HOST_PLUGIN", "1")
        .env("OMP_RS_CHECK", "host")
        .output()
        .expect("run the suite");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains(" 0 failed"), "OMP_RS_CHECK=host:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_same_checks_pass_on_the_host_path() {
    let out = Command::new(env!("CARGO_BIN_EXE_omp-offload-suite")).env("OMP_TARGET_OFFLOAD", "DISABLED").output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

/// `target_enter_data!` as the process's very first offload operation (issue 10, item 2): the suite binary runs
/// that one check in a fresh process.
#[test]
fn enter_data_first_in_a_fresh_process() {
    if !host_plugin_image_built() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_omp-offload-suite"))
        .arg("first offload operation")
        .env("OMP_TARGET_OFFLOAD", "MANDATORY")
        .env("OMP_RS_HOST_PLUGIN", "1")
        .output()
        .expect("run the suite");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("1 passed, 0 failed"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

/// A panic in a queued region that nothing waited for is reported at exit, naming the region, with status 101.
#[test]
fn a_queued_panic_nobody_waited_for_is_reported_at_exit() {
    if !host_plugin_image_built() {
        return;
    }
    // `queued`: the region stays queued although it has no `nowait` (under OpenMP's end of region it would wait and
    // report its panic itself); what is tested is the report of queued work nothing waited for.
    let out = Command::new(env!("CARGO_BIN_EXE_queued-panic-at-exit"))
        .env("OMP_TARGET_OFFLOAD", "MANDATORY")
        .env("OMP_RS_HOST_PLUGIN", "1")
        .env("OMP_RS_LAUNCH", "queued")
        .output()
        .expect("run");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("main returns"), "the region must not wait: {stdout}\n{stderr}");
    assert_eq!(out.status.code(), Some(101), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("nothing waited for it before exit")
            && stderr.contains("`omp_shifted_0_")
            && stderr.contains("queued-panic-at-exit.rs"),
        "{stderr}"
    );
}

/// The devices start before `main`, as in clang's offload binaries: `omp::get_num_devices()` counts them before any
/// region ran; `OMP_RS_DEVICE_START=first-region` leaves the start to the first region (none registered yet).
#[test]
fn devices_start_before_main() {
    if !host_plugin_image_built() {
        return;
    }
    let at_start = |start: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_omp-offload-suite"))
            .arg("no check has this name")
            .env("OMP_RS_HOST_PLUGIN", "1")
            .env("OMP_RS_DEVICE_START", start)
            .output()
            .expect("run the suite");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{stdout}");
        let line = stdout.lines().find_map(|l| l.strip_prefix("devices at start: ")).map(str::to_owned);
        line.and_then(|n| n.trim().parse::<i32>().ok()).unwrap_or_else(|| panic!("no device count: {stdout}"))
    };
    assert!(at_start("early") > 0, "the host plugin's devices were not started before main");
    assert_eq!(at_start("first-region"), 0, "OMP_RS_DEVICE_START=first-region started the devices before a region");
}
