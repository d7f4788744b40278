//! Confirmations a target region's host expansion asks of rustc. The device kernel is rebuilt by the build helper
//! from the user's tokens in another crate; where that rebuilding decided something of its own (which item a name
//! is, which type a loop counts in, which `cfg` holds), the manifest records the decision and the expansion emits
//! a check here, so that rustc, resolving the same names at the region, has the last word: a disagreement is a
//! compile error at the region, never a kernel that computes something else.

use crate::host::{Dim, LoopIndex};

/// `A` and `B` are the same function item (each function has its own type).
#[diagnostic::on_unimplemented(
    message = "omp-rs: the device kernel of this target region calls another function than this code does",
    label = "here this name is `{Self}`; the kernel was built with `{B}`",
    note = "the build helper resolved the name from the package's sources, and something it cannot follow (a macro, \
            an import) made them differ: call the function by a path (`crate::module::f`), or rename one of the two"
)]
pub trait SameFn<B> {}

impl<F> SameFn<F> for F {}

/// Compiles when `a` (the name at the region) and `b` (the path the kernel's copy came from) are one function.
pub fn same_fn<A: SameFn<B>, B>(a: A, b: B) {
    let _ = (a, b);
}

/// `A` and `B` are one type.
#[diagnostic::on_unimplemented(
    message = "omp-rs: the device kernel of this target region takes `{Self}` for another type than this code does",
    label = "here this type is `{Self}`; the kernel was built with `{B}`",
    note = "the build helper copied the package's one type alias of this name into the device crate; rename the alias \
            in scope here, or write the type out"
)]
pub trait SameType<B: ?Sized> {}

impl<T: ?Sized> SameType<T> for T {}

/// Compiles when `A` (the alias as the region names it) is `B` (what the kernel's copy of it stands for).
pub fn same_type<A: ?Sized + SameType<B>, B: ?Sized>() {}

/// Compiles (to nothing) when the loop variable's type, as rustc inferred it for `dim`, is the kernel's `K`.
#[inline(always)]
pub fn kernel_loop_type<K: LoopIndex, V: LoopIndex>(dim: &Dim<V>) {
    const {
        assert!(
            K::KIND == V::KIND,
            "omp-rs: the device kernel of this target region counts its loop in another integer type than rustc \
             infers for the loop variable: write the type on a bound (`-50i32..50`, `0usize..n`)"
        )
    };
    let _ = dim;
}

/// `OMP_RS_CHECK=host`: every target region that ran on a device runs again on the host from the same inputs, and
/// the two results are compared (a panic names the region, the variable and the first element that differs). The
/// porter's tool for "where do the GPU and the CPU disagree"; it makes every run a GPU-vs-CPU test. A region inside a
/// `target_data` block re-runs from the device's copies of the block's variables (read before the launch) and is
/// compared with the device's copies after it; regions on device memory (`is_device_ptr`) are not re-run. Floats compare within a tolerance relative to `1 + |value|` (the device's math library and a reduction's
/// order differ from the host's by rounding): 1e-9 for `f64`, 1e-3 for `f32`, or `OMP_RS_CHECK_RTOL` for both;
/// everything else compares exactly.
pub mod differential {
    use std::sync::OnceLock;

    use crate::offload::private::{update_from, Device, Pod};

    /// The tolerances for `f64` and `f32`, when the check is on.
    fn settings() -> &'static Option<(f64, f64)> {
        static S: OnceLock<Option<(f64, f64)>> = OnceLock::new();
        S.get_or_init(|| {
            let on = std::env::var("OMP_RS_CHECK").is_ok_and(|v| v.eq_ignore_ascii_case("host"));
            let rtol: Option<f64> = std::env::var("OMP_RS_CHECK_RTOL").ok().and_then(|v| v.parse().ok());
            on.then_some(rtol.map_or((1e-9, 1e-3), |r| (r, r)))
        })
    }

    /// The tolerance for values of `T`.
    fn rtol_of<T: 'static>((f64_tol, f32_tol): (f64, f64)) -> f64 {
        if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
            f32_tol
        } else {
            f64_tol
        }
    }

    /// Whether regions are checked against the host.
    pub fn enabled() -> bool {
        settings().is_some()
    }

    /// After the device run, before the host's: waits for every queued region and reports a device failure (a
    /// panic in the kernel is the device's result; the host's re-run is not compared with it).
    #[track_caller]
    pub fn settle() {
        crate::offload::taskwait().unwrap_or_else(|e| panic!("{e}"));
    }

    /// The values of an array the region writes, before it runs (the host's re-run starts from them).
    pub fn snapshot<T: Pod>(x: &[T]) -> Vec<T> {
        x.to_vec()
    }

    /// The device's copy of a variable a `target_data` block maps (`None` when it is not mapped there in one piece:
    /// the region is then not re-run).
    #[track_caller]
    pub fn device_snapshot<T: Pod>(x: &[T], device: Device) -> Option<Vec<T>> {
        crate::offload::device_copy(x, device).unwrap_or_else(|e| panic!("{e}"))
    }

    /// After the device run: the device's copy of `x` to the host, when `x` stays mapped there (data an enclosing
    /// `target_enter_data!` keeps resident is not copied back at the region's end).
    #[track_caller]
    pub fn fetch<T: Pod>(x: &mut [T], var: &str, device: Device) {
        match update_from(x, var, Some(i64::from(device.num())), true) {
            Ok(()) | Err(crate::Error::NotPresent { .. }) => {}
            Err(e) => panic!("{e}"),
        }
    }

    fn close(a: f64, b: f64, rtol: f64) -> bool {
        a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rtol * (1.0 + a.abs().max(b.abs()))
    }

    /// A float as `f64` (other types: `None`).
    fn as_float<T: 'static>(x: &T) -> Option<f64> {
        let any: &dyn std::any::Any = x;
        any.downcast_ref::<f64>().copied().or_else(|| any.downcast_ref::<f32>().map(|v| f64::from(*v)))
    }

    /// A primitive integer, `bool` or `char` as `i128` (other types: `None`).
    fn as_int<T: 'static>(x: &T) -> Option<i128> {
        let any: &dyn std::any::Any = x;
        macro_rules! try_ints {
            ($($t:ty),*) => {$(
                if let Some(v) = any.downcast_ref::<$t>() {
                    return i128::try_from(*v).ok();
                }
            )*};
        }
        try_ints!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, i128);
        if let Some(v) = any.downcast_ref::<bool>() {
            return Some(i128::from(*v));
        }
        any.downcast_ref::<char>().map(|c| i128::from(u32::from(*c)))
    }

    fn describe<T: 'static>(x: &T) -> String {
        match (as_float(x), as_int(x)) {
            (Some(f), _) => format!("{f:e}"),
            (_, Some(i)) => i.to_string(),
            _ => "(a value of another type)".to_string(),
        }
    }

    /// Panics at the first element where the device's and the host's results differ.
    #[track_caller]
    pub fn compare<T: Pod>(kernel: &str, var: &str, device: &[T], host: &[T]) {
        let Some(tols) = *settings() else { return };
        let rtol = rtol_of::<T>(tols);
        let same = |d: &T, h: &T| match (as_float(d), as_float(h)) {
            (Some(x), Some(y)) => close(x, y, rtol),
            _ => bytemuck::bytes_of(d) == bytemuck::bytes_of(h),
        };
        if let Some(i) = device.iter().zip(host).position(|(d, h)| !same(d, h)) {
            panic!(
                "omp-rs: OMP_RS_CHECK=host: region `{kernel}` computed `{var}[{i}]` = {} on the device and {} on the host \
                 (from the same inputs)",
                describe(&device[i]),
                describe(&host[i])
            );
        }
    }

    /// Panics when a reduction's device and host results differ.
    #[track_caller]
    pub fn compare_value<T: Copy + 'static>(kernel: &str, var: &str, device: T, host: T) {
        let Some(tols) = *settings() else { return };
        let rtol = rtol_of::<T>(tols);
        let same = match (as_float(&device), as_float(&host), as_int(&device), as_int(&host)) {
            (Some(d), Some(h), _, _) => close(d, h, rtol),
            (_, _, Some(d), Some(h)) => d == h,
            _ => true,
        };
        if !same {
            panic!(
                "omp-rs: OMP_RS_CHECK=host: region `{kernel}` computed `{var}` = {} on the device and {} on the host \
                 (from the same inputs)",
                describe(&device),
                describe(&host)
            );
        }
    }
}
