//! The few CUDA driver entry points omp-rs needs before libomptarget initialises: activate each device's primary
//! context with `CU_CTX_SCHED_SPIN` (libomptarget would otherwise pick `BLOCKING_SYNC`, which costs ~18 µs per
//! synchronous launch on an H200) and read the compute capability and SM count (image selection, default grid);
//! page-lock host memory for `omp::HostPinned` (`cuMemHostRegister`, which libomptarget does not offer for CUDA).
//!
//! Loaded with libloading from `libcuda.so.1`, then `libcuda.so`; absent on machines without the NVIDIA driver,
//! which is not an error at this layer.

use core::ffi::{c_int, c_uint, c_void};
use std::fmt;
use std::sync::OnceLock;

/// `CUresult`; 0 is `CUDA_SUCCESS`.
pub type CUresult = c_int;
/// `CUdevice` (an ordinal handle).
pub type CUdevice = c_int;
/// `CUcontext`.
pub type CUcontext = *mut c_void;

/// `CUDA_SUCCESS`.
pub const CUDA_SUCCESS: CUresult = 0;
/// `CU_CTX_SCHED_AUTO`.
pub const CU_CTX_SCHED_AUTO: c_uint = 0x0;
/// `CU_CTX_SCHED_SPIN`.
pub const CU_CTX_SCHED_SPIN: c_uint = 0x1;
/// `CU_CTX_SCHED_BLOCKING_SYNC`.
pub const CU_CTX_SCHED_BLOCKING_SYNC: c_uint = 0x4;
/// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`.
pub const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: c_int = 16;
/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR`.
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: c_int = 75;
/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR`.
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: c_int = 76;

/// `CU_MEMHOSTREGISTER_PORTABLE`: the registration counts in every context, not only the current one.
pub const CU_MEMHOSTREGISTER_PORTABLE: c_uint = 0x1;

/// Library names tried, in order.
pub const CUDA_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];

/// Function pointers into the CUDA driver; owns the library.
pub struct CudaLib {
    /// `cuInit`.
    pub cu_init: unsafe extern "C" fn(flags: c_uint) -> CUresult,
    /// `cuDeviceGetCount`.
    pub cu_device_get_count: unsafe extern "C" fn(count: *mut c_int) -> CUresult,
    /// `cuDeviceGet`.
    pub cu_device_get: unsafe extern "C" fn(device: *mut CUdevice, ordinal: c_int) -> CUresult,
    /// `cuDeviceGetAttribute`.
    pub cu_device_get_attribute: unsafe extern "C" fn(pi: *mut c_int, attrib: c_int, dev: CUdevice) -> CUresult,
    /// `cuDevicePrimaryCtxSetFlags_v2`.
    pub cu_device_primary_ctx_set_flags: unsafe extern "C" fn(dev: CUdevice, flags: c_uint) -> CUresult,
    /// `cuDevicePrimaryCtxGetState`.
    pub cu_device_primary_ctx_get_state: unsafe extern "C" fn(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult,
    /// `cuDevicePrimaryCtxRetain`.
    pub cu_device_primary_ctx_retain: unsafe extern "C" fn(pctx: *mut CUcontext, dev: CUdevice) -> CUresult,
    /// `cuCtxPushCurrent_v2`.
    pub cu_ctx_push_current: unsafe extern "C" fn(ctx: CUcontext) -> CUresult,
    /// `cuCtxPopCurrent_v2`.
    pub cu_ctx_pop_current: unsafe extern "C" fn(pctx: *mut CUcontext) -> CUresult,
    /// `cuMemHostRegister_v2`.
    pub cu_mem_host_register: unsafe extern "C" fn(p: *mut c_void, bytesize: usize, flags: c_uint) -> CUresult,
    /// `cuMemHostUnregister`.
    pub cu_mem_host_unregister: unsafe extern "C" fn(p: *mut c_void) -> CUresult,
    name: &'static str,
    /// Whether the literal name `libcuda.so` (the one libomptarget's CUDA plugin dlopens) also loads.
    pub plain_name_loads: bool,
    _library: libloading::Library,
}

impl fmt::Debug for CudaLib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CudaLib").field("name", &self.name).field("plain_name_loads", &self.plain_name_loads).finish()
    }
}

impl CudaLib {
    /// The name the driver was loaded under.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

static CUDA: OnceLock<Option<CudaLib>> = OnceLock::new();

/// The CUDA driver, or `None` when it is not installed or lacks a symbol.
pub fn cuda() -> Option<&'static CudaLib> {
    CUDA.get_or_init(load).as_ref()
}

fn load() -> Option<CudaLib> {
    for name in CUDA_NAMES {
        // SAFETY: loading the CUDA driver runs its initialisers only; it starts no work until `cuInit`.
        let Ok(library) = (unsafe { libloading::Library::new(name) }) else { continue };
        macro_rules! sym {
            ($n:literal) => {{
                // SAFETY: the field type mirrors the driver API signature of `$n` (cuda.h, CUDA >= 11); the
                // pointer stays valid because `CudaLib` owns `library`.
                let s = unsafe { library.get(concat!($n, "\0").as_bytes()) };
                match s {
                    Ok(s) => *s,
                    Err(_) => return None,
                }
            }};
        }
        let lib = CudaLib {
            cu_init: sym!("cuInit"),
            cu_device_get_count: sym!("cuDeviceGetCount"),
            cu_device_get: sym!("cuDeviceGet"),
            cu_device_get_attribute: sym!("cuDeviceGetAttribute"),
            cu_device_primary_ctx_set_flags: sym!("cuDevicePrimaryCtxSetFlags_v2"),
            cu_device_primary_ctx_get_state: sym!("cuDevicePrimaryCtxGetState"),
            cu_device_primary_ctx_retain: sym!("cuDevicePrimaryCtxRetain"),
            cu_ctx_push_current: sym!("cuCtxPushCurrent_v2"),
            cu_ctx_pop_current: sym!("cuCtxPopCurrent_v2"),
            cu_mem_host_register: sym!("cuMemHostRegister_v2"),
            cu_mem_host_unregister: sym!("cuMemHostUnregister"),
            name,
            // SAFETY: as above; the extra handle is dropped at once (the driver stays loaded through `library`).
            plain_name_loads: *name == "libcuda.so" || unsafe { libloading::Library::new("libcuda.so") }.is_ok(),
            _library: library,
        };
        return Some(lib);
    }
    None
}
