use super::PolybenchKernels;
use crate::variant::OmpCpu;

impl PolybenchKernels for OmpCpu {}
