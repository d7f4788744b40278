//! `#[repr(C)]` mirrors of the structs libomptarget (LLVM >= 20) reads, with compile-time layout checks.
//!
//! Layouts are those of LLVM 22.1.8 on 64-bit targets, cross-checked against the IR that clang 22 and
//! `llvm-offload-wrapper` 22 emit. The names follow the C
//! headers so they can be grepped against LLVM's sources.
#![allow(non_camel_case_types, non_snake_case)]

use core::ffi::{c_char, c_void};
use core::mem::{align_of, offset_of, size_of};

/// `kmp.h` source-location descriptor. `psource` is `";file;function;line;column;;"`.
///
/// clang 22 emits `{0, KMP_IDENT_KMPC, 0, strlen(psource), psource}`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ident_t {
    /// Always 0.
    pub reserved_1: i32,
    /// [`KMP_IDENT_KMPC`] for front-end generated locations.
    pub flags: i32,
    /// Always 0.
    pub reserved_2: i32,
    /// clang 22 stores `strlen(psource)` here.
    pub reserved_3: i32,
    /// NUL-terminated `";file;function;line;column;;"`.
    pub psource: *const c_char,
}

/// `ident_t::flags` value clang uses for every location it emits.
pub const KMP_IDENT_KMPC: i32 = 0x02;

/// Opaque `map_var_info_t`: a pointer to an `ident_t`-style `";name;file;line;col;;"` string, or null.
pub type map_var_info_t = *mut c_void;

/// New-format offload entry (`llvm::offloading::EntryTy`), 56 bytes. LLVM >= 20 reads this format; a non-zero
/// first qword makes it fall back to the legacy 32-byte layout, so `Reserved` must stay 0.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct __tgt_offload_entry {
    /// Must be 0.
    pub Reserved: u64,
    /// [`OFFLOAD_ENTRY_VERSION`].
    pub Version: u16,
    /// [`OFK_OPENMP`]; entries of other kinds are skipped by libomptarget.
    pub Kind: u16,
    /// `OMP_DECLARE_TARGET_*` / [`OMP_REGISTER_REQUIRES`]; 0 for kernels and plain globals.
    pub Flags: u32,
    /// Host key: a unique host address per kernel, `&host_twin` for globals.
    pub Address: *mut c_void,
    /// NUL-terminated symbol name in the device image.
    pub SymbolName: *mut c_char,
    /// 0 for kernels; the byte size for globals.
    pub Size: u64,
    /// Requires-flags for [`OMP_REGISTER_REQUIRES`] entries, else 0.
    pub Data: u64,
    /// Null.
    pub AuxAddr: *mut c_void,
}

/// `__tgt_offload_entry::Version` of the new format.
pub const OFFLOAD_ENTRY_VERSION: u16 = 1;
/// `object::OffloadKind::OFK_OpenMP`.
pub const OFK_OPENMP: u16 = 1;
/// Entry flag: `declare target link` global.
pub const OMP_DECLARE_TARGET_LINK: u32 = 0x01;
/// Entry flag: indirect function.
pub const OMP_DECLARE_TARGET_INDIRECT: u32 = 0x08;
/// Entry flag: a requires-clause entry (`Data` holds the flags).
pub const OMP_REGISTER_REQUIRES: u32 = 0x10;

/// One device image inside a [`__tgt_bin_desc`].
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct __tgt_device_image {
    /// First byte of the image (ELF cubin, AMD code object, host `.so`, or LLVM bitcode).
    pub ImageStart: *mut c_void,
    /// One past the last byte.
    pub ImageEnd: *mut c_void,
    /// Entries the device load iterates. Must be set (clang points it at the host entry table).
    pub EntriesBegin: *mut __tgt_offload_entry,
    /// One past the last entry.
    pub EntriesEnd: *mut __tgt_offload_entry,
}

/// The descriptor passed to `__tgt_register_lib`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct __tgt_bin_desc {
    /// Number of elements behind `DeviceImages`.
    pub NumDeviceImages: i32,
    /// The images.
    pub DeviceImages: *mut __tgt_device_image,
    /// Host entry table.
    pub HostEntriesBegin: *mut __tgt_offload_entry,
    /// One past the last host entry.
    pub HostEntriesEnd: *mut __tgt_offload_entry,
}

/// `KernelArgsTy`, version 3 (what clang 22 emits), 104 bytes.
///
/// With `Version = 3` the runtime prepends one `dyn_ptr` argument to the kernel's parameters and passes every
/// argument in an 8-byte slot.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KernelArgsTy {
    /// [`OMP_KERNEL_ARG_VERSION`].
    pub Version: u32,
    /// Number of entries in each of the six arrays below.
    pub NumArgs: u32,
    /// Base pointers (or, for `LITERAL` arguments, the 8-byte value itself).
    pub ArgBasePtrs: *mut *mut c_void,
    /// Begin pointers of the mapped sections.
    pub ArgPtrs: *mut *mut c_void,
    /// Byte sizes.
    pub ArgSizes: *mut i64,
    /// `OMP_TGT_MAPTYPE_*` bits.
    pub ArgTypes: *mut i64,
    /// `map_var_info_t` names, may be null.
    pub ArgNames: *mut *mut c_void,
    /// User-defined mappers, may be null.
    pub ArgMappers: *mut *mut c_void,
    /// Loop trip count (non-bare kernels only).
    pub Tripcount: u64,
    /// Bit 0: NoWait; bit 1: IsCUDA.
    pub Flags: u64,
    /// Grid (teams) in x, y, z.
    pub NumTeams: [u32; 3],
    /// Block (threads per team) in x, y, z.
    pub ThreadLimit: [u32; 3],
    /// Dynamic shared memory bytes.
    pub DynCGroupMem: u32,
}

/// `KernelArgsTy::Version` used by clang 22.
pub const OMP_KERNEL_ARG_VERSION: u32 = 3;
/// `KernelArgsTy::Flags` bit: nowait.
pub const KERNEL_FLAG_NOWAIT: u64 = 0x1;

/// `OMP_TGT_MAPTYPE_*` bits (`int64_t`).
pub mod maptype {
    /// No bits: on exit data, "release" (decrement the reference count).
    pub const NONE: i64 = 0x000;
    /// Copy host → device on entry (when the reference count goes 0 → 1).
    pub const TO: i64 = 0x001;
    /// Copy device → host on exit (when the reference count goes 1 → 0).
    pub const FROM: i64 = 0x002;
    /// Copy regardless of the reference count.
    pub const ALWAYS: i64 = 0x004;
    /// Force the reference count to 0 (exit data `delete`).
    pub const DELETE: i64 = 0x008;
    /// Pointer-and-pointee pair.
    pub const PTR_AND_OBJ: i64 = 0x010;
    /// The entry is passed to the kernel as an argument.
    pub const TARGET_PARAM: i64 = 0x020;
    /// `use_device_ptr/addr`: device address written back.
    pub const RETURN_PARAM: i64 = 0x040;
    /// Private copy.
    pub const PRIVATE: i64 = 0x080;
    /// By value: `ArgBasePtrs[i]` itself is the argument.
    pub const LITERAL: i64 = 0x100;
    /// Implicitly mapped.
    pub const IMPLICIT: i64 = 0x200;
    /// `close` modifier.
    pub const CLOSE: i64 = 0x400;
    /// `present` modifier: fatal (process abort) if the data is not mapped.
    pub const PRESENT: i64 = 0x1000;
    /// `ompx_hold`: separate hold reference count.
    pub const OMPX_HOLD: i64 = 0x2000;
    /// Pointer attachment.
    pub const ATTACH: i64 = 0x4000;
    /// Non-contiguous section.
    pub const NON_CONTIG: i64 = 0x1000_0000_0000;
    /// Bits 48..63: parent index + 1.
    pub const MEMBER_OF: i64 = 0xffff_0000_0000_0000_u64 as i64;
}

/// `TargetAllocTy` for `llvm_omp_target_alloc_*`-style allocation kinds.
pub mod alloc_kind {
    /// Device memory.
    pub const DEVICE: i32 = 0;
    /// Pinned host memory.
    pub const HOST: i32 = 1;
    /// Managed memory.
    pub const SHARED: i32 = 2;
    /// Plugin default.
    pub const DEFAULT: i32 = 3;
}

/// `__tgt_target_kernel` return value meaning "not offloaded, run the host fallback".
pub const OMP_TGT_FAIL: i32 = -1;
/// `__tgt_target_kernel` return value meaning "ran".
pub const OMP_TGT_SUCCESS: i32 = 0;

// Layout checks: sizes, alignments and every field offset the runtime reads.
const _: () = {
    assert!(size_of::<ident_t>() == 24 && align_of::<ident_t>() == 8);
    assert!(offset_of!(ident_t, flags) == 4);
    assert!(offset_of!(ident_t, reserved_3) == 12);
    assert!(offset_of!(ident_t, psource) == 16);

    assert!(size_of::<__tgt_offload_entry>() == 56 && align_of::<__tgt_offload_entry>() == 8);
    assert!(offset_of!(__tgt_offload_entry, Reserved) == 0);
    assert!(offset_of!(__tgt_offload_entry, Version) == 8);
    assert!(offset_of!(__tgt_offload_entry, Kind) == 10);
    assert!(offset_of!(__tgt_offload_entry, Flags) == 12);
    assert!(offset_of!(__tgt_offload_entry, Address) == 16);
    assert!(offset_of!(__tgt_offload_entry, SymbolName) == 24);
    assert!(offset_of!(__tgt_offload_entry, Size) == 32);
    assert!(offset_of!(__tgt_offload_entry, Data) == 40);
    assert!(offset_of!(__tgt_offload_entry, AuxAddr) == 48);

    assert!(size_of::<__tgt_device_image>() == 32);
    assert!(offset_of!(__tgt_device_image, ImageEnd) == 8);
    assert!(offset_of!(__tgt_device_image, EntriesBegin) == 16);
    assert!(offset_of!(__tgt_device_image, EntriesEnd) == 24);

    assert!(size_of::<__tgt_bin_desc>() == 32);
    assert!(offset_of!(__tgt_bin_desc, DeviceImages) == 8);
    assert!(offset_of!(__tgt_bin_desc, HostEntriesBegin) == 16);
    assert!(offset_of!(__tgt_bin_desc, HostEntriesEnd) == 24);

    assert!(size_of::<KernelArgsTy>() == 104 && align_of::<KernelArgsTy>() == 8);
    assert!(offset_of!(KernelArgsTy, NumArgs) == 4);
    assert!(offset_of!(KernelArgsTy, ArgBasePtrs) == 8);
    assert!(offset_of!(KernelArgsTy, ArgPtrs) == 16);
    assert!(offset_of!(KernelArgsTy, ArgSizes) == 24);
    assert!(offset_of!(KernelArgsTy, ArgTypes) == 32);
    assert!(offset_of!(KernelArgsTy, ArgNames) == 40);
    assert!(offset_of!(KernelArgsTy, ArgMappers) == 48);
    assert!(offset_of!(KernelArgsTy, Tripcount) == 56);
    assert!(offset_of!(KernelArgsTy, Flags) == 64);
    assert!(offset_of!(KernelArgsTy, NumTeams) == 72);
    assert!(offset_of!(KernelArgsTy, ThreadLimit) == 84);
    assert!(offset_of!(KernelArgsTy, DynCGroupMem) == 96);
};

impl __tgt_offload_entry {
    /// An all-zero entry (invalid until filled in).
    pub const ZEROED: Self = Self {
        Reserved: 0,
        Version: 0,
        Kind: 0,
        Flags: 0,
        Address: core::ptr::null_mut(),
        SymbolName: core::ptr::null_mut(),
        Size: 0,
        Data: 0,
        AuxAddr: core::ptr::null_mut(),
    };
}

impl KernelArgsTy {
    /// An all-zero argument block (set at least `Version`, `NumTeams` and `ThreadLimit` before use).
    pub const ZEROED: Self = Self {
        Version: 0,
        NumArgs: 0,
        ArgBasePtrs: core::ptr::null_mut(),
        ArgPtrs: core::ptr::null_mut(),
        ArgSizes: core::ptr::null_mut(),
        ArgTypes: core::ptr::null_mut(),
        ArgNames: core::ptr::null_mut(),
        ArgMappers: core::ptr::null_mut(),
        Tripcount: 0,
        Flags: 0,
        NumTeams: [0; 3],
        ThreadLimit: [0; 3],
        DynCGroupMem: 0,
    };
}
