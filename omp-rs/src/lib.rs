//! omp-rs: OpenMP-style directives for Rust.
pub use omp_rs_macros::*;
