//! Variants: ways of running the same kernel. The registry is [`all`].
//!
//! A variant is a unit struct implementing one trait per kernel group
//! ([`crate::kernels::stream::StreamKernels`], ...); each trait method runs one
//! kernel's timed rep loop on data the harness set up. The implementations live beside the
//! kernels, one file per group and variant (`kernels/<group>/<variant>.rs`), so a kernel's
//! variants read side by side.
//!
//! Adding a variant (as `omp-cpu` and `omp-gpu` were): write
//! `kernels/{stream,basic,lcals,polybench,apps}/<variant>.rs` with `impl <Group>Kernels for ...`
//! (methods left out report "unsupported"), declare them in each group's `mod.rs`, and add the
//! struct, its [`Variant`] impl and one line in [`all`] below.

use crate::kernels::apps::AppsKernels;
use crate::kernels::basic::BasicKernels;
use crate::kernels::lcals::LcalsKernels;
use crate::kernels::polybench::PolybenchKernels;
use crate::kernels::stream::StreamKernels;
use std::fmt;

/// The variant does not implement this kernel (reported, not an error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported;

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("kernel not implemented by this variant")
    }
}

impl std::error::Error for Unsupported {}

/// Result of a variant's kernel method.
pub type Outcome = Result<(), Unsupported>;

/// A way of running every kernel of the suite.
pub trait Variant: StreamKernels + BasicKernels + LcalsKernels + PolybenchKernels + AppsKernels + Sync {
    /// Name used by `--variants` and in reports.
    fn name(&self) -> &'static str;
    /// One line for `--help` and the README.
    fn description(&self) -> &'static str;
}

impl fmt::Debug for dyn Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Sequential Rust: plain f64 arithmetic in RAJAPerf's evaluation order (Base_Seq). The
/// reference every other variant's checksum is compared with.
#[derive(Clone, Copy, Debug)]
pub struct Seq;

/// Hand-written rayon parallel iterators over the same loop bodies.
#[derive(Clone, Copy, Debug)]
pub struct Rayon;

/// C with `#pragma omp parallel for` (gcc -fopenmp, libgomp), RAJAPerf's Base_OpenMP.
#[derive(Clone, Copy, Debug)]
pub struct COmp;

impl Variant for Seq {
    fn name(&self) -> &'static str {
        "seq"
    }
    fn description(&self) -> &'static str {
        "sequential Rust (reference checksums)"
    }
}

impl Variant for Rayon {
    fn name(&self) -> &'static str {
        "rayon"
    }
    fn description(&self) -> &'static str {
        "hand-written rayon (RAYON_NUM_THREADS threads)"
    }
}

impl Variant for COmp {
    fn name(&self) -> &'static str {
        "c-omp"
    }
    fn description(&self) -> &'static str {
        "C with #pragma omp parallel for, gcc -fopenmp (OMP_NUM_THREADS threads)"
    }
}

/// The C kernels of `c-omp` with `#pragma omp target teams distribute parallel for`, built by GCC's NVPTX
/// offload and loaded at run time (`kernels::c_side`): RAJAPerf's Base_OpenMPTarget in C, the OpenMP peer of
/// `omp-gpu`. Its arrays are mapped before the timed rep loop, as `omp-gpu`'s are.
#[derive(Clone, Copy, Debug)]
pub struct COmpTarget;

impl Variant for COmpTarget {
    fn name(&self) -> &'static str {
        "c-omp-target"
    }
    fn description(&self) -> &'static str {
        "C with #pragma omp target teams distribute parallel for, GCC 12 NVPTX offload (sm_80 PTX), data mapped around the rep loop"
    }
}

/// c-omp-target with `simd` on every loop construct (`target teams distribute parallel for simd`): GCC's NVPTX
/// runtime runs an OpenMP thread per warp and spreads only `simd` loops over the warp's lanes.
#[derive(Clone, Copy, Debug)]
pub struct COmpTargetSimd;

impl Variant for COmpTargetSimd {
    fn name(&self) -> &'static str {
        "c-omp-target-simd"
    }
    fn description(&self) -> &'static str {
        "c-omp-target with `parallel for simd` (GCC puts only simd loops on a warp's lanes)"
    }
}

/// omp-rs directives on the host: `#[omp::parallel_for]` (with `collapse`, `reduction`,
/// `#[omp::atomic]`) in the loops of `seq`, RAJAPerf's Base_OpenMP written with omp-rs.
#[derive(Clone, Copy, Debug)]
pub struct OmpCpu;

/// omp-rs target regions (`#[omp::target_teams_distribute_parallel_for]`) with the data mapped
/// by a `#[omp::target_data]` region around the rep loop, RAJAPerf's Base_OpenMPTarget. Without
/// a device (or device image) the same regions run on the host cores.
#[derive(Clone, Copy, Debug)]
pub struct OmpGpu;

impl Variant for OmpCpu {
    fn name(&self) -> &'static str {
        "omp-cpu"
    }
    fn description(&self) -> &'static str {
        "omp-rs #[omp::parallel_for] on the host (OMP_NUM_THREADS threads)"
    }
}

impl Variant for OmpGpu {
    fn name(&self) -> &'static str {
        "omp-gpu"
    }
    fn description(&self) -> &'static str {
        "omp-rs target regions, data resident in target_data (host cores without a device)"
    }
}

/// GEMM and ATAX as CUDA's tiled kernels are written, in omp-rs's SPMD form (`target_teams` + `parallel`, team-local
/// arrays, barriers; `kernels/polybench/omp_gpu_tiled.rs`); the other kernels are `omp-gpu`'s.
#[derive(Clone, Copy, Debug)]
pub struct OmpGpuTiled;

impl Variant for OmpGpuTiled {
    fn name(&self) -> &'static str {
        "omp-gpu-tiled"
    }
    fn description(&self) -> &'static str {
        "GEMM and ATAX as tiled SPMD target regions (team-local tiles, barriers), data resident in target_data"
    }
}

impl StreamKernels for OmpGpuTiled {}
impl BasicKernels for OmpGpuTiled {}
impl LcalsKernels for OmpGpuTiled {}
impl AppsKernels for OmpGpuTiled {}

/// Every variant, in report order. One line per variant.
pub fn all() -> Vec<&'static dyn Variant> {
    vec![&Seq, &Rayon, &COmp, &OmpCpu, &OmpGpu, &OmpGpuTiled, &COmpTarget, &COmpTargetSimd]
}

/// Looks a variant up by its `--variants` name.
pub fn by_name(name: &str) -> Option<&'static dyn Variant> {
    all().into_iter().find(|v| v.name() == name)
}
