//! Every variant reproduces the seq checksum of every kernel it implements, within the kernel's
//! tolerance, at small sizes (so the suite stays fast in debug builds).

use omp_bench::kernel::{KernelDef, RunOutput, RunSpec, Tolerance};
use omp_bench::kernels;
use omp_bench::timer::Timer;
use omp_bench::variant::{self, Seq, Variant};

/// Small but not degenerate for any kernel (3D domains get 16 real zones per side).
const TARGET: usize = 4_500;
/// Enough reps to exercise state carried across reps (R-dependent kernels).
const REPS: usize = 3;

/// Variants that must implement every kernel. A variant added later may grow kernel by kernel:
/// it is checked on the kernels it implements.
/// The GCC offload variants' libraries are always built (build.rs; without GCC's offload compiler its regions run on the
/// host), so a missing library fails here too.
const COMPLETE: [&str; 7] = ["seq", "rayon", "c-omp", "omp-cpu", "omp-gpu", "c-omp-target", "c-omp-target-simd"];

/// Whether `v` runs on the CPU cores here. omp-gpu (c-omp-target) does when there is no offload device (its
/// target regions fall back to the host under `OMP_TARGET_OFFLOAD=DEFAULT`); on a GPU the
/// device's `exp` (libdevice) may differ from glibc's in the last bit, so only the kernels'
/// tolerances apply there, not bit-identity.
fn runs_on_host(v: &dyn Variant) -> bool {
    match v.name() {
        "omp-gpu" => omp::get_num_devices() == 0,
        "c-omp-target" | "c-omp-target-simd" => !kernels::gcc_target_on_device(v.name()),
        _ => true,
    }
}

/// Runs `k` with `v`; `None` if `v` does not implement `k` (allowed only outside COMPLETE).
fn try_run(k: &KernelDef, v: &dyn Variant, target: usize, reps: usize) -> Option<RunOutput> {
    let mut t = Timer::new();
    match (k.run)(v, &RunSpec { target, reps }, &mut t) {
        Ok(out) => {
            assert!(t.elapsed().is_some(), "{} did not time {}", v.name(), k.name);
            Some(out)
        }
        Err(_) => {
            assert!(!COMPLETE.contains(&v.name()), "{} does not implement {}", v.name(), k.name);
            None
        }
    }
}

fn seq(k: &KernelDef, reps: usize) -> RunOutput {
    try_run(k, &Seq, TARGET, reps).expect("seq implements every kernel")
}

fn kernel(name: &str) -> KernelDef {
    kernels::all().into_iter().find(|k| k.name == name).expect("registered kernel")
}

#[test]
fn every_variant_matches_seq_on_every_kernel() {
    let mut failures = Vec::new();
    for k in kernels::all() {
        let base = seq(&k, REPS);
        assert!(base.checksum.to_f64().is_finite() && base.checksum.to_f64() != 0.0, "{}", k.name);
        for v in variant::all() {
            let Some(out) = try_run(&k, v, TARGET, REPS) else {
                continue;
            };
            let d = out.checksum.rel_diff(&base.checksum);
            let bound = k.tolerance.rel_bound(out.problem_size, REPS);
            if d > bound {
                failures.push(format!("{} {}: rel diff {d:e} > {bound:e}", k.name, v.name()));
            }
            assert_eq!(out.problem_size, base.problem_size);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn deterministic_parallel_variants_are_bit_identical_to_seq() {
    // The 1e-10 bound is RAJAPerf's; our parallel variants of element-wise kernels do the
    // same operations in the same order, so they must in fact agree exactly.
    for k in kernels::all().into_iter().filter(|k| k.tolerance == Tolerance::Deterministic) {
        let base = seq(&k, 2);
        for v in variant::all().into_iter().filter(|v| COMPLETE.contains(&v.name()) && runs_on_host(*v)) {
            let out = try_run(&k, v, TARGET, 2).expect("complete variant");
            assert_eq!(out.checksum.to_string(), base.checksum.to_string(), "{} {}", k.name, v.name());
        }
    }
}

#[test]
fn r_dependent_kernels_change_with_reps() {
    // Guards against a variant silently resetting state that RAJAPerf carries across reps
    // (on the device: an array mapped `to` instead of staying resident, or a host accumulator
    // reset per launch).
    for name in [
        "Stream_DOT",
        "Basic_DAXPY",
        "Basic_DAXPY_ATOMIC",
        "Basic_REDUCE3_INT",
        "Basic_TRAP_INT",
        "Lcals_DIFF_PREDICT",
        "Lcals_HYDRO_2D",
        "Polybench_HEAT_3D",
        "Polybench_JACOBI_1D",
        "Polybench_JACOBI_2D",
        "Apps_LTIMES",
    ] {
        let k = kernel(name);
        for v in variant::all() {
            let Some(one) = try_run(&k, v, TARGET, 1) else {
                continue;
            };
            let two = try_run(&k, v, TARGET, 2).expect("implemented above");
            assert!(two.checksum.rel_diff(&one.checksum) > 0.0, "{name} {}", v.name());
        }
    }
}

#[test]
fn idempotent_kernels_do_not_change_with_reps() {
    for name in [
        "Stream_TRIAD",
        "Basic_NESTED_INIT",
        "Lcals_EOS",
        "Polybench_GEMM",
        "Apps_DEL_DOT_VEC_2D",
        "Apps_FIR",
        "Apps_MATVEC_3D_STENCIL",
        "Apps_VOL3D",
        "Apps_ENERGY",
    ] {
        let k = kernel(name);
        for v in variant::all() {
            let Some(one) = try_run(&k, v, TARGET, 1) else {
                continue;
            };
            let three = try_run(&k, v, TARGET, 3).expect("implemented above");
            assert_eq!(one.checksum.to_string(), three.checksum.to_string(), "{name} {}", v.name());
        }
    }
}

#[test]
fn every_registered_variant_implements_a_kernel() {
    let all = kernels::all();
    for v in variant::all() {
        let n = all.iter().filter(|k| try_run(k, v, 1000, 1).is_some()).count();
        assert!(n > 0, "variant {} implements no kernel", v.name());
    }
}

#[test]
fn registry_names_are_unique_and_grouped() {
    let all = kernels::all();
    assert_eq!(all.len(), 32);
    for (i, k) in all.iter().enumerate() {
        assert!(k.name.starts_with(&format!("{}_", k.group.name())), "{}", k.name);
        assert!(all[i + 1..].iter().all(|o| o.name != k.name), "duplicate {}", k.name);
    }
}

/// With the toolchain required (CI), c-omp-target's library must have been built by GCC's NVPTX offload
/// compiler, not with offloading disabled.
#[test]
fn gcc_offload_library_has_nvptx_images_when_the_toolchain_is_required() {
    if std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1") {
        assert_eq!(env!("OMP_BENCH_GCC_TARGET_OFFLOAD"), "nvptx-none", "install gcc-12-offload-nvptx");
    }
}
