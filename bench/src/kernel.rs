//! What a kernel is to the harness: its RAJAPerf identity, sizes, data and checksum rule.
//!
//! Each kernel has a data type implementing [`KernelData`] (setUp + checksum, shared by all
//! variants) and a [`KernelDef`] registry entry whose `run` sets up, lets the chosen variant
//! run the timed rep loop and computes the checksum.

use crate::rpdata::Checksum;
use crate::timer::Timer;
use crate::variant::{Unsupported, Variant};
use std::fmt;

/// RAJAPerf's default target problem size (every kernel of this suite uses 1e6).
pub const DEFAULT_TARGET: usize = 1_000_000;

/// RAJAPerf kernel groups covered here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Stream_*.
    Stream,
    /// Basic_*.
    Basic,
    /// Lcals_*.
    Lcals,
    /// Polybench_*.
    Polybench,
    /// Apps_*.
    Apps,
}

impl Group {
    /// All groups in RAJAPerf's order.
    pub const ALL: [Group; 5] = [Group::Stream, Group::Basic, Group::Lcals, Group::Polybench, Group::Apps];

    /// The prefix of its kernels' names.
    pub fn name(self) -> &'static str {
        match self {
            Group::Stream => "Stream",
            Group::Basic => "Basic",
            Group::Lcals => "Lcals",
            Group::Polybench => "Polybench",
            Group::Apps => "Apps",
        }
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How closely a variant's checksum must match the baseline's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    /// Every variant performs the same operations in the same order per output element
    /// (including atomics without conflicts): relative difference <= 1e-10.
    Deterministic,
    /// A floating-point sum whose order the variant may change (reductions, atomics on one
    /// location) over same-sign terms: each order's error is <= (n-1)u|S| (u = 2^-53), so two
    /// orders differ by <= 2(n-1)u; with `reps` reps accumulated on top we allow
    /// 2(n + reps)u, and never less than 1e-10.
    ReorderedSum,
}

/// Unit roundoff of f64.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
/// RAJAPerf's "checksums match" threshold.
pub const DETERMINISTIC_REL_TOL: f64 = 1e-10;

impl Tolerance {
    /// Relative bound for a run of `terms` summed terms per rep and `reps` reps.
    pub fn rel_bound(self, terms: usize, reps: usize) -> f64 {
        match self {
            Tolerance::Deterministic => DETERMINISTIC_REL_TOL,
            Tolerance::ReorderedSum => {
                let b = 2.0 * (terms as f64 + reps as f64) * UNIT_ROUNDOFF;
                b.max(DETERMINISTIC_REL_TOL)
            }
        }
    }

    /// Short label for reports.
    pub fn label(self) -> &'static str {
        match self {
            Tolerance::Deterministic => "deterministic",
            Tolerance::ReorderedSum => "reordered-sum",
        }
    }
}

/// One kernel's inputs, outputs and checksum: RAJAPerf's setUp and updateChecksum.
pub trait KernelData: Sized {
    /// RAJAPerf's "actual problem size" for a target size.
    fn problem_size(target: usize) -> usize;
    /// Allocates and initialises everything (init counter from 0).
    fn setup(target: usize) -> Self;
    /// Bytes of compulsory memory traffic per rep (each array read or written once counted
    /// once, no write-allocate).
    fn bytes_per_rep(&self) -> f64;
    /// Checksum of the final state.
    fn checksum(&self) -> Checksum;
}

/// `c * (default / actual)` scale factor of kernel `K` at `target` (1 * c at the default).
pub fn size_scale<K: KernelData>(c: f64, target: usize) -> f64 {
    crate::rpdata::scale(c, K::problem_size(DEFAULT_TARGET), K::problem_size(target))
}

/// What one run of a kernel variant asks for.
#[derive(Clone, Copy, Debug)]
pub struct RunSpec {
    /// Target problem size.
    pub target: usize,
    /// Reps of the timed loop.
    pub reps: usize,
}

/// What one run of a kernel variant produced (the time is in the [`Timer`]).
#[derive(Clone, Copy, Debug)]
pub struct RunOutput {
    /// Checksum of the final state.
    pub checksum: Checksum,
    /// Actual problem size.
    pub problem_size: usize,
    /// Bytes moved per rep.
    pub bytes_per_rep: f64,
}

/// Signature of a kernel's runner: setup, timed rep loop by the variant, checksum.
pub type RunFn = fn(&dyn Variant, &RunSpec, &mut Timer) -> Result<RunOutput, Unsupported>;

/// Registry entry of one kernel.
#[derive(Clone, Copy)]
pub struct KernelDef {
    /// RAJAPerf name, e.g. `Stream_TRIAD`.
    pub name: &'static str,
    /// Group.
    pub group: Group,
    /// RAJAPerf's default reps.
    pub default_reps: usize,
    /// Checksum comparison rule.
    pub tolerance: Tolerance,
    /// Actual problem size for a target.
    pub problem_size: fn(usize) -> usize,
    /// Runs one variant.
    pub run: RunFn,
}

impl fmt::Debug for KernelDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KernelDef").field("name", &self.name).finish_non_exhaustive()
    }
}

/// Sets up `K`, lets `body` (the variant) run the timed loop, then checksums.
pub fn run_kernel<K: KernelData>(spec: &RunSpec, body: impl FnOnce(&mut K) -> Result<(), Unsupported>) -> Result<RunOutput, Unsupported> {
    let mut data = K::setup(spec.target);
    body(&mut data)?;
    Ok(RunOutput { checksum: data.checksum(), problem_size: K::problem_size(spec.target), bytes_per_rep: data.bytes_per_rep() })
}

/// Builds a [`KernelDef`] for data type `$data`, calling variant method `$method`.
#[macro_export]
#[doc(hidden)]
macro_rules! kernel_def {
    ($name:literal, $group:expr, $reps:expr, $tol:expr, $data:ty, $method:ident) => {
        $crate::kernel::KernelDef {
            name: $name,
            group: $group,
            default_reps: $reps,
            tolerance: $tol,
            problem_size: <$data as $crate::kernel::KernelData>::problem_size,
            run: |v, spec, timer| $crate::kernel::run_kernel::<$data>(spec, |d| v.$method(d, spec.reps, timer)),
        }
    };
}
