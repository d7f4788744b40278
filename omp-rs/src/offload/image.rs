//! Device images: what `omp-rs-build` embeds, how one is chosen per machine, and the checks done before
//! libomptarget sees it.
//!
//! One build's images of the same kernels (one per architecture) form an image set (`registry::ImageSet`, which
//! holds its registration). This module knows images alone. Invariants checked before registration (each would
//! otherwise crash or abort inside libomptarget):
//! - every image is an ELF object of the kind it claims (cubin: `EM_CUDA`; AMD: `EM_AMDGPU`; host: the host's
//!   machine, `ET_DYN`);
//! - cubins are registered only for a device whose compute capability they fit (same major, minor ≤ device);
//! - every kernel name and device global is defined in every image registered (a missing one makes the image
//!   load fail, and a later launch segfaults).

/// What an image contains (`omp-rs-abi`: the build helper and the macros name the same kinds).
pub use omp_rs_abi::ImageKind;

/// One device image.
#[derive(Debug, Clone, Copy)]
pub struct Image {
    /// The kind.
    pub kind: ImageKind,
    /// The architecture it was built for, as `omp-rs-build` names it: `sm_90`, `gfx90a`, `host-x86_64`.
    pub arch: &'static str,
    /// The image bytes (an ELF file).
    pub bytes: &'static [u8],
}

/// A device global variable of the images (besides the panic record, which is found automatically).
#[derive(Debug, Clone, Copy)]
pub struct DeviceGlobal {
    /// Symbol name in the images.
    pub name: &'static str,
    /// Size in bytes.
    pub size: usize,
}

/// Name of the device global through which kernels report panics (ARCHITECTURE.md, "Panics").
pub const PANIC_RECORD_GLOBAL: &str = omp_rs_abi::PANIC_RECORD_GLOBAL;

/// The parts of an ELF header omp-rs checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElfHeader {
    pub(crate) abi_version: u8,
    pub(crate) e_type: u16,
    pub(crate) machine: u16,
    pub(crate) flags: u32,
}

pub(crate) const EM_X86_64: u16 = 62;
pub(crate) const EM_AARCH64: u16 = 183;
pub(crate) const EM_PPC64: u16 = 21;
pub(crate) const EM_CUDA: u16 = 190;
pub(crate) const EM_AMDGPU: u16 = 224;
const ET_DYN: u16 = 3;
const ELFABIVERSION_CUDA_V1: u8 = 7;
const ELFABIVERSION_CUDA_V2: u8 = 8;

/// Parse a 64-bit little-endian ELF header.
pub(crate) fn elf_header(b: &[u8]) -> Option<ElfHeader> {
    if b.len() < 64 || &b[..4] != b"\x7fELF" || b[4] != 2 || b[5] != 1 {
        return None;
    }
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    Some(ElfHeader { abi_version: b[8], e_type: u16_at(16), machine: u16_at(18), flags: u32::from_le_bytes([b[48], b[49], b[50], b[51]]) })
}

/// The SM number (`90` for sm_90) a cubin was built for, read as LLVM's CUDA plugin reads it: the low byte of
/// `e_flags` for `ELFABIVERSION_CUDA_V1`, bits 8..15 for `ELFABIVERSION_CUDA_V2` (Blackwell and later).
pub(crate) fn cubin_sm(h: &ElfHeader) -> u32 {
    if h.abi_version == ELFABIVERSION_CUDA_V2 {
        (h.flags >> 8) & 0xff
    } else {
        let _ = ELFABIVERSION_CUDA_V1;
        h.flags & 0xff
    }
}

/// Whether a cubin for `sm` runs on a device of compute capability `cc` (same major, minor not newer).
pub(crate) fn cubin_fits(sm: u32, cc: (i32, i32)) -> bool {
    i64::from(sm / 10) == i64::from(cc.0) && i64::from(sm % 10) <= i64::from(cc.1)
}

/// The ELF machine of the host this binary runs on.
pub(crate) fn host_machine() -> Option<u16> {
    if cfg!(target_arch = "x86_64") {
        Some(EM_X86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(EM_AARCH64)
    } else if cfg!(target_arch = "powerpc64") {
        Some(EM_PPC64)
    } else {
        None
    }
}

/// Why an image is not usable on this machine, or `Ok(())`.
pub(crate) fn check_kind(img: &Image) -> Result<ElfHeader, String> {
    let h = elf_header(img.bytes).ok_or_else(|| format!("image `{}` is not a 64-bit little-endian ELF file", img.arch))?;
    let want = match img.kind {
        ImageKind::Cubin => EM_CUDA,
        ImageKind::AmdCodeObject => EM_AMDGPU,
        ImageKind::HostSo => host_machine().ok_or_else(|| "host plugin images are unsupported on this CPU".to_owned())?,
    };
    if h.machine != want {
        return Err(format!("image `{}` has ELF machine {} but a {:?} needs {}", img.arch, h.machine, img.kind, want));
    }
    if img.kind == ImageKind::HostSo && h.e_type != ET_DYN {
        return Err(format!("host image `{}` is not a shared object (ET_DYN); build it with -shared", img.arch));
    }
    Ok(h)
}

/// Whether `name` is defined as a symbol string in the image: `\0name\0` occurs in it (every ELF string table
/// entry is NUL-delimited; section names such as `.text.name` do not match).
pub(crate) fn defines_symbol(bytes: &[u8], name: &str) -> bool {
    let mut pat = Vec::with_capacity(name.len() + 2);
    pat.push(0);
    pat.extend_from_slice(name.as_bytes());
    pat.push(0);
    bytes.windows(pat.len()).any(|w| w == pat.as_slice())
}

#[cfg(test)]
mod test {
    use super::*;

    fn elf(machine: u16, e_type: u16, abi: u8, flags: u32) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[8] = abi;
        b[16..18].copy_from_slice(&e_type.to_le_bytes());
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        b[48..52].copy_from_slice(&flags.to_le_bytes());
        b
    }

    #[test]
    fn cubin_sm_follows_both_abi_versions() {
        // ptxas 12.9 sm_90 cubin: e_flags 0x5a055a, ABI v1.
        let h = elf_header(&elf(EM_CUDA, 2, 7, 0x5a055a)).unwrap();
        assert_eq!(cubin_sm(&h), 90);
        // The cubin e_flags of ABI v2 (sm_100): SM in bits 8..15.
        let h = elf_header(&elf(EM_CUDA, 2, 8, 0x64_08)).unwrap();
        assert_eq!(cubin_sm(&h), 100);
    }

    #[test]
    fn cubin_compatibility_is_same_major_not_newer_minor() {
        assert!(cubin_fits(90, (9, 0)));
        assert!(cubin_fits(80, (8, 6)));
        assert!(!cubin_fits(86, (8, 0)));
        assert!(!cubin_fits(80, (9, 0)));
        assert!(!cubin_fits(90, (10, 0)));
    }

    #[test]
    fn kind_check_rejects_wrong_machine_and_non_elf() {
        let img = Image { kind: ImageKind::Cubin, arch: "sm_90", bytes: Box::leak(elf(EM_X86_64, 3, 0, 0).into_boxed_slice()) };
        assert!(check_kind(&img).unwrap_err().contains("ELF machine"));
        let img =
            Image { kind: ImageKind::HostSo, arch: "host", bytes: b"not an elf file at all, just some text padding it to 64 bytes......" };
        assert!(check_kind(&img).is_err());
        let ok = Image { kind: ImageKind::Cubin, arch: "sm_90", bytes: Box::leak(elf(EM_CUDA, 2, 7, 0x5a055a).into_boxed_slice()) };
        assert!(check_kind(&ok).is_ok());
    }

    #[test]
    fn symbol_search_needs_an_exact_nul_delimited_name() {
        let strtab = b"\0.text.saxpy\0saxpy_v2\0dot\0";
        assert!(defines_symbol(strtab, "dot"));
        assert!(defines_symbol(strtab, "saxpy_v2"));
        assert!(!defines_symbol(strtab, "saxpy"));
        assert!(!defines_symbol(strtab, "do"));
    }
}
