use super::PolybenchKernels;
use crate::variant::OmpGpu;

impl PolybenchKernels for OmpGpu {}
