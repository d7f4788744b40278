//! A package built where no device image can be made (the arches it asks for have no toolchain) still compiles and
//! runs every target region on the host, regions reading struct fields included: a throw-away crate, built and run
//! by cargo with `OMP_RS_OFFLOAD_ARCH=sm_90` and the device compiler and ptxas pointed at paths that do not exist.

mod common;

use std::path::Path;
use std::process::Command;

use common::write;

#[test]
fn struct_field_regions_run_on_the_host_without_device_images() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("omp-rs-no-images");
    let pkg = base.join("pkg");
    let _ = std::fs::remove_dir_all(&pkg);
    let path = |krate: &str| workspace.join(krate).display().to_string().replace('\\', "/");
    write(
        &pkg,
        "Cargo.toml",
        &format!(
            "[package]\nname = \"no-images\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nomp = {{ package = \
             \"omp-rs\", path = \"{}\" }}\n\n[build-dependencies]\nomp-rs-build = {{ path = \"{}\" }}\n\n[workspace]\n",
            path("omp-rs"),
            path("omp-rs-build")
        ),
    );
    // The workspace's lock file: the same dependency versions, nothing to download.
    std::fs::copy(workspace.join("Cargo.lock"), pkg.join("Cargo.lock")).unwrap();
    write(&pkg, "build.rs", "fn main() {\n    omp_build::Builder::new().compile();\n}\n");
    write(
        &pkg,
        "src/main.rs",
        "struct Grid {\n    a: Vec<f64>,\n    scale: f64,\n}\n\n\
         #[omp::directives]\n\
         fn scaled(g: &Grid, out: &mut [f64]) {\n    \
             #[omp::target_teams_distribute_parallel_for]\n    \
             for i in 0..out.len() {\n        out[i] = g.a[i] * g.scale;\n    }\n}\n\n\
         fn main() {\n    \
             let g = Grid { a: (0..1000).map(|i| i as f64).collect(), scale: 2.0 };\n    \
             let mut out = vec![0.0; 1000];\n    \
             scaled(&g, &mut out);\n    \
             assert!(out.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f64));\n    \
             println!(\"scaled on the host\");\n}\n",
    );
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--offline", "--quiet"])
        .current_dir(&pkg)
        .env("CARGO_TARGET_DIR", base.join("target"))
        .env("OMP_RS_OFFLOAD_ARCH", "sm_90")
        .env("OMP_RS_DEVICE_RUSTC", "/nonexistent/rustc")
        .env("OMP_RS_PTXAS", "/nonexistent/ptxas")
        .env("OMP_TARGET_OFFLOAD", "DISABLED")
        // A build of the dependencies beside the workspace's: no debug info, removed when the test passes.
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .output()
        .expect("run cargo");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the crate did not build or run:\n{stderr}");
    assert_eq!(stdout.trim(), "scaled on the host", "{stderr}");
    let _ = std::fs::remove_dir_all(base.join("target"));
}
