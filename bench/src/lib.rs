//! omp-bench: a RAJAPerf-style benchmark suite for omp-rs.
//!
//! Kernels follow RAJAPerf (commit 9af20b3) as described in `docs/rajaperf-kernels.md`: the
//! same problem sizes, reps, input initialisation and long double checksums, so the `seq`
//! variant reproduces RAJAPerf's Base_Seq checksums. Variants (`seq`, `rayon`, `c-omp`, later
//! `omp-cpu`/`omp-gpu`) run the same kernels; the harness times the rep loops and checks every
//! variant's checksum against `seq`.
//!
//! Layout: [`rpdata`] (init, rand, checksum; C shared with the CUDA baseline), [`kernel`]
//! (what a kernel is), [`variant`] (what a variant is, registry), [`kernels`] (one directory
//! per group: data + one file per variant), [`harness`] (warm-up, repeats, checks),
//! [`report`] (JSON, Markdown, plots, merge), [`ceiling`] (measured copy bandwidth).

#![deny(missing_docs)]
// Kernel loops index arrays the way RAJAPerf's bodies do, so they read side by side with the
// documented formulas and the C/CUDA versions.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

// openmp-sys makes cargo link libgomp for the C OpenMP variant (see build.rs).
extern crate openmp_sys;

pub mod ceiling;
pub mod cli;
pub mod disjoint;
pub mod harness;
pub mod kernel;
pub mod kernels;
pub mod overhead;
pub mod report;
pub mod rpdata;
pub mod timer;
pub mod variant;
