//! What a user who writes `omp-rs = "0.1"` gets: the library crates as `cargo package` makes them (not the path
//! dependencies of this checkout), depended on by a crate outside the workspace, build its target region for sm_90
//! and the host plugin and run it under `OMP_TARGET_OFFLOAD=MANDATORY`. The packaged sources are what a registry
//! would serve (`[patch.crates-io]` points at the unpacked `.crate` files); the registry's other crates come from
//! cargo's cache (`--offline`: the workspace's own build filled it).

use std::path::{Path, PathBuf};
use std::process::Command;

use omp_build::Toolchain;

/// The crates a user's crate depends on, directly or through them, in packaging order.
const PACKAGED: &[&str] = &["libomptarget-sys", "omp-rs-abi", "omp-rs-codegen", "omp-rs-macros", "omp-rs-build", "omp-rs"];

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    // The test's own cargo holds the workspace's build folder; every command here has its own.
    c.env_remove("CARGO_TARGET_DIR").env_remove("RUSTFLAGS");
    c
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot {what}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{what} failed:\n{text}");
    text
}

/// The files below `dir` whose names end with `suffix`.
fn find(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            find(&p, suffix, out);
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
}

#[test]
fn an_outside_crate_builds_and_runs_kernels_from_the_packaged_crates() {
    let tc = Toolchain::discover();
    if ["sm_90", "host"].iter().any(|a| tc.check(&a.parse().expect("an arch")).is_err()) {
        assert!(!std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1"), "toolchain missing for sm_90/host");
        eprintln!("SKIPPED: no device toolchain for sm_90 and the host plugin (scripts/setup-gpu-toolchain.sh)");
        return;
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("omp-rs-build lives in the workspace");
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("omp-rs-packaged");
    let _ = std::fs::remove_dir_all(&base);
    let (pack_target, crates, user) = (base.join("package-target"), base.join("crates"), base.join("user"));
    std::fs::create_dir_all(&crates).expect("a scratch folder");

    // 1. The library crates as `cargo package` makes them (the user's build below verifies them).
    let mut pack = cargo();
    pack.args(["package", "--offline", "--allow-dirty", "--no-verify"]).env("CARGO_TARGET_DIR", &pack_target).current_dir(workspace);
    for c in PACKAGED {
        pack.args(["-p", c]);
    }
    run(&mut pack, "package the library crates");
    let mut patches = String::new();
    for c in PACKAGED {
        let file = pack_target.join("package").join(format!("{c}-0.1.0.crate"));
        run(Command::new("tar").arg("xzf").arg(&file).arg("-C").arg(&crates), "unpack a .crate");
        patches.push_str(&format!("{c} = {{ path = {:?} }}\n", crates.join(format!("{c}-0.1.0"))));
    }

    // 2. A crate outside the workspace, as the README's "Using it in your crate" says, with registry versions.
    let write = |rel: &str, text: &str| {
        let p = user.join(rel);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("a folder");
        std::fs::write(p, text).expect("a file");
    };
    write(
        "Cargo.toml",
        &format!(
            "[package]\nname = \"user\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nomp = {{ package = \"omp-rs\", version = \"0.1\" }}\n\
             [build-dependencies]\nomp-rs-build = \"0.1\"\n\n[patch.crates-io]\n{patches}\n[workspace]\n"
        ),
    );
    write("build.rs", "fn main() { omp_build::Builder::new().compile(); }\n");
    write(
        "src/main.rs",
        "#[omp::target_teams_distribute_parallel_for]\n\
         fn saxpy(a: f64, x: &[f64], y: &mut [f64]) {\n\
             for i in 0..y.len() { y[i] += a * x[i]; }\n\
         }\n\
         fn main() {\n\
             let x: Vec<f64> = (0..100_000).map(|i| i as f64).collect();\n\
             let mut y = vec![1.0; x.len()];\n\
             saxpy(2.0, &x, &mut y);\n\
             assert!(y.iter().zip(&x).all(|(y, x)| *y == 1.0 + 2.0 * x));\n\
             println!(\"saxpy ok\");\n\
         }\n",
    );
    // The workspace's versions of the registry's crates, which the offline cache holds.
    std::fs::copy(workspace.join("Cargo.lock"), user.join("Cargo.lock")).expect("copy Cargo.lock");
    let user_target = base.join("user-target");
    run(
        cargo()
            .args(["build", "--offline"])
            .env("CARGO_TARGET_DIR", &user_target)
            .env("OMP_RS_OFFLOAD_ARCH", "sm_90,host")
            .current_dir(&user),
        "build the outside crate",
    );
    for image in [".sm_90.cubin", ".host-x86_64.so"] {
        let mut found = Vec::new();
        find(&user_target.join("debug/build"), image, &mut found);
        assert!(!found.is_empty(), "the outside crate's build made no `{image}` image");
    }

    // 3. Its region offloads (no host fallback under MANDATORY) through the host plugin and computes saxpy.
    let out = run(
        Command::new(user_target.join("debug/user")).env("OMP_TARGET_OFFLOAD", "MANDATORY").env("OMP_RS_HOST_PLUGIN", "1"),
        "run the outside crate",
    );
    assert!(out.contains("saxpy ok"), "{out}");
}
