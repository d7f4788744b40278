//! Process-global behaviour: `OMP_TARGET_OFFLOAD`, `OMP_DEFAULT_DEVICE`, `OMP_RS_LOG`, a missing libomptarget,
//! images for absent architectures. Policy and registration are read once per process, so each case runs in a
//! child process: this test binary re-runs itself with `OMP_RS_CHILD=<case>` and the ignored `child` test.
mod common;

use std::process::Command;

use omp::__private::as_slice_mut;
use omp::__private::offload::{should_offload, Decision, HostReason, Image, ImageKind, ImageSet, KernelRef};
use omp::__private::offload::{update_from, DataRegion, MapKind, Modifiers};
use omp::{DeviceBuffer, Error};

/// What a macro expansion would emit: a static image set and one static KernelRef per region.
static NO_IMAGES: ImageSet = ImageSet::new(&[], &["omp_k_0_00000000"], &[]);
static K_NO_IMAGES: KernelRef = KernelRef::new(&NO_IMAGES, "omp_k_0_00000000");

/// A cubin header for sm_90 (EM_CUDA, ABI v1, e_flags 0x5a055a) followed by a string table naming the kernel.
static FAKE_CUBIN: [u8; 84] = {
    let mut b = [0u8; 84];
    b[0] = 0x7f;
    b[1] = b'E';
    b[2] = b'L';
    b[3] = b'F';
    b[4] = 2;
    b[5] = 1;
    b[8] = 7;
    b[16] = 2;
    b[18] = 190;
    b[48] = 0x5a;
    b[49] = 0x05;
    b[50] = 0x5a;
    let name = b"omp_k_0_00000000";
    let mut i = 0;
    while i < name.len() {
        b[65 + i] = name[i];
        i += 1;
    }
    b
};
static CUBIN_ONLY: ImageSet =
    ImageSet::new(&[Image { kind: ImageKind::Cubin, arch: "sm_90", bytes: &FAKE_CUBIN }], &["omp_k_0_00000000"], &[]);
static K_CUBIN: KernelRef = KernelRef::new(&CUBIN_ONLY, "omp_k_0_00000000");

const MARK: &str = "OMP-RS-CHILD-PASSED";

fn run_child(case: &str, env: &[(&str, &str)]) -> (String, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["child", "--exact", "--ignored", "--nocapture", "--test-threads=1"]);
    for v in [
        "OMP_TARGET_OFFLOAD",
        "OMP_DEFAULT_DEVICE",
        "OMP_RS_LOG",
        "OMP_RS_LIBOMPTARGET",
        "OMP_RS_LIBOMPTARGET_NO_SEARCH",
        "OMP_RS_HOST_PLUGIN",
    ] {
        cmd.env_remove(v);
    }
    cmd.env("OMP_RS_CHILD", case).envs(env.iter().copied());
    let out = cmd.output().unwrap();
    let (so, se) = (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success() && so.contains(MARK), "child `{case}` failed ({:?})\n--- stdout\n{so}\n--- stderr\n{se}", out.status);
    (so, se)
}

const NO_LIB: [(&str, &str); 2] = [("OMP_RS_LIBOMPTARGET", "/nonexistent/libomptarget.so.22.1"), ("OMP_RS_LIBOMPTARGET_NO_SEARCH", "1")];

#[test]
fn mandatory_without_libomptarget_is_a_clear_error() {
    run_child("mandatory_no_lib", &[NO_LIB[0], NO_LIB[1], ("OMP_TARGET_OFFLOAD", "mandatory")]);
}

#[test]
fn default_without_libomptarget_falls_back_to_the_host() {
    run_child("default_no_lib", &NO_LIB);
}

#[test]
fn disabled_never_loads_libomptarget() {
    run_child("disabled", &[("OMP_TARGET_OFFLOAD", "DISABLED")]);
}

#[test]
fn a_bad_policy_value_warns_once_and_means_default() {
    let (_, err) = run_child("bad_value", &[("OMP_TARGET_OFFLOAD", "sometimes"), NO_LIB[0], NO_LIB[1]]);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("OMP_TARGET_OFFLOAD=\"sometimes\"")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(warnings[0].contains("DEFAULT, MANDATORY and DISABLED"), "{}", warnings[0]);
}

#[test]
fn log_info_prints_one_line_per_region_with_the_reason() {
    let (_, err) = run_child("log", &[("OMP_TARGET_OFFLOAD", "disabled"), ("OMP_RS_LOG", "info")]);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("omp-rs: region `omp_k_0_00000000`")).collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("offload_policy.rs") && lines[0].ends_with("host (OMP_TARGET_OFFLOAD=DISABLED)"), "{}", lines[0]);
    assert!(lines[1].ends_with("host (if(false))"), "{}", lines[1]);
    // A data region is logged at the user's line (the directive's), not inside omp-rs.
    let data = format!("omp-rs: target data at {}:{}:", file!(), LOGGED_DATA_LINE);
    assert!(err.lines().any(|l| l.starts_with(&data)), "no `{data}` line in:\n{err}");
}

/// The line of `logged_data_block`'s directive.
const LOGGED_DATA_LINE: u32 = line!() + 3;
#[omp::directives]
fn logged_data_block(x: &mut [f64]) {
    #[omp::target_data(map(tofrom: x))]
    {
        assert_eq!(x.len(), 4);
    }
}

#[test]
fn images_for_absent_architectures_error_under_mandatory() {
    run_child("arch_mandatory", &[("OMP_TARGET_OFFLOAD", "MANDATORY")]);
}

#[test]
fn images_for_absent_architectures_fall_back_under_default() {
    run_child("arch_default", &[]);
}

#[test]
fn a_kernel_missing_from_its_image_is_refused_before_registration() {
    run_child("kernel_missing", &[("OMP_TARGET_OFFLOAD", "MANDATORY")]);
}

#[test]
fn omp_default_device_selects_the_device() {
    run_child("default_device", &[("OMP_TARGET_OFFLOAD", "MANDATORY"), ("OMP_DEFAULT_DEVICE", "2")]);
}

#[test]
fn set_default_device_overrides_the_environment_in_every_thread() {
    run_child("set_default_device", &[("OMP_TARGET_OFFLOAD", "MANDATORY"), ("OMP_DEFAULT_DEVICE", "2")]);
}

#[test]
fn host_images_next_to_gpu_images_need_opt_in() {
    run_child("mixed_without_opt_in", &[]);
    run_child("mixed_with_opt_in", &[("OMP_TARGET_OFFLOAD", "MANDATORY"), ("OMP_RS_HOST_PLUGIN", "1")]);
}

fn libomptarget_mapped() -> bool {
    std::fs::read_to_string("/proc/self/maps").unwrap().contains("libomptarget")
}

fn mixed_set(kernel: &str) -> &'static ImageSet {
    let so = common::compile_fixture("kernels_host");
    ImageSet::leak(
        vec![(ImageKind::Cubin, "sm_90".into(), FAKE_CUBIN.to_vec()), (ImageKind::HostSo, "host-x86_64".into(), so)],
        vec![kernel.to_owned()],
        vec![],
    )
}

#[test]
#[ignore = "entry point of the child processes spawned by the other tests"]
fn child() {
    let Ok(case) = std::env::var("OMP_RS_CHILD") else { return };
    let x = vec![1.0f64; 16];
    match case.as_str() {
        "mandatory_no_lib" => {
            let e = should_offload(&K_NO_IMAGES, None, true).unwrap_err();
            match &e {
                Error::LibraryNotFound { searched } => assert_eq!(searched[0].0, "/nonexistent/libomptarget.so.22.1"),
                other => panic!("expected LibraryNotFound, got {other:?}"),
            }
            let msg = e.to_string();
            assert!(
                msg.contains("/nonexistent/libomptarget.so.22.1") && msg.contains("OMP_RS_LIBOMPTARGET") && msg.contains("DISABLED"),
                "{msg}"
            );
            assert!(matches!(DataRegion::begin(None, true, None), Err(Error::LibraryNotFound { .. })));
            assert!(matches!(DeviceBuffer::<f64>::alloc(4, None), Err(Error::LibraryNotFound { .. })));
            assert_eq!(omp::get_num_devices(), 0);
        }
        "default_no_lib" | "bad_value" => {
            match should_offload(&K_NO_IMAGES, None, true).unwrap() {
                Decision::Host(HostReason::NoLibrary(m)) => assert!(m.contains("/nonexistent"), "{m}"),
                other => panic!("expected host fallback, got {other:?}"),
            }
            let mut y = vec![2.0f64; 16];
            {
                let scope = DataRegion::begin(None, true, None).unwrap();
                assert_eq!(scope.device(), None, "a host block maps nothing");
                let _xt = scope.map_ref(&x, .., true, Modifiers::default(), "x").unwrap();
                let mut yt = scope.map_mut(&mut y, .., MapKind::ToFrom, Modifiers::default(), "y").unwrap();
                update_from(as_slice_mut(&mut yt), "y", None, true).unwrap();
                as_slice_mut(&mut yt)[0] = 5.0;
            }
            assert_eq!(y[0], 5.0);
            assert!(matches!(DeviceBuffer::<f64>::alloc(4, None), Err(Error::NoDevice { .. })));
            assert_eq!(omp::get_num_devices(), 0);
        }
        "disabled" => {
            assert_eq!(should_offload(&K_NO_IMAGES, Some(0), true).unwrap(), Decision::Host(HostReason::Disabled));
            assert_eq!(omp::get_num_devices(), 0);
            let scope = DataRegion::begin(None, true, None).unwrap();
            let _xt = scope.map_ref(&x, .., true, Modifiers::default(), "x").unwrap();
            assert_eq!(scope.device(), None);
            assert!(omp::target_is_present(&x, 0), "with 0 devices, device 0 is the initial device");
            assert!(!libomptarget_mapped(), "DISABLED must not load libomptarget");
        }
        "log" => {
            assert_eq!(should_offload(&K_NO_IMAGES, None, true).unwrap(), Decision::Host(HostReason::Disabled));
            assert_eq!(should_offload(&K_NO_IMAGES, None, false).unwrap(), Decision::Host(HostReason::IfFalse));
            let mut x = vec![1.0; 4];
            logged_data_block(&mut x);
        }
        "arch_mandatory" => {
            if !libomptarget_sys::is_present() {
                eprintln!("libomptarget absent: covered by mandatory_no_lib");
            } else {
                let e = should_offload(&K_CUBIN, None, true).unwrap_err();
                match &e {
                    Error::ImageArchMismatch { images, .. } => assert_eq!(images, &["sm_90".to_owned()]),
                    other => panic!("expected ImageArchMismatch, got {other:?}"),
                }
                assert!(e.to_string().contains("sm_90"), "{e}");
                let e = should_offload(&K_NO_IMAGES, None, true).unwrap_err();
                assert!(matches!(e, Error::ImageArchMismatch { .. }), "{e:?}");
                assert!(matches!(DataRegion::begin(None, true, None), Err(Error::NoDevice { .. })), "no device accepted an image");
            }
        }
        "arch_default" => match should_offload(&K_CUBIN, None, true).unwrap() {
            Decision::Host(HostReason::NoImage(m)) => assert!(m.contains("sm_90"), "{m}"),
            Decision::Host(HostReason::NoLibrary(_)) => {}
            other => panic!("expected host fallback, got {other:?}"),
        },
        "kernel_missing" => {
            let set = ImageSet::leak(
                vec![(ImageKind::HostSo, "host-x86_64".into(), common::compile_fixture("kernels_host"))],
                vec!["omp_saxpy_0_fixture".into(), "omp_not_there_0_fixture".into()],
                vec![],
            );
            let k: &'static KernelRef = Box::leak(Box::new(KernelRef::new(set, "omp_saxpy_0_fixture")));
            match should_offload(k, None, true).unwrap_err() {
                Error::KernelMissing { kernel, image } => {
                    assert_eq!((kernel.as_str(), image.as_str()), ("omp_not_there_0_fixture", "host-x86_64"))
                }
                other => panic!("expected KernelMissing, got {other:?}"),
            }
        }
        "default_device" => {
            let k = common::kernel("omp_empty_0_fixture");
            assert_eq!(should_offload(k, None, true).unwrap(), Decision::Offload(omp::offload::device(2).unwrap()));
            assert_eq!(omp::get_default_device(), 2);
        }
        "set_default_device" => {
            let k = common::kernel("omp_empty_0_fixture");
            let on = |d: i64| Decision::Offload(omp::offload::device(d).unwrap());
            assert_eq!(should_offload(k, None, true).unwrap(), on(2), "OMP_DEFAULT_DEVICE first");
            omp::set_default_device(1);
            assert_eq!(omp::get_default_device(), 1);
            assert_eq!(should_offload(k, None, true).unwrap(), on(1));
            assert_eq!(should_offload(k, Some(3), true).unwrap(), on(3), "a device clause still wins");
            std::thread::spawn(|| assert_eq!(omp::get_default_device(), 1, "one setting for the process")).join().unwrap();
            let n = omp::get_num_devices();
            omp::set_default_device(n);
            assert_eq!(should_offload(k, None, true).unwrap(), Decision::Host(HostReason::InitialDevice), "n = the host");
            omp::set_default_device(n + 5);
            match should_offload(k, None, true) {
                Err(Error::InvalidDevice { device, .. }) => assert_eq!(device, i64::from(n + 5)),
                other => panic!("expected InvalidDevice, got {other:?}"),
            }
        }
        "mixed_without_opt_in" => {
            let k: &'static KernelRef = Box::leak(Box::new(KernelRef::new(mixed_set("omp_empty_0_fixture"), "omp_empty_0_fixture")));
            match should_offload(k, None, true).unwrap() {
                Decision::Host(HostReason::NoImage(m)) => assert!(m.contains("OMP_RS_HOST_PLUGIN"), "{m}"),
                other => panic!("expected host fallback, got {other:?}"),
            }
        }
        "mixed_with_opt_in" => {
            let k: &'static KernelRef = Box::leak(Box::new(KernelRef::new(mixed_set("omp_empty_0_fixture"), "omp_empty_0_fixture")));
            let Decision::Offload(d) = should_offload(k, None, true).unwrap() else { panic!("expected offload") };
            omp::__private::offload::launch(
                k,
                d,
                omp::__private::offload::ArgPack::new(),
                omp::__private::offload::Geometry::for_iterations(1),
            )
            .unwrap()
            .ran()
            .expect("ran on the host plugin");
        }
        other => panic!("unknown case {other}"),
    }
    println!("{MARK}");
}
