// Definitions shared by the host crates and the device library `omp_device` (which compiles this file as its
// `abi_shared` module): no dependencies, `core` only, no crate-level attributes.

/// Version of the kernel ABI: how target regions become kernels (leading `dyn_ptr`, 8-byte slots, slot order),
/// the panic record, the device globals. A manifest or device library of another version is refused.
pub const ABI_VERSION: u32 = 2;

/// Name of the device global through which kernels record panics: a pointer to a [`PanicRecord`] in pinned host
/// memory, set by the runtime after it loads an image (null: a panicking thread just ends).
pub const PANIC_RECORD_GLOBAL: &str = "__omp_rs_panic_record";

/// Device globals every image exports (name, size in bytes), registered with libomptarget beside the kernels.
pub const DEVICE_GLOBALS: &[(&str, u64)] = &[(PANIC_RECORD_GLOBAL, 8)];

/// Where a kernel panic is recorded (`#[repr(C)]`, 64 bytes, all fields `u64`). A panicking thread bumps `count`;
/// the first one also fills in the rest.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PanicRecord {
    /// Number of threads that panicked.
    pub count: u64,
    /// Line of the first recorded panic (1-based; 0 if unknown).
    pub line: u64,
    /// Column of the first recorded panic (1-based; 0 if unknown).
    pub column: u64,
    /// Address of the file name bytes (UTF-8, not NUL-terminated) in the image's memory: a device address on
    /// GPUs, a host address in the host plugin's `.so`.
    pub file_ptr: u64,
    /// Length of the file name in bytes.
    pub file_len: u64,
    /// Team (block) of the first recorded panic.
    pub block: u64,
    /// Thread within the team of the first recorded panic.
    pub thread: u64,
    /// Zero.
    pub reserved: u64,
}

const _: () = assert!(core::mem::size_of::<PanicRecord>() == 64);

/// Columns of a tile when a collapsed nest walks in tiles: one warp (NVIDIA) or half a wavefront (AMD) along the
/// innermost loop. The runtime computes the tiling with it, the kernels locate their iterations with it.
pub const TILE_COLUMNS: u64 = 32;

/// Whether two strings are equal, in a `const` context (checks that a `#[no_mangle]` name spelled out in code is
/// the one defined here).
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
