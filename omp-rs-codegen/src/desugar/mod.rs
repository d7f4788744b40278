//! Rewrites of the user's code into forms the analysis and the lowerings take.

pub(crate) mod element_reduction;
pub mod fields;
pub(crate) mod host_parallel;
pub mod ndarrays;
pub mod nowait;
pub(crate) mod private_lets;
pub(crate) mod scan;
pub(crate) mod spmd;
