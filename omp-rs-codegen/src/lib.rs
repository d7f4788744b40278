//! The directive model of omp-rs, shared by the proc macros (`omp-rs-macros`) and the build helper
//! (`omp-rs-build`) so that both derive kernel names, argument order and layouts from one place.
//!
//! Stages, one module each: [`parse`] (attribute tokens → [`model`]), [`check`] (cross-clause rules),
//! [`loops`] (canonical loop nests), [`analyze`] (captures, data sharing, race freedom),
//! [`lower`] (host code; device kernels), and [`expand`] (the macro entry points).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod analyze;
pub mod ctxt;
pub mod desugar;
pub mod driver;
pub mod lower;
pub mod model;
pub(crate) mod names;
pub mod plan;
pub mod syntax;
