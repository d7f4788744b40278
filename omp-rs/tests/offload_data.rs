//! Data environments over libomptarget's present table, observed through `omp_target_is_present` and through
//! what kernels and copies see (`OMP_TARGET_OFFLOAD=MANDATORY`, host plugin).
mod common;

use common::{kernel, random_f64, rng, set_policy};
use omp::__private::offload::{launch, should_offload, ArgPack, Decision, Device, Geometry, KernelRef};
use omp::offload::{target_enter_data, target_enter_data_raw, target_exit_data, target_exit_data_raw, ExitKind, MapKind, Modifiers};
use omp::{target_is_present, DataRegion, Error};

fn saxpy() -> (&'static KernelRef, Device) {
    set_policy("MANDATORY");
    let k = kernel("omp_saxpy_0_fixture");
    match should_offload(k, None, true).unwrap() {
        Decision::Offload(d) => (k, d),
        Decision::Host(r) => panic!("host: {r}"),
    }
}

/// Launch the saxpy fixture with `args` (a, x, y) plus the loop dimension 0..n.
fn run_saxpy(k: &'static KernelRef, d: Device, args: ArgPack<'_>, n: usize) {
    launch(k, d, args.dim(0, n as u64, 1), Geometry::for_iterations(n as u64)).unwrap().ran().expect("ran");
}

#[test]
fn nested_regions_count_references_and_copy_back_only_at_the_last_end() {
    let (k, d) = saxpy();
    let mut r = rng("nested");
    let n = 1000 + (rand::Rng::gen_range(&mut r, 0..1000usize));
    let x = random_f64(&mut r, n);
    let mut y = random_f64(&mut r, n);
    let y0 = y.clone();
    let once: Vec<f64> = x.iter().zip(&y0).map(|(a, b)| 3.0 * a + b).collect();
    let twice: Vec<f64> = x.iter().zip(&once).map(|(a, b)| 3.0 * a + b).collect();
    {
        let mut outer = DataRegion::builder().to(&x).tofrom(&mut y).begin().unwrap();
        assert!(target_is_present(&x, d.num()) && outer.device() == Some(d));
        {
            // Inner region maps the same data again (reference count 2): no copy on entry or exit.
            let inner = DataRegion::builder().tofrom(outer.host_mut::<f64>(1).unwrap()).begin().unwrap();
            assert!(target_is_present(inner.host::<f64>(0).unwrap(), d.num()));
            drop(inner);
        }
        let y_dev = outer.arg::<f64>(1).unwrap();
        let x_dev = outer.arg::<f64>(0).unwrap();
        run_saxpy(k, d, ArgPack::new().scalar(3.0f64).present(x_dev).present(y_dev), n);
        assert!(target_is_present(outer.host::<f64>(1).unwrap(), d.num()), "still mapped after the inner region");
        assert_eq!(outer.host::<f64>(1).unwrap(), &y0[..], "no copy back while the count is > 0");
        outer.update_from(1).unwrap();
        assert_eq!(outer.host::<f64>(1).unwrap(), &once[..], "update from copies regardless of the count");
        // A second kernel on the resident data: still no copy back until the region ends.
        let pack = ArgPack::new().scalar(3.0f64).present(outer.arg::<f64>(0).unwrap()).present(outer.arg::<f64>(1).unwrap());
        run_saxpy(k, d, pack, n);
        assert_eq!(outer.host::<f64>(1).unwrap(), &once[..]);
    }
    assert_eq!(y, twice, "the outer end copies back");
    assert!(!target_is_present(&y, d.num()) && !target_is_present(&x, d.num()));
}

#[test]
fn update_to_and_always_refresh_the_device_copy() {
    let (k, d) = saxpy();
    let mut r = rng("update");
    let n = 500;
    let x = random_f64(&mut r, n);
    let mut y = random_f64(&mut r, n);
    let y1 = random_f64(&mut r, n);
    let mut region = DataRegion::builder().to(&x).var("x").tofrom(&mut y).var("y").begin().unwrap();
    // Host write without update: the device keeps the old copy.
    region.host_mut::<f64>(1).unwrap().copy_from_slice(&y1);
    {
        let inner = DataRegion::builder().tofrom(region.host_mut::<f64>(1).unwrap()).begin().unwrap();
        drop(inner);
    }
    region.update_from(1).unwrap();
    assert_ne!(region.host::<f64>(1).unwrap(), &y1[..], "present data is not copied on entry without `always`");
    region.host_mut::<f64>(1).unwrap().copy_from_slice(&y1);
    {
        let inner = DataRegion::builder().tofrom(region.host_mut::<f64>(1).unwrap()).always().begin().unwrap();
        drop(inner);
    }
    region.host_mut::<f64>(1).unwrap().fill(0.0);
    region.update_from(1).unwrap();
    assert_eq!(region.host::<f64>(1).unwrap(), &y1[..], "`always` copied on entry (and on exit)");
    // update_to, then a kernel sees the new host values.
    let y2 = random_f64(&mut r, n);
    region.host_mut::<f64>(1).unwrap().copy_from_slice(&y2);
    region.update_to(1).unwrap();
    let pack = ArgPack::new().scalar(1.0f64).present(region.arg::<f64>(0).unwrap()).present(region.arg::<f64>(1).unwrap());
    run_saxpy(k, d, pack, n);
    region.update_from(1).unwrap();
    let want: Vec<f64> = x.iter().zip(&y2).map(|(a, b)| 1.0 * a + b).collect();
    assert_eq!(region.host::<f64>(1).unwrap(), &want[..]);
    // Misuse is an error, not UB or an abort.
    assert!(matches!(region.update_from(0), Err(Error::InvalidAccess { .. })), "x is a shared borrow");
    assert!(matches!(region.host_mut::<f64>(0), Err(Error::InvalidAccess { .. })));
    assert!(matches!(region.host::<f32>(1), Err(Error::InvalidAccess { .. })), "wrong element type");
    assert!(matches!(region.update_to(7), Err(Error::InvalidAccess { .. })), "index out of range");
    region.end().unwrap();
    assert_eq!(y, want);
}

#[test]
fn present_on_unmapped_data_is_an_error_and_the_process_continues() {
    let (_, d) = saxpy();
    let x = vec![1.0f64; 64];
    let e = DataRegion::builder().to(&x).present().var("x").begin().unwrap_err();
    match &e {
        Error::NotPresent { var, device, bytes, .. } => assert_eq!((var.as_str(), *device, *bytes), ("x", d.num(), 512)),
        other => panic!("expected NotPresent, got {other:?}"),
    }
    assert!(e.to_string().contains("target_data"), "the message says what to do: {e}");
    assert!(!target_is_present(&x, d.num()), "nothing was mapped");
    // Mapped first, `present` succeeds (and a section of it too).
    let outer = DataRegion::builder().to(&x).begin().unwrap();
    let inner = DataRegion::builder().to(&outer.host::<f64>(0).unwrap()[8..16]).present().begin().unwrap();
    drop(inner);
    drop(outer);
    // unsafe raw exit on data that is not mapped is refused too.
    // SAFETY: `x` is alive; the call is expected to fail before touching libomptarget's table.
    let e = unsafe { target_exit_data_raw(&x, ExitKind::Release, d) }.unwrap_err();
    assert!(matches!(e, Error::NotPresent { .. }), "{e:?}");
}

#[test]
fn sections_that_would_extend_a_mapping_are_refused() {
    let (k, d) = saxpy();
    let y = vec![2.0f64; 40];
    let region = DataRegion::builder().to(&y[0..10]).begin().unwrap();
    // Extends past the end of the mapping.
    let e = launch(k, d, ArgPack::new().scalar(1.0f64).to(&y[0..20]).to(&y[0..20]).dim(0, 0, 1), Geometry::for_iterations(0)).unwrap_err();
    assert!(matches!(e, Error::MappingConflict { .. }), "{e:?}");
    // Starts before it.
    let region2 = DataRegion::builder().to(&y[20..30]).begin().unwrap();
    let e = DataRegion::builder().to(&y[15..25]).begin().unwrap_err();
    assert!(matches!(e, Error::MappingConflict { .. }), "{e:?}");
    // Straddles two mappings.
    let e = DataRegion::builder().to(&y[5..25]).begin().unwrap_err();
    assert!(matches!(e, Error::MappingConflict { .. }), "{e:?}");
    // Encloses a mapping (both ends unmapped): found through omp-rs's shadow table.
    let e = DataRegion::builder().to(&y[18..35]).begin().unwrap_err();
    assert!(matches!(e, Error::MappingConflict { .. }), "{e:?}");
    // Within one construct, a later section that encloses an earlier one.
    drop(region2);
    let e = DataRegion::builder().to(&y[30..35]).to(&y[30..40]).begin().unwrap_err();
    assert!(matches!(e, Error::MappingConflict { .. }), "{e:?}");
    let ok = DataRegion::builder().to(&y[30..40]).to(&y[30..35]).begin().unwrap();
    assert!(target_is_present(&y[39..], d.num()));
    drop(ok);
    // Contained sections are fine.
    let inner = DataRegion::builder().to(&y[2..8]).begin().unwrap();
    drop(inner);
    drop(region);
    assert!(!target_is_present(&y, d.num()) && !target_is_present(&y[30..], d.num()));
}

#[test]
fn enter_and_exit_data_on_owned_buffers() {
    let (k, d) = saxpy();
    let mut r = rng("enter");
    let n = 777;
    let x = random_f64(&mut r, n);
    let y = random_f64(&mut r, n);
    let want: Vec<f64> = x.iter().zip(&y).map(|(a, b)| 0.5 * a + b).collect();
    let xs = target_enter_data(x.clone(), MapKind::To, None).unwrap();
    let mut ys = target_enter_data(y.clone(), MapKind::To, None).unwrap();
    assert!(target_is_present(xs.host(), d.num()) && target_is_present(ys.host(), d.num()));
    run_saxpy(k, d, ArgPack::new().scalar(0.5f64).present(xs.arg()).present(ys.arg()), n);
    assert_eq!(ys.host(), &y[..], "device result not yet copied");
    ys.update_from().unwrap();
    assert_eq!(ys.host(), &want[..]);
    let back = target_exit_data(ys, ExitKind::From).unwrap();
    assert_eq!(back, want);
    assert!(!target_is_present(&back, d.num()));
    let xv = xs.exit(ExitKind::Release).unwrap();
    assert_eq!(xv, x, "release copies nothing back");
    assert!(!target_is_present(&xv, d.num()));
    // `from` is not an entry map type.
    assert!(matches!(target_enter_data(vec![1.0f64], MapKind::From, None), Err(Error::InvalidAccess { .. })));
}

#[test]
fn release_decrements_and_delete_removes() {
    let (_, d) = saxpy();
    let z = vec![3u32; 100];
    // SAFETY: `z` outlives every mapping made here (all are removed before it drops).
    unsafe {
        target_enter_data_raw(&z, MapKind::To, Modifiers::default(), Some(i64::from(d.num()))).unwrap();
        target_enter_data_raw(&z, MapKind::To, Modifiers::default(), Some(i64::from(d.num()))).unwrap();
        target_enter_data_raw(&z, MapKind::Alloc, Modifiers::default(), Some(i64::from(d.num()))).unwrap();
        target_exit_data_raw(&z, ExitKind::Release, d).unwrap();
        assert!(target_is_present(&z, d.num()), "3 → 2 references");
        target_exit_data_raw(&z, ExitKind::Release, d).unwrap();
        assert!(target_is_present(&z, d.num()), "2 → 1 reference");
        target_exit_data_raw(&z, ExitKind::Release, d).unwrap();
        assert!(!target_is_present(&z, d.num()), "1 → 0: removed");
        target_enter_data_raw(&z, MapKind::To, Modifiers::default(), None).unwrap();
        target_enter_data_raw(&z, MapKind::To, Modifiers::default(), None).unwrap();
        target_exit_data_raw(&z, ExitKind::Delete, d).unwrap();
        assert!(!target_is_present(&z, d.num()), "delete removes whatever the count");
        // A fresh mapping after delete works (the shadow table forgot it too).
        target_enter_data_raw(&z[10..20], MapKind::To, Modifiers { always: false, present: false }, None).unwrap();
        target_exit_data_raw(&z[10..20], ExitKind::Release, d).unwrap();
    }
}

#[test]
fn a_region_argument_on_another_device_is_refused() {
    let (k, d) = saxpy();
    let other = (d.num() + 1) % omp::get_num_devices();
    let x = vec![1.0f64; 8];
    let mut y = vec![0.0f64; 8];
    let region = DataRegion::builder().device(i64::from(other)).to(&x).tofrom(&mut y).begin().unwrap();
    assert!(target_is_present(region.host::<f64>(0).unwrap(), other) && !target_is_present(region.host::<f64>(0).unwrap(), d.num()));
    let e = launch(k, d, ArgPack::new().scalar(1.0f64).present(region.arg::<f64>(0).unwrap()).present(region.arg::<f64>(1).unwrap()).dim(0, 8, 1), Geometry::for_iterations(8)).unwrap_err();
    assert!(matches!(e, Error::InvalidAccess { .. }), "{e:?}");
    assert!(matches!(DataRegion::builder().device(99).to(&x).begin(), Err(Error::InvalidDevice { device: 99, .. })));
}

#[test]
fn empty_sections_map_nothing_and_launch() {
    let (k, d) = saxpy();
    let x: Vec<f64> = Vec::new();
    let mut y: Vec<f64> = Vec::new();
    let region = DataRegion::builder().to(&x).tofrom(&mut y).begin().unwrap();
    assert_eq!(region.len(), 2);
    drop(region);
    launch(k, d, ArgPack::new().scalar(1.0f64).to(&x).tofrom(&mut y).dim(0, 0, 1), Geometry::for_iterations(0)).unwrap().ran().expect("ran");
}
