use super::LcalsKernels;
use crate::variant::OmpCpu;

impl LcalsKernels for OmpCpu {}
