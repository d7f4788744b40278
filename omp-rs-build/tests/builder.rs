//! `Builder` end to end on a throw-away package: scanning, outlining,
//! images, manifest; and the host-only fallback with one warning when the toolchain is missing.
//! One test function: it changes environment variables, which are process-wide.

mod common;

use std::path::Path;

use common::write;
use omp_build::{manifest, Builder, Manifest, Toolchain};

#[test]
fn builder_end_to_end_and_missing_toolchain() {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("omp-rs-builder-test");
    let _ = std::fs::remove_dir_all(&base);
    let pkg = base.join("pkg");
    write(&pkg, "Cargo.toml", "[package]\nname = \"pkg\"\n");
    write(&pkg, "src/lib.rs", "pub mod kernels;\n");
    write(
        &pkg,
        "src/kernels.rs",
        "#[omp::target_teams_distribute_parallel_for]\n\
         pub fn saxpy(a: f64, x: &[f64], y: &mut [f64]) { for i in 0..y.len() { y[i] += a * x[i]; } }\n\
         #[omp::target_teams_distribute_parallel_for]\n\
         pub fn fir(taps: [f64; 16], input: &[f64], out: &mut [f64]) {\n\
             for i in 0..out.len() {\n\
                 let window = &input[i..i + 16];\n\
                 let mut sum = 0.0;\n\
                 for j in 0..16 { sum += taps[j] * window[j]; }\n\
                 out[i] = sum;\n\
             }\n\
         }\n\
         #[omp::target_teams_distribute_parallel_for]\n\
         pub fn roots(x: &[f32], y: &mut [f32], inv: &mut [f32]) {\n\
             for i in 0..y.len() { y[i] = x[i].sqrt(); inv[i] = 1.0 / (x[i] + 1.0).sqrt(); }\n\
         }\n\
         #[omp::target_teams_distribute_parallel_for]\n\
         pub fn tenth<T: Copy + core::ops::Mul<Output = T> + From<f32>>(x: &mut [T]) {\n\
             for i in 0..x.len() { x[i] = x[i] * T::from(0.1); }\n\
         }\n\
         pub struct Grid { pub a: Vec<f64>, pub scale: f64 }\n\
         #[omp::directives]\n\
         pub fn scaled(g: &Grid, out: &mut [f64]) {\n\
             #[omp::target_teams_distribute_parallel_for]\n\
             for i in 0..out.len() { out[i] = g.a[i] * g.scale; }\n\
         }\n",
    );
    write(&pkg, "examples/plain.rs", "fn main() {}\n");

    // 1. package without target regions: empty manifest, nothing compiled
    let plain = base.join("plain");
    write(&plain, "src/lib.rs", "#[omp::parallel_for] pub fn f() {}\n");
    let r = Builder::new().package_root(&plain).out_dir(base.join("out-plain")).cargo_metadata(false).try_compile().unwrap();
    assert!(r.images.is_empty() && r.manifest.kernels.is_empty() && r.warnings.is_empty());
    assert!(r.manifest_path.is_file());

    // 2. with the toolchain: sm_90 + host images and a manifest listing them
    let tc = Toolchain::discover();
    let archs: Vec<&str> = ["sm_90", "host"].into_iter().filter(|a| tc.check(&a.parse().unwrap()).is_ok()).collect();
    if archs.len() < 2 {
        if std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1") {
            panic!("toolchain missing for sm_90/host");
        }
        eprintln!("SKIPPED the image part: run scripts/setup-gpu-toolchain.sh (or `cargo omp setup`)");
    } else {
        let out = base.join("out");
        let r = Builder::new()
            .package_root(&pkg)
            .package_name("pkg")
            .out_dir(&out)
            .arch("sm_90,host")
            .cargo_metadata(false)
            .try_compile()
            .unwrap();
        // The generic region whose value would differ per instance (`T::from(0.1)` is `0.1f32` widened for `f64` on the
        // host, `0.1f64` in an f64 kernel) gets no kernel, and the build says where and why.
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        let w = &r.warnings[0];
        assert!(w.contains("src/kernels.rs:18") && w.contains("`T::from(0.1)`") && !w.contains('\n'), "{w}");
        assert_eq!(r.manifest.host_only.len(), 1);
        let rel: Vec<String> = r.scanned.iter().map(|p| p.strip_prefix(&pkg).unwrap().display().to_string()).collect();
        for f in ["src", "examples", "src/lib.rs", "src/kernels.rs", "examples/plain.rs"] {
            assert!(rel.iter().any(|r| r == f), "{f} not watched: {rel:?}");
        }
        let m = Manifest::read(&out.join(manifest::DIR).join(manifest::FILE)).unwrap();
        assert_eq!(m, r.manifest);
        assert_eq!(m.format_version, manifest::FORMAT_VERSION);
        assert_eq!(m.images.len(), 2);
        for i in &m.images {
            assert!(out.join(manifest::DIR).join(&i.file).is_file(), "{} missing", i.file);
        }
        // The outliner named each target region after its function (`tenth`'s runs on the host).
        assert_eq!(m.kernels.len(), 4);
        let k = m.kernels.iter().find(|k| k.function == "saxpy").unwrap();
        assert!(k.name.starts_with("omp_saxpy_0_"), "{k:?}");
        let sm90 = &m.images[0].resources;
        let saxpy = sm90.iter().find(|r| r.name == k.name).unwrap();
        assert_eq!(saxpy.sunk_registers, None, "28 registers already fit the most teams: {saxpy:?}");
        // FIR's window: LLVM's machine sinking can keep all 16 loaded values live across the write's checks (48
        // registers, 5 teams of 256 threads per SM); above 32 registers the kernel is compiled once more without
        // it, and the placement where 6 teams fit is kept (which one depends on the copies of the loop LLVM sees;
        // `occupancy`'s unit tests check the choice itself).
        let fir = sm90.iter().find(|r| r.name.starts_with("omp_fir_0_")).unwrap();
        assert!(fir.registers <= 40, "{fir:?}");
        if let Some(sunk) = fir.sunk_registers {
            assert!(sunk > fir.registers, "{fir:?}");
        }
        let ptx = std::fs::read_to_string(out.join(manifest::DIR).join(m.images[0].file.replace(".cubin", ".ptx"))).unwrap();
        assert!(ptx.contains(&format!(".visible .entry {}(", k.name)) && ptx.contains(&format!(".visible .entry {}(", fir.name)));
        // `f32::sqrt` and `/` are correctly rounded on the device as on the host (libdevice's `sqrtf` under
        // `-prec-sqrt`; `1.0 / s` a correctly rounded reciprocal).
        let roots = m.kernels.iter().find(|k| k.function == "roots").unwrap();
        let roots_entry = |ptx: &str| ptx.split(".visible .entry ").find(|e| e.starts_with(&roots.name)).unwrap().to_owned();
        let correctly_rounded = |e: &str| e.contains("sqrt.rn.f32") && e.contains("rcp.rn.f32") && !e.contains(".approx");
        let entry = roots_entry(&ptx);
        assert!(correctly_rounded(&entry), "{entry}");
        assert!(m.globals.iter().any(|g| g.name == "__omp_rs_panic_record" && g.size == 8));
        let log = std::fs::read_to_string(out.join(manifest::DIR).join("build.log")).unwrap();
        eprintln!("{log}");

        // Contraction: saxpy's `y[i] += a * x[i]` rounds twice by default (as on the host) and is one fma under
        // `OMP_RS_FP_CONTRACT=fast` and `OMP_RS_FAST_MATH=on`; the latter also makes `x.sqrt()` and `1.0 / s` approximate
        // (`rsqrt.approx` where both are in one block, as in the ports' nbody; here the write's check parts them).
        // Another value is an error naming the choices.
        let saxpy_entry = |ptx: &str| ptx.split(".visible .entry ").find(|e| e.starts_with(&k.name)).unwrap().to_owned();
        let default_saxpy = saxpy_entry(&ptx);
        assert!(default_saxpy.contains("mul.rn.f64") && !default_saxpy.contains("fma.rn.f64"), "{default_saxpy}");
        let with_env = |var: &str, value: &str, dir: &str| {
            std::env::set_var(var, value);
            let r = Builder::new()
                .package_root(&pkg)
                .package_name("pkg")
                .out_dir(base.join(dir))
                .arch("sm_90")
                .cargo_metadata(false)
                .try_compile();
            std::env::remove_var(var);
            r
        };
        let r = with_env("OMP_RS_FP_CONTRACT", "fast", "out-fma").unwrap();
        let contracted = std::fs::read_to_string(r.images[0].ptx.as_ref().unwrap()).unwrap();
        let fused = saxpy_entry(&contracted);
        assert!(fused.contains("fma.rn.f64") && !fused.contains("mul.rn.f64"), "{fused}");
        let contracted_roots = roots_entry(&contracted);
        assert!(correctly_rounded(&contracted_roots), "contraction alone keeps division and square root: {contracted_roots}");
        let e = with_env("OMP_RS_FP_CONTRACT", "on", "out-fma-bad").unwrap_err().to_string();
        assert!(e.contains("OMP_RS_FP_CONTRACT=on") && e.contains("`off`") && e.contains("`fast`"), "{e}");
        let r = with_env("OMP_RS_FAST_MATH", "on", "out-fast").unwrap();
        let fast = std::fs::read_to_string(r.images[0].ptx.as_ref().unwrap()).unwrap();
        assert!(saxpy_entry(&fast).contains("fma.rn.f64"), "{}", saxpy_entry(&fast));
        let fast_roots = roots_entry(&fast);
        assert!(
            fast_roots.contains("sqrt.approx.f32") && fast_roots.contains("rcp.approx.f32") && !fast_roots.contains(".rn.f32"),
            "{fast_roots}"
        );
        let e = with_env("OMP_RS_FAST_MATH", "1", "out-fast-bad").unwrap_err().to_string();
        assert!(e.contains("OMP_RS_FAST_MATH=1") && e.contains("`off`") && e.contains("`on`"), "{e}");

        // A region whose helper needs `std`: the build fails with rustc's error at the user's file, said in its terms.
        let bad = base.join("bad");
        write(&bad, "Cargo.toml", "[package]\nname = \"bad\"\n");
        write(
            &bad,
            "src/lib.rs",
            "fn spread(v: f64) -> f64 { let t: Vec<f64> = (0..3).map(|k| v * k as f64).collect(); t.iter().sum() }\n\
             #[omp::target_teams_distribute_parallel_for]\n\
             pub fn apply(x: &[f64], y: &mut [f64]) { for i in 0..y.len() { y[i] = spread(x[i]); } }\n",
        );
        let e = Builder::new()
            .package_root(&bad)
            .package_name("bad")
            .out_dir(base.join("out-bad"))
            .arch("sm_90")
            .cargo_metadata(false)
            .try_compile()
            .unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, omp_build::Error::KernelsDoNotCompile { .. }), "{msg}");
        assert!(msg.starts_with("the target regions of this package do not compile as sm_90 kernels"), "{msg}");
        assert!(msg.contains("`Vec`") && msg.contains("src/lib.rs:1"), "{msg}");
    }

    // 3. toolchain missing: success, host-only, exactly one warning naming the fix
    std::env::set_var("OMP_RS_PTXAS", "/nonexistent/ptxas");
    std::env::set_var("OMP_RS_ROCM_BITCODE", "/nonexistent/rocm");
    let r = Builder::new()
        .package_root(&pkg)
        .out_dir(base.join("out-missing"))
        .arch("sm_90,gfx90a")
        .cargo_metadata(false)
        .cargo_warnings(false)
        .try_compile()
        .unwrap();
    std::env::remove_var("OMP_RS_PTXAS");
    std::env::remove_var("OMP_RS_ROCM_BITCODE");
    assert!(r.images.is_empty());
    assert_eq!(r.skipped.len(), 2);
    assert!(r.manifest.images.is_empty());
    // The kernels stay listed without images (the macros launch none of them: `ManifestView::has_kernel`) for the
    // field types the host path of a region reading struct fields binds its locals with.
    let scaled = r.manifest.kernels.iter().find(|k| k.function == "scaled").expect("the struct-field region is listed");
    let mut types: Vec<String> = scaled.fields.iter().map(|f| f.ty.replace(' ', "")).collect();
    types.sort();
    assert_eq!(types, ["Vec<f64>", "f64"], "{:?}", scaled.fields);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    let w = &r.warnings[0];
    assert!(w.contains("cargo omp setup") && w.contains("setup-gpu-toolchain.sh") && w.contains("sm_90"), "{w}");
    assert!(!w.contains('\n'), "a cargo:warning must be one line: {w}");

    // 4. bad arch name: a typed error
    let e = Builder::new().package_root(&pkg).out_dir(base.join("out-bad")).arch("sm90").cargo_metadata(false).try_compile();
    assert!(matches!(e, Err(omp_build::Error::UnknownArch(_))), "{e:?}");
}
