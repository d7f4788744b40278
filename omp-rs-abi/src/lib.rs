//! The contract between the host side of omp-rs (the `omp` runtime, the macros' code generator, the build helper)
//! and the device side (the `omp_device` library compiled into every image), defined once.
//!
//! The definitions live in `shared.rs`, which has no dependencies and no crate attributes, so that `omp-rs-build`
//! compiles the very same file into `omp_device` for every device target ([`SHARED_SOURCE`]): a field or a constant
//! changed here changes both sides, and a device library built from another version does not match the host's
//! [`ABI_VERSION`] (the build embeds the version in the manifest; the macros refuse a manifest of another version).
#![no_std]

mod shared;

pub use shared::*;

/// Version of the manifest (`$OUT_DIR/omp-rs/manifest.json`) that `omp-rs-build` writes and the macros read.
pub const MANIFEST_FORMAT_VERSION: u32 = 1;

/// The text of `shared.rs`, which `omp-rs-build` compiles into `omp_device` as its `abi_shared` module.
pub const SHARED_SOURCE: &str = include_str!("shared.rs");

#[cfg(test)]
mod loop_tests {
    use super::{loop_slot, LoopIndex};

    /// Every loop variable type decodes `first + k·step` from the host's slots, descending steps included.
    #[test]
    fn loop_values_decode_what_the_host_encodes() {
        fn check<T: LoopIndex + PartialEq + core::fmt::Debug + TryFrom<i128>>(first: i128, step: i128, count: i128) {
            for k in 0..count {
                let want = T::try_from(first + k * step).ok().expect("the test's values fit the type");
                let got = T::loop_value(loop_slot(first), loop_slot(step), k as u64);
                assert_eq!(got, want, "{first} + {k}·{step}");
            }
        }
        check::<u8>(250, -3, 80);
        check::<i8>(-128, 5, 51);
        check::<u16>(0, 7, 9000);
        check::<i32>(i32::MAX as i128, -100_000, 40_000);
        check::<u32>(u32::MAX as i128 - 1, -1, 100);
        check::<i64>(i64::MIN as i128 + 5, 1 << 40, 1000);
        check::<u64>(u64::MAX as i128, -(1 << 50), 1000);
        check::<usize>(10, 3, 1000);
        check::<isize>(-7, -2, 1000);
    }

    /// Where `values_fit_u32` holds, the 32-bit computation gives every value; it holds for every loop of fewer than
    /// 2^32 iterations and steps whose values fit (checked exactly in i128 at the ends, which bound a monotone loop).
    #[test]
    fn the_32_bit_values_are_the_loop_values_where_they_fit() {
        use super::values_fit_u32;
        const TOP: i128 = 1 << 32;
        let mut cases: [(i128, i128, u64); 14] = [
            (0, 1, 0),
            (0, 1, 1 << 32),
            (0, 1, (1 << 32) + 1),
            (1, 1, 1 << 32),
            (TOP - 1, -1, 1 << 32),
            (TOP - 1, -1, (1 << 32) + 1),
            (TOP, 1, 1),
            (-1, 1, 3),
            (5, -3, 2),
            (5, -3, 3),
            (0, 0, u64::MAX),
            (7, 1 << 40, 2),
            (7, 1 << 20, 4096),
            (3, i64::MIN as i128, 2),
        ];
        // Fixed pseudo-random cases around the boundaries too.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..2000 {
            let first = (next() % (1 << 33)) as i128 - (1 << 31);
            let step = (next() % 2001) as i128 - 1000;
            let trips = next() % 5_000_000;
            cases[0] = (first, step, trips);
            for &(first, step, trips) in &cases {
                let fits = values_fit_u32(loop_slot(first), loop_slot(step), trips);
                let last = first + (trips as i128 - 1) * step;
                let want = trips == 0 || ((0..TOP).contains(&first) && (0..TOP).contains(&last));
                // Never a false "fits"; exact for loops of iterations and steps below 2^32.
                assert!(!fits || want, "{first} + k·{step}, {trips} trips");
                if trips > 0 && (trips as i128) < TOP && step.abs() < TOP {
                    assert_eq!(fits, want, "{first} + k·{step}, {trips} trips");
                }
                if fits && trips > 0 {
                    for k in [0, 1, trips / 2, trips - 1].into_iter().filter(|&k| k < trips) {
                        let v = first + k as i128 * step;
                        let got = <u64 as LoopIndex>::loop_value_u32(loop_slot(first), loop_slot(step), k);
                        assert_eq!(got as i128, v);
                        assert_eq!(<i64 as LoopIndex>::loop_value_u32(loop_slot(first), loop_slot(step), k) as i128, v);
                        assert_eq!(<usize as LoopIndex>::loop_value_u32(loop_slot(first), loop_slot(step), k) as i128, v);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod shared_tests {
    use super::reduce::{Add, Max, Min, Mul, Reducer};
    use super::OwnerMode;

    /// The ownership mode survives its slot, and a value no encoder writes owns nothing.
    #[test]
    fn owner_modes_round_trip_and_unknown_slots_own_nothing() {
        for m in [OwnerMode::Hull, OwnerMode::Lattice, OwnerMode::Nothing, OwnerMode::Hull32] {
            assert_eq!(OwnerMode::decode(m.encode()), m);
        }
        for v in [4, 17, u64::MAX] {
            assert_eq!(OwnerMode::decode(v), OwnerMode::Nothing);
        }
    }

    /// Integer `+`/`*` wrap in every profile (this test runs in debug, where `a + b` would panic), so any grouping of
    /// partials gives the exact result modulo 2^bits; identities leave values unchanged.
    #[test]
    fn integer_combines_wrap_and_any_grouping_agrees() {
        assert_eq!(<Add as Reducer<i32>>::combine(i32::MAX, 1), i32::MIN);
        assert_eq!(<Mul as Reducer<u8>>::combine(16, 17), 16);
        let v: [i64; 6] = [i64::MAX, i64::MAX, 3, i64::MIN, -5, i64::MIN + 2];
        let exact: i128 = v.iter().map(|&x| i128::from(x)).sum();
        let left = v.iter().fold(<Add as Reducer<i64>>::identity(), |a, &b| <Add as Reducer<i64>>::combine(a, b));
        let pair = |k: usize| <Add as Reducer<i64>>::combine(v[2 * k], v[2 * k + 1]);
        let grouped = [pair(2), pair(1), pair(0)].iter().fold(0i64, |a, &b| <Add as Reducer<i64>>::combine(a, b));
        assert_eq!(left, exact as i64);
        assert_eq!(grouped, left);
        assert_eq!(<Min as Reducer<f64>>::combine(f64::NAN, 2.0), 2.0, "a NaN operand is ignored");
        assert_eq!(<Max as Reducer<u16>>::combine(<Max as Reducer<u16>>::identity(), 7), 7);
    }
}
