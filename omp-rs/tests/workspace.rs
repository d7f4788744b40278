//! Habits of the whole workspace, checked where every change is tested: the sources are formatted as `rustfmt.toml`
//! says (`cargo fmt --all` fixes a failure).

use std::path::Path;
use std::process::Command;

/// The workspace's root (this crate's parent).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("omp-rs lives in the workspace")
}

#[test]
fn the_workspace_is_formatted() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = match Command::new(&cargo).args(["fmt", "--all", "--check"]).current_dir(root()).output() {
        Ok(out) => out,
        Err(e) => panic!("cannot run `{cargo} fmt`: {e}"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("not installed") {
        // Without rustfmt there is nothing to compare with; CI installs it (OMP_RS_REQUIRE_TOOLCHAIN=1).
        let required = std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1");
        assert!(!required, "rustfmt is not installed: {stderr}");
        eprintln!("SKIPPED: rustfmt is not installed (rustup component add rustfmt)");
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("Diff in ")).collect();
    assert!(out.status.success(), "not formatted (run `cargo fmt --all`): {files:#?}\n{stderr}");
}
