//! Compiles the C parts of omp-bench:
//! - `csrc/rpdata.c`: init routines, rand() and long double checksums (shared with bench/cuda);
//! - `csrc/omp/*.c`: the `c-omp` variant, with the OpenMP flag `openmp-sys` reports
//!   (`-fopenmp` for gcc). openmp-sys also tells cargo to link libgomp, which is why we use it
//!   rather than hard-coding `-lgomp`: it finds the runtime that matches the C compiler.
//!
//! Both are built with `-ffp-contract=off` so that no FMA contraction changes rounding: the
//! checksums must match RAJAPerf's `-O3 -ffp-contract=off` reference build bit for bit.
//!
//! - the same `csrc/omp/*.c` with `-DOMP_BENCH_TARGET` plus `csrc/omp-target/map.c`, linked by the C
//!   compiler into `libomp_bench_gcc_target.so`: the `c-omp-target` variant (`target teams distribute
//!   parallel for`), with GCC's NVPTX offload (`-foffload=nvptx-none`, Debian `gcc-12-offload-nvptx`) when
//!   the compiler has it, else with offloading disabled (its target regions run on the host: the CPU tests
//!   still check its checksums). omp-bench loads it at run time, since GCC's offload images are made when
//!   the gcc driver links, which cargo's link of omp-bench is not.
//!
//! It also runs the omp-rs device pipeline (`omp_build`): every target region of the `omp-gpu`
//! variant is outlined and compiled for `OMP_RS_OFFLOAD_ARCH` (default `sm_90`, the H200). Without
//! the device toolchain that step prints one cargo warning and the regions run on the host.

use std::env;

const OMP_SOURCES: [&str; 6] =
    ["csrc/omp/overhead.c", "csrc/omp/stream.c", "csrc/omp/basic.c", "csrc/omp/lcals.c", "csrc/omp/polybench.c", "csrc/omp/apps.c"];

fn main() {
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-changed=build.rs");

    cc::Build::new()
        .file("csrc/rpdata.c")
        .include("csrc")
        .flag("-std=c99")
        .flag_if_supported("-ffp-contract=off")
        .opt_level(2)
        .warnings(true)
        .compile("rpdata");

    let omp_flag = env::var("DEP_OPENMP_FLAG").unwrap_or_else(|_| {
        println!("cargo:warning=openmp-sys gave no OpenMP flag; assuming -fopenmp");
        "-fopenmp".to_owned()
    });
    let mut omp = cc::Build::new();
    omp.files(OMP_SOURCES).include("csrc").flag("-std=c99").opt_level(3).warnings(true);
    omp.flag_if_supported("-ffp-contract=off");
    for f in omp_flag.split_whitespace() {
        omp.flag(f);
    }
    omp.compile("ompkernels");
    gcc_target_libraries(&omp.get_compiler());

    // Device images for the omp-gpu target regions (sm_90 unless OMP_RS_OFFLOAD_ARCH says
    // otherwise, e.g. `sm_90,host` to also run them through libomptarget's host plugin).
    let arch = env::var("OMP_RS_OFFLOAD_ARCH").unwrap_or_else(|_| "sm_90".into());
    omp_build::Builder::new().arch(&arch).compile();

    // Some linkers want the OpenMP runtime after the static library that uses it.
    if let Some(link) = env::var_os("DEP_OPENMP_CARGO_LINK_INSTRUCTIONS") {
        for i in env::split_paths(&link) {
            println!("cargo:{}", i.display());
        }
    }
}

/// Builds `$OUT_DIR/libomp_bench_gcc_target.so` and `libomp_bench_gcc_target_simd.so` (see the crate docs)
/// and tells omp-bench where they are and whether they offload (`OMP_BENCH_GCC_TARGET_DIR`,
/// `OMP_BENCH_GCC_TARGET_OFFLOAD` at compile time).
fn gcc_target_libraries(cc: &cc::Tool) {
    let dir = std::path::PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let build = |file: &str, defines: &[&str], offload: &[&str]| {
        let mut cmd = cc.to_command();
        cmd.args(["-O3", "-std=c99", "-ffp-contract=off", "-fopenmp", "-fPIC", "-shared", "-Icsrc"])
            .args(defines)
            .args(offload)
            .args(OMP_SOURCES)
            .arg("csrc/omp-target/map.c")
            .arg("-o")
            .arg(dir.join(file))
            .arg("-lm");
        match cmd.output() {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
            Err(e) => Err(e.to_string()),
        }
    };
    // GCC 12 has no sm_90; sm_80 PTX is JIT-compiled by the driver. -latomic: GCC's team reduction of several
    // variables at once (REDUCE3_INT) uses a 16-byte compare-and-swap.
    let nvptx = ["-foffload=nvptx-none", "-foffload-options=nvptx-none=-misa=sm_80 -lm -latomic"];
    let plain = ["-DOMP_BENCH_TARGET"];
    let simd = ["-DOMP_BENCH_TARGET", "-DOMP_BENCH_TARGET_SIMD"];
    let offload: &[&str] = match build("libomp_bench_gcc_target.so", &plain, &nvptx) {
        Ok(()) => &nvptx,
        Err(why) => {
            let why = why.lines().find(|l| l.contains("error")).unwrap_or("").trim().to_owned();
            println!(
                "cargo:warning=c-omp-target built without GPU offloading (its regions run on the host): {why} \
                 (install gcc-12-offload-nvptx for NVIDIA offloading)"
            );
            let disabled = &["-foffload=disable"];
            build("libomp_bench_gcc_target.so", &plain, disabled)
                .unwrap_or_else(|e| panic!("building libomp_bench_gcc_target.so from csrc/omp failed:\n{e}"));
            disabled
        }
    };
    build("libomp_bench_gcc_target_simd.so", &simd, offload)
        .unwrap_or_else(|e| panic!("building libomp_bench_gcc_target_simd.so from csrc/omp failed:\n{e}"));
    let kind = if offload == nvptx { "nvptx-none" } else { "disabled" };
    println!("cargo:rustc-env=OMP_BENCH_GCC_TARGET_DIR={}", dir.display());
    println!("cargo:rustc-env=OMP_BENCH_GCC_TARGET_OFFLOAD={kind}");
}
