use super::BasicKernels;
use crate::variant::OmpGpu;

impl BasicKernels for OmpGpu {}
