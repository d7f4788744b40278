//! Raw FFI for LLVM's liboffload (`libLLVMOffload.so.22.1`, `OffloadAPI.h` of `liboffload-22-dev`): queues,
//! programs and kernel launches, used beside libomptarget for launches that do not wait.
//!
//! It ships in the same Debian package as libomptarget (`liboffload-22`) and is loaded from the same directory,
//! `RTLD_LOCAL` (libloading's default), after libomptarget is initialised: linked normally into one program the
//! two crash at the first libomptarget call (their plugins' symbols interpose). Memory that libomptarget hands out
//! (its present table, `omp_target_alloc`) is usable by kernels launched here: both drive the device's primary
//! context.
//!
//! Every entry point returns [`OlResult`]: null on success, else a pointer to an [`OlError`] owned by the
//! library; nothing aborts.
//!
//! # Environment
//! - `OMP_RS_LIBOFFLOAD`: path of the library to load instead of the one beside libomptarget.

use core::ffi::{c_char, c_void, CStr};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment variable naming the liboffload library to load.
pub const ENV_PATH: &str = "OMP_RS_LIBOFFLOAD";
/// File name looked for beside libomptarget, then through the loader's path.
pub const LIB_NAME: &str = "libLLVMOffload.so.22.1";

/// `ol_error_struct_t`.
#[repr(C)]
#[derive(Debug)]
pub struct OlError {
    /// `ol_errc_t`.
    pub code: u32,
    /// NUL-terminated details, may be null.
    pub details: *const c_char,
}

/// `ol_result_t`: null is success.
pub type OlResult = *const OlError;
/// Any `ol_*_handle_t` (opaque pointers).
pub type Handle = *mut c_void;

/// `ol_dimensions_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dims {
    /// X.
    pub x: u32,
    /// Y.
    pub y: u32,
    /// Z.
    pub z: u32,
}

/// `ol_kernel_launch_size_args_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchSize {
    /// Number of work dimensions.
    pub dimensions: usize,
    /// Work groups (teams) per dimension.
    pub num_groups: Dims,
    /// Work items (threads) per group per dimension.
    pub group_size: Dims,
    /// Dynamic shared memory in bytes.
    pub dyn_shared_memory: usize,
}

const _: () = assert!(core::mem::size_of::<LaunchSize>() == 40);
const _: () = assert!(core::mem::size_of::<OlError>() == 16);

/// `ol_device_info_t` values used here.
pub mod device_info {
    /// `OL_DEVICE_INFO_TYPE` (`ol_device_type_t`, u32).
    pub const TYPE: u32 = 0;
    /// `OL_DEVICE_INFO_PLATFORM` (platform handle).
    pub const PLATFORM: u32 = 1;
    /// `OL_DEVICE_INFO_NAME` (string).
    pub const NAME: u32 = 2;
}
/// `OL_PLATFORM_INFO_BACKEND` (`ol_platform_backend_t`, u32).
pub const PLATFORM_INFO_BACKEND: u32 = 3;
/// `ol_platform_backend_t` values.
pub mod backend {
    /// `OL_PLATFORM_BACKEND_CUDA`.
    pub const CUDA: u32 = 1;
    /// `OL_PLATFORM_BACKEND_AMDGPU`.
    pub const AMDGPU: u32 = 2;
    /// `OL_PLATFORM_BACKEND_HOST` (the virtual host device, for copies).
    pub const HOST: u32 = 4;
}
/// `ol_symbol_kind_t` values.
pub mod symbol_kind {
    /// `OL_SYMBOL_KIND_KERNEL`.
    pub const KERNEL: u32 = 0;
    /// `OL_SYMBOL_KIND_GLOBAL_VARIABLE`.
    pub const GLOBAL_VARIABLE: u32 = 1;
}
/// `OL_SYMBOL_INFO_GLOBAL_VARIABLE_ADDRESS` (device pointer).
pub const SYMBOL_INFO_GLOBAL_VARIABLE_ADDRESS: u32 = 1;

/// `bool (*)(ol_device_handle_t, void *)` for `olIterateDevices`: return true to continue.
pub type IterateCb = unsafe extern "C" fn(device: Handle, user: *mut c_void) -> bool;

/// Every entry point omp-rs uses, resolved at load. Owns the library.
pub struct OffloadLib {
    /// `olInit`.
    pub init: unsafe extern "C" fn() -> OlResult,
    /// `olIterateDevices`.
    pub iterate_devices: unsafe extern "C" fn(cb: IterateCb, user: *mut c_void) -> OlResult,
    /// `olGetDeviceInfo`.
    pub get_device_info: unsafe extern "C" fn(device: Handle, prop: u32, size: usize, out: *mut c_void) -> OlResult,
    /// `olGetPlatformInfo`.
    pub get_platform_info: unsafe extern "C" fn(platform: Handle, prop: u32, size: usize, out: *mut c_void) -> OlResult,
    /// `olCreateProgram`.
    pub create_program: unsafe extern "C" fn(device: Handle, data: *const c_void, size: usize, out: *mut Handle) -> OlResult,
    /// `olGetSymbol`.
    pub get_symbol: unsafe extern "C" fn(program: Handle, name: *const c_char, kind: u32, out: *mut Handle) -> OlResult,
    /// `olGetSymbolInfo`.
    pub get_symbol_info: unsafe extern "C" fn(symbol: Handle, prop: u32, size: usize, out: *mut c_void) -> OlResult,
    /// `olCreateQueue`.
    pub create_queue: unsafe extern "C" fn(device: Handle, out: *mut Handle) -> OlResult,
    /// `olLaunchKernel`: the arguments are one packed buffer in parameter order.
    pub launch_kernel: unsafe extern "C" fn(
        queue: Handle,
        device: Handle,
        kernel: Handle,
        args: *const c_void,
        args_size: usize,
        sizes: *const LaunchSize,
    ) -> OlResult,
    /// `olSyncQueue`.
    pub sync_queue: unsafe extern "C" fn(queue: Handle) -> OlResult,
    /// `olCreateEvent`: an event completing when the work queued so far on `queue` has.
    pub create_event: unsafe extern "C" fn(queue: Handle, out: *mut Handle) -> OlResult,
    /// `olWaitEvents`: work queued later on `queue` waits for the events.
    pub wait_events: unsafe extern "C" fn(queue: Handle, events: *mut Handle, count: usize) -> OlResult,
    /// `olDestroyEvent`.
    pub destroy_event: unsafe extern "C" fn(event: Handle) -> OlResult,
    /// `olMemcpy` (a null queue copies synchronously).
    pub memcpy: unsafe extern "C" fn(
        queue: Handle,
        dst: *mut c_void,
        dst_device: Handle,
        src: *const c_void,
        src_device: Handle,
        size: usize,
    ) -> OlResult,
    path: PathBuf,
    _library: libloading::Library,
}

impl fmt::Debug for OffloadLib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OffloadLib").field("path", &self.path).finish_non_exhaustive()
    }
}

impl OffloadLib {
    /// The file the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The message of a failed call (`None` for success).
///
/// # Safety
/// `r` is what an entry point of a loaded [`OffloadLib`] returned.
pub unsafe fn error_text(r: OlResult) -> Option<String> {
    if r.is_null() {
        return None;
    }
    // SAFETY: non-null results point at the library's error struct, valid while the library is loaded.
    let e = unsafe { &*r };
    let details = if e.details.is_null() {
        String::new()
    } else {
        // SAFETY: `details` is a NUL-terminated string owned by the library.
        unsafe { CStr::from_ptr(e.details) }.to_string_lossy().into_owned()
    };
    Some(format!("liboffload error {}: {details}", e.code))
}

/// Candidates in order: [`ENV_PATH`], [`LIB_NAME`] in `beside` (libomptarget's directory), then by name.
pub fn candidates(beside: Option<&Path>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(v) = std::env::var_os(ENV_PATH) {
        out.push(v.to_string_lossy().into_owned());
        return out;
    }
    if let Some(dir) = beside {
        out.push(dir.join(LIB_NAME).display().to_string());
    }
    out.push(LIB_NAME.to_owned());
    out
}

static OFFLOAD: OnceLock<Result<OffloadLib, String>> = OnceLock::new();

/// liboffload, loaded once (beside `libomptarget`, the path of the libomptarget already loaded). Call only after
/// libomptarget is initialised.
///
/// # Errors
/// Why it could not be loaded (every candidate with the loader's message, or the missing symbol).
pub fn offload_lib(libomptarget: &Path) -> Result<&'static OffloadLib, &'static str> {
    OFFLOAD.get_or_init(|| load(libomptarget.parent())).as_ref().map_err(String::as_str)
}

fn load(beside: Option<&Path>) -> Result<OffloadLib, String> {
    let mut tried = Vec::new();
    for cand in candidates(beside) {
        // SAFETY: loading liboffload runs its static initialisers only; it creates no threads until `olInit`.
        // `Library::new` opens with RTLD_NOW | RTLD_LOCAL, which keeps its plugins apart from libomptarget's.
        match unsafe { libloading::Library::new(&cand) } {
            Ok(library) => return from_library(library, &cand),
            Err(e) => tried.push(format!("{cand}: {e}")),
        }
    }
    Err(format!("liboffload ({LIB_NAME}) was not found: {}", tried.join("; ")))
}

fn from_library(library: libloading::Library, cand: &str) -> Result<OffloadLib, String> {
    macro_rules! sym {
        ($name:literal) => {{
            // SAFETY: the field's function-pointer type mirrors the C signature in OffloadAPI.h (LLVM 22); the
            // pointer stays valid because `OffloadLib` owns `library`.
            let s = unsafe { library.get(concat!($name, "\0").as_bytes()) };
            *s.map_err(|e| format!("{cand} lacks `{}` ({e}); it is not LLVM 22's liboffload", $name))?
        }};
    }
    Ok(OffloadLib {
        init: sym!("olInit"),
        iterate_devices: sym!("olIterateDevices"),
        get_device_info: sym!("olGetDeviceInfo"),
        get_platform_info: sym!("olGetPlatformInfo"),
        create_program: sym!("olCreateProgram"),
        get_symbol: sym!("olGetSymbol"),
        get_symbol_info: sym!("olGetSymbolInfo"),
        create_queue: sym!("olCreateQueue"),
        launch_kernel: sym!("olLaunchKernel"),
        sync_queue: sym!("olSyncQueue"),
        create_event: sym!("olCreateEvent"),
        wait_events: sym!("olWaitEvents"),
        destroy_event: sym!("olDestroyEvent"),
        memcpy: sym!("olMemcpy"),
        path: PathBuf::from(cand),
        _library: library,
    })
}
