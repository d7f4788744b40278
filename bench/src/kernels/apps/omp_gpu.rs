use super::AppsKernels;
use crate::variant::OmpGpu;

impl AppsKernels for OmpGpu {}
