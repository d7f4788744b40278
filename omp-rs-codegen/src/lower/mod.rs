//! Lowerings of the directive model: host code (threads on the CPU) and, for target regions, the
//! device kernel and its launch; `declare_target` structs (`device_struct`). Imports `plan`, `analyze`, `syntax`,
//! `model`, `ctxt` and `names`, never the rewrites or the driver.

pub(crate) mod affine;
pub(crate) mod checks;
pub(crate) mod device;
pub(crate) mod device_struct;
pub(crate) mod host;
pub(crate) mod offload;
pub(crate) mod print;
pub(crate) mod window;
