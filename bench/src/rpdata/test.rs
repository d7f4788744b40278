use super::*;

#[test]
fn rand_matches_glibc_sequence_from_doc() {
    let mut st = RandState::new(RAND_SEED);
    let first: Vec<i32> = (0..5).map(|_| st.next_value()).collect();
    assert_eq!(first, [409947506, 1819792417, 1214619971, 1612387690, 581787817]);
}

#[test]
fn srand_restarts_the_sequence() {
    let mut a = RandState::new(RAND_SEED);
    for _ in 0..1000 {
        a.next_value();
    }
    let mut b = RandState::new(RAND_SEED);
    assert_eq!(RandState::new(RAND_SEED).next_value(), b.next_value());
    assert_ne!(a.next_value(), RandState::new(RAND_SEED).next_value());
}

#[test]
fn rand_values_stay_in_range() {
    let mut st = RandState::new(RAND_SEED);
    for _ in 0..100_000 {
        let v = st.next_value();
        assert!((0..i32::MAX).contains(&v));
    }
}

#[test]
fn init_factor_alternates_with_the_counter() {
    let mut init = Init::new();
    let a = init.data(3);
    let b = init.data(3);
    assert_eq!(init.counter(), 2);
    assert_eq!(a[0], (0.2 * 1.1) / 1.12345);
    assert_eq!(b[0], (0.1 * 1.1) / 1.12345);
    assert_eq!(a[2], (0.2 * (2.0 + 1.1)) / (2.0 + 1.12345));
}

#[test]
fn const_and_scalar_inits_advance_the_counter() {
    let mut init = Init::new();
    let z = init.constant(4, 0.0);
    assert_eq!(z, [0.0; 4]);
    let idx = init.constant_index(2, -1);
    assert_eq!(idx, [-1, -1]);
    // Counter 2 is even: f = 0.2.
    let s = init.scalar();
    assert_eq!(s, (0.2 * 1.1) / 1.12345);
    assert!((s - 0.195825).abs() < 1e-6);
    assert_eq!(init.scalar(), (0.1 * 1.1) / 1.12345);
    assert_eq!(init.counter(), 4);
}

#[test]
fn rand_sign_has_init_data_magnitudes_and_rand_signs() {
    let mut init = Init::new();
    let a = init.rand_sign(1000);
    let mut st = RandState::new(RAND_SEED);
    let mut reference = Init::new();
    let mags = reference.data(1000);
    for (i, (v, m)) in a.iter().zip(&mags).enumerate() {
        let s = st.next_value() as f64 / 2147483647.0;
        let expect = if s < 0.5 { -m } else { *m };
        assert_eq!(*v, expect, "entry {i}");
    }
    assert!(a.iter().any(|v| *v < 0.0) && a.iter().any(|v| *v > 0.0));
}

#[test]
fn rand_value_is_rand_over_rand_max() {
    let a = Init::new().rand_value(3);
    assert_eq!(a[0], 409947506.0 / 2147483647.0);
    assert_eq!(a[2], 1214619971.0 / 2147483647.0);
}

#[test]
fn int_init_has_one_marker_each() {
    let a = Init::new().int_data(100_000);
    assert_eq!(a.iter().filter(|&&v| v == -58).count(), 1);
    assert_eq!(a.iter().filter(|&&v| v == 19).count(), 1);
    assert!(a.iter().all(|&v| v == 1 || v == -1 || v == -58 || v == 19));
    assert!(a.iter().filter(|&&v| v == -1).count() > 40_000);
}

fn weight(j: usize) -> f64 {
    ((j as f64) + 1.0).sin().abs() + 0.5
}

#[test]
fn checksum_is_the_weighted_sum() {
    let a = [1.0, 2.0, -3.0, 0.5];
    let mut c = Checksum::zero();
    c.add_array(&a, 2.0);
    let expect: f64 = a.iter().enumerate().map(|(j, v)| weight(j) * v).sum::<f64>() * 2.0;
    assert!((c.to_f64() - expect).abs() < 1e-14 * expect.abs());
    let mut ci = Checksum::zero();
    ci.add_int_array(&[1, 2, -3], 1.0);
    let expect_i: f64 = weight(0) + 2.0 * weight(1) - 3.0 * weight(2);
    assert!((ci.to_f64() - expect_i).abs() < 1e-14);
}

#[test]
fn checksum_keeps_long_double_precision() {
    // 1 + 2^-60 is not a double but is a 64-bit-mantissa long double.
    let mut c = Checksum::zero();
    c.add_value(1.0).add_value(2f64.powi(-60));
    let mut one = Checksum::zero();
    one.add_value(1.0);
    let d = c.rel_diff(&one);
    if std::mem::size_of::<std::ffi::c_double>() == 8 && cfg!(target_arch = "x86_64") {
        assert!(d > 0.0 && d < 1e-17, "rel diff {d}");
    }
}

#[test]
fn checksum_text_round_trips() {
    let mut c = Checksum::zero();
    c.add_array(&Init::new().data(1000), 0.001).add_int(7);
    let text = c.to_string();
    let back: Checksum = text.parse().expect("parses");
    assert_eq!(back.rel_diff(&c), 0.0);
    assert_eq!(back.to_string(), text);
    let digits = text.chars().filter(|ch| ch.is_ascii_digit()).count();
    assert!(digits >= 17, "{text}");
    assert!("1.5x".parse::<Checksum>().is_err());
    let mut int = Checksum::zero();
    int.add_int(-81189);
    assert_eq!(int.to_string(), "-8.11890000000000000000e+04");
}

#[test]
fn rel_diff_is_relative_to_the_baseline() {
    let mut a = Checksum::zero();
    a.add_value(101.0);
    let mut b = Checksum::zero();
    b.add_value(100.0);
    assert!((a.rel_diff(&b) - 0.01).abs() < 1e-15);
    assert_eq!(Checksum::zero().rel_diff(&Checksum::zero()), 0.0);
}

#[test]
fn scale_is_one_at_default_size() {
    assert_eq!(scale(0.001, 1_000_000, 1_000_000), 0.001);
    assert_eq!(scale(1.0, 1_000_000, 250_000), 4.0);
}

#[test]
fn adomain_default_sizes_match_the_doc() {
    let d3 = ADomain::for_target(1_000_000, 3);
    assert_eq!((d3.jp(), d3.kp(), d3.nnalls()), (104, 104 * 104, 1_124_864));
    assert_eq!(d3.n_real_zones(), 1_000_000);
    assert_eq!(d3.fpz(), 104 * 104 + 104 + 1);
    assert_eq!(d3.lpz(), 102 * 104 * 104 + 102 * 104 + 102);
    let d2 = ADomain::for_target(1_000_000, 2);
    assert_eq!((d2.jp(), d2.nnalls(), d2.n_real_zones()), (1004, 1_008_016, 1_000_000));
}

#[test]
fn adomain_real_zones_and_mesh() {
    let d = ADomain::new(4, 3);
    let zones = d.real_zones();
    assert_eq!(zones.len(), 27);
    assert_eq!(zones[0] as usize, 2 + 2 * d.jp() + 2 * d.kp());
    assert_eq!(zones[1] - zones[0], 1);
    assert_eq!(*zones.last().unwrap() as usize, 4 + 4 * d.jp() + 4 * d.kp());
    let n = d.nnalls();
    let (mut x, mut y, mut z) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    d.mesh_3d([0.3, 0.2, 0.1], &mut x, &mut y, &mut z);
    let node = 3 + 2 * d.jp() + d.kp();
    assert_eq!((x[node], y[node], z[node]), (3.0 * 0.3, 2.0 * 0.2, 0.1));
}
