//! Data environments over libomptarget's present table, observed through `omp_target_is_present` and through
//! what kernels and copies see (`OMP_TARGET_OFFLOAD=MANDATORY`, host plugin). The mappings are made as the macros
//! make them: a `DataRegion` and one token per variable (`target_data` blocks), and the enter/exit primitives
//! (`target_enter_data!` / `target_exit_data!`).
mod common;

use common::{kernel, random_f64, rng, set_policy};
use omp::__private::offload::{
    enter_data, exit_data_from, exit_data_release, launch, should_offload, update_from, update_to, ArgPack, DataRegion, Decision, Device,
    Geometry, KernelRef,
};
use omp::__private::{as_slice, as_slice_mut};
use omp::offload::{target_enter_data_raw, target_exit_data_raw, ExitKind, MapKind, Modifiers};
use omp::{target_is_present, Error};

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

fn plain() -> Modifiers {
    Modifiers::default()
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
        let outer = DataRegion::begin(None, true, None).unwrap();
        let xt = outer.map_ref(&x, .., true, plain(), "x").unwrap();
        let mut yt = outer.map_mut(&mut y, .., MapKind::ToFrom, plain(), "y").unwrap();
        assert!(target_is_present(as_slice(&xt), d.num()) && outer.device() == Some(d));
        {
            // An inner block maps the same data again (reference count 2): no copy on entry or exit.
            let inner = DataRegion::begin(None, true, None).unwrap();
            let it = inner.map_mut(as_slice_mut(&mut yt), .., MapKind::ToFrom, plain(), "y").unwrap();
            assert!(target_is_present(as_slice(&it), d.num()));
        }
        run_saxpy(k, d, ArgPack::new().scalar(3.0f64).to(as_slice(&xt)).tofrom(as_slice_mut(&mut yt)), n);
        assert!(target_is_present(as_slice(&yt), d.num()), "still mapped after the inner block");
        assert_eq!(as_slice(&yt), &y0[..], "no copy back while the count is > 0");
        update_from(as_slice_mut(&mut yt), "y", None, true).unwrap();
        assert_eq!(as_slice(&yt), &once[..], "update from copies regardless of the count");
        // A second kernel on the resident data: still no copy back until the block ends.
        run_saxpy(k, d, ArgPack::new().scalar(3.0f64).to(as_slice(&xt)).tofrom(as_slice_mut(&mut yt)), n);
        assert_eq!(as_slice(&yt), &once[..]);
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
    let want: Vec<f64>;
    {
        let scope = DataRegion::begin(None, true, None).unwrap();
        let xt = scope.map_ref(&x, .., true, plain(), "x").unwrap();
        let mut yt = scope.map_mut(&mut y, .., MapKind::ToFrom, plain(), "y").unwrap();
        // Host write without update: the device keeps the old copy; a nested mapping without `always` copies nothing.
        as_slice_mut(&mut yt).copy_from_slice(&y1);
        {
            let inner = DataRegion::begin(None, true, None).unwrap();
            let _it = inner.map_mut(as_slice_mut(&mut yt), .., MapKind::ToFrom, plain(), "y").unwrap();
        }
        update_from(as_slice_mut(&mut yt), "y", None, true).unwrap();
        assert_ne!(as_slice(&yt), &y1[..], "present data is not copied on entry without `always`");
        as_slice_mut(&mut yt).copy_from_slice(&y1);
        {
            let inner = DataRegion::begin(None, true, None).unwrap();
            let always = Modifiers { always: true, present: false };
            let _it = inner.map_mut(as_slice_mut(&mut yt), .., MapKind::ToFrom, always, "y").unwrap();
        }
        as_slice_mut(&mut yt).fill(0.0);
        update_from(as_slice_mut(&mut yt), "y", None, true).unwrap();
        assert_eq!(as_slice(&yt), &y1[..], "`always` copied on entry (and on exit)");
        // update to, then a kernel sees the new host values.
        let y2 = random_f64(&mut r, n);
        as_slice_mut(&mut yt).copy_from_slice(&y2);
        update_to(as_slice(&yt), "y", None, true).unwrap();
        run_saxpy(k, d, ArgPack::new().scalar(1.0f64).to(as_slice(&xt)).tofrom(as_slice_mut(&mut yt)), n);
        update_from(as_slice_mut(&mut yt), "y", None, true).unwrap();
        want = x.iter().zip(&y2).map(|(a, b)| 1.0 * a + b).collect();
        assert_eq!(as_slice(&yt), &want[..]);
        // An update of data that is not mapped is an error, not a libomptarget abort.
        let z = vec![0.0f64; 4];
        assert!(matches!(update_to(&z, "z", None, true), Err(Error::NotPresent { .. })));
    }
    assert_eq!(y, want);
}

#[test]
fn present_on_unmapped_data_is_an_error_and_the_process_continues() {
    let (_, d) = saxpy();
    let x = vec![1.0f64; 64];
    let scope = DataRegion::begin(None, true, None).unwrap();
    let present = Modifiers { always: false, present: true };
    let e = scope.map_ref(&x, .., true, present, "x").map(|_| ()).unwrap_err();
    match &e {
        Error::NotPresent { var, device, bytes, .. } => assert_eq!((var.as_str(), *device, *bytes), ("x", d.num(), 512)),
        other => panic!("expected NotPresent, got {other:?}"),
    }
    assert!(e.to_string().contains("target_data"), "the message says what to do: {e}");
    assert!(!target_is_present(&x, d.num()), "nothing was mapped");
    // Mapped first, `present` succeeds (and a section of it too).
    let outer = scope.map_ref(&x, .., true, plain(), "x").unwrap();
    let inner_scope = DataRegion::begin(None, true, None).unwrap();
    let inner = inner_scope.map_ref(as_slice(&outer), 8..16, true, present, "x").unwrap();
    drop(inner);
    drop(outer);
    // unsafe raw exit on data that is not mapped is refused too.
    // SAFETY: `x` is alive; the call is expected to fail before touching libomptarget's table.
    let e = unsafe { target_exit_data_raw(&x, ExitKind::Release, d) }.unwrap_err();
    assert!(matches!(e, Error::NotPresent { .. }), "{e:?}");
}

/// An overlap error names the array whose section conflicts, not a scalar named after it in the pack.
#[test]
fn a_conflict_names_the_array_not_the_scalar_after_it() {
    let (k, d) = saxpy();
    let y = vec![2.0f64; 40];
    let scope = DataRegion::begin(None, true, None).unwrap();
    let _first = scope.map_ref(&y, 0..10, true, plain(), "y").unwrap();
    let pack = ArgPack::new().to(&y[0..20]).var("y").scalar(1.0f64).var("a").dim(0, 0, 1);
    match launch(k, d, pack, Geometry::for_iterations(0)).unwrap_err() {
        Error::MappingConflict { var, .. } => assert_eq!(var, "y"),
        other => panic!("expected MappingConflict, got {other:?}"),
    }
}

/// Mapping a section of an array and later the whole array under another name (a helper's parameter): the
/// conflict names the variable being mapped and the one whose section it would enclose.
#[test]
fn an_enclosing_map_names_both_variables() {
    let (_, d) = saxpy();
    let x = vec![1.0f64; 64];
    let scope = DataRegion::begin(None, true, None).unwrap();
    let _middle = scope.map_ref(&x, 16..32, true, plain(), "x").unwrap();
    let e = scope.map_ref(&x, .., true, plain(), "v").map(|_| ()).unwrap_err();
    match &e {
        Error::MappingConflict { var, .. } => assert_eq!(var, "v"),
        other => panic!("expected MappingConflict, got {other:?}"),
    }
    assert!(e.to_string().contains("it encloses `x`, mapped at"), "{e}");
    let e = scope.map_ref(&x, 20..40, true, plain(), "w").map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("`w`") && e.to_string().contains("it starts inside the mapping of `x`"), "{e}");
    let _ = d;
}

#[test]
fn sections_that_would_extend_a_mapping_are_refused() {
    let (k, d) = saxpy();
    let y = vec![2.0f64; 40];
    let scope = DataRegion::begin(None, true, None).unwrap();
    let first = scope.map_ref(&y, 0..10, true, plain(), "y").unwrap();
    // Extends past the end of the mapping.
    let e = launch(k, d, ArgPack::new().scalar(1.0f64).to(&y[0..20]).to(&y[0..20]).dim(0, 0, 1), Geometry::for_iterations(0)).unwrap_err();
    assert!(matches!(e, Error::MappingConflict { .. }), "{e:?}");
    // Starts before it.
    let second = scope.map_ref(&y, 20..30, true, plain(), "y").unwrap();
    let conflict = |range: std::ops::Range<usize>| scope.map_ref(&y, range, true, plain(), "y").map(|_| ()).unwrap_err();
    assert!(matches!(conflict(15..25), Error::MappingConflict { .. }));
    // Straddles two mappings.
    assert!(matches!(conflict(5..25), Error::MappingConflict { .. }));
    // Encloses a mapping (both ends unmapped): found through omp-rs's shadow table.
    assert!(matches!(conflict(18..35), Error::MappingConflict { .. }));
    drop(second);
    // A later section that encloses an earlier one; the other way round is fine.
    let small = scope.map_ref(&y, 30..35, true, plain(), "y").unwrap();
    assert!(matches!(conflict(30..40), Error::MappingConflict { .. }));
    drop(small);
    let big = scope.map_ref(&y, 30..40, true, plain(), "y").unwrap();
    let inside = scope.map_ref(&y, 30..35, true, plain(), "y").unwrap();
    assert!(target_is_present(&y[39..], d.num()));
    drop((inside, big));
    // Contained sections are fine.
    let contained = scope.map_ref(&y, 2..8, true, plain(), "y").unwrap();
    drop((contained, first));
    assert!(!target_is_present(&y, d.num()) && !target_is_present(&y[30..], d.num()));
}

#[test]
fn enter_and_exit_data_as_the_macros_make_them() {
    let (k, d) = saxpy();
    let mut r = rng("enter");
    let n = 777;
    let x = random_f64(&mut r, n);
    let mut y = random_f64(&mut r, n);
    let y0 = y.clone();
    let want: Vec<f64> = x.iter().zip(&y).map(|(a, b)| 0.5 * a + b).collect();
    enter_data(&x, true, plain(), None, true).unwrap();
    enter_data(&y, true, plain(), None, true).unwrap();
    assert!(target_is_present(&x, d.num()) && target_is_present(&y, d.num()));
    run_saxpy(k, d, ArgPack::new().scalar(0.5f64).to(&x).tofrom(&mut y), n);
    assert_eq!(y, y0, "device result not yet copied");
    exit_data_from(&mut y, "y", None, true).unwrap();
    assert_eq!(y, want);
    assert!(!target_is_present(&y, d.num()));
    exit_data_release(&x, false, "x", None, true).unwrap();
    assert!(!target_is_present(&x, d.num()));
    // Exit of data that is not mapped is an error naming it.
    assert!(matches!(exit_data_release(&x, false, "x", None, true), Err(Error::NotPresent { .. })));
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
    let scope = DataRegion::begin(Some(i64::from(other)), true, None).unwrap();
    let xt = scope.map_ref(&x, .., true, plain(), "x").unwrap();
    let mut yt = scope.map_mut(&mut y, .., MapKind::ToFrom, plain(), "y").unwrap();
    assert!(target_is_present(as_slice(&xt), other) && (other == d.num() || !target_is_present(as_slice(&xt), d.num())));
    let owner = yt.owner_device();
    let pack = ArgPack::new().scalar(1.0f64).to(as_slice(&xt)).tofrom(as_slice_mut(&mut yt)).mapped_by("y", owner).dim(0, 8, 1);
    let r = launch(k, d, pack, Geometry::for_iterations(8));
    if other == d.num() {
        r.unwrap().ran().expect("ran");
    } else {
        assert!(matches!(r, Err(Error::InvalidAccess { .. })), "{:?}", r.err());
    }
    assert!(matches!(DataRegion::begin(Some(99), true, None), Err(Error::InvalidDevice { device: 99, .. })));
}

#[test]
fn empty_sections_map_nothing_and_launch() {
    let (k, d) = saxpy();
    let x: Vec<f64> = Vec::new();
    let mut y: Vec<f64> = Vec::new();
    {
        let scope = DataRegion::begin(None, true, None).unwrap();
        let xt = scope.map_ref(&x, .., true, plain(), "x").unwrap();
        let yt = scope.map_mut(&mut y, .., MapKind::ToFrom, plain(), "y").unwrap();
        assert_eq!((xt.len(), yt.len()), (0, 0));
    }
    launch(k, d, ArgPack::new().scalar(1.0f64).to(&x).tofrom(&mut y).dim(0, 0, 1), Geometry::for_iterations(0))
        .unwrap()
        .ran()
        .expect("ran");
}
