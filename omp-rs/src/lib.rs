//! omp-rs: OpenMP-style directives for Rust.
pub use omp_rs_macros::*;

mod error;
pub mod offload;

pub use error::Error;
pub use offload::{
    get_default_device, get_num_devices, is_initial_device, target_is_present, DataRegion, DeviceBuffer,
};

#[doc(hidden)]
pub mod __private {
    pub use crate::offload::private as offload;
}
