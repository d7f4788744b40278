//! Ownership checks of the device kernels' written arrays (`omp_device::view::Owner`), compiled for the host: an
//! iteration writes only the elements the runtime's slots give it, in each mode.

#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../device/omp_device/src/atomic.rs"]
mod atomic;
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../device/omp_device/src/view.rs"]
mod view;
// `view.rs`'s team-combined atomics use these (on the host: no arena, one thread per team).
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../device/omp_device/src/launch.rs"]
mod launch;
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../device/omp_device/src/team.rs"]
mod team;
/// The definitions `omp_device` compiles as its `abi_shared` module (`view.rs` decodes the ownership mode with them).
#[allow(unreachable_pub)] // re-exported by the device modules above, as in omp_device
mod abi_shared {
    pub use omp_rs_abi::*;
}

use std::panic::{catch_unwind, AssertUnwindSafe};
use view::{Disjoint, Owner, View};

/// Which elements of a 16-element array iteration `k` may write, under ownership slots (mode, origin, width,
/// stride) of a 1-deep nest with `I` sequential-loop terms `inner`.
fn writable<const I: usize>(mode: u64, origin: u64, width: u64, stride: u64, inner: [[u64; 2]; I], k: u64) -> Vec<usize> {
    let mut data = [0.0f64; 16];
    let base: &mut [f64; 0] = (&mut data[..0]).try_into().unwrap();
    // SAFETY: `base` starts `data`'s 16 elements, which outlive the view; one thread.
    let d = unsafe { Disjoint::<f64, 1, I>::new(View::from_base(base, 16), Owner::from_slots(mode, origin, width, [stride], inner)) };
    let general: Vec<usize> = (0..16)
        .filter(|&i| {
            let mut v = d.at([k]);
            catch_unwind(AssertUnwindSafe(|| v[i] = 1.0)).is_ok()
        })
        .collect();
    // The kernel's fast copy of the loop (straight-line checks) owns exactly what the general one does, and is
    // refused for an ownership of another form.
    if d.fast() {
        let fast: Vec<usize> = (0..16)
            .filter(|&i| {
                let mut v = d.at_fast([k]);
                catch_unwind(AssertUnwindSafe(|| v[i] = 1.0)).is_ok()
            })
            .collect();
        assert_eq!(fast, general, "mode {mode}, origin {origin}, width {width}, stride {stride}, inner {inner:?}, k {k}");
    } else {
        assert!(catch_unwind(AssertUnwindSafe(|| d.at_fast([k]).len())).is_err());
    }
    general
}

#[test]
fn each_mode_owns_what_the_runtime_says() {
    std::panic::set_hook(Box::new(|_| {}));
    // Hull: base 2 + 3k, and 2 more.
    assert_eq!(writable(0, 2, 2, 3, [], 1), vec![5, 6, 7]);
    // Hull in 32 bits (the runtime checked that every owned element is below 2^31): the same elements, through
    // the kernel's fast copy too.
    assert_eq!(writable(3, 2, 2, 3, [], 1), vec![5, 6, 7]);
    assert_eq!(writable(3, 0, 0, 1, [], 15), vec![15]);
    // Lattice without sequential terms: the base only (folded into hull of width 0).
    assert_eq!(writable(1, 2, 99, 3, [], 1), vec![5]);
    // Lattice with a term: base + 4q for q < 3.
    assert_eq!(writable(1, 1, 0, 1, [[4, 3]], 0), vec![1, 5, 9]);
    // Mode 2: nothing (the runtime found no element to own); not element 0, not the base.
    assert_eq!(writable(2, 0, 0, 0, [], 0), Vec::<usize>::new());
    assert_eq!(writable(2, 0, 0, 0, [[0, 1]], 3), Vec::<usize>::new());
    // A value no mode encodes: nothing either.
    assert_eq!(writable(7, 2, 2, 3, [], 1), Vec::<usize>::new());
}

/// Lattices of two sequential-loop terms (power-of-two strides, which take the shift-and-mask path, and others,
/// which divide; zero strides) against the definition: iteration `k` owns `base(k) + s0·q0 + s1·q1`, `q_j < c_j`.
#[test]
fn lattices_own_exactly_their_points() {
    std::panic::set_hook(Box::new(|_| {}));
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    let strides = [0u64, 1, 2, 3, 4, 5, 6, 8, 12, 16];
    for _ in 0..400 {
        let (s0, s1) = (strides[next(10) as usize], strides[next(10) as usize]);
        let (s0, s1) = (s0.max(s1), s0.min(s1)); // largest stride first, as the runtime orders them
        let (c0, c1) = (1 + next(3), 1 + next(4));
        let (origin, stride, k) = (next(6), next(5), next(3));
        let base = origin + stride * k;
        let mut want: Vec<usize> =
            (0..c0).flat_map(|q0| (0..c1).map(move |q1| base + s0 * q0 + s1 * q1)).filter(|&i| i < 16).map(|i| i as usize).collect();
        want.sort_unstable();
        want.dedup();
        let got = writable(1, origin, 0, stride, [[s0, c0], [s1, c1]], k);
        // The greedy decomposition (largest stride first) is the runtime's: it finds every point of a lattice
        // the runtime accepts (mixed radix: each stride at least the span of the smaller terms), and never a
        // point that is not one.
        let mixed_radix = s0 == 0 || s1 == 0 || s0 >= s1 * c1;
        if mixed_radix {
            assert_eq!(got, want, "strides ({s0}, {s1}), counts ({c0}, {c1}), base {base}");
        } else {
            assert!(got.iter().all(|i| want.contains(i)), "strides ({s0}, {s1}), counts ({c0}, {c1}), base {base}: {got:?} ⊄ {want:?}");
        }
    }
}

/// The team-combined atomics on the host (no arena: every update goes to the array itself) and the serial slice: the
/// same sums as plain arithmetic, and the bounds and one-iteration checks.
#[test]
fn team_adds_and_serial_slices_on_the_host() {
    use view::{serial_slice, TeamAdds};
    let mut sums = vec![1.5f32, 0.0, -2.0];
    let mut counts = vec![3u32, 0];
    let mut arena = team::TeamArena::new();
    // SAFETY: both vectors outlive the views; this thread is the only one.
    let (s, c) = unsafe {
        (
            TeamAdds::new(View::from_raw_parts(sums.as_mut_ptr(), sums.len()), &mut arena, 1 << 20),
            TeamAdds::new(View::from_raw_parts(counts.as_mut_ptr(), counts.len()), &mut arena, 1 << 20),
        )
    };
    for i in 0..10 {
        s.add(i % 3, 0.5);
        s.sub((i + 1) % 3, 0.25);
        c.sub(i % 2, 1);
    }
    assert!(catch_unwind(AssertUnwindSafe(|| s.add(3, 1.0))).is_err(), "an index past the end panics");
    s.finish();
    c.finish();
    assert_eq!(sums, [1.5 + 4.0 * 0.5 - 3.0 * 0.25, 3.0 * 0.5 - 4.0 * 0.25, -2.0 + 3.0 * 0.5 - 3.0 * 0.25]);
    assert_eq!(counts, [3u32.wrapping_sub(5), 0u32.wrapping_sub(5)]);

    let mut e = vec![1.0f64, 2.0, 3.0];
    // SAFETY: `e` outlives the slice, which is its only access meanwhile.
    let whole = unsafe { serial_slice(e.as_mut_ptr(), 3, 1) };
    whole[0] += whole[2];
    assert_eq!(e, [4.0, 2.0, 3.0]);
    // SAFETY: as above (it panics before making the slice).
    assert!(catch_unwind(AssertUnwindSafe(|| unsafe { serial_slice(e.as_mut_ptr(), 3, 2) }.len())).is_err());
}
