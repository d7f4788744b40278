//! The directive model of omp-rs, shared by the proc macros (`omp-rs-macros`) and the build helper
//! (`omp-rs-build`) so that both derive kernel names, argument order and layouts from one place.
//!
//! Stages, one module each: [`parse`] (attribute tokens → [`model`]), [`check`] (cross-clause rules),
//! [`loops`] (canonical loop nests), [`analyze`] (captures, data sharing, race freedom),
//! [`lower`] (host code; device kernels), and [`expand`] (the macro entry points).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod abi;
pub mod analyze;
pub mod body;
pub mod check;
pub mod ctxt;
pub mod declare_reduction;
pub mod device_struct;
pub(crate) mod element_reduction;
pub mod expand;
pub mod fields;
pub mod generic;
pub(crate) mod host_parallel;
pub mod keyword;
pub mod loops;
pub mod lower;
pub mod manifest;
pub mod model;
pub(crate) mod names;
pub mod ndarrays;
pub mod nowait;
pub mod outline;
pub mod parse;
pub mod place;
pub(crate) mod private_lets;
pub mod resolve;
pub(crate) mod scan;
pub(crate) mod spmd;
pub mod standalone;
pub mod struct_table;
pub mod target;
pub(crate) mod token_use;
pub(crate) mod tokens;
pub mod types;
