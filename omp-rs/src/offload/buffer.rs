//! [`DeviceBuffer<T>`]: device memory from `omp_target_alloc`, outside the present table; passed to kernels
//! as an `is_device_ptr` argument (two `LITERAL` slots: device pointer, length).

use core::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;

use super::device::{self, Decision, Device};
use super::repr::Pod;
use super::{queue, registry};
use crate::Error;

/// `len` elements of `T` in the memory of one device. Dropping it frees the memory.
///
/// Needs an offload device: under `DEFAULT` with no device, [`DeviceBuffer::alloc`] returns
/// [`Error::NoDevice`] (there is no host stand-in; use a `Vec` and a data region for code that must also run
/// on the host).
#[derive(Debug)]
pub struct DeviceBuffer<T: Pod> {
    ptr: NonNull<c_void>,
    len: usize,
    device: Device,
    _t: PhantomData<T>,
}

// SAFETY: the buffer owns device memory; `&DeviceBuffer` only reads it through libomptarget copies, and
// libomptarget is thread-safe.
unsafe impl<T: Pod> Send for DeviceBuffer<T> {}
// SAFETY: as above; mutation needs `&mut`.
unsafe impl<T: Pod> Sync for DeviceBuffer<T> {}

impl<T: Pod> DeviceBuffer<T> {
    /// Allocate `len` uninitialised elements on `device` (`None`: the default device). The contents are
    /// arbitrary bit patterns, which every [`Pod`] type accepts.
    ///
    /// # Errors
    /// [`Error::NoDevice`] when no device is usable, [`Error::InvalidDevice`], [`Error::AllocFailed`].
    pub fn alloc(len: usize, device: Option<i64>) -> Result<DeviceBuffer<T>, Error> {
        let d = match device::resolve(device, true)? {
            Decision::Offload(d) => d,
            Decision::Host(r) => {
                return Err(Error::NoDevice { policy: super::policy::policy(), reason: format!("DeviceBuffer needs a device ({r})") })
            }
        };
        let rt = registry::runtime()?.rt;
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::AllocFailed { bytes: usize::MAX, device: d.0 })?;
        // omp_target_alloc(0) may return null; allocate at least one byte so the pointer is real.
        let ptr = rt.target_alloc(bytes.max(1), d.0)?;
        Ok(DeviceBuffer { ptr, len, device: d, _t: PhantomData })
    }

    /// Allocate and copy `src` in.
    ///
    /// # Errors
    /// As [`alloc`](Self::alloc), plus [`Error::MemcpyFailed`].
    pub fn from_slice(src: &[T], device: Option<i64>) -> Result<DeviceBuffer<T>, Error> {
        let mut b = DeviceBuffer::alloc(src.len(), device)?;
        b.copy_from_host(src)?;
        Ok(b)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device holding it.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The device address (for diagnostics and kernel arguments).
    pub fn device_ptr(&self) -> usize {
        self.ptr.as_ptr() as usize
    }

    /// Copy the whole buffer into `dst` (same length).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`], [`Error::MemcpyFailed`].
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<(), Error> {
        if dst.len() != self.len {
            return Err(Error::LengthMismatch { what: "DeviceBuffer::copy_to_host".into(), expected: self.len, found: dst.len() });
        }
        let rt = registry::runtime()?.rt;
        queue::sync(self.device.0)?;
        // SAFETY: `dst` is valid for `size_of_val(dst)` writes of a `Pod` type; the source is this buffer's
        // allocation of the same size on `self.device`, which no queued kernel writes now (settled above).
        unsafe { rt.memcpy_from_device(dst.as_mut_ptr().cast(), self.ptr.as_ptr(), std::mem::size_of_val(dst), self.device.0) }
    }

    /// Copy `src` (same length) into the buffer.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`], [`Error::MemcpyFailed`].
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<(), Error> {
        if src.len() != self.len {
            return Err(Error::LengthMismatch { what: "DeviceBuffer::copy_from_host".into(), expected: self.len, found: src.len() });
        }
        let rt = registry::runtime()?.rt;
        queue::sync(self.device.0)?;
        // SAFETY: the destination is this buffer's allocation, exclusively borrowed, and no queued kernel uses it
        // now (settled above); `src` is valid for reads.
        unsafe { rt.memcpy_to_device(self.ptr.as_ptr(), src.as_ptr().cast(), std::mem::size_of_val(src), self.device.0) }
    }

    /// Copy the buffer into a new `Vec`.
    ///
    /// # Errors
    /// [`Error::MemcpyFailed`].
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        let mut v: Vec<T> = Vec::with_capacity(self.len);
        let rt = registry::runtime()?.rt;
        queue::sync(self.device.0)?;
        // SAFETY: the capacity holds `len` elements; the copy initialises all of them before `set_len`, and any
        // bit pattern is a valid `T: Pod`; no queued kernel writes the buffer now (settled above).
        unsafe {
            rt.memcpy_from_device(v.as_mut_ptr().cast(), self.ptr.as_ptr(), self.len * std::mem::size_of::<T>(), self.device.0)?;
            v.set_len(self.len);
        }
        Ok(v)
    }
}

impl<T: Pod> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let Some(r) = registry::runtime_if_loaded() {
            queue::settle(self.device.0);
            // SAFETY: allocated by `target_alloc` on this device; no `&self` outlives the drop, and no queued kernel
            // uses it now (settled above).
            unsafe { r.rt.target_free(self.ptr, self.device.0) };
        }
    }
}

/// The device's copy of `x` on `device`, when the whole of `x` is mapped there in one piece (both ends present, as far
/// apart on the device as on the host); `None` otherwise. For `OMP_RS_CHECK=host`, which re-runs a region of a data
/// block from the device's copies of its inputs. Waits for the device's queue first.
///
/// # Errors
/// [`Error::MemcpyFailed`], no runtime.
pub(crate) fn device_copy<T: Pod>(x: &[T], device: Device) -> Result<Option<Vec<T>>, Error> {
    let bytes = std::mem::size_of_val(x);
    if bytes == 0 {
        return Ok(Some(Vec::new()));
    }
    let rt = registry::runtime()?.rt;
    let first = x.as_ptr().cast::<u8>();
    let last = first.wrapping_add(bytes - 1);
    if !rt.is_present(first, device.0) || !rt.is_present(last, device.0) {
        return Ok(None);
    }
    let (df, dl) = (rt.mapped_ptr(first, device.0), rt.mapped_ptr(last, device.0));
    if df == 0 || dl != df + (bytes - 1) {
        return Ok(None);
    }
    let mut v: Vec<T> = Vec::with_capacity(x.len());
    queue::sync(device.0)?;
    // SAFETY: the capacity holds `x.len()` elements, all written by the copy before `set_len` (any bit pattern is a
    // valid `T: Pod`); `df..df + bytes` is the device copy of `x`'s bytes (present at both ends, the same distance
    // apart as on the host: libomptarget maps a host range to one device range), which no queued kernel writes now.
    unsafe {
        rt.memcpy_from_device(v.as_mut_ptr().cast(), df as *const c_void, bytes, device.0)?;
        v.set_len(x.len());
    }
    Ok(Some(v))
}
