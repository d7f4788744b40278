//! `println!` output of kernels that have no printf of their own (AMD GPUs, the host plugin): a
//! [`PrintBuffer`] per device in pinned host memory, which the kernels append lines to and which is written to
//! standard output once they have finished (`omp_device::print`). NVIDIA kernels print through CUDA's printf
//! and leave the buffer empty.

use std::io::Write;

use omp_rs_abi::{PanicRecord, PrintBuffer, PRINT_BUFFER_BYTES};

use super::result::Rt;

/// A fresh print buffer for `device` (its address, for [`PanicRecord::print_buffer`]); `None` when pinned memory
/// cannot be had (kernels' lines are then dropped).
pub(crate) fn allocate(rt: Rt, device: i32) -> Option<u64> {
    let p = rt.alloc_host(PRINT_BUFFER_BYTES, device).ok()?.as_ptr().cast::<PrintBuffer>();
    let header = PrintBuffer { capacity: (PRINT_BUFFER_BYTES - std::mem::size_of::<PrintBuffer>()) as u64, ..PrintBuffer::default() };
    // SAFETY: a fresh pinned allocation of `PRINT_BUFFER_BYTES` (page-aligned), larger than the header.
    unsafe { p.write(header) };
    Some(p as u64)
}

/// Writes what kernels printed into the buffer of panic record `rec` to standard output and empties it. Call once
/// the kernels that may print into it have finished (a settled queue, a synchronous launch that returned).
pub(crate) fn flush(rec: usize) {
    // SAFETY: `rec` is a device's pinned `PanicRecord` (registry::device_state), read volatile: kernels wrote it.
    let record: PanicRecord = unsafe { (rec as *const PanicRecord).read_volatile() };
    let header = record.print_buffer as *mut PrintBuffer;
    if header.is_null() {
        return;
    }
    // SAFETY: `print_buffer` is the address `allocate` returned for this device; no kernel runs that writes it
    // (the caller's promise), so its header and its first `min(used, capacity)` text bytes are initialised.
    let (h, text) = unsafe {
        let h = header.read_volatile();
        let len = h.used.min(h.capacity) as usize;
        (h, std::slice::from_raw_parts(header.add(1).cast::<u8>(), len))
    };
    if h.used == 0 {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text);
    if h.dropped > 0 {
        let _ = writeln!(out, "omp-rs: {} bytes of kernel output did not fit the 1 MiB print buffer and were dropped", h.dropped);
    }
    let _ = out.flush();
    // SAFETY: as above; emptied for the next kernels.
    unsafe { header.write_volatile(PrintBuffer { used: 0, dropped: 0, ..h }) };
}
