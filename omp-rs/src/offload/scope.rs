//! Data environments as the directive macros expand them: `#[omp::target_data]` blocks ([`DataScope`]),
//! `omp::target_update!`, `omp::target_enter_data!` / `omp::target_exit_data!` on the user's variables.
//!
//! The macros cannot hand a borrow to a guard (the block's target regions use the same variables), so these take
//! raw sections. What makes them sound is the macro's analysis: host code inside a `target_data` block cannot
//! name a mapped variable, the variables outlive the block, and every section is re-derived from a live borrow at
//! each call (`&mut` where the host copy is written). libomptarget's present table plus omp-rs's overlap checks
//! turn a stale or mismatched section into an [`Error`] rather than a write outside the section.

use core::ffi::c_void;
use std::panic::Location;

use super::device::{self, Decision, Device};
use super::image::ImageSet;
use super::map::{self, ExitKind, MapKind, Modifiers, Section};
use super::policy::{self, log, Policy};
use super::registry;
use super::repr::Pod;
use super::result::{DataOp, Ident, MapArgs};
use crate::Error;

/// One section of a [`DataScope`].
#[derive(Debug, Clone)]
pub struct ScopeEntry {
    addr: usize,
    bytes: usize,
    kind: MapKind,
    exit: ExitKind,
    mods: Modifiers,
    var: &'static str,
}

impl ScopeEntry {
    fn new<T: Pod>(ptr: *const T, len: usize, kind: MapKind, exit: ExitKind, var: &'static str) -> Self {
        ScopeEntry { addr: ptr as usize, bytes: len * std::mem::size_of::<T>(), kind, exit, mods: Modifiers::default(), var }
    }

    /// `map(to: x)`: copied in, not back.
    pub fn to<T: Pod>(x: &[T], var: &'static str) -> Self {
        Self::new(x.as_ptr(), x.len(), MapKind::To, ExitKind::Release, var)
    }

    /// `map(alloc: x)`: device storage only.
    pub fn alloc<T: Pod>(x: &[T], var: &'static str) -> Self {
        Self::new(x.as_ptr(), x.len(), MapKind::Alloc, ExitKind::Release, var)
    }

    /// `map(from: x)`: copied back when the scope ends (needs an exclusive borrow: the host copy is written).
    pub fn from<T: Pod>(x: &mut [T], var: &'static str) -> Self {
        Self::new(x.as_ptr(), x.len(), MapKind::From, ExitKind::From, var)
    }

    /// `map(tofrom: x)`.
    pub fn tofrom<T: Pod>(x: &mut [T], var: &'static str) -> Self {
        Self::new(x.as_ptr(), x.len(), MapKind::ToFrom, ExitKind::From, var)
    }

    /// The `always` modifier.
    pub fn always(mut self) -> Self {
        self.mods.always = true;
        self
    }

    /// The `present` modifier.
    pub fn present(mut self) -> Self {
        self.mods.present = true;
        self
    }
}

/// An active `#[omp::target_data]` block: its sections stay mapped until it is dropped, which copies `from`/`tofrom`
/// sections back.
#[derive(Debug)]
pub struct DataScope {
    device: Option<Device>,
    entries: Vec<ScopeEntry>,
    loc: &'static Ident,
}

impl DataScope {
    /// Maps `entries` on `device` (or on nothing, when the region stays on the host). `images`: the crate's image
    /// set, registered first so that its devices exist.
    ///
    /// # Safety
    /// Until the scope is dropped every section stays allocated and unmoved, host code does not access it, and
    /// sections from [`ScopeEntry::from`] / [`ScopeEntry::tofrom`] are not borrowed elsewhere when the scope ends
    /// (their host copy is written then). The `#[omp::target_data]` expansion guarantees this.
    ///
    /// # Errors
    /// Device selection errors, `present` on unmapped data, sections overlapping other mappings.
    #[track_caller]
    pub unsafe fn begin(
        device: Option<i64>,
        if_cond: bool,
        entries: Vec<ScopeEntry>,
        images: Option<&'static ImageSet>,
    ) -> Result<DataScope, Error> {
        let loc = Ident::at(Location::caller(), "target data");
        if let (Some(set), true) = (images, if_cond && policy::policy() != Policy::Disabled) {
            // Registering the image set creates its devices; a failure leaves the region on the host (or errors
            // under MANDATORY when it matters, at the kernels' launches).
            if registry::runtime().is_ok() {
                let _ = registry::ensure_registered(set);
            }
        }
        let device = match device::resolve(device, if_cond)? {
            Decision::Offload(d) => Some(d),
            Decision::Host(reason) => {
                log(|| format!("target data at {}: host ({reason})", Location::caller()));
                None
            }
        };
        let mut scope = DataScope { device, entries: Vec::new(), loc };
        let Some(d) = device else { return Ok(scope) };
        let rt = registry::runtime()?.rt;
        for e in entries {
            if e.bytes == 0 {
                continue;
            }
            map::check_sections(rt, d.0, &[Section { addr: e.addr, bytes: e.bytes, present: e.mods.present, var: e.var.to_owned() }])?;
            let p = e.addr as *mut c_void;
            let mut a = MapArgs::with_capacity(1);
            a.push(p, p, e.bytes as i64, e.kind.bits() | e.mods.bits());
            // SAFETY: checked against the present table above; validity for the scope's lifetime is the caller's
            // contract.
            unsafe { rt.data(DataOp::Begin, loc, d.0, &mut a) };
            map::shadow_add(d.0, e.addr, e.bytes);
            scope.entries.push(e);
        }
        Ok(scope)
    }

    /// The device the scope mapped on (`None`: host).
    pub fn device(&self) -> Option<Device> {
        self.device
    }
}

impl Drop for DataScope {
    fn drop(&mut self) {
        let Some(d) = self.device else { return };
        let Ok(r) = registry::runtime() else { return };
        for e in self.entries.drain(..).rev() {
            let p = e.addr as *mut c_void;
            let mut a = MapArgs::with_capacity(1);
            a.push(p, p, e.bytes as i64, e.exit.bits());
            // SAFETY: mapped by `begin` on this device; alive and exclusively ours per `begin`'s contract.
            unsafe { r.rt.data(DataOp::End, self.loc, d.0, &mut a) };
            map::shadow_remove(d.0, e.addr, e.bytes, false);
        }
    }
}

fn update(addr: usize, bytes: usize, bits: i64, device: Option<i64>, if_cond: bool, var: &str, loc: &'static Ident) -> Result<(), Error> {
    let Decision::Offload(d) = device::resolve(device, if_cond)? else { return Ok(()) };
    if bytes == 0 {
        return Ok(());
    }
    let rt = registry::runtime()?.rt;
    map::check_sections(rt, d.0, &[Section { addr, bytes, present: true, var: var.to_owned() }])?;
    let p = addr as *mut c_void;
    let mut a = MapArgs::with_capacity(1);
    a.push(p, p, bytes as i64, bits);
    // SAFETY: present (checked); `update_from` holds an exclusive borrow of the host section it writes.
    unsafe { rt.data(DataOp::Update, loc, d.0, &mut a) };
    Ok(())
}

/// `omp::target_update!(to: x)`: copies the host section to its device copy (no-op on the host).
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped.
#[track_caller]
pub fn update_to<T: Pod>(x: &[T], var: &str, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    let loc = Ident::at(Location::caller(), "target update");
    update(x.as_ptr() as usize, std::mem::size_of_val(x), libomptarget_sys::maptype::TO, device, if_cond, var, loc)
}

/// `omp::target_update!(from: x)`: copies the device copy to the host section.
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped.
#[track_caller]
pub fn update_from<T: Pod>(x: &mut [T], var: &str, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    let loc = Ident::at(Location::caller(), "target update");
    update(x.as_ptr() as usize, std::mem::size_of_val(x), libomptarget_sys::maptype::FROM, device, if_cond, var, loc)
}

/// `omp::target_enter_data!(map(to|alloc: x))` on a variable (no-op on the host).
///
/// # Errors
/// As [`DataScope::begin`].
#[track_caller]
pub fn enter_data<T: Pod>(x: &[T], to: bool, mods: Modifiers, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    if !if_cond {
        return Ok(());
    }
    let kind = if to { MapKind::To } else { MapKind::Alloc };
    // SAFETY: the section comes from a live borrow; a later exit or kernel re-derives its own section, and the
    // overlap checks reject one that no longer matches (e.g. the buffer was reallocated) instead of copying
    // outside it.
    unsafe { super::data::target_enter_data_raw(x, kind, mods, device) }.map(|_| ())
}

/// `omp::target_exit_data!(map(from|release|delete: x))` on a variable (no-op on the host).
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped.
#[track_caller]
pub fn exit_data<T: Pod>(x: &mut [T], kind: ExitKind, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    let Decision::Offload(d) = device::resolve(device, if_cond)? else { return Ok(()) };
    // SAFETY: `x` is exclusively borrowed for the call, so the copy back (`From`) writes memory nobody else sees.
    unsafe { super::data::target_exit_data_raw(x, kind, d) }
}

/// A target region whose crate was built without a device image for it (no device toolchain, or a kernel that
/// could not be compiled): runs on the host, except under `OMP_TARGET_OFFLOAD=MANDATORY`.
///
/// # Errors
/// [`Error::NoDevice`] under `MANDATORY`.
#[track_caller]
pub fn region_without_image(kernel: &str) -> Result<(), Error> {
    let loc = Location::caller();
    let pol = policy::policy();
    let reason = format!(
        "target region `{kernel}` at {loc} was built without a device image (install the device toolchain with \
         `cargo omp setup` or scripts/setup-gpu-toolchain.sh, and rebuild)"
    );
    if pol == Policy::Mandatory {
        return Err(Error::NoDevice { policy: pol, reason });
    }
    log(|| format!("region `{kernel}` at {loc}: host ({reason})"));
    Ok(())
}
