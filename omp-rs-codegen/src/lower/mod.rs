//! Lowerings of the directive model: host code (threads on the CPU) and, for target regions, the
//! device kernel and its launch.

pub mod affine;
pub mod checks;
pub mod device;
pub mod device_struct;
pub mod host;
pub mod offload;
pub mod print;
pub mod window;
