//! The CUDA baseline's own logic (setup, kernels, checksums, JSON output) without a GPU: build
//! bench/cuda/*.cu with the host C++ compiler against the CUDA runtime emulation in
//! bench/cuda/emu/, run it, and check every checksum against the Rust seq variant.
//! On the GPU the same sources are built by nvcc (bench/cuda/run.sh).

use omp_bench::harness::{self, Plan, Size};
use omp_bench::kernels;
use omp_bench::report::{self, CheckStatus, ResultFile};
use omp_bench::variant::Seq;
use std::path::{Path, PathBuf};
use std::process::Command;

const CUDA_SOURCES: [&str; 6] = ["main", "stream", "basic", "lcals", "polybench", "apps"];
const TARGET: usize = 4_500;
const REPS: usize = 2;

fn compiler(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

fn build_emulated(dir: &Path) -> PathBuf {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    let obj = dir.join("rpdata.o");
    run(Command::new(compiler("CC", "cc"))
        .args(["-O2", "-std=c99", "-ffp-contract=off", "-c"])
        .arg(bench.join("csrc/rpdata.c"))
        .arg("-o")
        .arg(&obj));
    let exe = dir.join("omp-bench-cuda-emu");
    let mut cxx = Command::new(compiler("CXX", "c++"));
    cxx.args(["-std=c++17", "-O1", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(bench.join("cuda/emu"))
        .args(["-x", "c++"]);
    for s in CUDA_SOURCES {
        cxx.arg(bench.join(format!("cuda/{s}.cu")));
    }
    run(cxx.args(["-x", "none"]).arg(&obj).arg("-o").arg(&exe));
    exe
}

#[test]
fn cuda_baseline_matches_seq_on_every_kernel() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cuda-emulation");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = build_emulated(&dir);
    let json = dir.join("cuda.json");
    run(Command::new(&exe)
        .args(["--size", &TARGET.to_string(), "--reps", &REPS.to_string()])
        .args(["--no-warmup", "--ceiling-gbs", "1", "--json"])
        .arg(&json));
    let cuda = ResultFile::read(&json).expect("the CUDA program writes the shared schema");
    assert_eq!(cuda.results.len(), kernels::all().len());
    assert!(cuda.results.iter().all(|r| r.variant == "cuda" && r.times_s.len() == 1));

    let plan = Plan {
        kernels: kernels::all(),
        variants: vec![&Seq],
        size: Size::Target(TARGET),
        reps: Some(REPS),
        repeats: 1,
        warmup: false,
        progress: false,
    };
    let (mut records, _) = harness::run(&plan);
    for (c, s) in cuda.results.iter().zip(&records) {
        assert_eq!((c.kernel.as_str(), c.problem_size), (s.kernel.as_str(), s.problem_size));
        assert_eq!(c.bytes_per_rep, s.bytes_per_rep, "{}: bytes per rep differ", c.kernel);
    }
    records.extend(cuda.results);
    let failures: Vec<String> = report::check(&records, "seq")
        .into_iter()
        .filter(|c| c.status != CheckStatus::Reference && c.status != CheckStatus::Pass)
        .map(|c| format!("{} {}: {:?} {:?}", c.kernel, c.variant, c.status, c.rel_diff))
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}
