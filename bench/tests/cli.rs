//! The binary end to end: JSON output, merge, and the exit status on checksum mismatch.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_omp-bench"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omp-bench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn run_writes_json_markdown_and_plots() {
    let json = tmp("run.json");
    let md = tmp("run.md");
    let plots = tmp("plots");
    let out = bin()
        .args(["--kernels", "Stream_TRIAD,Basic_PI_REDUCE", "--variants", "seq,rayon,c-omp"])
        .args(["--size", "2000", "--reps", "2", "--repeats", "2", "--quiet", "--ceiling-gbs", "10"])
        .arg("--json")
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .arg("--plot")
        .arg(&plots)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("| Stream_TRIAD | 2000 | 2 |"), "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["schema"], "omp-bench-results/1");
    assert_eq!(v["results"].as_array().unwrap().len(), 6);
    assert_eq!(v["ceilings"][0]["gbs"], 10.0);
    assert_eq!(std::fs::read_to_string(&md).unwrap().trim(), stdout.trim());
    assert!(plots.join("time_ratio.svg").exists() && plots.join("bandwidth.svg").exists());
}

#[test]
fn merge_fails_on_a_checksum_mismatch() {
    let json = tmp("seq.json");
    let ok = bin()
        .args(["--kernels", "Stream_ADD", "--variants", "seq", "--size", "1000", "--reps", "1"])
        .args(["--quiet", "--no-warmup", "--ceiling-gbs", "1", "--json"])
        .arg(&json)
        .status()
        .unwrap();
    assert!(ok.success());
    // A second file claiming a "cuda" result with a checksum off by 1e-6 relative.
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cks: f64 = v["results"][0]["checksum"].as_str().unwrap().parse().unwrap();
    v["results"][0]["variant"] = "cuda".into();
    v["results"][0]["checksum"] = format!("{:.20e}", cks * (1.0 + 1e-6)).into();
    let other = tmp("cuda.json");
    std::fs::write(&other, v.to_string()).unwrap();
    let merged = bin().arg("--merge").arg(format!("{},{}", json.display(), other.display())).output().unwrap();
    assert_eq!(merged.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&merged.stdout).contains("**MISMATCH**"));
    assert!(String::from_utf8_lossy(&merged.stderr).contains("checksum mismatch: Stream_ADD cuda"));
}

#[test]
fn unknown_names_are_errors_that_list_the_choices() {
    let out = bin().args(["--variants", "omp-nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("known: seq, rayon, c-omp"));
}
