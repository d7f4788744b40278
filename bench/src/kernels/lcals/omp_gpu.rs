use super::LcalsKernels;
use crate::variant::OmpGpu;

impl LcalsKernels for OmpGpu {}
