//! # omp-rs: OpenMP-style directives for Rust
//!
//! Put an OpenMP directive on a loop; it runs on every CPU core (and, with the device pipeline, on NVIDIA and
//! AMD GPUs) with the semantics an OpenMP programmer expects, and the compiler rejects data races.
//!
//! ```
//! #[omp::parallel_for]
//! fn saxpy(a: f64, x: &[f64], y: &mut [f64]) {
//!     for i in 0..y.len() {
//!         y[i] += a * x[i];
//!     }
//! }
//!
//! #[omp::parallel_for(reduction(+: s))]
//! fn dot(x: &[f64], y: &[f64]) -> f64 {
//!     let mut s = 0.0;
//!     for i in 0..x.len() {
//!         s += x[i] * y[i];
//!     }
//!     s
//! }
//!
//! let x = vec![1.0; 1000];
//! let mut y = vec![2.0; 1000];
//! saxpy(3.0, &x, &mut y);
//! assert_eq!(dot(&x, &y), 5000.0);
//! ```
//!
//! ## From C pragmas to attributes
//!
//! | C / C++ | Rust |
//! |---|---|
//! | `#pragma omp parallel for` | `#[omp::parallel_for]` |
//! | `#pragma omp parallel for reduction(+:s) schedule(dynamic,4)` | `#[omp::parallel_for(reduction(+: s), schedule(dynamic, 4))]` |
//! | `#pragma omp target teams distribute parallel for collapse(2)` | `#[omp::target_teams_distribute_parallel_for(collapse(2))]` |
//! | `map(to: x[0:n])` | `map(to: x[0..n])` |
//! | `#pragma omp target data map(tofrom: a)` | `#[omp::target_data(map(tofrom: a))] { ... }` |
//! | `#pragma omp target update from(a)` | `omp::target_update!(from: a);` |
//! | `#pragma omp taskwait` | `omp::taskwait!();` |
//! | `#pragma omp atomic` | `#[omp::atomic] h[k] += 1;` |
//! | `#pragma omp critical(name)` | `#[omp::critical(name)] { ... }` |
//! | `omp_get_thread_num()` | `omp::get_thread_num()` |
//!
//! On a `fn`, a loop directive applies to the function's one top-level `for` loop. Inside a function marked
//! `#[omp::directives]`, directives go on the statements themselves (stable Rust has no attribute macros on
//! statements; the outer attribute expands them).
//!
//! ## Safety
//! Generated code has no data races and no unchecked accesses. The compiler rejects what it cannot prove
//! race-free, naming the variable and the clause to add: a write to an array must be indexed by an affine form
//! of the loop variables (`i`, `i * n + j`) built from names the body does not change; a shared scalar must be a
//! `reduction` (updated only in its operator's forms), `atomic` or `critical` variable; everything else is shared
//! read-only. Independently of that analysis, the runtime verifies for the actual loop bounds that no element
//! of a written array belongs to two iterations, and every access checks that its element belongs to its own
//! iterations (and is in bounds): a loop the analysis misjudged panics instead of racing. Inside a
//! `#[omp::target_data]` block the mapped variables are tokens the borrow checker keeps host code away from.
//!
//! ## Environment
//! `OMP_NUM_THREADS`, `OMP_SCHEDULE` (for `schedule(runtime)`), `OMP_TARGET_OFFLOAD`
//! (`DEFAULT`/`DISABLED`/`MANDATORY`), `OMP_DEFAULT_DEVICE`, `OMP_DISPLAY_ENV`, `OMP_PROC_BIND` (accepted;
//! threads are not pinned).
//!
//! ## Crate layout
//! `omp-rs-macros` (the attributes, re-exported here) → `omp-rs-codegen` (parsing, analysis, lowering) →
//! this crate's hidden `__private` module (team of threads, schedules, reductions, race-free sharing).

#![deny(missing_docs)]
#![deny(unsafe_code)]

#[doc(hidden)]
pub mod check;
mod host;
mod icv;
mod routines;

pub use omp_rs_macros::*;

/// `#pragma omp taskwait`: waits for the target regions still queued on any device (regions on data already on the
/// device do not wait by themselves; see `omp::offload`). A failure of one of them, such as a device panic, becomes
/// a panic here naming that region; [`offload::taskwait`] returns it as a `Result` instead.
#[macro_export]
macro_rules! taskwait {
    () => {
        $crate::offload::taskwait().unwrap_or_else(|e| ::core::panic!("{}", e))
    };
}
pub use routines::*;

/// `#pragma omp barrier` in the `#[omp::parallel]` block of an SPMD `#[omp::target_teams]` region: every thread of
/// the team waits until all have arrived, and what they wrote to team-local arrays before it is what they read
/// after it. The region's macro replaces it (see `docs/porting.md`, "SPMD regions"); anywhere else it is a compile
/// error.
#[macro_export]
macro_rules! barrier {
    () => {
        ::core::compile_error!(
            "`omp::barrier!()` stands in the `#[omp::parallel]` block of an SPMD `#[omp::target_teams]` region or of a host \
             `parallel` block inside a `#[omp::directives]` fn, in a function declared inside that fn which the block \
             calls (omp-rs inlines it), or among the fn's own statements outside every region (the initial thread's \
             team of one)"
        )
    };
}

/// `#pragma omp scan inclusive(s)` / `exclusive(s)`: the statement between the input and the scan phase of a loop
/// with `reduction(inscan, op: s)`. The loop's macro replaces it (see `docs/porting.md`, "Scans"); anywhere else it
/// is a compile error.
#[macro_export]
macro_rules! scan {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "`omp::scan!(..)` stands at the top level of the body of a loop directive with `reduction(inscan, ..)` inside a \
             `#[omp::directives]` fn"
        )
    };
}

mod error;
pub mod offload;

pub use error::Error;
pub use offload::{
    get_default_device, get_initial_device, get_num_devices, is_initial_device, set_default_device, target_is_present, DeviceBuffer,
    DeviceScalar, HostPinned, MappedMut, MappedRef,
};

/// Support for macro expansions: not a public API, may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::check;
    pub use crate::host::nd;
    pub use crate::host::reduce::scan;
    pub use crate::host::spmd;
    pub use crate::host::{
        as_slice, as_slice_mut, atomic, chunk_size, coefficient, corner_max, corner_min, critical_lock, form_product, form_sum, int_bounds,
        orphaned_barrier, parallel_for, range_count, range_count_inclusive, range_nth, range_nth_inclusive, reduce, row_span, slice_len,
        spmd_count, spmd_split, team_size, type_bounds, wrapping, Affine, AtomicElem, AtomicRef, AtomicSlice, AtomicUpdate, Chunk,
        ChunkView, CopyValue, CriticalCell, CriticalGuard, Dim, DisjointArrays, DisjointMut, Indices, LatticeMut, LoopIndex, NotSlice,
        OmpAt, OmpAtMut, Ownership, Pick, PickAny, PickSlice, Probe, RefLocal, RefRows, RefValue, RegionConfig, Row, RowWindow, Rows,
        RowsWindow, Schedule, SliceLocal, SliceRows, SliceStorage, SliceStorageMut, UncheckedSlice, WindowIndex, WindowMut, WindowsMut,
    };
    pub use crate::offload::private as offload;
    /// `#[omp::declare_target]` structs derive `bytemuck::Pod` through this path (users need no dependency).
    pub use bytemuck;
}

/// `docs/porting.md`, whose every snippet compiles and runs as a doc test (with the `ndarray` feature, which
/// `cargo test --workspace` turns on through the offload suite).
#[cfg(all(doctest, feature = "ndarray"))]
#[doc = include_str!("../../docs/porting.md")]
mod porting_guide {}
