//! Map types and the checks made before any map reaches libomptarget.
//!
//! libomptarget aborts the process when a map with `present` finds no mapping, and when a new section extends,
//! straddles or encloses an existing mapping ("explicit extension not allowed"). [`check_sections`] rules both
//! out: it asks libomptarget about the first and last byte of each section (`omp_get_mapped_ptr`), and for a
//! section that is not mapped yet it consults a shadow table of the sections omp-rs holds mapped
//! (`target_data` tokens, enter data) to find mappings strictly inside it. Mappings made by foreign code (C libraries
//! in the same process) are only seen through their first and last byte.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

use libomptarget_sys::maptype as mt;

use super::result::Rt;
use crate::Error;

/// The map type of a `map` clause on entry (`target_data`, `target_enter_data`, kernel arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// Copy in on entry.
    To,
    /// Copy out on exit (and in on entry, see `MapKind::bits`).
    From,
    /// Both.
    ToFrom,
    /// Device storage, not copied back (initialised from the host, see `MapKind::bits`).
    Alloc,
}

impl MapKind {
    /// libomptarget's bits. `from` and `alloc` copy in as well: device memory of a mapping then always holds
    /// values (the host's, or what kernels wrote), and a copy back (`from`, an update, exit data) can never bring
    /// uninitialised device memory over host values that no iteration wrote, whatever the kernels do. The price
    /// is one host-to-device copy per new mapping; a mapping already present copies nothing, as in OpenMP.
    pub(crate) fn bits(self) -> i64 {
        match self {
            MapKind::To | MapKind::Alloc => mt::TO,
            MapKind::From | MapKind::ToFrom => mt::TO | mt::FROM,
        }
    }

    /// Whether the host memory is written back (needs a mutable borrow).
    pub fn writes_host(self) -> bool {
        matches!(self, MapKind::From | MapKind::ToFrom)
    }
}

/// The map type of `target_exit_data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitKind {
    /// Decrement the reference count; copy back when it reaches 0.
    From,
    /// Decrement the reference count; no copy.
    Release,
    /// Force the reference count to 0 and remove the mapping; no copy.
    Delete,
}

impl ExitKind {
    pub(crate) fn bits(self) -> i64 {
        match self {
            ExitKind::From => mt::FROM,
            ExitKind::Release => mt::NONE,
            ExitKind::Delete => mt::DELETE,
        }
    }
}

/// `always` and `present` map-type modifiers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// Copy regardless of the reference count.
    pub always: bool,
    /// The data must already be mapped (checked by omp-rs: [`Error::NotPresent`] instead of an abort).
    pub present: bool,
}

impl Modifiers {
    pub(crate) fn bits(self) -> i64 {
        (if self.always { mt::ALWAYS } else { 0 }) | (if self.present { mt::PRESENT } else { 0 })
    }
}

/// One host section to map: `bytes` bytes at `addr`.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    pub(crate) addr: usize,
    pub(crate) bytes: usize,
    pub(crate) present: bool,
    pub(crate) var: VarName,
}

/// The name of a mapped variable in error messages; built without allocating on the launch path, formatted only
/// when an error is reported.
#[derive(Debug, Clone)]
pub(crate) enum VarName {
    /// A variable's name as written.
    Name(&'static str),
    /// A name made at run time.
    Text(String),
    /// A kernel argument not named by the caller: its slot, element type and length.
    Arg { slot: usize, ty: &'static str, len: usize },
}

impl std::fmt::Display for VarName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VarName::Name(n) => f.write_str(n),
            VarName::Text(t) => f.write_str(t),
            VarName::Arg { slot, ty, len } => write!(f, "argument {slot} ({ty}[{len}])"),
        }
    }
}

impl From<&str> for VarName {
    fn from(s: &str) -> VarName {
        VarName::Text(s.to_owned())
    }
}

/// Presence of a section on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// Entirely inside one existing mapping; the device address of its first byte.
    Present(usize),
    /// Not mapped, and no mapping inside it.
    Absent,
}

/// Check sections that are about to be mapped together (in this order) on `device`.
pub(crate) fn check_sections(rt: Rt, device: i32, secs: &[Section]) -> Result<Vec<Presence>, Error> {
    let mut out = Vec::with_capacity(secs.len());
    for (i, s) in secs.iter().enumerate() {
        if s.bytes == 0 {
            out.push(Presence::Absent);
            continue;
        }
        let p = presence(rt, device, s)?;
        if s.present && !matches!(p, Presence::Present(_)) {
            return Err(Error::NotPresent { var: s.var.to_string(), device, addr: s.addr, bytes: s.bytes });
        }
        if p == Presence::Absent {
            // An earlier section of the same call that this one encloses or overlaps is mapped first by
            // libomptarget; this one would then extend it.
            for e in &secs[..i] {
                let (a0, a1, b0, b1) = (e.addr, e.addr + e.bytes, s.addr, s.addr + s.bytes);
                let overlaps = e.bytes > 0 && a0 < b1 && b0 < a1;
                let contained = b0 >= a0 && b1 <= a1;
                if overlaps && !contained {
                    return Err(Error::MappingConflict {
                        var: s.var.to_string(),
                        device,
                        addr: s.addr,
                        bytes: s.bytes,
                        detail: format!(
                            "`{}` ({} bytes at {:#x}), mapped earlier in the same construct, overlaps it; list the \
                             enclosing section first",
                            e.var, e.bytes, e.addr
                        ),
                    });
                }
            }
        }
        out.push(p);
    }
    Ok(out)
}

/// Bumped after every call that may remove a mapping (`Rt` does it), so that cached presence answers expire.
static MAPPINGS_EPOCH: AtomicU64 = AtomicU64::new(0);

/// Orders queued launches against the end of mappings: a launch holds it shared from looking up its arguments'
/// device addresses until its kernel is on the queue, and `Rt` holds it exclusively while it ends a mapping (after
/// settling the queue). So a mapping another thread ends cannot vanish between a launch's lookup and its enqueue
/// (libomptarget's own launches hold a reference count instead; queued ones hold none).
static MAPPING_ENDS: RwLock<()> = RwLock::new(());

/// Held by a launch from its presence checks until it is queued (or launched synchronously).
pub(crate) fn lookups_stay_valid() -> RwLockReadGuard<'static, ()> {
    MAPPING_ENDS.read().unwrap_or_else(|p| p.into_inner())
}

/// Held while mappings change: an end map (`Rt`), and a check of new sections together with the map that begins
/// them (so another thread's launch cannot map and unmap the same memory between the check's lookups).
pub(crate) fn changing_mappings() -> RwLockWriteGuard<'static, ()> {
    MAPPING_ENDS.write().unwrap_or_else(|p| p.into_inner())
}

/// Mappings may have been removed (an end/exit map or a synchronous launch's own mappings ended).
pub(crate) fn mappings_changed() {
    MAPPINGS_EPOCH.fetch_add(1, Ordering::Release);
}

/// Sections this thread found present lately: (epoch, device, address, bytes, device address). A time loop
/// launches on the same sections again and again; two present-table lookups each would cost more than the
/// launch itself on a queue.
const PRESENT_CACHE: usize = 16;
type PresentCache = RefCell<([(u64, i32, usize, usize, usize); PRESENT_CACHE], usize)>;
thread_local! {
    static RECENTLY_PRESENT: PresentCache = const { RefCell::new(([(u64::MAX, 0, 0, 0, 0); PRESENT_CACHE], 0)) };
}

fn presence(rt: Rt, device: i32, s: &Section) -> Result<Presence, Error> {
    // Read before the lookups: a mapping ended after this point bumps the epoch, so what is cached below expires.
    let epoch = MAPPINGS_EPOCH.load(Ordering::Acquire);
    let hit = RECENTLY_PRESENT
        .with(|c| c.borrow().0.iter().find(|e| e.0 == epoch && e.1 == device && e.2 == s.addr && e.3 == s.bytes).map(|e| e.4));
    if let Some(dev) = hit {
        return Ok(Presence::Present(dev));
    }
    let p = lookup_presence(rt, device, s)?;
    if let Presence::Present(dev) = p {
        RECENTLY_PRESENT.with(|c| {
            let mut c = c.borrow_mut();
            let i = c.1;
            c.0[i] = (epoch, device, s.addr, s.bytes, dev);
            c.1 = (i + 1) % PRESENT_CACHE;
        });
    }
    Ok(p)
}

fn lookup_presence(rt: Rt, device: i32, s: &Section) -> Result<Presence, Error> {
    let first = rt.mapped_ptr(s.addr as *const u8, device);
    let last = rt.mapped_ptr((s.addr + s.bytes - 1) as *const u8, device);
    let conflict = |detail: String| Error::MappingConflict { var: s.var.to_string(), device, addr: s.addr, bytes: s.bytes, detail };
    match (first != 0, last != 0) {
        (true, true) if last.wrapping_sub(first) == s.bytes - 1 => Ok(Presence::Present(first)),
        (true, true) => Err(conflict("its first and last bytes lie in different mappings".into())),
        (true, false) => Err(conflict(format!("it starts inside {} and extends past its end", mapping_at(device, s.addr)))),
        (false, true) => {
            Err(conflict(format!("it ends inside {}, which starts after its first byte", mapping_at(device, s.addr + s.bytes - 1))))
        }
        (false, false) => match shadow_overlap(device, s.addr, s.addr + s.bytes) {
            Some((a, b, var)) => Err(conflict(format!("it encloses `{var}`, mapped at {a:#x}..{b:#x}"))),
            None => Ok(Presence::Absent),
        },
    }
}

/// Per device, the sections omp-rs holds mapped: how many times, and the variable that mapped the section first
/// (for the conflict message of a later, enclosing map).
type Shadow = HashMap<i32, BTreeMap<(usize, usize), (u32, String)>>;

fn shadow() -> &'static Mutex<Shadow> {
    static S: OnceLock<Mutex<Shadow>> = OnceLock::new();
    S.get_or_init(Default::default)
}

fn shadow_overlap(device: i32, start: usize, end: usize) -> Option<(usize, usize, String)> {
    let t = shadow().lock().unwrap_or_else(|p| p.into_inner());
    let m = t.get(&device)?;
    m.range(..(end, 0)).find(|(&(a, b), _)| a < end && b > start).map(|(&(a, b), (_, var))| (a, b, var.clone()))
}

/// "the mapping of `var`" for the section omp-rs mapped that holds byte `addr`, or "a mapping".
fn mapping_at(device: i32, addr: usize) -> String {
    match shadow_overlap(device, addr, addr + 1) {
        Some((_, _, var)) => format!("the mapping of `{var}`"),
        None => "a mapping".into(),
    }
}

/// Record that omp-rs holds `addr..addr+bytes` mapped on `device` for variable `var` (until [`shadow_remove`]).
pub(crate) fn shadow_add(device: i32, addr: usize, bytes: usize, var: &str) {
    if bytes == 0 {
        return;
    }
    let mut t = shadow().lock().unwrap_or_else(|p| p.into_inner());
    t.entry(device).or_default().entry((addr, addr + bytes)).or_insert_with(|| (0, var.to_string())).0 += 1;
}

/// Undo one [`shadow_add`] (or all of them for this section when `all`, as exit `delete` does).
pub(crate) fn shadow_remove(device: i32, addr: usize, bytes: usize, all: bool) {
    if bytes == 0 {
        return;
    }
    let mut t = shadow().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = t.get_mut(&device) {
        if let Some((c, _)) = m.get_mut(&(addr, addr + bytes)) {
            *c = if all { 0 } else { *c - 1 };
            if *c == 0 {
                m.remove(&(addr, addr + bytes));
            }
        }
    }
}
