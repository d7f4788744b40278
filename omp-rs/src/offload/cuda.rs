//! CUDA driver calls made before libomptarget initialises: activate every device's
//! primary context with `CU_CTX_SCHED_SPIN` so libomptarget does not pick `BLOCKING_SYNC` (~18 µs more per
//! synchronous launch on an H200), and read each device's compute capability and SM count.
//!
//! `OMP_RS_CUDA_SCHED` = `spin` (default) | `auto` | `blocking` | `keep` (leave libomptarget's choice).

use libomptarget_sys::cuda as cu;

/// One CUDA device as the driver reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CudaDevice {
    pub(crate) ordinal: i32,
    /// Compute capability (major, minor).
    pub(crate) cc: (i32, i32),
    pub(crate) sms: u32,
    /// Primary-context flags after activation (`None` when left alone).
    pub(crate) sched: Option<u32>,
}

/// What the driver reported; `devices` is empty when there is no driver or no device.
#[derive(Debug, Clone, Default)]
pub(crate) struct CudaInfo {
    pub(crate) devices: Vec<CudaDevice>,
    pub(crate) note: Option<String>,
}

fn sched_flag() -> Option<u32> {
    match std::env::var("OMP_RS_CUDA_SCHED").map(|v| v.trim().to_ascii_lowercase()) {
        Err(_) => Some(cu::CU_CTX_SCHED_SPIN),
        Ok(v) => match v.as_str() {
            "spin" | "" => Some(cu::CU_CTX_SCHED_SPIN),
            "auto" => Some(cu::CU_CTX_SCHED_AUTO),
            "blocking" => Some(cu::CU_CTX_SCHED_BLOCKING_SYNC),
            "keep" => None,
            other => {
                eprintln!(
                    "omp-rs: warning: OMP_RS_CUDA_SCHED={other:?} is not valid; accepted values are spin, auto, \
                     blocking and keep; using spin"
                );
                Some(cu::CU_CTX_SCHED_SPIN)
            }
        },
    }
}

/// Probe the driver and activate the primary contexts. Never fails: problems become `note`.
pub(crate) fn probe_and_activate() -> CudaInfo {
    let Some(lib) = cu::cuda() else {
        return CudaInfo { devices: Vec::new(), note: Some("no CUDA driver (libcuda.so.1)".into()) };
    };
    let mut info = CudaInfo::default();
    if !lib.plain_name_loads {
        info.note = Some(
            "libcuda.so.1 loads but `libcuda.so` does not: libomptarget's CUDA plugin dlopens `libcuda.so` and will \
             find no device; create the symlink or install the driver's development package"
                .into(),
        );
    }
    // SAFETY: `cuInit(0)` is the driver's documented first call; it is idempotent.
    if unsafe { (lib.cu_init)(0) } != cu::CUDA_SUCCESS {
        info.note = Some("cuInit failed (no usable NVIDIA GPU or driver mismatch)".into());
        return info;
    }
    let mut count = 0;
    // SAFETY: writes one int.
    if unsafe { (lib.cu_device_get_count)(&mut count) } != cu::CUDA_SUCCESS {
        return info;
    }
    let want = sched_flag();
    for ordinal in 0..count {
        let mut dev = 0;
        // SAFETY: `ordinal` < count; writes one int.
        if unsafe { (lib.cu_device_get)(&mut dev, ordinal) } != cu::CUDA_SUCCESS {
            continue;
        }
        let attr = |a| {
            let mut v = 0;
            // SAFETY: valid device handle and attribute id; writes one int.
            let rc = unsafe { (lib.cu_device_get_attribute)(&mut v, a, dev) };
            if rc == cu::CUDA_SUCCESS {
                v
            } else {
                0
            }
        };
        let cc = (attr(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), attr(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
        let sms = u32::try_from(attr(cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)).unwrap_or(0);
        let mut sched = None;
        if let Some(flag) = want {
            let (mut flags, mut active) = (0u32, 0);
            // SAFETY: valid device handle; writes two ints.
            let rc = unsafe { (lib.cu_device_primary_ctx_get_state)(dev, &mut flags, &mut active) };
            if rc == cu::CUDA_SUCCESS && active == 0 {
                let mut ctx = std::ptr::null_mut();
                // SAFETY: the context is inactive, so its flags may be set; retaining activates it. The retain
                // is never released: the context stays active for the process, as libomptarget expects.
                let ok = unsafe {
                    (lib.cu_device_primary_ctx_set_flags)(dev, flag) == cu::CUDA_SUCCESS
                        && (lib.cu_device_primary_ctx_retain)(&mut ctx, dev) == cu::CUDA_SUCCESS
                };
                if ok {
                    sched = Some(flag);
                }
            } else if rc == cu::CUDA_SUCCESS {
                sched = Some(flags);
            }
        }
        info.devices.push(CudaDevice { ordinal, cc, sms, sched });
    }
    info
}
