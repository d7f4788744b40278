//! The MPI example (issue 11, `examples/mpi-heat`, its own workspace): `mpirun -n 1`, `2` and `3` (an uneven split)
//! print the same bits, on the CPU cores and with every rank's regions going through libomptarget's host plugin.
//! Needs Open MPI (`libopenmpi-dev`, `openmpi-bin`) and `libclang-dev` (the `mpi` crate's bindings); CI installs
//! them and sets `OMP_RS_REQUIRE_MPI=1`, so there a missing MPI fails instead of skipping.

use std::path::Path;
use std::process::Command;

fn run_ranks(exe: &Path, n: usize, env: &[(&str, &str)]) -> String {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-n", &n.to_string()]);
    for (k, v) in env {
        c.env(k, v).args(["-x", k]);
    }
    let out = c.arg(exe).args(["64", "40", "60"]).output().expect("run mpirun");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "mpirun -n {n} {env:?}:\n{text}");
    let line = text.lines().find(|l| l.starts_with("mpi-heat")).unwrap_or_else(|| panic!("no result line:\n{text}"));
    assert!(line.contains(&format!("{n} rank(s)")), "{line}");
    line.split("bits ").nth(1).unwrap_or_default().split(';').next().unwrap_or_default().trim().to_owned()
}

#[test]
fn the_same_bits_on_one_two_and_three_ranks() {
    let required = std::env::var("OMP_RS_REQUIRE_MPI").is_ok_and(|v| v == "1");
    if Command::new("mpirun").arg("--version").output().is_err() {
        assert!(!required, "OMP_RS_REQUIRE_MPI=1 but mpirun was not found (apt-get install openmpi-bin libopenmpi-dev libclang-dev)");
        eprintln!("SKIPPED: no mpirun (apt-get install openmpi-bin libopenmpi-dev libclang-dev)");
        return;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("mpi-heat/Cargo.toml");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mpi-heat");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("run cargo");
    assert!(built.success(), "building examples/mpi-heat failed");
    let exe = target.join("debug/omp-mpi-heat");
    let host_plugin = [("OMP_TARGET_OFFLOAD", "MANDATORY"), ("OMP_RS_HOST_PLUGIN", "1")];
    let one = run_ranks(&exe, 1, &[]);
    assert_eq!(one.len(), 16, "bits of the checksum: {one}");
    for n in [2, 3] {
        assert_eq!(run_ranks(&exe, n, &[]), one, "{n} ranks on the CPU against 1");
    }
    let manifest_json = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/omp-rs/manifest.json")).unwrap_or_default();
    if manifest_json.contains("host-x86_64") {
        for n in [1, 2, 3] {
            assert_eq!(run_ranks(&exe, n, &host_plugin), one, "{n} ranks through the host plugin against 1 on the CPU");
        }
    } else {
        assert!(std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").map_or(true, |v| v != "1"), "no host-plugin image was built");
        eprintln!("SKIPPED (host plugin part): no device toolchain (scripts/setup-gpu-toolchain.sh)");
    }
}
