//! `nowait` launches: truly asynchronous for the calling thread. Each device has one worker thread that runs
//! the queued launches in submission order (like a CUDA stream); the calling thread continues at once.
//!
//! libomptarget 22 gives no asynchronous launch without libomp's task machinery (every `__tgt_*` call is
//! synchronous), so the worker makes the synchronous call. The host overlaps its own work
//! with the device; back-to-back launches on one device still run one after another.
//!
//! Soundness: a pending launch uses borrowed host memory from another thread, so it must not outlive the borrow
//! even if its handle is leaked (`mem::forget`). As with `std::thread::scope`, launches are made inside
//! [`scope`], whose end waits for every launch made in it, whatever happens to the handles.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::device::Device;
use super::launch::{launch_impl, ArgPack, Geometry, KernelRef, LaunchOutcome};
use super::result::Ident;
use crate::Error;

type JobResult = Result<LaunchOutcome, Error>;

/// Completion state of one job: `done` stays true once set; `result` is taken by whoever reports it.
#[derive(Debug, Default)]
struct Slot {
    state: Mutex<(bool, Option<JobResult>)>,
    cv: Condvar,
    taken: std::sync::atomic::AtomicBool,
}

impl Slot {
    fn finish(&self, r: JobResult) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = (true, Some(r));
        self.cv.notify_all();
    }

    fn wait(&self) -> std::sync::MutexGuard<'_, (bool, Option<JobResult>)> {
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while !g.0 {
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        g
    }
}

struct Job {
    kernel: &'static KernelRef,
    device: Device,
    pack: ArgPack<'static>,
    geometry: Geometry,
    ident: &'static Ident,
    region: &'static Location<'static>,
    slot: Arc<Slot>,
}

// SAFETY: `pack` holds raw pointers into memory borrowed for the enclosing `scope`, which does not return before
// the job has run (it waits on `slot`); libomptarget may be called from any thread.
unsafe impl Send for Job {}

fn worker(device: Device) -> Sender<Job> {
    static WORKERS: OnceLock<Mutex<HashMap<i32, Sender<Job>>>> = OnceLock::new();
    let mut w = WORKERS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    w.entry(device.0)
        .or_insert_with(|| {
            let (tx, rx) = channel::<Job>();
            let spawned = std::thread::Builder::new().name(format!("omp-rs-device-{}", device.0)).spawn(move || {
                for job in rx {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        // `Pending::wait` promises completion: a launch that went onto the device's queue is
                        // waited for here, on the worker.
                        launch_impl(job.kernel, job.device, job.pack, job.geometry, job.ident, job.region)
                            .and_then(|o| super::queue::sync(job.device.0).map(|()| o))
                    }))
                    .unwrap_or_else(|_| Err(Error::Nowait { kernel: job.kernel.name().to_owned(), detail: "the launch panicked".into() }));
                    job.slot.finish(r);
                }
            });
            if spawned.is_err() {
                // Without a worker the sender's jobs are dropped; `launch_nowait` then runs them inline.
                eprintln!("omp-rs: could not start the nowait worker for device {}; nowait launches run synchronously", device.0);
            }
            tx
        })
        .clone()
}

/// A scope for `nowait` launches; see [`scope`].
#[derive(Debug)]
pub struct Scope<'scope, 'env: 'scope> {
    slots: Mutex<Vec<(&'static str, Arc<Slot>)>>,
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<&'env mut &'env ()>,
}

/// A launch in flight. [`wait`](Pending::wait) for its outcome; otherwise the end of the scope waits and
/// reports its error.
#[derive(Debug)]
#[must_use = "wait() for the outcome, or let the scope report errors"]
pub struct Pending<'scope> {
    slot: Arc<Slot>,
    kernel: &'static str,
    _scope: PhantomData<&'scope ()>,
}

impl Pending<'_> {
    /// Block until the launch has completed; its outcome (panic record already checked).
    ///
    /// # Errors
    /// The launch's error.
    pub fn wait(self) -> Result<LaunchOutcome, Error> {
        self.slot.taken.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut g = self.slot.wait();
        g.1.take().unwrap_or_else(|| Err(Error::Nowait { kernel: self.kernel.to_owned(), detail: "outcome already taken".into() }))
    }

    /// Whether the launch has completed.
    pub fn is_done(&self) -> bool {
        self.slot.state.lock().map(|g| g.0).unwrap_or(true)
    }
}

impl<'scope, 'env> Scope<'scope, 'env> {
    /// Queue `kernel` on `device`'s worker and return at once. Launches on one device run in queue order.
    #[track_caller]
    pub fn launch_nowait(
        &'scope self,
        kernel: &'static KernelRef,
        device: Device,
        pack: ArgPack<'scope>,
        geometry: Geometry,
    ) -> Pending<'scope> {
        let ident = Ident::at(Location::caller(), kernel.name());
        let slot = Arc::new(Slot::default());
        // SAFETY: only the lifetime changes. The borrows in `pack` live for 'scope, and `scope` waits for this
        // job (through `slot`, recorded below) before 'scope ends, even if the `Pending` is leaked.
        let pack: ArgPack<'static> = unsafe { std::mem::transmute::<ArgPack<'scope>, ArgPack<'static>>(pack) };
        self.slots.lock().unwrap_or_else(|p| p.into_inner()).push((kernel.name(), slot.clone()));
        let job = Job { kernel, device, pack, geometry, ident, region: Location::caller(), slot: slot.clone() };
        if let Err(std::sync::mpsc::SendError(job)) = worker(device).send(job) {
            slot.finish(launch_impl(job.kernel, job.device, job.pack, job.geometry, job.ident, job.region));
        }
        Pending { slot, kernel: kernel.name(), _scope: PhantomData }
    }
}

/// Run `f` with a [`Scope`] for `nowait` launches; wait for all of them before returning (also when `f`
/// panics). Returns `f`'s value, or the first error of a launch whose [`Pending`] was not waited for.
///
/// # Errors
/// The first error among launches nobody waited for.
pub fn scope<'env, R>(f: impl for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> R) -> Result<R, Error> {
    let s = Scope { slots: Mutex::new(Vec::new()), _scope: PhantomData, _env: PhantomData };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&s)));
    let mut first_err = None;
    let slots = std::mem::take(&mut *s.slots.lock().unwrap_or_else(|p| p.into_inner()));
    for (_kernel, slot) in slots {
        let mut g = slot.wait();
        if !slot.taken.load(std::sync::atomic::Ordering::Relaxed) {
            if let Some(Err(e)) = g.1.take() {
                first_err.get_or_insert(e);
            }
        }
    }
    match r {
        Err(p) => std::panic::resume_unwind(p),
        Ok(v) => first_err.map_or(Ok(v), Err),
    }
}
