//! The "result" layer: one thin wrapper per libomptarget entry point, typed arguments, `Result` where the entry
//! point reports failure. All `unsafe` calls into the C library live here (and in `libomptarget-sys`).
//!
//! [`Rt`] can only be created after `__tgt_rtl_init()` ran (by `registry::runtime()`), so every query made through
//! it is past libomptarget's "call init first" trap. Functions that hand libomptarget host or device addresses
//! are `unsafe fn`: the caller vouches for the memory, and for having ruled out what libomptarget aborts on.
//!
//! This layer calls nothing above it: a call that copies, maps or frees data a queued kernel may still use
//! requires, in its `# Safety`, that the caller settled the device's queue (`queue::settle` / `queue::sync`), and a
//! call that ends mappings leaves it to the caller to say so (`map::mappings_changed`), where the caller's locks are.

use core::ffi::{c_int, c_void};
use std::collections::HashMap;
use std::panic::Location;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

use libomptarget_sys as sys;

use crate::Error;

/// `omp_get_num_devices()` as last asked (-1: ask again).
static NUM_DEVICES: AtomicI32 = AtomicI32::new(-1);

/// libomptarget, initialised (`__tgt_rtl_init` has run).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rt {
    lib: &'static sys::Lib,
}

/// One of the three data-mapping entry points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DataOp {
    Begin,
    End,
    Update,
}

/// Parallel arrays in the layout every `__tgt_*_mapper` call takes.
#[derive(Debug, Default)]
pub(crate) struct MapArgs {
    pub(crate) base: Vec<*mut c_void>,
    pub(crate) begin: Vec<*mut c_void>,
    pub(crate) sizes: Vec<i64>,
    pub(crate) types: Vec<i64>,
}

impl MapArgs {
    pub(crate) fn with_capacity(n: usize) -> MapArgs {
        MapArgs { base: Vec::with_capacity(n), begin: Vec::with_capacity(n), sizes: Vec::with_capacity(n), types: Vec::with_capacity(n) }
    }

    pub(crate) fn push(&mut self, base: *mut c_void, begin: *mut c_void, size: i64, ty: i64) {
        self.base.push(base);
        self.begin.push(begin);
        self.sizes.push(size);
        self.types.push(ty);
    }

    pub(crate) fn len(&self) -> usize {
        self.base.len()
    }

    /// No arguments (keeping the capacity).
    pub(crate) fn clear(&mut self) {
        self.base.clear();
        self.begin.clear();
        self.sizes.clear();
        self.types.clear();
    }

    /// `KernelArgsTy` v3 over these arguments with a bare-mode grid (`teams` × `threads`). Points into `self`:
    /// use it while `self` is alive and unchanged.
    pub(crate) fn kernel_args(&mut self, teams: u32, threads: u32) -> sys::KernelArgsTy {
        sys::KernelArgsTy {
            Version: sys::OMP_KERNEL_ARG_VERSION,
            NumArgs: self.len() as u32,
            ArgBasePtrs: self.base.as_mut_ptr(),
            ArgPtrs: self.begin.as_mut_ptr(),
            ArgSizes: self.sizes.as_mut_ptr(),
            ArgTypes: self.types.as_mut_ptr(),
            NumTeams: [teams, 1, 1],
            ThreadLimit: [threads, 1, 1],
            ..sys::KernelArgsTy::ZEROED
        }
    }

    pub(crate) fn type_of(&self, i: usize) -> i64 {
        self.types[i]
    }

    pub(crate) fn set_type(&mut self, i: usize, ty: i64) {
        self.types[i] = ty;
    }
}

/// An interned `ident_t` naming a Rust source location (`";file;function;line;column;;"`). libomptarget prints it
/// in `LIBOMPTARGET_INFO` output and in its fatal messages.
#[derive(Debug)]
pub(crate) struct Ident(sys::ident_t);

// SAFETY: an `Ident` is immutable after creation and its `psource` points at a leaked, immutable C string.
unsafe impl Sync for Ident {}
// SAFETY: as above.
unsafe impl Send for Ident {}

impl Ident {
    /// The interned `ident_t` for `loc` (one leaked allocation per distinct call site).
    pub(crate) fn at(loc: &'static Location<'static>, what: &str) -> &'static Ident {
        type Key = (&'static str, u32, u32, String);
        static TABLE: OnceLock<Mutex<HashMap<Key, &'static Ident>>> = OnceLock::new();
        let key = (loc.file(), loc.line(), loc.column(), what.to_owned());
        let mut t = TABLE.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        t.entry(key).or_insert_with(|| {
            let s = format!(";{};{};{};{};;", loc.file(), what, loc.line(), loc.column()).replace('\0', "?");
            let len = s.len();
            let c = Box::leak(std::ffi::CString::new(s).unwrap_or_default().into_boxed_c_str());
            Box::leak(Box::new(Ident(sys::ident_t {
                reserved_1: 0,
                flags: sys::KMP_IDENT_KMPC,
                reserved_2: 0,
                reserved_3: i32::try_from(len).unwrap_or(i32::MAX),
                psource: c.as_ptr(),
            })))
        })
    }

    fn as_ptr(&'static self) -> *mut sys::ident_t {
        // libomptarget takes `ident_t *` but only reads it.
        (&self.0 as *const sys::ident_t).cast_mut()
    }
}

impl Rt {
    /// Load libomptarget (through `libomptarget-sys`) and run `__tgt_rtl_init()`.
    pub(crate) fn init() -> Result<Rt, Error> {
        let lib = sys::lib().map_err(Error::from)?;
        // SAFETY: `__tgt_rtl_init` takes no arguments; it creates the plugin manager (reference counted).
        unsafe { (lib.rtl_init)() };
        Ok(Rt { lib })
    }

    pub(crate) fn lib(self) -> &'static sys::Lib {
        self.lib
    }

    /// `omp_get_num_devices()`.
    /// Cached: devices appear only when an image set is registered ([`Rt::register_lib`] resets it).
    pub(crate) fn num_devices(self) -> i32 {
        let n = NUM_DEVICES.load(Ordering::Acquire);
        if n >= 0 {
            return n;
        }
        // SAFETY: no arguments; `Rt` exists only after `__tgt_rtl_init`.
        let n = unsafe { (self.lib.get_num_devices)() };
        NUM_DEVICES.store(n, Ordering::Release);
        n
    }

    /// `omp_get_initial_device()` (the host's device number; equals the device count).
    pub(crate) fn initial_device(self) -> i32 {
        // SAFETY: as `num_devices`.
        unsafe { (self.lib.get_initial_device)() }
    }

    /// `omp_get_default_device()` (libomp's ICV: `OMP_DEFAULT_DEVICE` or `omp_set_default_device`).
    pub(crate) fn default_device(self) -> i32 {
        // SAFETY: no arguments; implemented by libomp, which needs no initialisation.
        unsafe { (self.lib.get_default_device)() }
    }

    /// `omp_target_is_present(addr, device)`. `device` must be a valid device number (checked by the caller).
    pub(crate) fn is_present(self, addr: *const u8, device: i32) -> bool {
        // SAFETY: the address is only used as a key into the present table; never dereferenced.
        unsafe { (self.lib.target_is_present)(addr.cast(), device) != 0 }
    }

    /// `omp_get_mapped_ptr(addr, device)` as an integer (0 when not mapped).
    pub(crate) fn mapped_ptr(self, addr: *const u8, device: i32) -> usize {
        // SAFETY: as `is_present`: a table lookup.
        unsafe { (self.lib.get_mapped_ptr)(addr.cast(), device) as usize }
    }

    /// `omp_target_alloc(bytes, device)`.
    pub(crate) fn target_alloc(self, bytes: usize, device: i32) -> Result<NonNull<c_void>, Error> {
        // SAFETY: allocation only; `device` was validated by the caller, so libomptarget does not abort.
        let p = unsafe { (self.lib.target_alloc)(bytes, device) };
        NonNull::new(p).ok_or(Error::AllocFailed { bytes, device })
    }

    /// `omp_target_free(ptr, device)`.
    ///
    /// # Safety
    /// `ptr` came from [`Rt::target_alloc`] on `device` and is not used afterwards, by the host nor by a kernel still
    /// queued (the caller settled `device`'s queue).
    pub(crate) unsafe fn target_free(self, ptr: NonNull<c_void>, device: i32) {
        // SAFETY: guaranteed by the caller.
        unsafe { (self.lib.target_free)(ptr.as_ptr(), device) }
    }

    /// `llvm_omp_target_alloc_host(bytes, device)`: pinned host memory the device can access.
    pub(crate) fn alloc_host(self, bytes: usize, device: i32) -> Result<NonNull<c_void>, Error> {
        // SAFETY: allocation only, on a validated device.
        let p = unsafe { (self.lib.alloc_host)(bytes, device) };
        NonNull::new(p).ok_or(Error::AllocFailed { bytes, device })
    }

    /// `llvm_omp_target_free_host(ptr, device)`.
    ///
    /// # Safety
    /// `ptr` came from [`Rt::alloc_host`] on `device` and is not used afterwards, by the host nor by a kernel still
    /// queued (the caller settled `device`'s queue).
    #[allow(dead_code)]
    pub(crate) unsafe fn free_host(self, ptr: NonNull<c_void>, device: i32) {
        // SAFETY: guaranteed by the caller.
        unsafe { (self.lib.free_host)(ptr.as_ptr(), device) }
    }

    /// Copy `bytes` from device address `src` on `device` to host memory `dst`.
    ///
    /// # Safety
    /// `dst` is valid for `bytes` writes; `src..src+bytes` is device memory of `device` that no queued kernel still
    /// writes (the caller settled `device`'s queue, or the memory is not a kernel's).
    pub(crate) unsafe fn memcpy_from_device(self, dst: *mut u8, src: *const c_void, bytes: usize, device: i32) -> Result<(), Error> {
        if bytes == 0 {
            return Ok(());
        }
        let host = self.initial_device();
        // SAFETY: guaranteed by the caller; the device numbers are valid.
        let rc = unsafe { (self.lib.target_memcpy)(dst.cast(), src, bytes, 0, 0, host, device) };
        if rc == 0 {
            Ok(())
        } else {
            Err(Error::MemcpyFailed { bytes, direction: "from", device, code: rc })
        }
    }

    /// Copy `bytes` from host memory `src` to device address `dst` on `device`.
    ///
    /// # Safety
    /// `src` is valid for `bytes` reads; `dst..dst+bytes` is device memory of `device` that nothing else uses, no
    /// queued kernel included (the caller settled `device`'s queue).
    pub(crate) unsafe fn memcpy_to_device(self, dst: *mut c_void, src: *const u8, bytes: usize, device: i32) -> Result<(), Error> {
        if bytes == 0 {
            return Ok(());
        }
        let host = self.initial_device();
        // SAFETY: guaranteed by the caller.
        let rc = unsafe { (self.lib.target_memcpy)(dst, src.cast(), bytes, 0, 0, device, host) };
        if rc == 0 {
            Ok(())
        } else {
            Err(Error::MemcpyFailed { bytes, direction: "to", device, code: rc })
        }
    }

    /// `__tgt_target_data_{begin,end,update}_mapper`.
    ///
    /// # Safety
    /// Every non-`LITERAL` entry's `begin..begin+size` is host memory valid for the call (writable where a
    /// `FROM` copy may happen), `device` is valid, and the caller has ruled out what libomptarget aborts on:
    /// `PRESENT` on unmapped data, and sections that extend or straddle existing mappings. No kernel still queued on
    /// `device` uses the sections (the caller settled the queue, or the sections are new to the device). For `End`,
    /// the caller holds `map::changing_mappings` across the call and its bookkeeping of the ended mapping (omp-rs's
    /// shadow table, `map::mappings_changed` after the call), so that no queued launch looks the mapping up in
    /// between.
    pub(crate) unsafe fn data(self, op: DataOp, loc: &'static Ident, device: i32, args: &mut MapArgs) {
        let f = match op {
            DataOp::Begin => self.lib.data_begin,
            DataOp::End => self.lib.data_end,
            DataOp::Update => self.lib.data_update,
        };
        let n = i32::try_from(args.len()).unwrap_or(i32::MAX);
        // SAFETY: the four arrays have `n` entries each; names and mappers may be null; the rest is guaranteed
        // by the caller.
        unsafe {
            f(
                loc.as_ptr(),
                i64::from(device),
                n,
                args.base.as_mut_ptr(),
                args.begin.as_mut_ptr(),
                args.sizes.as_mut_ptr(),
                args.types.as_mut_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
    }

    /// `__tgt_target_kernel`: returns its code (0 ran, -1 not offloaded).
    ///
    /// # Safety
    /// `host_ptr` is the entry address of a kernel registered for `device` and loaded without error; `args`
    /// points at `NumArgs` valid entries following the kernel's ABI, mapped entries satisfy [`Rt::data`]'s
    /// contract, and the geometry has been validated. Mapped (non-`LITERAL`) entries are mapped for the call and
    /// their mappings end with it: the caller reports `map::mappings_changed` after it, as after [`Rt::data`]'s `End`.
    pub(crate) unsafe fn target_kernel(
        self,
        loc: &'static Ident,
        device: i32,
        host_ptr: *mut c_void,
        args: &mut sys::KernelArgsTy,
    ) -> c_int {
        let teams = i32::try_from(args.NumTeams[0]).unwrap_or(i32::MAX);
        let threads = i32::try_from(args.ThreadLimit[0]).unwrap_or(i32::MAX);
        // SAFETY: guaranteed by the caller.
        unsafe { (self.lib.target_kernel)(loc.as_ptr(), i64::from(device), teams, threads, host_ptr, args) }
    }

    /// `__tgt_register_lib`.
    ///
    /// # Safety
    /// `desc` and everything it points to (images, entries, names, host twins) live until the process exits,
    /// and every image passed the checks of `image.rs` (right machine, every entry's symbol defined).
    pub(crate) unsafe fn register_lib(self, desc: *mut sys::__tgt_bin_desc) {
        // SAFETY: guaranteed by the caller.
        unsafe { (self.lib.register_lib)(desc) };
        NUM_DEVICES.store(-1, Ordering::Release);
    }

    /// `ompx_dump_mapping_tables()`: print the present table of every device to stderr.
    pub(crate) fn dump_mapping_tables(self) {
        // SAFETY: no arguments; reads libomptarget's tables only.
        unsafe { (self.lib.dump_mapping_tables)() }
    }
}
