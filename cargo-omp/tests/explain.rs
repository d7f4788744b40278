//! `cargo-omp explain` against a target directory: a hand-written one (manifest + each kernel's outlined source +
//! PTX, as the outliner leaves them) and, when the device toolchain is installed, a real build
//! by omp-rs-build's `Builder`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use omp_build::manifest::{ImageEntry, KernelEntry, KernelSource, Location, MapDecision, SlotKind::*};
use omp_build::{Builder, ImageKind, KernelResources, Manifest, Toolchain};

fn cargo_omp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-omp")).args(args).output().expect("run cargo-omp")
}

fn ok(args: &[&str]) -> String {
    let out = cargo_omp(args);
    assert!(out.status.success(), "cargo-omp {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let out = cargo_omp(args);
    assert!(!out.status.success(), "cargo-omp {args:?} should fail: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stderr).unwrap()
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const KERNEL_SRC: &str = r#"omp_device::kernel! {
    pub unsafe fn omp_saxpy_0_1a2b3c4d(_dyn: *mut u8, a: u64, x: &[f64; 0], x_len: u64, y: *mut f64,
                                       y_len: u64, lo: u64, trips: u64, step: u64) {
        let a = f64::from_bits(a);
        let x = ro_slice(x, x_len);
        let mut y = View::from_raw_parts(y, y_len as usize);
        let mut k = omp_device::launch::global_thread();
        while k < trips {
            let i = (lo + k * step) as usize;
            y[i] += a * x[i];
            k += omp_device::launch::num_global_threads();
        }
    }
}
"#;

const PTX: &str = "\
.version 8.8
.target sm_90
.address_size 64

	// .globl	omp_saxpy_0_1a2b3c4d    // -- Begin function omp_saxpy_0_1a2b3c4d
.visible .entry omp_saxpy_0_1a2b3c4d(
	.param .u64 omp_saxpy_0_1a2b3c4d_param_0
)
{
	ld.global.nc.b64 	%rd1, [%rd2];
	ret;
}
	// .globl	omp_other_0_00000000
.visible .entry omp_other_0_00000000()
{
	ret;
}
";

/// `<target>/debug/build/demo-<hash>/out/omp-rs/` with a manifest, the saxpy kernel's outlined source (unless
/// `with_source` is false: a manifest of an older omp-rs-build) and PTX.
fn fixture(target: &Path, with_source: bool) -> PathBuf {
    let dir = target.join("debug/build/demo-0123456789abcdef/out/omp-rs");
    let mut m = Manifest::new();
    m.kernels.push(KernelEntry {
        name: "omp_saxpy_0_1a2b3c4d".into(),
        function: "saxpy".into(),
        region: 0,
        slots: vec![Float64, ArrayBase, ArrayLen, ArrayBase, ArrayLen, LoopFirst, LoopTrips, LoopStep],
        maps: vec![
            MapDecision { var: "a".into(), map: "firstprivate".into(), why: "f64 by value (Copy)".into() },
            MapDecision { var: "x".into(), map: "to".into(), why: "&[f64] parameter".into() },
            MapDecision { var: "y".into(), map: "tofrom".into(), why: "&mut [f64] parameter".into() },
        ],
        location: Some(Location { file: "src/lib.rs".into(), line: 3 }),
        fields: vec![],
        source: with_source.then(|| KernelSource {
            file: "device/kernels/omp_saxpy_0_1a2b3c4d.rs".into(),
            line: 2,
            params: ["a", "x", "x_len", "y", "y_len", "lo", "trips", "step"].map(String::from).to_vec(),
        }),
        checks: vec![],
    });
    m.kernels.push(KernelEntry {
        name: "omp_other_0_00000000".into(),
        function: "other".into(),
        region: 0,
        slots: vec![],
        maps: vec![],
        location: None,
        fields: vec![],
        source: None,
        checks: vec![],
    });
    m.images.push(ImageEntry {
        arch: "sm_90".into(),
        file: "demo_kernels.sm_90.cubin".into(),
        kind: ImageKind::Cubin,
        resources: vec![KernelResources {
            name: "omp_saxpy_0_1a2b3c4d".into(),
            registers: 38,
            stack_frame_bytes: 16,
            spill_store_bytes: 8,
            spill_load_bytes: 8,
            sunk_registers: Some(48),
            ..Default::default()
        }],
    });
    m.images.push(ImageEntry {
        arch: "gfx90a".into(),
        file: "demo_kernels.gfx90a.hsaco".into(),
        kind: ImageKind::AmdCodeObject,
        resources: vec![],
    });
    m.write(&dir.join("manifest.json")).unwrap();
    write(&dir.join("demo_kernels.sm_90.cubin"), "not a real cubin");
    write(&dir.join("demo_kernels.sm_90.ptx"), PTX);
    if with_source {
        write(&dir.join("device/kernels/omp_saxpy_0_1a2b3c4d.rs"), KERNEL_SRC);
    }
    dir
}

#[test]
fn explain_a_written_build() {
    let t = tempfile::tempdir().unwrap();
    let td = t.path().to_str().unwrap();
    fixture(t.path(), true);

    // listing
    let s = ok(&["explain", "--target-dir", td]);
    assert!(s.contains("package `demo`") && s.contains("manifest.json"), "{s}");
    assert!(s.contains("omp_saxpy_0_1a2b3c4d") && s.contains("8: float64, array x2, loop"), "{s}");
    assert!(s.contains("sm_90 (demo_kernels.sm_90.cubin)"), "{s}");

    // one kernel, every section; by its fn name too
    let s = ok(&["explain", "saxpy", "--target-dir", td]);
    for want in [
        "kernel omp_saxpy_0_1a2b3c4d  (fn saxpy, region 0 at src/lib.rs:3;",
        "dyn_ptr",
        "float64              a",
        "array_base           x",
        "loop_step            step",
        "device/kernels/omp_saxpy_0_1a2b3c4d.rs, from line 2",
        "firstprivate  f64 by value (Copy)",
        "tofrom        &mut [f64] parameter",
        "omp_device::kernel! {",
        "y[i] += a * x[i];",
        "registers 38, stack frame 16 B, spills 8 B stored / 8 B loaded",
        "without LLVM's machine sinking: 38 registers where the default placement needed 48",
        "registers allow 51 of 64 warps per SM",
        "spills go to local memory",
        ".visible .entry omp_saxpy_0_1a2b3c4d(",
        "ld.global.nc.b64",
    ] {
        assert!(s.contains(want), "missing `{want}` in:\n{s}");
    }
    assert!(!s.contains("omp_other_0_00000000()"), "only this kernel's PTX:\n{s}");

    // sections
    let s = ok(&["explain", "omp_saxpy_0_1a2b3c4d", "--target-dir", td, "--ptx"]);
    assert!(s.contains("== PTX ==") && !s.contains("== outlined source") && !s.contains("== slots"), "{s}");
    let s = ok(&["explain", "saxpy", "--target-dir", td, "--source", "--resources"]);
    assert!(s.contains("== outlined source") && s.contains("== resources") && !s.contains("== PTX"), "{s}");

    // another arch: no PTX, no ptxas numbers, a disassembly hint instead
    let s = ok(&["explain", "saxpy", "--target-dir", td, "--arch", "gfx90a", "--ptx", "--resources"]);
    assert!(s.contains("gfx90a images have no PTX") && s.contains("llvm-objdump-22 -d --mcpu=gfx90a"), "{s}");

    // errors say what to do
    let e = fails(&["explain", "saxpy", "--target-dir", td, "--arch", "sm_80"]);
    assert!(e.contains("no sm_80 image") && e.contains("built: sm_90, gfx90a") && e.contains("OMP_RS_OFFLOAD_ARCH=sm_80"), "{e}");
    let e = fails(&["explain", "nope", "--target-dir", td]);
    assert!(e.contains("no kernel `nope`") && e.contains("omp_other_0_00000000"), "{e}");
    let e = fails(&["explain", "--target-dir", td, "--package", "other"]);
    assert!(e.contains("no omp-rs manifest") && e.contains("other-*") && e.contains("Packages with a manifest: demo"), "{e}");
    let e = fails(&["explain", "--target-dir", td, "--release"]);
    assert!(e.contains("cargo build` --release") || e.contains("--release"), "{e}");
}

#[test]
fn explain_without_the_outliner_says_so() {
    let t = tempfile::tempdir().unwrap();
    let td = t.path().to_str().unwrap();
    fixture(t.path(), false);
    let s = ok(&["explain", "saxpy", "--target-dir", td, "--source"]);
    assert!(s.contains("records no outlined source") && s.contains("rebuild"), "{s}");
    // slots are still listed, without parameter names
    let s = ok(&["explain", "saxpy", "--target-dir", td]);
    assert!(s.contains("float64") && s.contains("loop_trips"), "{s}");
}

#[test]
fn explain_a_real_build() {
    let tc = Toolchain::discover();
    let buildable = ["sm_90", "host"].iter().all(|a| tc.check(&a.parse().unwrap()).is_ok());
    if !buildable {
        if std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1") {
            panic!("device toolchain missing for sm_90/host");
        }
        eprintln!("SKIPPED: no device toolchain (cargo omp setup)");
        return;
    }
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cargo-omp-explain-real");
    let _ = std::fs::remove_dir_all(&base);
    let pkg = base.join("pkg");
    write(&pkg.join("Cargo.toml"), "[package]\nname = \"pkg\"\n");
    write(
        &pkg.join("src/lib.rs"),
        "#[omp::target_teams_distribute_parallel_for]\n\
         pub fn saxpy(a: f64, x: &[f64], y: &mut [f64]) { for i in 0..y.len() { y[i] += a * x[i]; } }\n",
    );
    let target = base.join("target");
    let out = target.join("debug/build/pkg-0123456789abcdef/out");
    let r = Builder::new()
        .package_root(&pkg)
        .package_name("pkg")
        .out_dir(&out)
        .arch("sm_90,host")
        .cargo_metadata(false)
        .cargo_warnings(false)
        .try_compile()
        .unwrap();
    assert_eq!(r.images.len(), 2);
    let td = target.to_str().unwrap();
    let first = r.manifest.kernels[0].name.clone();

    let s = ok(&["explain", "--target-dir", td]);
    assert!(s.contains(&first) && s.contains("sm_90") && s.contains("host-x86_64"), "{s}");
    let s = ok(&["explain", &first, "--target-dir", td]);
    assert!(s.contains(&format!(".entry {first}(")), "PTX of the kernel:\n{s}");
    assert!(s.contains("registers ") && s.contains("(ptxas -v; log:"), "{s}");
    // The outlined source is token-printed (`fn name (`).
    assert!(s.contains(&format!("fn {first}(")) || s.contains(&format!("fn {first} (")), "outlined source:\n{s}");
    let s = ok(&["explain", &first, "--target-dir", td, "--arch", "host", "--ptx"]);
    assert!(s.contains("objdump -d"), "{s}");
    eprintln!("real build explained in {}", target.display());
}
