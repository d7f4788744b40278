//! `omp_device::iter::step_by`, what `for i in (a..b).step_by(s)` becomes in kernels, compiled for the host: the
//! same values as `core`'s `step_by` for every start, end and step of the 8-bit types and edge values of the wider
//! ones, and the same panic for a step of 0.

#[allow(dead_code, unreachable_pub)]
#[path = "../device/omp_device/src/iter.rs"]
mod iter;

#[test]
fn same_values_as_core() {
    for a in i8::MIN..=i8::MAX {
        for b in i8::MIN..=i8::MAX {
            for s in [1usize, 2, 3, 7, 127, 128, 255, 256, 1000, usize::MAX] {
                let ours: Vec<i8> = iter::step_by(a..b, s).collect();
                assert_eq!(ours, (a..b).step_by(s).collect::<Vec<_>>(), "({a}..{b}).step_by({s})");
                let (ua, ub) = (a as u8, b as u8);
                let ours: Vec<u8> = iter::step_by(ua..ub, s).collect();
                assert_eq!(ours, (ua..ub).step_by(s).collect::<Vec<_>>(), "({ua}..{ub}).step_by({s})");
            }
        }
    }
    let edges = [0usize, 1, 2, usize::MAX / 2, usize::MAX - 3, usize::MAX - 1, usize::MAX];
    for &a in &edges {
        for &b in &edges {
            for s in [1usize, 2, 3, usize::MAX / 2, usize::MAX - 1, usize::MAX] {
                let ours: Vec<usize> = iter::step_by(a..b, s).take(8).collect();
                assert_eq!(ours, (a..b).step_by(s).take(8).collect::<Vec<_>>(), "({a}..{b}).step_by({s})");
                let (ia, ib) = (a as i64, b as i64);
                let ours: Vec<i64> = iter::step_by(ia..ib, s).take(8).collect();
                assert_eq!(ours, (ia..ib).step_by(s).take(8).collect::<Vec<_>>(), "({ia}..{ib}).step_by({s})");
            }
        }
    }
    // `char` ranges skip the surrogates, as `core`'s do.
    let around = ['\0', 'a', '\u{D7FE}', '\u{D7FF}', '\u{E000}', '\u{E001}', '\u{FFFF}', '\u{10FFFF}'];
    for &a in &around {
        for &b in &around {
            for s in [1usize, 2, 3, 0x7FF, 0x800, 0x801, 1 << 20, usize::MAX] {
                let ours: Vec<char> = iter::step_by(a..b, s).take(40).collect();
                assert_eq!(ours, (a..b).step_by(s).take(40).collect::<Vec<_>>(), "({a:?}..{b:?}).step_by({s})");
            }
        }
    }
}

/// The loop variable's type comes from its uses, as with `core`'s `step_by`: an unsuffixed range that indexes a
/// slice is a `usize` range, one added to a `u64` a `u64` range (not `i32`, the fallback of unconstrained literals).
#[test]
fn item_type_is_inferred_from_uses() {
    let v: Vec<f64> = (0..32).map(f64::from).collect();
    let mut s = 0.0;
    for j in iter::step_by(0..16, 4) {
        s += v[j];
    }
    let mut t = 0u64;
    for k in iter::step_by(0..10, 3) {
        t += k;
    }
    // v[0] + v[4] + v[8] + v[12], and 0 + 3 + 6 + 9.
    assert_eq!((s, t), (24.0, 18));
}

#[test]
#[should_panic(expected = "step != 0")]
fn zero_step_panics() {
    let _ = iter::step_by(0u32..0, 0);
}
