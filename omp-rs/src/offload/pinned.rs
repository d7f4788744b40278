//! [`HostPinned<T>`]: a host vector page-locked for the device's copies, as CUDA codes use `cudaHostRegister` or
//! `cudaMallocHost`.
//!
//! libomptarget copies mapped host memory with the CUDA driver, which moves pageable memory through its own staging
//! buffers: on the H200 machine about 9 GB/s host to device and 17 GB/s back for 4 GiB, against 55 GB/s both ways
//! once the same memory is registered (`bench/RESULTS.md`, host-device copies). Registering costs about 40 ms per
//! GiB (it pins every page), so it pays for arrays that are copied more than once or are large and copied to the
//! device; omp-rs does not register on its own. The vector is owned, not borrowed: a registration must end before its
//! memory is freed, and `mem::forget` of a guard that only borrowed the memory would let the memory go first.
//! Forgetting a `HostPinned` leaks the vector with its pages still locked, which is safe.
//!
//! Only CUDA devices are served (the driver's `cuMemHostRegister`, portable to every context); elsewhere (no driver,
//! `OMP_TARGET_OFFLOAD=DISABLED`, AMD GPUs, libomptarget's host plugin) the vector stays pageable and works the same.

use core::ffi::c_void;
use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use libomptarget_sys::cuda::{self as cu, CUcontext, CudaLib};

use super::policy::{self, log, Policy};
use super::registry;
use super::repr::Pod;

/// A `Vec<T>` whose memory is page-locked while it lives (when a CUDA device is present), so that the device's
/// copies of it (maps, `target_update!`) run at the link's speed. Dereferences to `[T]`: map it, pass it to
/// regions and update it like any slice; the length cannot change while it is registered.
///
/// ```
/// let mut a = omp::HostPinned::new(vec![1.0f64; 1 << 20]);
/// let x: &mut [f64] = &mut a; // map and update `x` as any slice
/// x[0] = 2.0;
/// assert_eq!(a.into_inner()[0], 2.0);
/// ```
#[derive(Debug)]
pub struct HostPinned<T: Pod> {
    vec: Vec<T>,
    registered: bool,
}

/// The CUDA driver and the primary context of device 0 (retained for the process), in which registrations are
/// made; `None` without a usable CUDA device.
fn driver() -> Option<(&'static CudaLib, usize)> {
    static CTX: OnceLock<Option<usize>> = OnceLock::new();
    if policy::policy() == Policy::Disabled {
        return None;
    }
    // The runtime's start activates the primary contexts with omp-rs's scheduling flags first.
    let rt = registry::runtime().ok()?;
    if rt.cuda.devices.is_empty() {
        return None;
    }
    let lib = cu::cuda()?;
    let ctx = (*CTX.get_or_init(|| {
        let mut dev = 0;
        let mut ctx: CUcontext = std::ptr::null_mut();
        // SAFETY: cuInit ran (the runtime's probe found devices); ordinal 0 exists; each call writes one handle. The
        // retain is never released, as the probe's.
        let ok = unsafe {
            (lib.cu_device_get)(&mut dev, 0) == cu::CUDA_SUCCESS && (lib.cu_device_primary_ctx_retain)(&mut ctx, dev) == cu::CUDA_SUCCESS
        };
        ok.then_some(ctx as usize)
    }))?;
    Some((lib, ctx))
}

/// Run `f` with `ctx` current on this thread.
fn in_context(lib: &CudaLib, ctx: usize, f: impl FnOnce() -> cu::CUresult) -> cu::CUresult {
    // SAFETY: `ctx` is a retained primary context; push and pop pair up on this thread.
    if unsafe { (lib.cu_ctx_push_current)(ctx as CUcontext) } != cu::CUDA_SUCCESS {
        return -1;
    }
    let rc = f();
    let mut popped: CUcontext = std::ptr::null_mut();
    // SAFETY: pops the context pushed above.
    unsafe { (lib.cu_ctx_pop_current)(&mut popped) };
    rc
}

impl<T: Pod> HostPinned<T> {
    /// Take `vec` and page-lock its elements for the device's copies. Without a CUDA device, or when the driver
    /// refuses (say, the memory is registered already), it stays pageable: [`is_registered`](Self::is_registered)
    /// says which (`OMP_RS_LOG=info` says why).
    pub fn new(vec: Vec<T>) -> HostPinned<T> {
        let bytes = std::mem::size_of_val(vec.as_slice());
        let registered = bytes > 0
            && driver().is_some_and(|(lib, ctx)| {
                let p = vec.as_ptr() as *mut c_void;
                // SAFETY: `p..p+bytes` is the vector's live allocation, which this value owns and never reallocates
                // until the registration ends (drop, `into_inner`).
                let rc = in_context(lib, ctx, || unsafe { (lib.cu_mem_host_register)(p, bytes, cu::CU_MEMHOSTREGISTER_PORTABLE) });
                if rc != cu::CUDA_SUCCESS {
                    log(|| format!("HostPinned: cuMemHostRegister of {bytes} bytes failed ({rc}); the vector stays pageable"));
                }
                rc == cu::CUDA_SUCCESS
            });
        HostPinned { vec, registered }
    }

    /// Whether the elements are page-locked.
    pub fn is_registered(&self) -> bool {
        self.registered
    }

    /// End the registration and give the vector back.
    pub fn into_inner(mut self) -> Vec<T> {
        self.unregister();
        std::mem::take(&mut self.vec)
    }

    fn unregister(&mut self) {
        if !std::mem::take(&mut self.registered) {
            return;
        }
        if let Some((lib, ctx)) = driver() {
            let p = self.vec.as_ptr() as *mut c_void;
            // Libomptarget copies synchronously, and kernels never read host memory, so nothing uses the
            // registration any more.
            // SAFETY: `p` is the start of the range registered in `new`.
            in_context(lib, ctx, || unsafe { (lib.cu_mem_host_unregister)(p) });
        }
    }
}

impl<T: Pod> Drop for HostPinned<T> {
    fn drop(&mut self) {
        self.unregister();
    }
}

impl<T: Pod> Deref for HostPinned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.vec
    }
}

impl<T: Pod> DerefMut for HostPinned<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.vec
    }
}
