//! Kernel launches through libomptarget's host plugin (`OMP_TARGET_OFFLOAD=MANDATORY`), checked against
//! sequential Rust on fresh random inputs. Kernels: `fixtures/kernels_host.c` (ABI v1).
mod common;

use common::{kernel, random_f64, rng, set_policy};
use omp::__private::offload::{launch, scope, should_offload, ArgPack, Decision, Device, Geometry, HostReason, LaunchOutcome};
use omp::{DeviceBuffer, Error};
use rand::Rng;

fn device(k: &'static omp::__private::offload::KernelRef) -> Device {
    set_policy("MANDATORY");
    match should_offload(k, None, true).expect("MANDATORY with the host plugin must offload") {
        Decision::Offload(d) => d,
        Decision::Host(r) => panic!("expected offload, got host: {r}"),
    }
}

fn ran(o: LaunchOutcome) -> omp::__private::offload::Ran {
    match o {
        LaunchOutcome::Ran(r) => r,
        LaunchOutcome::NotOffloaded => panic!("libomptarget declined the launch"),
    }
}

#[test]
fn saxpy_matches_sequential_including_sections() {
    let k = kernel("omp_saxpy_0_fixture");
    let d = device(k);
    let mut r = rng("saxpy");
    for _ in 0..5 {
        let n = r.gen_range(1..20_000usize);
        let a: f64 = r.gen_range(-3.0..3.0);
        let x = random_f64(&mut r, n);
        let mut y = random_f64(&mut r, n);
        let want: Vec<f64> = x.iter().zip(&y).map(|(xi, yi)| a * xi + yi).collect();
        let pack = ArgPack::new().scalar(a).to(&x).var("x").tofrom(&mut y).var("y").dim(0, n as u64, 1);
        ran(launch(k, d, pack, Geometry::for_iterations(n as u64)).unwrap());
        assert_eq!(y, want, "n={n} a={a}");
        assert!(!omp::target_is_present(&y, d.num()), "a launch's own mappings end with it");

        // An array section: only y[lo..hi] is mapped, copied and updated.
        let (lo, hi) = (r.gen_range(0..n), n);
        let before = y.clone();
        let pack = ArgPack::new().scalar(a).to(&x[lo..hi]).tofrom(&mut y[lo..hi]).dim(0, (hi - lo) as u64, 1);
        ran(launch(k, d, pack, Geometry::for_iterations((hi - lo) as u64)).unwrap());
        for i in 0..n {
            let w = if i >= lo { a * x[i] + before[i] } else { before[i] };
            assert_eq!(y[i], w, "section {lo}..{hi}, i={i}");
        }
    }
}

#[test]
fn f32_scalar_travels_in_the_low_half_of_its_slot() {
    let k = kernel("omp_saxpyf_0_fixture");
    let d = device(k);
    let mut r = rng("saxpyf");
    let n = r.gen_range(1..5000usize);
    let a: f32 = r.gen_range(-2.0..2.0);
    let x: Vec<f32> = (0..n).map(|_| r.gen_range(-1.0..1.0)).collect();
    let mut y: Vec<f32> = (0..n).map(|_| r.gen_range(-1.0..1.0)).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(xi, yi)| a * xi + yi).collect();
    ran(launch(k, d, ArgPack::new().scalar(a).to(&x).tofrom(&mut y).dim(0, n as u64, 1), Geometry::for_iterations(n as u64)).unwrap());
    assert_eq!(y, want);
}

#[test]
fn collapse2_stencil_matches_sequential() {
    let k = kernel("omp_jacobi_0_fixture");
    let d = device(k);
    let mut r = rng("jacobi");
    let (nx, ny) = (r.gen_range(3..300usize), r.gen_range(3..200usize));
    let u = random_f64(&mut r, nx * ny);
    let mut v = random_f64(&mut r, nx * ny);
    let mut want = v.clone();
    for i in 1..ny - 1 {
        for j in 1..nx - 1 {
            want[i * nx + j] = 0.25 * (u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1]);
        }
    }
    let iters = ((ny - 2) * (nx - 2)) as u64;
    let pack = ArgPack::new().scalar(nx as u64).to(&u).tofrom(&mut v).dim(1, (ny - 2) as u64, 1).dim(1, (nx - 2) as u64, 1);
    ran(launch(k, d, pack, Geometry::for_iterations(iters)).unwrap());
    assert_eq!(v, want, "{nx}x{ny}: interior updated, boundary untouched");
}

#[test]
fn reductions_return_typed_partials() {
    let k = kernel("omp_dot_0_fixture");
    let d = device(k);
    let mut r = rng("dot");
    let n = r.gen_range(1..100_000usize);
    let x = random_f64(&mut r, n);
    let y = random_f64(&mut r, n);
    let init: f64 = r.gen_range(-5.0..5.0);
    let seq = x.iter().zip(&y).fold(0.0, |s, (a, b)| s + a * b);
    let pack = ArgPack::new().to(&x).to(&y).dim(0, n as u64, 1).reduction::<f64>();
    let out = ran(launch(k, d, pack, Geometry::for_iterations(n as u64)).unwrap());
    assert_eq!(out.partial_count, 1, "the host plugin runs one team");
    assert_eq!(out.partials::<f64>(0).unwrap(), &[seq]);
    let total = out.reduce(0, init, |a, b| a + b).unwrap();
    assert_eq!(total, init + seq);
    assert!(matches!(out.partials::<f32>(0), Err(Error::InvalidAccess { .. })), "wrong type is an error");
    assert!(matches!(out.partials::<f64>(1), Err(Error::InvalidAccess { .. })), "wrong index is an error");

    // Two reductions of different types; buffers are reused by the next launch of the kernel.
    let k2 = kernel("omp_maxcount_0_fixture");
    for _ in 0..3 {
        let m = r.gen_range(1..10_000usize);
        let v: Vec<i64> = (0..m).map(|_| r.gen_range(-1_000_000..1_000_000)).collect();
        let pack = ArgPack::new().to(&v).dim(0, m as u64, 1).reduction::<i64>().reduction::<u64>();
        let out = ran(launch(k2, d, pack, Geometry::for_iterations(m as u64)).unwrap());
        assert_eq!(out.reduce(0, i64::MIN, i64::max).unwrap(), *v.iter().max().unwrap());
        assert_eq!(out.reduce(1, 0u64, |a, b| a + b).unwrap(), v.iter().filter(|&&e| e > 0).count() as u64);
    }
}

#[test]
fn device_panic_is_reported_with_location_and_the_process_continues() {
    let k = kernel("omp_oob_0_fixture");
    let d = device(k);
    let mut r = rng("oob");
    let n = r.gen_range(10..1000usize);
    let off = r.gen_range(1..n as u64);
    let x = random_f64(&mut r, n);
    let mut out = vec![-7.0; n];
    let err = launch(k, d, ArgPack::new().to(&x).scalar(off).tofrom(&mut out).dim(0, n as u64, 1), Geometry::for_iterations(n as u64))
        .expect_err("out-of-bounds threads must be reported");
    match &err {
        Error::DevicePanic { kernel, file, line, column, count, .. } => {
            assert_eq!(kernel, "omp_oob_0_fixture");
            assert_eq!(file, "tests/fixtures/kernels_host.rs", "file read back from device memory");
            assert_eq!((*line, *column), (235, 24));
            assert_eq!(*count, off, "one panic per out-of-bounds iteration");
        }
        other => panic!("expected DevicePanic, got {other:?}"),
    }
    assert!(err.to_string().contains("tests/fixtures/kernels_host.rs:235:24"), "{err}");
    for i in 0..n {
        let w = if (i as u64) + off < n as u64 { 2.0 * x[i + off as usize] } else { -7.0 };
        assert_eq!(out[i], w, "in-bounds results land, panicked slots are untouched (i={i})");
    }
    // The record was reset: a clean launch of the same kernel succeeds.
    let mut out2 = vec![0.0; n];
    ran(launch(k, d, ArgPack::new().to(&x).scalar(0u64).tofrom(&mut out2).dim(0, n as u64, 1), Geometry::for_iterations(n as u64)).unwrap());
    assert_eq!(out2, x.iter().map(|v| 2.0 * v).collect::<Vec<_>>());
}

#[test]
fn bad_geometry_is_an_error_not_an_abort() {
    let k = kernel("omp_saxpy_0_fixture");
    let d = device(k);
    let x = vec![1.0; 8];
    for (teams, threads) in
        [(None, Some(0)), (None, Some(2048)), (None, Some(-1)), (Some(0), None), (Some(-5), Some(64)), (Some(1i64 << 31), None)]
    {
        let mut y = vec![0.0; 8];
        let g = Geometry { num_teams: teams, thread_limit: threads, iterations: 8 };
        match launch(k, d, ArgPack::new().scalar(1.0f64).to(&x).tofrom(&mut y).dim(0, 8, 1), g) {
            Err(Error::BadGeometry { kernel, detail }) => {
                assert_eq!(kernel, "omp_saxpy_0_fixture");
                assert!(detail.contains("num_teams") || detail.contains("thread_limit"), "{detail}");
            }
            other => panic!("{teams:?}/{threads:?}: expected BadGeometry, got {other:?}"),
        }
        assert_eq!(y, vec![0.0; 8], "nothing ran");
    }
    let mut y = vec![0.0; 8];
    let g = Geometry { num_teams: Some(3), thread_limit: Some(1024), iterations: 8 };
    let out = ran(launch(k, d, ArgPack::new().scalar(1.0f64).to(&x).tofrom(&mut y).dim(0, 8, 1), g).unwrap());
    assert_eq!((out.teams, out.threads), (3, 1024));
    assert_eq!(y, x);
}

#[test]
fn device_numbers_are_validated() {
    let k = kernel("omp_empty_0_fixture");
    let d = device(k);
    let n = omp::get_num_devices();
    assert_eq!(n, 4, "libomptarget's host plugin has 4 devices");
    assert_eq!(omp::offload::get_initial_device(), n);
    assert!(omp::is_initial_device());
    assert_eq!(d.num(), omp::get_default_device());
    for bad in [i64::from(n) + 1, 99, -1, i64::MIN] {
        match should_offload(k, Some(bad), true) {
            Err(Error::InvalidDevice { device, num_devices }) => {
                assert_eq!((device, num_devices), (bad, n));
            }
            other => panic!("device({bad}): expected InvalidDevice, got {other:?}"),
        }
        assert!(omp::offload::device(bad).is_err());
    }
    assert_eq!(should_offload(k, Some(i64::from(n)), true).unwrap(), Decision::Host(HostReason::InitialDevice));
    assert_eq!(should_offload(k, Some(2), false).unwrap(), Decision::Host(HostReason::IfFalse));
    for dev in 0..n {
        let dd = omp::offload::device(i64::from(dev)).unwrap();
        ran(launch(k, dd, ArgPack::new(), Geometry::for_iterations(0)).unwrap());
    }
}

#[test]
fn device_buffer_is_an_is_device_ptr_argument() {
    let k = kernel("omp_scale_0_fixture");
    let d = device(k);
    let mut r = rng("devbuf");
    let n = r.gen_range(1..10_000usize);
    let host = random_f64(&mut r, n);
    let mut buf = DeviceBuffer::from_slice(&host, Some(i64::from(d.num()))).unwrap();
    assert_eq!(buf.len(), n);
    assert!(!omp::target_is_present(&host, d.num()), "omp_target_alloc memory is not in the present table");
    let a: f64 = r.gen_range(-4.0..4.0);
    ran(launch(k, d, ArgPack::new().scalar(a).device_buffer_mut(&mut buf), Geometry::for_iterations(n as u64)).unwrap());
    let mut back = vec![0.0; n];
    buf.copy_to_host(&mut back).unwrap();
    assert_eq!(back, host.iter().map(|v| v * a).collect::<Vec<_>>());
    assert_eq!(buf.to_vec().unwrap(), back);
    assert!(matches!(buf.copy_to_host(&mut vec![0.0; n + 1]), Err(Error::LengthMismatch { .. })));
    // A buffer on another device than the launch is refused before libomptarget sees it.
    let other = DeviceBuffer::<f64>::alloc(4, Some(i64::from((d.num() + 1) % 4))).unwrap();
    let e = launch(k, d, ArgPack::new().scalar(1.0f64).device_buffer(&other), Geometry::for_iterations(4)).unwrap_err();
    assert!(matches!(e, Error::InvalidAccess { .. }), "{e:?}");
}

#[test]
fn nowait_launches_complete_and_report_errors_at_scope_end() {
    let k = kernel("omp_saxpy_0_fixture");
    let d = device(k);
    let mut r = rng("nowait");
    let n = r.gen_range(1..50_000usize);
    let x = random_f64(&mut r, n);
    let mut y1 = random_f64(&mut r, n);
    let mut y2 = random_f64(&mut r, n);
    let w1: Vec<f64> = x.iter().zip(&y1).map(|(a, b)| 2.0 * a + b).collect();
    let w2: Vec<f64> = x.iter().zip(&y2).map(|(a, b)| -1.0 * a + b).collect();
    let done = scope(|s| {
        let p1 = s.launch_nowait(
            k,
            d,
            ArgPack::new().scalar(2.0f64).to(&x).tofrom(&mut y1).dim(0, n as u64, 1),
            Geometry::for_iterations(n as u64),
        );
        let p2 = s.launch_nowait(
            k,
            d,
            ArgPack::new().scalar(-1.0f64).to(&x).tofrom(&mut y2).dim(0, n as u64, 1),
            Geometry::for_iterations(n as u64),
        );
        (p1.wait().map(|o| o.ran().is_some()), p2.wait().map(|o| o.ran().is_some()))
    })
    .unwrap();
    assert_eq!(done, (Ok(true), Ok(true)));
    assert_eq!(y1, w1);
    assert_eq!(y2, w2);

    // An error of a launch nobody waited for is reported by the scope.
    let ko = kernel("omp_oob_0_fixture");
    let mut out = vec![0.0; 16];
    let xs = vec![1.0; 16];
    let res = scope(|s| {
        let _ = s.launch_nowait(ko, d, ArgPack::new().to(&xs).scalar(4u64).tofrom(&mut out).dim(0, 16, 1), Geometry::for_iterations(16));
    });
    assert!(matches!(res, Err(Error::DevicePanic { count: 4, .. })), "{res:?}");
}
