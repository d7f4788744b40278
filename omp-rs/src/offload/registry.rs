//! Process-wide runtime state: libomptarget loaded and initialised once, image sets registered once each,
//! per-device preparation (the panic record pointer written into each loaded image).
//!
//! Order of first use (libomptarget segfaults on a query made before it is initialised): activate CUDA primary contexts with SPIN → `__tgt_rtl_init` →
//! `__tgt_register_lib` per image set → queries and maps.
//!
//! An [`ImageSet`] is one build's output: several images of the same kernels (one per architecture), the kernel
//! names and the device globals. It is a `static` with `&'static` bytes (from `include_bytes!`), registered with
//! libomptarget at most once per process (`__tgt_register_lib`). It is never unregistered: libomptarget's own
//! destructor tears the plugins down at exit, and unregistering earlier would invalidate every `KernelRef`.

use core::ffi::c_void;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use libomptarget_sys as sys;

use super::cuda::{self, CudaInfo};
use super::image::{self, DeviceGlobal, Image, ImageKind, PANIC_RECORD_GLOBAL};
use super::policy::log;
use super::result::{DataOp, Ident, MapArgs, Rt};
use crate::Error;

/// One build's device images, kernel names and globals; registered once per process on first use.
#[derive(Debug)]
pub struct ImageSet {
    pub(crate) images: &'static [Image],
    pub(crate) kernels: &'static [&'static str],
    pub(crate) globals: &'static [DeviceGlobal],
    pub(crate) state: OnceLock<Result<Registered, Error>>,
    /// The first identical set registered in this process (see `registry::ensure_registered`).
    pub(crate) canonical: OnceLock<&'static ImageSet>,
}

impl ImageSet {
    /// An image set over `&'static` data (for a `static` in generated code).
    pub const fn new(images: &'static [Image], kernels: &'static [&'static str], globals: &'static [DeviceGlobal]) -> ImageSet {
        ImageSet { images, kernels, globals, state: OnceLock::new(), canonical: OnceLock::new() }
    }

    /// An image set from owned data read at run time (e.g. image files named on a command line). The data is
    /// leaked: image sets live until the process exits.
    pub fn leak(images: Vec<(ImageKind, String, Vec<u8>)>, kernels: Vec<String>, globals: Vec<(String, usize)>) -> &'static ImageSet {
        let images: Vec<Image> = images
            .into_iter()
            .map(|(kind, arch, bytes)| Image { kind, arch: Box::leak(arch.into_boxed_str()), bytes: Box::leak(bytes.into_boxed_slice()) })
            .collect();
        let kernels: Vec<&'static str> = kernels.into_iter().map(|k| &*Box::leak(k.into_boxed_str())).collect();
        let globals: Vec<DeviceGlobal> =
            globals.into_iter().map(|(n, size)| DeviceGlobal { name: Box::leak(n.into_boxed_str()), size }).collect();
        Box::leak(Box::new(ImageSet::new(
            Box::leak(images.into_boxed_slice()),
            Box::leak(kernels.into_boxed_slice()),
            Box::leak(globals.into_boxed_slice()),
        )))
    }

    /// The images.
    pub fn images(&self) -> &'static [Image] {
        self.images
    }

    /// The kernel names.
    pub fn kernels(&self) -> &'static [&'static str] {
        self.kernels
    }

    /// Architectures of the images, for messages.
    pub(crate) fn archs(&self) -> Vec<String> {
        self.images.iter().map(|i| i.arch.to_owned()).collect()
    }
}

/// Which plugin family this process offloads to. Chosen at the first registration; every later image set
/// registers images of the same family, so every libomptarget device is of this family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// CUDA or AMDGPU plugin: kernels run in bare mode with the requested grid.
    Gpu,
    /// libomptarget's host plugin: each kernel is called once (one team of one thread).
    Host,
}

/// The initialised runtime.
#[derive(Debug)]
pub(crate) struct Runtime {
    pub(crate) rt: Rt,
    pub(crate) cuda: CudaInfo,
    family: Mutex<Option<Family>>,
    /// Serialises writes to shared host twins of device globals.
    twin_lock: Mutex<()>,
}

static RUNTIME: OnceLock<Result<Runtime, Error>> = OnceLock::new();

/// The runtime, initialised on first call. Errors are remembered (the search is not repeated).
pub(crate) fn runtime() -> Result<&'static Runtime, Error> {
    RUNTIME
        .get_or_init(|| {
            // libomptarget first: without it there is nothing to prepare CUDA for.
            sys::lib().map_err(Error::from)?;
            let cuda = cuda::probe_and_activate();
            if let Some(n) = &cuda.note {
                log(|| format!("CUDA: {n}"));
            }
            let rt = Rt::init()?;
            log(|| {
                let devs: Vec<String> =
                    cuda.devices.iter().map(|d| format!("cuda:{} sm_{}{} sched={:?}", d.ordinal, d.cc.0, d.cc.1, d.sched)).collect();
                format!("libomptarget {} loaded; CUDA devices [{}]", rt.lib().path().display(), devs.join(", "))
            });
            Ok(Runtime { rt, cuda, family: Mutex::new(None), twin_lock: Mutex::new(()) })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The runtime if it was initialised already (never initialises).
pub(crate) fn runtime_if_loaded() -> Option<&'static Runtime> {
    RUNTIME.get().and_then(|r| r.as_ref().ok())
}

impl Runtime {
    pub(crate) fn family(&self) -> Option<Family> {
        *self.family.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn devices_text(&self) -> String {
        let mut v: Vec<String> = self.cuda.devices.iter().map(|d| format!("cuda:{} sm_{}{}", d.ordinal, d.cc.0, d.cc.1)).collect();
        if std::path::Path::new("/dev/kfd").exists() {
            v.push("amdgpu (/dev/kfd)".into());
        }
        if v.is_empty() {
            v.push(self.cuda.note.clone().unwrap_or_else(|| "no GPU".into()));
        }
        v.join(", ")
    }

    /// SM count of the first CUDA device (for the default grid), if known.
    pub(crate) fn sm_count(&self) -> Option<u32> {
        self.cuda.devices.first().map(|d| d.sms).filter(|&n| n > 0)
    }
}

/// `#[repr(C)]` panic record, ARCHITECTURE.md "Panics" (defined once, in `omp-rs-abi`).
pub use omp_rs_abi::PanicRecord;

/// Per-device state of one registered image set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DevState {
    /// Address of the pinned `PanicRecord` for this device, when the images define the panic global.
    pub(crate) panic_record: Option<usize>,
}

/// A registered image set.
#[derive(Debug)]
pub(crate) struct Registered {
    /// Kernel names with their host entry addresses.
    pub(crate) kernels: Vec<(&'static str, usize)>,
    pub(crate) family: Family,
    /// Architectures registered.
    pub(crate) archs: Vec<&'static str>,
    /// Host twin (8 bytes) of `__omp_rs_panic_record`, if every registered image defines it.
    panic_twin: Option<usize>,
    devices: Mutex<HashMap<i32, DevState>>,
    /// The registered images with their aligned copies (what the launch queue loads as programs).
    images: Vec<(&'static image::Image, &'static [u8])>,
    /// Whether the set declares device globals of its own (besides the panic record).
    user_globals: bool,
}

/// Register `set` (once per process) and return its registration.
pub(crate) fn ensure_registered(set: &'static ImageSet) -> Result<&'static Registered, Error> {
    let first = *set.canonical.get_or_init(|| canonical(set));
    first.state.get_or_init(|| register(first)).as_ref().map_err(Clone::clone)
}

/// Every target region of a crate embeds the crate's image set in a `static` of its own (macro expansions cannot
/// share one), so identical sets are registered once: the first set seen with the same kernels and image bytes is
/// the canonical one, and later copies use its registration. Each copy is compared once, at its region's first
/// launch, which a program's timer may span: images that are the same bytes in memory compare by address, others
/// by length and then content (H200: the first launches of nbody's regions 2.6 and 0.7 µs in `decide`, where a
/// hash of every image byte took ~0.9 ms).
fn canonical(set: &'static ImageSet) -> &'static ImageSet {
    static SEEN: Mutex<Vec<&'static ImageSet>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    match seen.iter().find(|s| same_content(s, set)) {
        Some(s) => s,
        None => {
            seen.push(set);
            set
        }
    }
}

/// Whether two image sets hold the same kernels and the same images.
fn same_content(a: &ImageSet, b: &ImageSet) -> bool {
    a.kernels == b.kernels
        && a.images.len() == b.images.len()
        && a.images
            .iter()
            .zip(b.images)
            .all(|(x, y)| x.kind == y.kind && x.arch == y.arch && (std::ptr::eq(x.bytes, y.bytes) || x.bytes == y.bytes))
}

fn host_plugin_allowed(set: &ImageSet) -> bool {
    let only_host = set.images.iter().all(|i| !i.kind.is_gpu());
    only_host || std::env::var("OMP_RS_HOST_PLUGIN").is_ok_and(|v| v.trim() == "1")
}

fn register(set: &'static ImageSet) -> Result<Registered, Error> {
    let rtm = runtime()?;
    let set_name = || format!("image set {{{}}}", set.kernels.join(", "));
    let mismatch = |why: String| Error::ImageArchMismatch {
        kernel: set_name(),
        images: set.archs(),
        devices: format!("{}; {why}", rtm.devices_text()),
    };

    // 1. Pick images.
    let mut family_guard = rtm.family.lock().unwrap_or_else(|p| p.into_inner());
    let mut chosen: Vec<&'static image::Image> = Vec::new();
    let mut notes = Vec::new();
    if *family_guard != Some(Family::Host) {
        for dev in &rtm.cuda.devices {
            let best = set
                .images
                .iter()
                .filter(|i| i.kind == ImageKind::Cubin)
                .filter_map(|i| match image::check_kind(i) {
                    Ok(h) => Some((image::cubin_sm(&h), i)),
                    Err(e) => {
                        notes.push(e);
                        None
                    }
                })
                .filter(|(sm, _)| image::cubin_fits(*sm, dev.cc))
                .max_by_key(|(sm, _)| *sm);
            if let Some((_, img)) = best {
                if !chosen.iter().any(|c| std::ptr::eq(*c, img)) {
                    chosen.push(img);
                }
            }
        }
        if std::path::Path::new("/dev/kfd").exists() {
            for i in set.images.iter().filter(|i| i.kind == ImageKind::AmdCodeObject) {
                match image::check_kind(i) {
                    Ok(_) => chosen.push(i),
                    Err(e) => notes.push(e),
                }
            }
        }
    }
    let mut family = Family::Gpu;
    if chosen.is_empty() && *family_guard != Some(Family::Gpu) {
        if host_plugin_allowed(set) {
            for i in set.images.iter().filter(|i| i.kind == ImageKind::HostSo) {
                match image::check_kind(i) {
                    Ok(_) => {
                        chosen.push(i);
                        family = Family::Host;
                        break;
                    }
                    Err(e) => notes.push(e),
                }
            }
        } else if set.images.iter().any(|i| i.kind == ImageKind::HostSo) {
            notes.push("host-plugin images are used only when OMP_RS_HOST_PLUGIN=1".into());
        }
    }
    if chosen.is_empty() {
        let why = if notes.is_empty() { "no image fits".to_owned() } else { notes.join("; ") };
        return Err(mismatch(why));
    }

    // 2. Every kernel and global must be defined in every chosen image.
    for img in &chosen {
        for k in set.kernels {
            if !image::defines_symbol(img.bytes, k) {
                return Err(Error::KernelMissing { kernel: (*k).to_owned(), image: img.arch.to_owned() });
            }
        }
        for g in set.globals {
            if !image::defines_symbol(img.bytes, g.name) {
                return Err(Error::KernelMissing { kernel: g.name.to_owned(), image: img.arch.to_owned() });
            }
        }
    }
    let with_panic = chosen.iter().all(|i| image::defines_symbol(i.bytes, PANIC_RECORD_GLOBAL));
    if !with_panic {
        log(|| format!("{}: images do not define {PANIC_RECORD_GLOBAL}; device panics will not be reported", set_name()));
    }

    // 3. Entry table: kernels (unique host address each), globals (host twins), the panic record pointer.
    let ids: &'static [u8] = Box::leak(vec![0u8; set.kernels.len().max(1)].into_boxed_slice());
    let cname = |s: &str| -> *mut core::ffi::c_char {
        Box::leak(std::ffi::CString::new(s).unwrap_or_default().into_boxed_c_str()).as_ptr().cast_mut()
    };
    let entry = |addr: *mut c_void, name: &str, size: usize| sys::__tgt_offload_entry {
        Version: sys::OFFLOAD_ENTRY_VERSION,
        Kind: sys::OFK_OPENMP,
        Address: addr,
        SymbolName: cname(name),
        Size: size as u64,
        ..sys::__tgt_offload_entry::ZEROED
    };
    let mut entries = Vec::new();
    let mut kernels = Vec::new();
    for (i, k) in set.kernels.iter().enumerate() {
        let addr = (&ids[i] as *const u8).cast_mut().cast::<c_void>();
        entries.push(entry(addr, k, 0));
        kernels.push((*k, addr as usize));
    }
    let twin = |size: usize| -> usize {
        let words: &'static mut [u64] = Box::leak(vec![0u64; size.div_ceil(8).max(1)].into_boxed_slice());
        words.as_mut_ptr() as usize
    };
    for g in set.globals {
        let t = twin(g.size);
        entries.push(entry(t as *mut c_void, g.name, g.size));
    }
    let panic_twin = with_panic.then(|| {
        let t = twin(8);
        entries.push(entry(t as *mut c_void, PANIC_RECORD_GLOBAL, 8));
        t
    });
    let entries: &'static mut [sys::__tgt_offload_entry] = Box::leak(entries.into_boxed_slice());
    let range = entries.as_mut_ptr_range();
    let mut copies = Vec::with_capacity(chosen.len());
    let images: Vec<sys::__tgt_device_image> = chosen
        .iter()
        .map(|i| {
            // libomptarget parses the image as an ELF object in place, which needs the natural alignment of its
            // headers; `include_bytes!` data is only byte-aligned (a misaligned cubin is silently rejected: no
            // device). Registration keeps an aligned copy for the life of the process.
            let words: &'static mut [u64] = Box::leak(vec![0u64; i.bytes.len().div_ceil(8)].into_boxed_slice());
            // SAFETY: `words` spans at least `i.bytes.len()` bytes; u64 has no invalid bit patterns.
            let aligned: &'static mut [u8] = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), i.bytes.len()) };
            aligned.copy_from_slice(i.bytes);
            let r = aligned.as_ptr_range();
            copies.push((*i, &*aligned));
            sys::__tgt_device_image {
                ImageStart: r.start.cast_mut().cast(),
                ImageEnd: r.end.cast_mut().cast(),
                EntriesBegin: range.start,
                EntriesEnd: range.end,
            }
        })
        .collect();
    let images: &'static mut [sys::__tgt_device_image] = Box::leak(images.into_boxed_slice());
    let desc: &'static mut sys::__tgt_bin_desc = Box::leak(Box::new(sys::__tgt_bin_desc {
        NumDeviceImages: i32::try_from(images.len()).unwrap_or(i32::MAX),
        DeviceImages: images.as_mut_ptr(),
        HostEntriesBegin: range.start,
        HostEntriesEnd: range.end,
    }));
    let t0 = std::time::Instant::now();
    // SAFETY: everything reachable from `desc` is leaked (lives until exit); each image passed `check_kind`
    // and defines every entry's symbol (step 2).
    unsafe { rtm.rt.register_lib(desc) };
    *family_guard = Some(family);
    let archs: Vec<&'static str> = chosen.iter().map(|i| i.arch).collect();
    log(|| {
        format!(
            "registered {} ({:?}, archs {:?}) in {:.1} ms; {} device(s)",
            set_name(),
            family,
            archs,
            t0.elapsed().as_secs_f64() * 1e3,
            rtm.rt.num_devices()
        )
    });
    Ok(Registered {
        kernels,
        family,
        archs,
        panic_twin,
        devices: Mutex::new(HashMap::new()),
        images: copies,
        user_globals: !set.globals.is_empty(),
    })
}

impl Registered {
    /// Prepare `device` for this image set once: load the image there (an empty map does it) and point the
    /// device's `__omp_rs_panic_record` at a pinned `PanicRecord`.
    pub(crate) fn device_state(&self, device: i32) -> Result<DevState, Error> {
        let mut devs = self.devices.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = devs.get(&device) {
            return Ok(*s);
        }
        let rtm = runtime()?;
        let rt = rtm.rt;
        let loc = Ident::at(std::panic::Location::caller(), "omp-rs image load");
        // Force the image load on this device: any map call does it. Map one host word with `alloc`.
        let mut scratch = 0u64;
        let mut args = MapArgs::with_capacity(1);
        let p = (&mut scratch as *mut u64).cast::<c_void>();
        args.push(p, p, 8, sys::maptype::NONE);
        let changing = super::map::changing_mappings();
        // SAFETY: `scratch` lives across both calls; it is not mapped before (fresh stack word), so alloc then
        // release cannot conflict with an existing mapping, and no queued kernel uses it (no settle needed); the end
        // is made holding `changing_mappings`.
        unsafe {
            rt.data(DataOp::Begin, loc, device, &mut args);
            rt.data(DataOp::End, loc, device, &mut args);
        }
        super::map::mappings_changed();
        drop(changing);
        let mut state = DevState { panic_record: None };
        if let Some(twin) = self.panic_twin {
            if rt.is_present(twin as *const u8, device) {
                let rec = rt.alloc_host(std::mem::size_of::<PanicRecord>(), device)?;
                let rec = rec.as_ptr().cast::<PanicRecord>();
                let print_buffer = super::device_output::allocate(rt, device).unwrap_or(0);
                // SAFETY: fresh pinned allocation of the right size and alignment (page-aligned).
                unsafe { rec.write(PanicRecord { print_buffer, ..PanicRecord::default() }) };
                let _g = rtm.twin_lock.lock().unwrap_or_else(|p| p.into_inner());
                // SAFETY: `twin` is a leaked 8-byte host word; writers are serialised by `twin_lock`.
                unsafe { (twin as *mut u64).write_volatile(rec as u64) };
                let mut a = MapArgs::with_capacity(1);
                a.push(twin as *mut c_void, twin as *mut c_void, 8, sys::maptype::TO);
                // SAFETY: the twin is present (checked above: a static mapping of the loaded image), so the
                // update copies 8 bytes into the device global; no kernel of this image set ran on `device` yet (this
                // is its first state there), so none is queued that reads the global.
                unsafe { rt.data(DataOp::Update, loc, device, &mut a) };
                state.panic_record = Some(rec as usize);
            } else {
                log(|| format!("device {device}: panic record global not mapped; device panics will not be reported"));
            }
        }
        devs.insert(device, state);
        Ok(state)
    }

    /// The registered images, each with the aligned copy libomptarget parsed.
    pub(crate) fn images(&self) -> &[(&'static image::Image, &'static [u8])] {
        &self.images
    }

    /// Whether the set declares device globals of its own.
    pub(crate) fn has_user_globals(&self) -> bool {
        self.user_globals
    }

    /// Host entry address of `kernel`.
    pub(crate) fn kernel_addr(&self, kernel: &str) -> Option<usize> {
        self.kernels.iter().find(|(k, _)| *k == kernel).map(|(_, a)| *a)
    }
}

/// The source file a device panic record names: read back from device memory (GPU images keep the name there) or
/// host memory (host plugin); `<unknown>` when the device did not record it or the copy fails. Called once the
/// kernel that recorded it has finished.
pub(crate) fn panic_file(device: i32, r: &PanicRecord) -> String {
    let mut file = String::from("<unknown>");
    let Some(rtm) = runtime_if_loaded() else { return file };
    if r.file_ptr != 0 && r.file_len > 0 {
        let len = (r.file_len as usize).min(4096);
        let mut buf = vec![0u8; len];
        // SAFETY: the device recorded `file_ptr`/`file_len` from a `&'static str` in its image (memory of this
        // device that no kernel writes); `buf` has `len` bytes.
        let ok = unsafe { rtm.rt.memcpy_from_device(buf.as_mut_ptr(), r.file_ptr as *const c_void, len, device) };
        if ok.is_ok() {
            file = String::from_utf8_lossy(&buf).into_owned();
        }
    }
    file
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::offload::image::ImageKind;

    fn set(bytes: &[u8], kernels: &[&str]) -> &'static ImageSet {
        ImageSet::leak(
            vec![(ImageKind::HostSo, "host-x86_64".to_owned(), bytes.to_vec())],
            kernels.iter().map(|k| (*k).to_owned()).collect(),
            Vec::new(),
        )
    }

    /// Copies of a set (same kernels, same bytes at other addresses) share the first one's registration; a set
    /// that differs in one byte, one kernel name or its length does not.
    #[test]
    fn identical_sets_are_one_and_others_are_not() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let first = set(&bytes, &["k0", "k1"]);
        let copy = set(&bytes, &["k0", "k1"]);
        assert!(!std::ptr::eq(first, copy));
        assert!(std::ptr::eq(canonical(first), first));
        assert!(std::ptr::eq(canonical(copy), first));
        let mut changed = bytes.clone();
        changed[77_777] ^= 1;
        let other = set(&changed, &["k0", "k1"]);
        assert!(std::ptr::eq(canonical(other), other));
        let renamed = set(&bytes, &["k0", "k2"]);
        assert!(std::ptr::eq(canonical(renamed), renamed));
        let shorter = set(&bytes[..99_999], &["k0", "k1"]);
        assert!(std::ptr::eq(canonical(shorter), shorter));
    }
}
