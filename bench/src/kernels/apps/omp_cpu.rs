use super::AppsKernels;
use crate::variant::OmpCpu;

impl AppsKernels for OmpCpu {}
