//! `cargo-omp info` as a user runs it: JSON shape, a missing libomptarget, and libomptarget
//! stand-ins that crash or report GPUs (built with `cc` when there is one).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn cargo_omp(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-omp"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run cargo-omp")
}

fn info_json(env: &[(&str, &str)]) -> Value {
    let out = cargo_omp(&["info", "--json"], env);
    assert!(out.status.success(), "info failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("info --json prints JSON")
}

#[test]
fn json_without_libomptarget_says_not_found() {
    // The runtime's search: the variable first, and nothing else with OMP_RS_LIBOMPTARGET_NO_SEARCH=1.
    let j = info_json(&[("OMP_RS_LIBOMPTARGET", "/nonexistent"), ("OMP_RS_LIBOMPTARGET_NO_SEARCH", "1")]);
    assert_eq!(j["runtime"]["status"], "not_found", "{j:#}");
    assert_eq!(j["runtime"]["searched"][0]["candidate"], "/nonexistent");
    assert!(j["runtime"]["fix"].as_str().unwrap().contains("liboffload-22"));
    // the rest of the report is there regardless
    let tc = j["toolchain"].as_array().unwrap();
    let names: Vec<&str> = tc.iter().map(|c| c["component"].as_str().unwrap()).collect();
    for n in ["device rustc", "LLVM 22 tools", "ROCm bitcode", "host rustc"] {
        assert!(names.contains(&n), "{names:?}");
    }
    for c in tc {
        match c["status"].as_str().unwrap() {
            "found" => assert!(c["path"].is_string()),
            "missing" => assert!(c["fix"].as_str().unwrap().contains("cargo omp setup")),
            s => panic!("status {s}"),
        }
    }
    let archs: Vec<&str> = j["archs"].as_array().unwrap().iter().map(|a| a["arch"].as_str().unwrap()).collect();
    assert_eq!(&archs[..3], ["sm_90", "gfx90a", "gfx942"]);
    assert!(archs[3].starts_with("host-"));
    assert!(j["caches"].is_array());
    assert!(j["omp_rs_home"].is_string());

    // the text form says the same
    let out = cargo_omp(&["info"], &[("OMP_RS_LIBOMPTARGET", "/nonexistent"), ("OMP_RS_LIBOMPTARGET_NO_SEARCH", "1")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("libomptarget   not found") && text.contains("/nonexistent"), "{text}");
}

#[test]
fn json_with_the_installed_runtime() {
    // Whatever is installed, info must answer: found (with a device list) or not found.
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-omp")).args(["info", "--json"]).env_remove("OMP_RS_LIBOMPTARGET").output().unwrap();
    assert!(out.status.success());
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    match j["runtime"]["status"].as_str().unwrap() {
        "found" => {
            let n = j["runtime"]["num_devices"].as_i64().unwrap();
            assert_eq!(j["runtime"]["devices"].as_array().unwrap().len() as i64, n);
            eprintln!("libomptarget {} with {n} devices", j["runtime"]["path"]);
        }
        "not_found" => eprintln!("no libomptarget here"),
        s => panic!("unexpected runtime status {s}: {j:#}"),
    }
}

/// Builds a fake libomptarget from C source with `cc`, or `None` without a C compiler. Every entry point the
/// runtime's loader requires (`libomptarget_sys::SYMBOLS`) that `body` does not define gets an empty stub, unless
/// `complete` is false.
fn fake_runtime_with(name: &str, body: &str, complete: bool) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cargo-omp-fake-runtime");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join(format!("{name}.c"));
    let so = dir.join(format!("libomptarget-{name}.so"));
    let stubs: String = if complete {
        libomptarget_sys::SYMBOLS.iter().filter(|s| !body.contains(&format!(" {s}("))).map(|s| format!("void {s}(void) {{}}\n")).collect()
    } else {
        String::new()
    };
    std::fs::write(&c, format!("#include <stdlib.h>\n{stubs}{body}\n")).unwrap();
    let ok = Command::new("cc").args(["-shared", "-fPIC", "-o"]).arg(&so).arg(&c).status().is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED: no C compiler for the fake libomptarget");
    }
    ok.then_some(so)
}

fn fake_runtime(name: &str, body: &str) -> Option<PathBuf> {
    fake_runtime_with(name, body, true)
}

#[test]
fn a_crashing_runtime_does_not_kill_info() {
    let Some(so) = fake_runtime(
        "abort",
        "void __tgt_rtl_init(void) {}\n\
         void __tgt_init_all_rtls(void) { abort(); }\n\
         int omp_get_num_devices(void) { return 0; }",
    ) else {
        return;
    };
    let j = info_json(&[("OMP_RS_LIBOMPTARGET", so.to_str().unwrap())]);
    assert_eq!(j["runtime"]["status"], "probe_failed", "{j:#}");
    let e = j["runtime"]["error"].as_str().unwrap();
    assert!(e.contains("SIGABRT") && e.contains("in __tgt_init_all_rtls()"), "{e}");
    assert!(j["runtime"]["path"].as_str().unwrap().ends_with("libomptarget-abort.so"));

    // a real fault (the child's Rust runtime ignores a mere `raise(SIGSEGV)`)
    let Some(so) = fake_runtime(
        "segv",
        "void __tgt_rtl_init(void) {}\n\
         void __tgt_init_all_rtls(void) {}\n\
         int omp_get_num_devices(void) { return *(volatile int *)0; }",
    ) else {
        return;
    };
    let out = cargo_omp(&["info"], &[("OMP_RS_LIBOMPTARGET", so.to_str().unwrap())]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("devices        unknown") && text.contains("SIGSEGV") && text.contains("in omp_get_num_devices()"), "{text}");
}

#[test]
fn gpus_and_host_devices_are_told_apart() {
    let arch = std::env::consts::ARCH;
    let Some(so) = fake_runtime(
        "gpu",
        &format!(
            "void __tgt_rtl_init(void) {{}}\n\
             void __tgt_init_all_rtls(void) {{}}\n\
             int omp_get_num_devices(void) {{ return 3; }}\n\
             const char *omp_get_uid_from_device(int d) {{ return d == 0 ? \"GPU-fake-0\" : d == 1 ? \"{arch}-0\" : \"{arch}-1\"; }}"
        ),
    ) else {
        return;
    };
    let j = info_json(&[("OMP_RS_LIBOMPTARGET", so.to_str().unwrap())]);
    let r = &j["runtime"];
    assert_eq!(r["status"], "found", "{j:#}");
    assert_eq!(r["via"], "env");
    assert_eq!(r["num_devices"], 3);
    let plugins: Vec<&str> = r["devices"].as_array().unwrap().iter().map(|d| d["plugin"].as_str().unwrap()).collect();
    assert_eq!(plugins, ["gpu", "host", "host"]);
    let out = cargo_omp(&["info"], &[("OMP_RS_LIBOMPTARGET", so.to_str().unwrap())]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 devices: 1 GPU, and 2 virtual CPU devices") && text.contains("device 0: GPU-fake-0"), "{text}");
}

#[test]
fn a_library_the_runtime_cannot_use_is_reported_as_such() {
    // It opens, but lacks entry points omp-rs needs: the probe says what the runtime would.
    let Some(so) = fake_runtime_with("partial", "void __tgt_rtl_init(void) {}\nint omp_get_num_devices(void) { return 1; }", false) else {
        return;
    };
    let out = cargo_omp(&["info"], &[("OMP_RS_LIBOMPTARGET", so.to_str().unwrap()), ("OMP_RS_LIBOMPTARGET_NO_SEARCH", "1")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("__tgt_register_lib"), "the missing entry point is named:\n{text}");
}
