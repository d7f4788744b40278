//! The kernel registry: every kernel of the suite, grouped as in RAJAPerf.
//!
//! Each group directory holds `mod.rs` (data types = setUp + checksum, the group's variant
//! trait, registry entries) and one file per variant.

pub mod apps;
pub mod basic;
pub(crate) mod c_side;
pub mod lcals;
pub mod polybench;
pub mod stream;

use crate::kernel::KernelDef;

/// Every kernel, in RAJAPerf's group order and name order within a group.
pub fn all() -> Vec<KernelDef> {
    let mut v = stream::kernels();
    v.extend(basic::kernels());
    v.extend(lcals::kernels());
    v.extend(polybench::kernels());
    v.extend(apps::kernels());
    v
}

/// Whether the GCC offload variant `name` (`c-omp-target`, `c-omp-target-simd`) ran its regions on an offload
/// device (GCC's libgomp found one); false for every other name.
pub fn gcc_target_on_device(name: &str) -> bool {
    match name {
        "c-omp-target" => c_side::target_on_device(c_side::Spelling::Loop),
        "c-omp-target-simd" => c_side::target_on_device(c_side::Spelling::Simd),
        _ => false,
    }
}

/// Elements per rayon task in chunked 1D loops: large enough that the inner loop vectorises
/// and task overhead is amortised, small enough to balance a few dozen threads at 1e6.
pub(crate) const RAYON_CHUNK: usize = 1 << 13;

/// Length for a C kernel call: all arrays must have the same length.
pub(crate) fn c_len(lens: &[usize]) -> i64 {
    let n = lens[0];
    assert!(lens.iter().all(|&l| l == n), "C kernel arrays differ in length: {lens:?}");
    i64::try_from(n).expect("length fits in i64")
}

/// `usize` to C `int64_t`.
pub(crate) fn c_i64(n: usize) -> i64 {
    i64::try_from(n).expect("value fits in i64")
}
