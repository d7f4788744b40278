//! Raw FFI for LLVM's `libomptarget` (the OpenMP offload runtime, LLVM >= 20 ABI), loaded at run time.
//!
//! | layer | where | what |
//! |---|---|---|
//! | sys (this crate) | [`types`], [`Lib`], [`cuda::CudaLib`] | `#[repr(C)]` structs with const layout asserts, function pointer tables, library discovery |
//! | result | `omp::offload` (crate `omp-rs`) | every call returns `Result<_, omp::Error>`, checks what libomptarget would abort on |
//! | safe | `omp::MappedMut`/`MappedRef` (`target_data` tokens), `omp::DeviceBuffer`, ... | RAII types that borrow what they map |
//!
//! The library is `dlopen`ed, never linked, so binaries run where it is missing. [`lib()`] loads it once per
//! process (search order in [`search_candidates`]) and resolves every symbol up front; [`is_present()`] probes
//! without failing. This crate holds no policy: whether a missing library is an error or a reason to run on the
//! host is decided by `omp::offload`.
//!
//! # Environment
//! - `OMP_RS_LIBOMPTARGET`: path of the library to load (tried first). A `:`-separated list is allowed.
//! - `OMP_RS_LIBOMPTARGET_NO_SEARCH=1`: try only `OMP_RS_LIBOMPTARGET`, skip the default search (tests use it to
//!   simulate a machine without libomptarget).
//!
//! # Call order
//! libomptarget segfaults if `omp_get_num_devices()` (or any other query) runs before `__tgt_rtl_init()` or
//! `__tgt_register_lib()`. Call one of those first.
#![deny(missing_docs, missing_debug_implementations)]

pub mod cuda;
pub mod offload;
pub mod types;

use core::ffi::{c_char, c_int, c_void};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use types::*;

/// Lowest LLVM major version whose ABI (56-byte offload entries, `KernelArgsTy` v3) this crate mirrors.
pub const MIN_LLVM_MAJOR: u32 = 20;

/// Environment variable naming the library (or a `:`-separated list of candidates) to load first.
pub const ENV_PATH: &str = "OMP_RS_LIBOMPTARGET";
/// Environment variable that, when `1`, restricts the search to [`ENV_PATH`].
pub const ENV_NO_SEARCH: &str = "OMP_RS_LIBOMPTARGET_NO_SEARCH";

/// Loader-path names tried after [`ENV_PATH`].
pub const LOADER_NAMES: &[&str] = &["libomptarget.so.22.1", "libomptarget.so"];
/// LLVM install directories tried last, each with every name of [`LOADER_NAMES`] and the `.so.{21,20}.1` names.
pub const INSTALL_DIRS: &[&str] =
    &["/usr/lib/llvm-22/lib", "/usr/lib/llvm-21/lib", "/usr/lib/llvm-20/lib", "/usr/local/lib", "/opt/rocm/llvm/lib"];

/// `void (*)(__tgt_bin_desc *)`: `__tgt_register_lib`, `__tgt_unregister_lib`.
pub type RegisterLibFn = unsafe extern "C" fn(desc: *mut __tgt_bin_desc);
/// `void (*)(void)`: `__tgt_rtl_init`, `__tgt_rtl_deinit`, `__tgt_init_all_rtls`, `ompx_dump_mapping_tables`.
pub type VoidFn = unsafe extern "C" fn();
/// `__tgt_target_data_{begin,end,update}_mapper`.
pub type DataMapperFn = unsafe extern "C" fn(
    loc: *mut ident_t,
    device_id: i64,
    arg_num: i32,
    args_base: *mut *mut c_void,
    args: *mut *mut c_void,
    arg_sizes: *mut i64,
    arg_types: *mut i64,
    arg_names: *mut map_var_info_t,
    arg_mappers: *mut *mut c_void,
);
/// `__tgt_target_kernel`: 0 = ran, -1 ([`OMP_TGT_FAIL`]) = not offloaded (run the host fallback).
pub type TargetKernelFn = unsafe extern "C" fn(
    loc: *mut ident_t,
    device_id: i64,
    num_teams: i32,
    thread_limit: i32,
    host_ptr: *mut c_void,
    args: *mut KernelArgsTy,
) -> c_int;
/// `const char *(*)(int)`: `omp_get_uid_from_device`.
pub type UidFn = unsafe extern "C" fn(c_int) -> *const std::ffi::c_char;
/// `void (*)(int64_t)`: `__tgt_print_device_info`.
pub type DeviceInfoFn = unsafe extern "C" fn(i64);
/// `int (*)(void)`: `omp_get_num_devices`, `omp_get_initial_device`, `omp_get_default_device`.
pub type IntFn = unsafe extern "C" fn() -> c_int;
/// `omp_target_is_present`.
pub type IsPresentFn = unsafe extern "C" fn(ptr: *const c_void, device_num: c_int) -> c_int;
/// `omp_get_mapped_ptr`.
pub type GetMappedPtrFn = unsafe extern "C" fn(ptr: *const c_void, device_num: c_int) -> *mut c_void;
/// `omp_target_alloc`, `llvm_omp_target_alloc_host`.
pub type AllocFn = unsafe extern "C" fn(size: usize, device_num: c_int) -> *mut c_void;
/// `omp_target_free`, `llvm_omp_target_free_host`.
pub type FreeFn = unsafe extern "C" fn(ptr: *mut c_void, device_num: c_int);
/// `omp_target_memcpy`: 0 on success.
pub type MemcpyFn = unsafe extern "C" fn(
    dst: *mut c_void,
    src: *const c_void,
    length: usize,
    dst_offset: usize,
    src_offset: usize,
    dst_device: c_int,
    src_device: c_int,
) -> c_int;

/// Every entry point omp-rs uses, resolved when the library is loaded. Owns the library, so the pointers stay
/// valid for as long as the `Lib` lives (the one in [`lib()`] lives for the whole process).
pub struct Lib {
    /// `__tgt_register_lib`.
    pub register_lib: RegisterLibFn,
    /// `__tgt_unregister_lib`.
    pub unregister_lib: RegisterLibFn,
    /// `__tgt_rtl_init`: creates the plugin manager. Must precede every query.
    pub rtl_init: VoidFn,
    /// `__tgt_rtl_deinit`.
    pub rtl_deinit: VoidFn,
    /// `__tgt_init_all_rtls`: initialise every plugin and device even without an image.
    pub init_all_rtls: VoidFn,
    /// `__tgt_target_data_begin_mapper`.
    pub data_begin: DataMapperFn,
    /// `__tgt_target_data_end_mapper`.
    pub data_end: DataMapperFn,
    /// `__tgt_target_data_update_mapper`.
    pub data_update: DataMapperFn,
    /// `__tgt_target_kernel`.
    pub target_kernel: TargetKernelFn,
    /// `omp_get_num_devices`.
    pub get_num_devices: IntFn,
    /// `omp_get_initial_device` (equals the device count).
    pub get_initial_device: IntFn,
    /// `omp_get_default_device` (from `libomp.so.5`, a dependency of libomptarget).
    pub get_default_device: IntFn,
    /// `omp_target_is_present`.
    pub target_is_present: IsPresentFn,
    /// `omp_get_mapped_ptr`.
    pub get_mapped_ptr: GetMappedPtrFn,
    /// `omp_target_alloc` (not entered in the present table).
    pub target_alloc: AllocFn,
    /// `omp_target_free`.
    pub target_free: FreeFn,
    /// `omp_target_memcpy`.
    pub target_memcpy: MemcpyFn,
    /// `llvm_omp_target_alloc_host`: pinned host memory the device can access.
    pub alloc_host: AllocFn,
    /// `llvm_omp_target_free_host`.
    pub free_host: FreeFn,
    /// `omp_get_uid_from_device` (OpenMP 5.2), when the library exports it: a device's stable identifier.
    pub get_uid_from_device: Option<UidFn>,
    /// `__tgt_print_device_info`, when exported: prints a device's properties to stdout.
    pub print_device_info: Option<DeviceInfoFn>,
    /// `ompx_dump_mapping_tables`: prints the present table to stderr.
    pub dump_mapping_tables: VoidFn,
    path: PathBuf,
    version: Option<(u32, u32)>,
    _library: libloading::Library,
}

impl fmt::Debug for Lib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lib").field("path", &self.path).field("version", &self.version).finish_non_exhaustive()
    }
}

/// Every symbol [`Lib`] resolves, in declaration order.
pub const SYMBOLS: &[&str] = &[
    "__tgt_register_lib",
    "__tgt_unregister_lib",
    "__tgt_rtl_init",
    "__tgt_rtl_deinit",
    "__tgt_init_all_rtls",
    "__tgt_target_data_begin_mapper",
    "__tgt_target_data_end_mapper",
    "__tgt_target_data_update_mapper",
    "__tgt_target_kernel",
    "omp_get_num_devices",
    "omp_get_initial_device",
    "omp_get_default_device",
    "omp_target_is_present",
    "omp_get_mapped_ptr",
    "omp_target_alloc",
    "omp_target_free",
    "omp_target_memcpy",
    "llvm_omp_target_alloc_host",
    "llvm_omp_target_free_host",
    "ompx_dump_mapping_tables",
];

/// Why the library could not be loaded.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum LoadError {
    /// No candidate could be opened. Each entry is `(candidate, loader message)`.
    NotFound {
        /// Every candidate tried, in order, with the dynamic loader's error.
        searched: Vec<(String, String)>,
    },
    /// The library opened but lacks an entry point omp-rs needs.
    MissingSymbol {
        /// The library that was opened.
        path: String,
        /// The symbol that is missing.
        symbol: &'static str,
        /// The loader's message.
        message: String,
    },
    /// The library is older than [`MIN_LLVM_MAJOR`].
    UnsupportedVersion {
        /// The library that was opened.
        path: String,
        /// `(major, minor)` read from its file name.
        version: (u32, u32),
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound { searched } => {
                write!(f, "libomptarget (LLVM >= {MIN_LLVM_MAJOR}) was not found; searched:")?;
                for (cand, msg) in searched {
                    write!(f, "\n  {cand}: {msg}")?;
                }
                write!(f, "\nInstall it (Debian/Ubuntu: `apt install liboffload-22 libomp5`) or set {ENV_PATH}=/path/to/libomptarget.so")
            }
            LoadError::MissingSymbol { path, symbol, message } => write!(
                f,
                "{path} lacks `{symbol}` ({message}); it is not an LLVM >= {MIN_LLVM_MAJOR} libomptarget. \
                 Point {ENV_PATH} at libomptarget.so.22.1 from LLVM 20 or newer"
            ),
            LoadError::UnsupportedVersion { path, version } => write!(
                f,
                "{path} is libomptarget {}.{}, but omp-rs needs LLVM >= {MIN_LLVM_MAJOR} (new offload entry format, \
                 KernelArgs v3). Point {ENV_PATH} at a newer libomptarget.so",
                version.0, version.1
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// The candidates [`lib()`] tries, in order: [`ENV_PATH`] entries, then (unless [`ENV_NO_SEARCH`] is `1`)
/// [`LOADER_NAMES`] through the dynamic loader's path, then the [`INSTALL_DIRS`].
pub fn search_candidates() -> Vec<String> {
    let mut out = Vec::new();
    if let Some(v) = std::env::var_os(ENV_PATH) {
        for part in v.to_string_lossy().split(':').filter(|s| !s.is_empty()) {
            out.push(part.to_owned());
        }
    }
    if std::env::var(ENV_NO_SEARCH).is_ok_and(|v| v.trim() == "1") {
        return out;
    }
    out.extend(LOADER_NAMES.iter().map(|s| (*s).to_owned()));
    for dir in INSTALL_DIRS {
        for name in ["libomptarget.so.22.1", "libomptarget.so.21.1", "libomptarget.so.20.1", "libomptarget.so"] {
            out.push(format!("{dir}/{name}"));
        }
    }
    out
}

static LIB: OnceLock<Result<Lib, LoadError>> = OnceLock::new();

/// The process-wide library, loaded on first call.
///
/// # Errors
/// The [`LoadError`] of the first attempt (the search is not repeated).
pub fn lib() -> Result<&'static Lib, &'static LoadError> {
    LIB.get_or_init(Lib::search).as_ref()
}

/// Whether [`lib()`] succeeds. Never panics.
pub fn is_present() -> bool {
    lib().is_ok()
}

impl Lib {
    /// Try every candidate of [`search_candidates`] and load the first that opens.
    ///
    /// # Errors
    /// [`LoadError::NotFound`] listing every candidate when none opens; the error of the first candidate that
    /// opens but is unusable otherwise.
    pub fn search() -> Result<Lib, LoadError> {
        let mut searched = Vec::new();
        for cand in search_candidates() {
            match open(&cand) {
                Ok(library) => return Lib::from_library(library, &cand),
                Err(e) => searched.push((cand, e.to_string())),
            }
        }
        Err(LoadError::NotFound { searched })
    }

    /// Load the library at `path` (a path, or a bare name resolved by the dynamic loader).
    ///
    /// # Errors
    /// [`LoadError`] when it cannot be opened, lacks a symbol, or is too old.
    pub fn load(path: &str) -> Result<Lib, LoadError> {
        let library = open(path).map_err(|e| LoadError::NotFound { searched: vec![(path.to_owned(), e.to_string())] })?;
        Lib::from_library(library, path)
    }

    fn from_library(library: libloading::Library, cand: &str) -> Result<Lib, LoadError> {
        let missing =
            |symbol: &'static str, e: libloading::Error| LoadError::MissingSymbol { path: cand.to_owned(), symbol, message: e.to_string() };
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the symbol's C signature is the one documented for LLVM >= 20 (omptarget.h,
                // omp.h), which the field's function-pointer type mirrors. The pointer is copied out of
                // the `Symbol` and stays valid because `Lib` owns `library` for its whole life.
                let s = unsafe { library.get(concat!($name, "\0").as_bytes()) };
                *s.map_err(|e| missing($name, e))?
            }};
        }
        let register_lib = sym!("__tgt_register_lib");
        let unregister_lib = sym!("__tgt_unregister_lib");
        let rtl_init = sym!("__tgt_rtl_init");
        let rtl_deinit = sym!("__tgt_rtl_deinit");
        let init_all_rtls = sym!("__tgt_init_all_rtls");
        let data_begin = sym!("__tgt_target_data_begin_mapper");
        let data_end = sym!("__tgt_target_data_end_mapper");
        let data_update = sym!("__tgt_target_data_update_mapper");
        let target_kernel = sym!("__tgt_target_kernel");
        let get_num_devices = sym!("omp_get_num_devices");
        let get_initial_device = sym!("omp_get_initial_device");
        let get_default_device = sym!("omp_get_default_device");
        let target_is_present = sym!("omp_target_is_present");
        let get_mapped_ptr = sym!("omp_get_mapped_ptr");
        let target_alloc = sym!("omp_target_alloc");
        let target_free = sym!("omp_target_free");
        let target_memcpy = sym!("omp_target_memcpy");
        let alloc_host = sym!("llvm_omp_target_alloc_host");
        let free_host = sym!("llvm_omp_target_free_host");
        let dump_mapping_tables: VoidFn = sym!("ompx_dump_mapping_tables");
        // SAFETY: optional entry points with the documented signatures (omp.h, omptarget.h); valid while `library`.
        let get_uid_from_device = unsafe { library.get::<UidFn>(b"omp_get_uid_from_device\0") }.ok().map(|s| *s);
        // SAFETY: as above.
        let print_device_info = unsafe { library.get::<DeviceInfoFn>(b"__tgt_print_device_info\0") }.ok().map(|s| *s);

        let path = resolved_path(register_lib as *const c_void).unwrap_or_else(|| PathBuf::from(cand));
        let version = parse_version(&path);
        if let Some(v) = version {
            if v.0 < MIN_LLVM_MAJOR {
                return Err(LoadError::UnsupportedVersion { path: path.display().to_string(), version: v });
            }
        }
        Ok(Lib {
            register_lib,
            unregister_lib,
            rtl_init,
            rtl_deinit,
            init_all_rtls,
            data_begin,
            data_end,
            data_update,
            target_kernel,
            get_num_devices,
            get_initial_device,
            get_default_device,
            target_is_present,
            get_mapped_ptr,
            target_alloc,
            target_free,
            target_memcpy,
            alloc_host,
            free_host,
            dump_mapping_tables,
            get_uid_from_device,
            print_device_info,
            path,
            version,
            _library: library,
        })
    }

    /// The file the library was loaded from (symlinks resolved when possible).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `(major, minor)` LLVM version read from the resolved file name (`libomptarget.so.22.1` → `(22, 1)`), or
    /// `None` when the name carries no version (then the symbol set is the only check).
    pub fn version(&self) -> Option<(u32, u32)> {
        self.version
    }
}

fn open(cand: &str) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading libomptarget runs its static initialisers (it registers nothing until called and creates
    // no threads); RTLD_GLOBAL matches how clang-built programs see it, so the host plugin and libomp resolve.
    let lib = unsafe { Library::open(Some(cand), RTLD_NOW | RTLD_GLOBAL) }?;
    Ok(lib.into())
}

/// The canonical path of the object that contains `addr`, through `dladdr`.
fn resolved_path(addr: *const c_void) -> Option<PathBuf> {
    let mut info = core::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: `dladdr` only reads the loader's tables and writes `info`; `addr` is a function in a loaded object.
    let rc = unsafe { libc::dladdr(addr, info.as_mut_ptr()) };
    if rc == 0 {
        return None;
    }
    // SAFETY: dladdr returned non-zero, so `info` is initialised.
    let info = unsafe { info.assume_init() };
    if info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: `dli_fname` is a NUL-terminated string owned by the loader, valid while the object is loaded.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname as *const c_char) };
    let p = PathBuf::from(name.to_string_lossy().into_owned());
    Some(std::fs::canonicalize(&p).unwrap_or(p))
}

/// `libomptarget.so.22.1` → `Some((22, 1))`; `libomptarget.so` → `None`.
pub fn parse_version(path: &Path) -> Option<(u32, u32)> {
    let name = path.file_name()?.to_str()?;
    let rest = name.strip_prefix("libomptarget.so.")?;
    let mut it = rest.split('.');
    let major = it.next()?.parse().ok()?;
    let minor = it.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

#[cfg(test)]
mod test;
