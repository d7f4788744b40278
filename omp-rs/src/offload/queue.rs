//! Queued launches: a target region whose data is already on the device is launched on one of its device's queues;
//! launches on common device memory share a queue (in order), others may overlap (`lanes.rs`). A region without
//! `nowait` then waits for its kernel before it returns (OpenMP's end of region); a `nowait` one does not.
//! libomptarget keeps owning the mappings (present table, reference counts, copies); the launch goes through LLVM's
//! liboffload (`olLaunchKernel` on an `olCreateQueue` queue, 3.2–3.5 µs on the H200 against 12–15 µs for a
//! synchronous `__tgt_target_kernel`), or, on libomptarget's host plugin (which liboffload does not drive), through a
//! worker thread that makes the libomptarget call, so CI runs the same queue logic.
//!
//! # Why it is sound
//! Kernels only touch device memory and pinned host buffers, and the host can observe neither without going
//! through libomptarget (update, exit data, the end of a data region, a copy of a `DeviceBuffer`, a mapped
//! launch) or reading a reduction. So:
//! - every libomptarget call that moves or frees device data first settles the device's queues ([`settle`], made
//!   by `result::Rt` itself, so no call site can forget it), and a launch that must wait (no `nowait`, reductions,
//!   mapped copies, `OMP_RS_LAUNCH=wait`) syncs the queue before returning;
//! - the borrow checker keeps host code off data mapped by a `target_data` block (its tokens), so nothing reads
//!   a variable a queued region writes before one of those points.
//!
//! # Device panics
//! A queued kernel that panics writes its set's pinned panic record like a synchronous one. The record is read
//! when the queue settles; the panic is reported by the next operation that reports errors ([`take_error`]:
//! updates, exit data, the end of a data region, the next waiting launch, `taskwait`) as
//! [`Error::DevicePanic`] naming the queued region whose kernel panicked and where that region is in the user's
//! source. When several different regions of one image set were pending, the device-recorded source line picks
//! the region whose body contains it; otherwise the first of them is named and the others are listed. A panic
//! nobody observed is printed at process exit, which then exits with status 101.
//!
//! # Environment
//! `OMP_RS_LAUNCH`: `openmp` (default: a region waits unless it carries `nowait`), `queued` (every region on present
//! data stays queued: not OpenMP's end of region, for A/B runs), `wait` (`nowait` regions wait too), `sync` (every
//! region through libomptarget's synchronous `__tgt_target_kernel`, the path before queues). `OMP_RS_LOG=info` says
//! which path a device uses and why.

use core::ffi::c_void;
use std::collections::HashMap;
use std::ffi::CString;
use std::panic::Location;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use libomptarget_sys::offload::{self as ol, Handle, OffloadLib};
use libomptarget_sys::{self as sys, maptype as mt};

use super::device::Device;
use super::image::{self, ImageKind, PANIC_RECORD_GLOBAL};
use super::lanes::Lanes;
use super::policy::log;
use super::registry::{self, Family, PanicRecord, Registered};
use super::result::{Ident, MapArgs};
use crate::Error;

/// How target regions are launched (`OMP_RS_LAUNCH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaunchMode {
    /// OpenMP's meaning (the default): regions on present data go through the queue; a region without `nowait`
    /// waits for its kernel before its construct ends, a `nowait` one returns at once.
    OpenMp,
    /// Every region on present data stays queued until the host can observe its data (not OpenMP's end of region:
    /// a host clock around a region reads its launch only). For measurements.
    Queued,
    /// Through the queue, but every region waits (`nowait` too).
    Wait,
    /// Every region through `__tgt_target_kernel`, synchronously.
    Sync,
}

pub(crate) fn mode() -> LaunchMode {
    static MODE: OnceLock<LaunchMode> = OnceLock::new();
    *MODE.get_or_init(|| match std::env::var("OMP_RS_LAUNCH").map(|v| v.trim().to_ascii_lowercase()) {
        Ok(v) if v == "sync" => LaunchMode::Sync,
        Ok(v) if v == "wait" => LaunchMode::Wait,
        Ok(v) if v == "queued" => LaunchMode::Queued,
        Ok(v) if v == "openmp" || v.is_empty() => LaunchMode::OpenMp,
        Ok(v) => {
            eprintln!("omp-rs: OMP_RS_LAUNCH={v} is not one of openmp, queued, wait, sync; using openmp");
            LaunchMode::OpenMp
        }
        Err(_) => LaunchMode::OpenMp,
    })
}

/// Queues per device (`OMP_RS_LANES`, 1..=16, default 4): launches on different data go on different queues and may
/// overlap on the device (`lanes.rs`); 1 keeps every launch of a device in submission order.
fn lane_count() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| match std::env::var("OMP_RS_LANES").map(|v| v.trim().parse::<usize>()) {
        Ok(Ok(n)) if (1..=16).contains(&n) => n,
        Ok(_) => {
            eprintln!("omp-rs: OMP_RS_LANES must be a number from 1 to 16; using 4");
            4
        }
        Err(_) => 4,
    })
}

/// One queued launch, kept until its queue settles.
#[derive(Debug, Clone, Copy)]
struct PendingLaunch {
    kernel: &'static str,
    region: &'static Location<'static>,
    /// Source lines of the region's body (`None`: unknown), for naming the region that panicked.
    span: Option<(&'static str, u32, u32)>,
    /// The pinned panic record the kernel writes.
    record: Option<usize>,
}

#[derive(Debug)]
struct QueueState {
    pending: Vec<PendingLaunch>,
    /// A device panic (or a failed queued launch) found while settling, not yet reported.
    error: Option<Error>,
    /// What each lane (queue) of the device has pending, for placing the next launch.
    lanes: Lanes,
    /// Events made for waits between lanes, destroyed when the device settles.
    events: Vec<H>,
}

/// The queue of one device.
#[derive(Debug)]
pub(crate) struct DeviceQueue {
    device: i32,
    backend: Backend,
    state: Mutex<QueueState>,
}

#[derive(Debug)]
enum Backend {
    Offload(OffloadQueue),
    Worker(Worker),
}

/// An opaque liboffload handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct H(Handle);
// SAFETY: liboffload handles are plain identifiers of objects the library owns and synchronises; omp-rs never
// dereferences them, and calls on one queue are serialised by `DeviceQueue::state`.
unsafe impl Send for H {}
// SAFETY: as above.
unsafe impl Sync for H {}

#[derive(Debug)]
struct OffloadQueue {
    lib: &'static OffloadLib,
    device: H,
    host: H,
    /// The device's queues, [`lane_count`] of them: launches on different data overlap (see `lanes.rs`).
    lanes: Vec<H>,
    /// Per registered image set (by address): its program on this device and the kernels looked up in it.
    programs: Mutex<HashMap<usize, Result<Program, String>>>,
}

#[derive(Debug)]
struct Program {
    handle: H,
    kernels: HashMap<&'static str, H>,
}

/// Host plugin: launches made by a worker thread, in submission order, through libomptarget.
#[derive(Debug)]
struct Worker {
    tx: Mutex<Sender<WorkerJob>>,
    /// Jobs submitted and finished; `settle` waits until they are equal.
    progress: Arc<(Mutex<(u64, u64)>, Condvar)>,
    /// A launch libomptarget declined, reported at the next settle.
    failures: Arc<Mutex<Vec<Error>>>,
}

struct WorkerJob {
    kernel: &'static str,
    region: &'static Location<'static>,
    addr: usize,
    ident: &'static Ident,
    slots: Vec<u64>,
    teams: u32,
    threads: u32,
}

fn queues() -> &'static Mutex<HashMap<i32, Option<&'static DeviceQueue>>> {
    static Q: OnceLock<Mutex<HashMap<i32, Option<&'static DeviceQueue>>>> = OnceLock::new();
    Q.get_or_init(Default::default)
}

/// The queue of `device`, created on first use; `None` when launches on it cannot be queued (the reason is logged
/// once).
fn for_device(device: Device, family: Family) -> Option<&'static DeviceQueue> {
    let mut all = queues().lock().unwrap_or_else(|p| p.into_inner());
    *all.entry(device.0).or_insert_with(|| {
        let made = match family {
            Family::Host => Worker::start(device).map(Backend::Worker),
            Family::Gpu => OffloadQueue::open(device).map(Backend::Offload),
        };
        match made {
            Ok(backend) => {
                log(|| format!("{device}: queued launches through {}", backend.describe()));
                at_exit_settle();
                let lanes = match &backend {
                    Backend::Offload(q) => Lanes::new(q.lanes.len()),
                    // One worker thread: one lane.
                    Backend::Worker(_) => Lanes::new(1),
                };
                let state = Mutex::new(QueueState { pending: Vec::new(), error: None, lanes, events: Vec::new() });
                Some(&*Box::leak(Box::new(DeviceQueue { device: device.0, backend, state })))
            }
            Err(why) => {
                log(|| format!("{device}: launches stay synchronous: {why}"));
                None
            }
        }
    })
}

fn existing(device: i32) -> Option<&'static DeviceQueue> {
    queues().lock().unwrap_or_else(|p| p.into_inner()).get(&device).copied().flatten()
}

/// Wait for everything queued on `device` (a libomptarget call is about to touch its data). A device panic found
/// is kept for [`take_error`]. Called by `result::Rt` before every call that copies or frees device data.
pub(crate) fn settle(device: i32) {
    if let Some(q) = existing(device) {
        let mut st = q.state.lock().unwrap_or_else(|p| p.into_inner());
        q.settle_locked(&mut st);
    }
}

/// Settle `device`'s queue and report what went wrong in it since the last report.
///
/// # Errors
/// [`Error::DevicePanic`] of a queued region, or a queued launch that failed.
pub(crate) fn sync(device: i32) -> Result<(), Error> {
    let Some(q) = existing(device) else { return Ok(()) };
    let mut st = q.state.lock().unwrap_or_else(|p| p.into_inner());
    q.settle_locked(&mut st);
    st.error.take().map_or(Ok(()), Err)
}

/// What settling found on `device` (see [`sync`]), without waiting for launches still queued.
pub(crate) fn take_error(device: i32) -> Result<(), Error> {
    let Some(q) = existing(device) else { return Ok(()) };
    let e = q.state.lock().unwrap_or_else(|p| p.into_inner()).error.take();
    e.map_or(Ok(()), Err)
}

/// [`sync`] every device with a queue (`taskwait`, process exit).
///
/// # Errors
/// The first error found.
pub(crate) fn sync_all() -> Result<(), Error> {
    let devices: Vec<i32> = queues().lock().unwrap_or_else(|p| p.into_inner()).keys().copied().collect();
    let mut first = None;
    for d in devices {
        if let Err(e) = sync(d) {
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}

fn at_exit_settle() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    extern "C" fn on_exit() {
        if let Err(e) = sync_all() {
            eprintln!("omp-rs: a queued target region failed and nothing waited for it before exit: {e}");
            // SAFETY: `_exit` ends the process without running further exit handlers (we are inside one).
            unsafe { libc::_exit(101) };
        }
    }
    ONCE.call_once(|| {
        // SAFETY: registers a plain `extern "C"` function; it runs before the runtimes' own destructors, which
        // were registered when they were loaded (earlier).
        let _ = unsafe { libc::atexit(on_exit) };
    });
}

/// A launch ready for the queue: kernel slots (after `dyn_ptr`) with device pointers in place of mapped arguments.
pub(crate) struct QueuedLaunch<'k> {
    pub(crate) kernel: &'static str,
    pub(crate) addr: usize,
    pub(crate) ident: &'static Ident,
    pub(crate) region: &'static Location<'static>,
    pub(crate) span: Option<(&'static str, u32, u32)>,
    pub(crate) slots: &'k [u64],
    /// The device memory the kernel can reach: its mapped arrays and device buffers (byte ranges).
    pub(crate) footprint: &'k [std::ops::Range<u64>],
    pub(crate) teams: u32,
    pub(crate) threads: u32,
    pub(crate) record: Option<usize>,
}

/// Opens `device`'s queue and loads `reg`'s program there ahead of the first launch (the devices' start before
/// `main`, `early.rs`): liboffload's program load, 4-6 ms on the H200, then does not fall inside a timer around the
/// program's first regions, as libomptarget's images, loaded when the device starts, do not. A failure is kept and
/// met (and logged) by the first launch, exactly as without the preload.
pub(crate) fn preload(device: Device, reg: &'static Registered) {
    if mode() == LaunchMode::Sync || reg.family != Family::Gpu {
        return;
    }
    if let Some(DeviceQueue { backend: Backend::Offload(q), .. }) = for_device(device, reg.family) {
        let mut progs = q.programs.lock().unwrap_or_else(|p| p.into_inner());
        q.program(&mut progs, reg, device.0);
    }
}

/// A kernel ready to be queued on one device: the device's queue and, on liboffload, the kernel's handle in the
/// program loaded there. Looked up once per region and device (`KernelRef` keeps it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    queue: &'static DeviceQueue,
    kernel: Option<H>,
}

/// The queue target of `kernel` (of image set `reg`) on `device`; `None` when its launches there stay synchronous
/// (no queue on the device, or the kernel's image cannot be loaded beside libomptarget's: the reason is logged).
pub(crate) fn target(device: Device, reg: &'static Registered, kernel: &'static str) -> Option<Target> {
    let queue = for_device(device, reg.family)?;
    let handle = match &queue.backend {
        Backend::Offload(q) => match q.kernel(reg, device.0, kernel) {
            Ok(h) => Some(h),
            Err(why) => {
                log(|| format!("kernel `{kernel}` on {device}: launches stay synchronous: {why}"));
                return None;
            }
        },
        Backend::Worker(_) => None,
    };
    Some(Target { queue, kernel: handle })
}

impl Target {
    /// Queue a launch.
    ///
    /// # Errors
    /// The failure of an earlier queued launch found since the last report; [`Error::LaunchFailed`] when the
    /// queue refuses this one (nothing was queued).
    ///
    /// # Safety
    /// `l.slots` follow the kernel's ABI with device pointers valid on this device until the queue settles (they
    /// are mappings whose owners end them through libomptarget, which settles first), and pinned buffers for
    /// reductions stay leased until then.
    pub(crate) unsafe fn launch(&self, l: &QueuedLaunch<'_>) -> Result<(), Error> {
        let failed = |detail: String| Error::LaunchFailed { kernel: l.kernel.to_owned(), region: l.region.to_string(), detail };
        let q = self.queue;
        let mut st = q.state.lock().unwrap_or_else(|p| p.into_inner());
        // A failure found since the last report surfaces at the next operation on this device.
        if let Some(e) = st.error.take() {
            return Err(e);
        }
        let placed = st.lanes.place(l.footprint);
        match (&q.backend, self.kernel) {
            (Backend::Offload(q), Some(kernel)) => {
                let lane = q.lanes[placed.lane];
                q.order_after(lane, &placed.waits, &mut st.events).map_err(failed)?;
                // The packed parameter buffer: `dyn_ptr`, then the slots (on the stack for every kernel omp-rs makes).
                let mut stack = [0u64; 64];
                let heap: Vec<u64>;
                let args: &[u64] = if l.slots.len() < stack.len() {
                    stack[1..=l.slots.len()].copy_from_slice(l.slots);
                    &stack[..=l.slots.len()]
                } else {
                    heap = std::iter::once(0).chain(l.slots.iter().copied()).collect();
                    &heap
                };
                let sizes = ol::LaunchSize {
                    dimensions: 1,
                    num_groups: ol::Dims { x: l.teams, y: 1, z: 1 },
                    group_size: ol::Dims { x: l.threads, y: 1, z: 1 },
                    dyn_shared_memory: 0,
                };
                // SAFETY: handles from this library for this device; `args` is the packed parameter buffer (8-byte
                // slots in parameter order), copied by the library before the call returns; the rest is the
                // caller's contract.
                let r = unsafe { (q.lib.launch_kernel)(lane.0, q.device.0, kernel.0, args.as_ptr().cast(), args.len() * 8, &sizes) };
                // SAFETY: `r` came from the library.
                if let Some(e) = unsafe { ol::error_text(r) } {
                    return Err(failed(e));
                }
            }
            (Backend::Offload(_), None) => return Err(failed("no kernel handle for the liboffload queue".into())),
            (Backend::Worker(w), _) => {
                let job = WorkerJob {
                    kernel: l.kernel,
                    region: l.region,
                    addr: l.addr,
                    ident: l.ident,
                    slots: l.slots.to_vec(),
                    teams: l.teams,
                    threads: l.threads,
                };
                w.progress.0.lock().unwrap_or_else(|p| p.into_inner()).0 += 1;
                let sent = w.tx.lock().unwrap_or_else(|p| p.into_inner()).send(job);
                if sent.is_err() {
                    w.progress.0.lock().unwrap_or_else(|p| p.into_inner()).0 -= 1;
                    return Err(failed("the host-plugin launch worker has stopped".into()));
                }
            }
        }
        st.pending.push(PendingLaunch { kernel: l.kernel, region: l.region, span: l.span, record: l.record });
        Ok(())
    }
}

impl DeviceQueue {
    fn settle_locked(&self, st: &mut QueueState) {
        if st.pending.is_empty() {
            return;
        }
        let waited = match &self.backend {
            Backend::Offload(q) => {
                let mut failure = None;
                for lane in st.lanes.used() {
                    // SAFETY: a queue of this library.
                    if let Some(detail) = unsafe { ol::error_text((q.lib.sync_queue)(q.lanes[lane].0)) } {
                        failure.get_or_insert(detail);
                    }
                }
                for e in st.events.drain(..) {
                    // SAFETY: an event of this library whose wait was queued; every queue is idle now.
                    unsafe { (q.lib.destroy_event)(e.0) };
                }
                match failure {
                    None => Ok(()),
                    Some(detail) => Err(Error::LaunchFailed {
                        kernel: st.pending[0].kernel.to_owned(),
                        region: st.pending[0].region.to_string(),
                        detail: format!("waiting for the device's queue failed: {detail}"),
                    }),
                }
            }
            Backend::Worker(w) => {
                let (m, cv) = &*w.progress;
                let mut g = m.lock().unwrap_or_else(|p| p.into_inner());
                while g.1 < g.0 {
                    g = cv.wait(g).unwrap_or_else(|p| p.into_inner());
                }
                drop(g);
                w.failures.lock().unwrap_or_else(|p| p.into_inner()).drain(..).next().map_or(Ok(()), Err)
            }
        };
        st.lanes.clear();
        let pending = std::mem::take(&mut st.pending);
        if let Err(e) = waited {
            st.error.get_or_insert(e);
        }
        let mut records: Vec<usize> = pending.iter().filter_map(|p| p.record).collect();
        records.sort_unstable();
        records.dedup();
        for rec in records {
            super::device_output::flush(rec);
            if let Some(e) = self.read_record(rec, &pending) {
                st.error.get_or_insert(e);
            }
        }
    }

    /// The panic recorded in `rec` by one of `pending` (reset for later launches), if any.
    fn read_record(&self, rec: usize, pending: &[PendingLaunch]) -> Option<Error> {
        let p = rec as *mut PanicRecord;
        // SAFETY: `rec` is a pinned `PanicRecord` of this device (registry::device_state); the queue has settled,
        // so no kernel writes it now. Volatile: the device wrote it behind the compiler's back.
        let r = unsafe { p.read_volatile() };
        if r.count == 0 {
            return None;
        }
        // SAFETY: as above; reset for the next launch.
        unsafe { p.write_volatile(r.cleared()) };
        let file = registry::panic_file(self.device, &r);
        let candidates: Vec<&PendingLaunch> = pending.iter().filter(|p| p.record == Some(rec)).collect();
        let inside = |l: &&&PendingLaunch| {
            l.span.is_some_and(|(f, a, b)| (a..=b).contains(&(r.line as u32)) && (file.ends_with(f) || f.ends_with(file.as_str())))
        };
        let chosen = candidates.iter().find(inside).or(candidates.first()).copied()?;
        let mut region = chosen.region.to_string();
        let mut others: Vec<String> = Vec::new();
        if !candidates.iter().any(|c| inside(&c)) {
            for c in &candidates {
                let s = format!("`{}` at {}", c.kernel, c.region);
                if c.kernel != chosen.kernel && !others.contains(&s) {
                    others.push(s);
                }
            }
        }
        if !others.is_empty() {
            region = format!("{region}; or one of the regions queued with it: {}", others.join(", "));
        }
        Some(Error::DevicePanic {
            kernel: chosen.kernel.to_owned(),
            region,
            device: self.device,
            file,
            line: r.line as u32,
            column: r.column as u32,
            count: r.count,
            block: r.block,
            thread: r.thread,
        })
    }
}

impl Backend {
    fn describe(&self) -> String {
        match self {
            Backend::Offload(q) => format!("liboffload ({})", q.lib.path().display()),
            Backend::Worker(_) => "a worker thread (libomptarget's host plugin)".into(),
        }
    }
}

impl Worker {
    fn start(device: Device) -> Result<Worker, String> {
        let (tx, rx) = channel::<WorkerJob>();
        let progress: Arc<(Mutex<(u64, u64)>, Condvar)> = Arc::default();
        let failures: Arc<Mutex<Vec<Error>>> = Arc::default();
        let (prog, fails) = (progress.clone(), failures.clone());
        let rt = registry::runtime().map_err(|e| e.to_string())?.rt;
        std::thread::Builder::new()
            .name(format!("omp-rs-queue-{}", device.0))
            .spawn(move || {
                for job in rx {
                    let mut args = MapArgs::with_capacity(job.slots.len());
                    for &s in &job.slots {
                        let p = s as usize as *mut c_void;
                        args.push(p, p, 8, mt::TARGET_PARAM | mt::LITERAL);
                    }
                    let mut ka = args.kernel_args(job.teams, job.threads);
                    // SAFETY: `QueuedLaunch`'s contract: the slots hold device pointers of mappings that stay
                    // until this job is done (every libomptarget call that could end them settles first, which
                    // waits for `progress`), as literals; the kernel entry was registered and verified.
                    let rc = unsafe { rt.target_kernel(job.ident, device.0, job.addr as *mut c_void, &mut ka) };
                    if rc != sys::OMP_TGT_SUCCESS {
                        fails.lock().unwrap_or_else(|p| p.into_inner()).push(Error::LaunchFailed {
                            kernel: job.kernel.to_owned(),
                            region: job.region.to_string(),
                            detail: format!("libomptarget returned {rc} for the queued launch"),
                        });
                    }
                    let (m, cv) = &*prog;
                    m.lock().unwrap_or_else(|p| p.into_inner()).1 += 1;
                    cv.notify_all();
                }
            })
            .map_err(|e| format!("could not start the queue worker: {e}"))?;
        Ok(Worker { tx: Mutex::new(tx), progress, failures })
    }
}

impl OffloadQueue {
    fn open(device: Device) -> Result<OffloadQueue, String> {
        let rtm = registry::runtime().map_err(|e| e.to_string())?;
        let lib = ol::offload_lib(rtm.rt.lib().path()).map_err(str::to_owned)?;
        let check = |r: ol::OlResult, what: &str| -> Result<(), String> {
            // SAFETY: `r` came from `lib`.
            match unsafe { ol::error_text(r) } {
                Some(e) => Err(format!("{what}: {e}")),
                None => Ok(()),
            }
        };
        // SAFETY: no arguments; libomptarget is initialised (the documented order).
        check(unsafe { (lib.init)() }, "olInit")?;
        let mut all: Vec<(u32, Handle)> = Vec::new();
        unsafe extern "C" fn collect(dev: Handle, user: *mut c_void) -> bool {
            // SAFETY: `user` is the `Vec` below, alive for the iteration.
            unsafe { (*user.cast::<Vec<(u32, Handle)>>()).push((0, dev)) };
            true
        }
        // SAFETY: the callback only pushes into `all`, which outlives the call.
        check(unsafe { (lib.iterate_devices)(collect, (&mut all as *mut Vec<(u32, Handle)>).cast()) }, "olIterateDevices")?;
        for (backend, dev) in &mut all {
            let mut platform: Handle = std::ptr::null_mut();
            // SAFETY: a device handle from the iteration; outputs sized as the properties are.
            unsafe {
                check((lib.get_device_info)(*dev, ol::device_info::PLATFORM, 8, (&mut platform as *mut Handle).cast()), "device platform")?;
                check((lib.get_platform_info)(platform, ol::PLATFORM_INFO_BACKEND, 4, (backend as *mut u32).cast()), "platform backend")?;
            }
        }
        let host = all.iter().find(|(b, _)| *b == ol::backend::HOST).map(|(_, d)| *d).ok_or("liboffload has no host device")?;
        // libomptarget numbers the devices of its GPU plugin in the plugin's order, which liboffload's devices of
        // the same back end follow (one GPU family per process, see registry::Family).
        let gpus: Vec<Handle> = all.iter().filter(|(b, _)| *b == ol::backend::CUDA || *b == ol::backend::AMDGPU).map(|(_, d)| *d).collect();
        let dev = *gpus
            .get(device.0 as usize)
            .ok_or_else(|| format!("liboffload sees {} GPU(s), libomptarget device {} has no counterpart", gpus.len(), device.0))?;
        let mut lanes = Vec::new();
        for _ in 0..lane_count() {
            let mut queue: Handle = std::ptr::null_mut();
            // SAFETY: a device handle of this library.
            check(unsafe { (lib.create_queue)(dev, &mut queue) }, "olCreateQueue")?;
            lanes.push(H(queue));
        }
        Ok(OffloadQueue { lib, device: H(dev), host: H(host), lanes, programs: Mutex::new(HashMap::new()) })
    }

    /// Make work queued next on `lane` wait for what is queued so far on the lanes `waits` (an event recorded on
    /// each; kept in `events` until the device settles). If an event cannot be made, those lanes are waited for
    /// on the host instead: later, never wrong.
    fn order_after(&self, lane: H, waits: &[usize], events: &mut Vec<H>) -> Result<(), String> {
        if waits.is_empty() {
            return Ok(());
        }
        let mut made: Vec<Handle> = Vec::with_capacity(waits.len());
        let mut host_wait = false;
        for &w in waits {
            let mut e: Handle = std::ptr::null_mut();
            // SAFETY: a queue of this library; `e` receives the event.
            match unsafe { ol::error_text((self.lib.create_event)(self.lanes[w].0, &mut e)) } {
                None => made.push(e),
                Some(_) => host_wait = true,
            }
        }
        events.extend(made.iter().map(|&e| H(e)));
        // SAFETY: events of this library, alive until the device settles; a queue of this library.
        if !made.is_empty() && unsafe { ol::error_text((self.lib.wait_events)(lane.0, made.as_mut_ptr(), made.len())) }.is_some() {
            host_wait = true;
        }
        if host_wait {
            for &w in waits {
                // SAFETY: a queue of this library.
                if let Some(e) = unsafe { ol::error_text((self.lib.sync_queue)(self.lanes[w].0)) } {
                    return Err(format!("waiting for another queue of the device failed: {e}"));
                }
            }
        }
        Ok(())
    }

    /// The kernel `name` of `reg`'s image for this device, loading the program on first use.
    fn kernel(&self, reg: &'static Registered, device: i32, name: &'static str) -> Result<H, String> {
        let mut progs = self.programs.lock().unwrap_or_else(|p| p.into_inner());
        let prog = self.program(&mut progs, reg, device).as_mut().map_err(|e| e.clone())?;
        if let Some(k) = prog.kernels.get(name) {
            return Ok(*k);
        }
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        let mut k: Handle = std::ptr::null_mut();
        // SAFETY: a program of this library; `cname` is NUL-terminated.
        let r = unsafe { (self.lib.get_symbol)(prog.handle.0, cname.as_ptr(), ol::symbol_kind::KERNEL, &mut k) };
        // SAFETY: `r` came from the library.
        if let Some(e) = unsafe { ol::error_text(r) } {
            return Err(format!("kernel `{name}` not found in the program: {e}"));
        }
        prog.kernels.insert(name, H(k));
        Ok(H(k))
    }

    /// `reg`'s entry in `progs` (this queue's locked `programs`), loading the program on first use.
    fn program<'p>(
        &self,
        progs: &'p mut HashMap<usize, Result<Program, String>>,
        reg: &'static Registered,
        device: i32,
    ) -> &'p mut Result<Program, String> {
        progs.entry(reg as *const Registered as usize).or_insert_with(|| self.load(reg, device))
    }

    /// Load `reg`'s image for this device as a liboffload program and point its panic-record global at the pinned
    /// record libomptarget's copy of the image uses.
    fn load(&self, reg: &'static Registered, device: i32) -> Result<Program, String> {
        if reg.has_user_globals() {
            // The program is a second copy of the image: user device globals would exist twice.
            return Err("the image set has device globals, which only libomptarget's copy of the image holds".into());
        }
        let rtm = registry::runtime().map_err(|e| e.to_string())?;
        let cc = rtm.cuda.devices.get(device as usize).map(|d| d.cc);
        let mut tried = Vec::new();
        let mut handle = None;
        for (img, bytes) in reg.images() {
            let fits = match img.kind {
                ImageKind::Cubin => {
                    image::check_kind(img).ok().is_some_and(|h| cc.is_some_and(|cc| image::cubin_fits(image::cubin_sm(&h), cc)))
                }
                ImageKind::AmdCodeObject => true,
                ImageKind::HostSo => false,
            };
            if !fits {
                continue;
            }
            let mut p: Handle = std::ptr::null_mut();
            // SAFETY: `bytes` is the registry's aligned, leaked copy of a checked image.
            let r = unsafe { (self.lib.create_program)(self.device.0, bytes.as_ptr().cast(), bytes.len(), &mut p) };
            // SAFETY: `r` came from the library.
            match unsafe { ol::error_text(r) } {
                None => {
                    handle = Some(H(p));
                    break;
                }
                Some(e) => tried.push(format!("{}: {e}", img.arch)),
            }
        }
        let handle = handle.ok_or_else(|| format!("no image of the set loads through liboffload ({})", tried.join("; ")))?;
        if let Some(rec) = reg.device_state(device).map_err(|e| e.to_string())?.panic_record {
            let cname = CString::new(PANIC_RECORD_GLOBAL).map_err(|e| e.to_string())?;
            let (mut sym, mut addr): (Handle, u64) = (std::ptr::null_mut(), 0);
            let value = rec as u64;
            // SAFETY: the program's 8-byte pointer global; the copy is synchronous (no queue) from a live host word.
            let r = unsafe {
                let r = (self.lib.get_symbol)(handle.0, cname.as_ptr(), ol::symbol_kind::GLOBAL_VARIABLE, &mut sym);
                if r.is_null() {
                    let r = (self.lib.get_symbol_info)(sym, ol::SYMBOL_INFO_GLOBAL_VARIABLE_ADDRESS, 8, (&mut addr as *mut u64).cast());
                    if r.is_null() {
                        (self.lib.memcpy)(
                            std::ptr::null_mut(),
                            addr as usize as *mut c_void,
                            self.device.0,
                            (&value as *const u64).cast(),
                            self.host.0,
                            8,
                        )
                    } else {
                        r
                    }
                } else {
                    r
                }
            };
            // SAFETY: `r` came from the library.
            if let Some(e) = unsafe { ol::error_text(r) } {
                return Err(format!("could not set {PANIC_RECORD_GLOBAL} in the program: {e}"));
            }
        }
        Ok(Program { handle, kernels: HashMap::new() })
    }
}
