//! `println!`, `print!`, `eprintln!` and `eprint!` in kernels, as CUDA's and OpenMP offload's `printf`: each call
//! formats its line on the thread (`core::fmt`, into a 256-byte buffer: longer lines are cut) and hands it to the
//! device's printf, whose output the CUDA driver writes to the process's standard output when the kernel has
//! finished (for a region without `nowait`, before its statement ends). Lines of different threads come in no
//! particular order, and the driver's buffer (1 MiB by default) drops what does not fit, as CUDA's `printf` does.
//! `eprint` goes to standard output too on GPUs. AMD GPUs and the host plugin have no such printf: their lines go
//! into omp-rs's own [`PrintBuffer`](crate::abi_shared::PrintBuffer) in pinned host memory (1 MiB, reached through
//! the panic record), which the runtime writes to standard output when the kernel has finished: the same timing,
//! order and limit.
//!
//! The generated device crate is `no_std`: these macros are what `println!` names there (the prelude).

/// Bytes of one formatted line, its newline and the terminating NUL included.
const LINE: usize = 256;

/// A line being formatted; what does not fit is dropped.
struct Line {
    buf: [u8; LINE],
    len: usize,
}

impl core::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        // One byte stays free for the NUL.
        let room = LINE - 1 - self.len;
        let n = s.len().min(room);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Formats `args` (and a newline when `newline`) and prints it with the device's printf.
#[inline(never)]
pub fn print(args: core::fmt::Arguments<'_>, newline: bool) {
    let mut line = Line { buf: [0; LINE], len: 0 };
    let _ = core::fmt::write(&mut line, args);
    if newline {
        let _ = core::fmt::Write::write_str(&mut line, "\n");
    }
    line.buf[line.len] = 0;
    emit(&line.buf[..=line.len]);
}

/// `bytes` ends with a NUL.
#[cfg(target_arch = "nvptx64")]
fn emit(bytes: &[u8]) {
    extern "C" {
        // The PTX system call behind CUDA's printf: a format and a pointer to the packed arguments.
        fn vprintf(format: *const u8, args: *const u8) -> i32;
    }
    let text: *const u8 = bytes.as_ptr();
    // SAFETY: the format is a NUL-terminated "%s"; its one argument is the pointer `text`, packed at `&text` (8
    // bytes, aligned), pointing at NUL-terminated bytes that live until vprintf returns (it copies them).
    unsafe {
        vprintf(c"%s".as_ptr().cast(), (&raw const text).cast());
    }
}

/// `bytes` ends with a NUL. Without a print buffer (an image loaded by another runtime) the line is dropped.
#[cfg(not(target_arch = "nvptx64"))]
fn emit(bytes: &[u8]) {
    let text = &bytes[..bytes.len() - 1];
    // SAFETY: plain read of a pointer-sized global; the runtime writes it only between launches.
    let rec = unsafe { core::ptr::read_volatile(&raw const crate::panic::__omp_rs_panic_record) };
    if rec.is_null() {
        return;
    }
    // SAFETY: the runtime points the global at a live pinned `PanicRecord` whose `print_buffer` is 0 or the address
    // of a pinned `PrintBuffer` header followed by `capacity` bytes, which it reads only once the kernel has
    // finished. Each thread writes only the bytes its atomic add reserved.
    unsafe {
        let header = core::ptr::read_volatile(&raw const (*rec).print_buffer) as *mut crate::abi_shared::PrintBuffer;
        if header.is_null() {
            return;
        }
        let n = text.len() as u64;
        let at = core::sync::atomic::AtomicU64::from_ptr(&raw mut (*header).used).fetch_add(n, core::sync::atomic::Ordering::Relaxed);
        if at.checked_add(n).is_some_and(|end| end <= core::ptr::read_volatile(&raw const (*header).capacity)) {
            let dst = header.add(1).cast::<u8>().add(at as usize);
            core::ptr::copy_nonoverlapping(text.as_ptr(), dst, text.len());
        } else {
            core::sync::atomic::AtomicU64::from_ptr(&raw mut (*header).dropped).fetch_add(n, core::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// `println!` in a kernel ([module docs](self)).
#[macro_export]
macro_rules! device_println {
    () => { $crate::print::print(::core::format_args!(""), true) };
    ($($arg:tt)*) => { $crate::print::print(::core::format_args!($($arg)*), true) };
}

/// `print!` in a kernel ([module docs](self)).
#[macro_export]
macro_rules! device_print {
    ($($arg:tt)*) => { $crate::print::print(::core::format_args!($($arg)*), false) };
}
