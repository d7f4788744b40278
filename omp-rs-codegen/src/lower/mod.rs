//! Lowerings of the directive model: host code (threads on the CPU) and, for target regions, the
//! device kernel and its launch.

pub mod host;
pub mod names;
