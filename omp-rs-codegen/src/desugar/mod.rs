//! Rewrites of the user's code into forms the analysis and the lowerings take: struct fields and ndarray arrays as
//! locals and flat slices, SPMD regions and host `parallel` blocks as loop nests, scans, element reductions, private
//! `let`s, `nowait` regions as data blocks. They use the analysis' tools, so this stage comes after `analyze`;
//! nothing but the driver imports it.

pub(crate) mod element_reduction;
pub(crate) mod fields;
pub(crate) mod host_parallel;
pub(crate) mod ndarrays;
pub(crate) mod nowait;
pub(crate) mod private_lets;
pub(crate) mod scan;
pub(crate) mod spmd;
