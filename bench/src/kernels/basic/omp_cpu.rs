use super::BasicKernels;
use crate::variant::OmpCpu;

impl BasicKernels for OmpCpu {}
