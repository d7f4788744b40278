//! Checksums against facts docs/rajaperf-kernels.md states about RAJAPerf's Base_Seq values.

use omp_bench::kernel::{KernelData, RunSpec, DEFAULT_TARGET};
use omp_bench::kernels::apps::{Energy, Pressure};
use omp_bench::kernels::basic::Reduce3Int;
use omp_bench::kernels::{self};
use omp_bench::rpdata::{Checksum, Init};
use omp_bench::timer::Timer;
use omp_bench::variant::Seq;

fn seq_checksum(name: &str, target: usize, reps: usize) -> Checksum {
    let k = kernels::all().into_iter().find(|k| k.name == name).unwrap();
    (k.run)(&Seq, &RunSpec { target, reps }, &mut Timer::new()).unwrap().checksum
}

#[test]
fn fir_default_checksum_is_the_documented_tiny_value() {
    // Doc: "tiny, ~ -2.085e-6". FIR is idempotent, so one rep gives the R-rep value.
    let c = seq_checksum("Apps_FIR", DEFAULT_TARGET, 1).to_f64();
    assert!((c - -2.085e-6).abs() < 0.0005e-6, "{c:e}");
}

#[test]
fn pressure_and_energy_clamp_everything_to_the_minimum() {
    // Doc: every p_new ends at pmin and every e_new at emin (both 0.1*1.1/1.12345), q_new is 0,
    // so both checksums equal min * sum_j w_j.
    let n = 100_000;
    let min = (0.1 * 1.1) / 1.12345;
    let mut p = Pressure::setup(n);
    omp_bench::kernels::apps::AppsKernels::pressure(&Seq, &mut p, 1, &mut Timer::new()).unwrap();
    assert!(p.p_new.iter().all(|&v| v == min) && p.pmin == min);
    let mut e = Energy::setup(n);
    omp_bench::kernels::apps::AppsKernels::energy(&Seq, &mut e, 1, &mut Timer::new()).unwrap();
    assert!(e.e_new.iter().all(|&v| v == min) && e.emin == min);
    assert!(e.q_new.iter().all(|&v| v == 0.0));
    let expect = *Checksum::zero().add_array(&vec![min; n], 1.0);
    assert_eq!(p.checksum().to_string(), expect.to_string());
    assert_eq!(e.checksum().to_string(), expect.to_string());
}

#[test]
fn reduce3_int_checksum_is_reps_times_sum_plus_markers() {
    // Doc: checksum = R*sum + (-58) + 19.
    let n = 200_000;
    let reps = 3;
    let vec = Init::new().int_data(n);
    let sum: i64 = vec.iter().map(|&v| i64::from(v)).sum();
    let c = seq_checksum("Basic_REDUCE3_INT", n, reps);
    let mut expect = Checksum::zero();
    expect.add_int(reps as i64 * sum - 58 + 19);
    assert_eq!(c.to_string(), expect.to_string());
    assert_eq!(Reduce3Int::problem_size(n), n);
}

#[test]
fn stream_triad_checksum_follows_its_formula() {
    // a = b + alpha*c with alpha = initData scalar at counter 3 (f = 0.1), scale 0.001.
    let n = 10_000;
    let mut init = Init::new();
    let _ = init.constant(n, 0.0);
    let b = init.data(n);
    let c = init.data(n);
    let alpha = init.scalar();
    assert_eq!(alpha, (0.1 * 1.1) / 1.12345);
    let a: Vec<f64> = b.iter().zip(&c).map(|(b, c)| b + alpha * c).collect();
    let scale = omp_bench::rpdata::scale(0.001, DEFAULT_TARGET, n);
    let expect = *Checksum::zero().add_array(&a, scale);
    assert_eq!(seq_checksum("Stream_TRIAD", n, 2).to_string(), expect.to_string());
}

#[test]
fn default_sizes_match_the_doc() {
    use omp_bench::kernels::{apps::*, basic::NestedInit, lcals::Hydro2d, polybench::*};
    assert_eq!(NestedInit::problem_size(DEFAULT_TARGET), 100 * 100 * 100);
    assert_eq!(Hydro2d::extent(DEFAULT_TARGET), 1000);
    assert_eq!(Heat3d::extent(DEFAULT_TARGET), 102);
    assert_eq!(Jacobi2d::extent(DEFAULT_TARGET), 1002);
    assert_eq!(Ltimes::num_z(DEFAULT_TARGET), 488);
    assert_eq!(Ltimes::problem_size(DEFAULT_TARGET), 999_424);
    assert_eq!(Vol3d::problem_size(DEFAULT_TARGET), 1_000_000);
    assert_eq!(DelDotVec2d::problem_size(DEFAULT_TARGET), 1_000_000);
    let g = Gemm::setup(10_000);
    assert_eq!((g.ni, g.nj, g.nk), (100, 100, 120));
}
