//! The entry points.

pub mod declare_reduction;
pub mod expand;
pub mod outline;
pub mod standalone;
