//! Compiles the C parts of omp-bench:
//! - `csrc/rpdata.c`: init routines, rand() and long double checksums (shared with bench/cuda);
//! - `csrc/omp/*.c`: the `c-omp` variant, with the OpenMP flag `openmp-sys` reports
//!   (`-fopenmp` for gcc). openmp-sys also tells cargo to link libgomp, which is why we use it
//!   rather than hard-coding `-lgomp`: it finds the runtime that matches the C compiler.
//!
//! Both are built with `-ffp-contract=off` so that no FMA contraction changes rounding: the
//! checksums must match RAJAPerf's `-O3 -ffp-contract=off` reference build bit for bit.
//!
//! It also runs the omp-rs device pipeline (`omp_build`): every target region of the `omp-gpu`
//! variant is outlined and compiled for `OMP_RS_OFFLOAD_ARCH` (default `sm_90`, the H200). Without
//! the device toolchain that step prints one cargo warning and the regions run on the host.

use std::env;

const OMP_SOURCES: [&str; 6] = [
    "csrc/omp/overhead.c",
    "csrc/omp/stream.c",
    "csrc/omp/basic.c",
    "csrc/omp/lcals.c",
    "csrc/omp/polybench.c",
    "csrc/omp/apps.c",
];

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
    omp.files(OMP_SOURCES)
        .include("csrc")
        .flag("-std=c99")
        .opt_level(3)
        .warnings(true);
    omp.flag_if_supported("-ffp-contract=off");
    for f in omp_flag.split_whitespace() {
        omp.flag(f);
    }
    omp.compile("ompkernels");

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
