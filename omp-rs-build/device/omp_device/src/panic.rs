//! Kernel panics (ARCHITECTURE.md "Panics").
//!
//! The runtime points the device global [`__omp_rs_panic_record`] at a pinned host
//! [`PanicRecord`] when it loads an image. A panicking thread bumps `count`; the first one also
//! records the location, team and thread. Then:
//! - NVIDIA: the thread runs PTX `exit` (only that thread ends; barriers release without it);
//! - AMD: `s_endpgm` (ends the whole wavefront: the hardware has no per-lane exit, so the other
//!   lanes of that wave stop too; the launch still completes and the runtime reports the panic);
//! - host `.so`: [`host_guard`] catches the unwind; the kernel returns normally.
//!
//! `file_ptr` is the address of the file name *in the image's memory*: a device address on GPUs
//! (read it back with a device-to-host copy of `file_len` bytes), a host address in the `.so`.

pub use crate::abi_shared::PanicRecord;

// The global below must carry the name the runtime looks up.
const _: () = assert!(crate::abi_shared::same_name(crate::abi_shared::PANIC_RECORD_GLOBAL, "__omp_rs_panic_record"));

/// Device global through which panics are recorded; null means "just end the thread".
///
/// Registered with libomptarget as an 8-byte global entry; the runtime writes the address of a
/// pinned host [`PanicRecord`] into it after loading the image.
#[no_mangle]
#[used]
pub static mut __omp_rs_panic_record: *mut PanicRecord = core::ptr::null_mut();

/// Records one panic into the record `__omp_rs_panic_record` points to (if any).
///
/// # Safety
/// `__omp_rs_panic_record` must be null or point to a valid `PanicRecord` that is only
/// accessed atomically (`count`) or by the first panicking thread (other fields) during the launch.
#[inline(never)]
unsafe fn record(file: (u64, u64), line: u32, column: u32, block: u64, thread: u64) {
    // SAFETY: plain read of a pointer-sized global; the runtime writes it only between launches.
    let rec = unsafe { core::ptr::read_volatile(&raw const __omp_rs_panic_record) };
    if rec.is_null() {
        return;
    }
    // SAFETY: per this function's contract.
    unsafe {
        let count = core::sync::atomic::AtomicU64::from_ptr(&raw mut (*rec).count);
        if count.fetch_add(1, core::sync::atomic::Ordering::Relaxed) == 0 {
            core::ptr::write_volatile(&raw mut (*rec).line, line as u64);
            core::ptr::write_volatile(&raw mut (*rec).column, column as u64);
            core::ptr::write_volatile(&raw mut (*rec).file_ptr, file.0);
            core::ptr::write_volatile(&raw mut (*rec).file_len, file.1);
            core::ptr::write_volatile(&raw mut (*rec).block, block);
            core::ptr::write_volatile(&raw mut (*rec).thread, thread);
        }
    }
}

#[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
extern "C" {
    // IR helper: PTX `exit` / `llvm.amdgcn.endpgm`.
    fn __omp_rs_thread_exit() -> !;
}

#[cfg(any(target_arch = "nvptx64", target_arch = "amdgpu"))]
#[panic_handler]
fn on_panic(info: &core::panic::PanicInfo<'_>) -> ! {
    // Only the location is read: formatting the message would pull core::fmt into every kernel.
    let (file, line, column) = match info.location() {
        Some(l) => ((l.file().as_ptr() as u64, l.file().len() as u64), l.line(), l.column()),
        None => ((0, 0), 0, 0),
    };
    let (block, thread) = (crate::launch::team_id() as u64, crate::launch::thread_in_team() as u64);
    // SAFETY: the runtime sets the global to null or to a valid record before launching.
    unsafe {
        record(file, line, column, block, thread);
        __omp_rs_thread_exit()
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
mod host {
    use std::cell::Cell;
    use std::sync::Once;

    thread_local! {
        static IN_GUARD: Cell<bool> = const { Cell::new(false) };
        // (file ptr, file len), line, column of the last panic inside a guard on this thread
        static LAST: Cell<Option<((u64, u64), u32, u32)>> = const { Cell::new(None) };
    }
    static HOOK: Once = Once::new();

    /// Runs a host-plugin kernel body, catching a panic and recording it like the GPU handler.
    ///
    /// The location comes from a panic hook (`catch_unwind` only returns the payload); the hook
    /// then calls the previous one, so the usual `panicked at …` message is still printed. The
    /// hook belongs to this `.so`'s own copy of std and does not affect the host program.
    pub fn host_guard<F: FnOnce()>(body: F) {
        HOOK.call_once(|| {
            let prev = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if IN_GUARD.with(Cell::get) {
                    // Locations of panics raised by code in this `.so` point into its read-only
                    // data, so the address stays valid while the image is loaded.
                    let loc = info.location().map(|l| {
                        ((l.file().as_ptr() as u64, l.file().len() as u64), l.line(), l.column())
                    });
                    LAST.with(|c| c.set(loc));
                }
                prev(info);
            }));
        });
        let outer = IN_GUARD.with(|g| g.replace(true));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        IN_GUARD.with(|g| g.set(outer));
        if r.is_err() {
            let (file, line, column) = LAST.with(Cell::take).unwrap_or(((0, 0), 0, 0));
            // SAFETY: the runtime sets the global to null or to a valid record before launching.
            unsafe { super::record(file, line, column, 0, 0) };
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
pub use host::host_guard;
