//! The mapping primitives every data construct is made of: `target enter data` and `target exit data` of one
//! section on libomptarget's present table, with omp-rs's overlap checks around them. `target_data` blocks
//! (`DataRegion` and its tokens) begin and end their mappings with these, and so do
//! `omp::target_enter_data!` / `omp::target_exit_data!`; there is no other way into the table (one soundness
//! argument: a section is checked against the table and omp-rs's shadow of it before it is mapped, and only memory
//! a borrow keeps alive is mapped by safe code).
//!
//! The present table is reference counted: a section mapped while already present only gains a reference (no
//! copy); `to` copies when the count goes 0 → 1, `from` when it goes 1 → 0, `always` copies regardless, exit
//! `delete` drops it to 0. [`target_enter_data_raw`] / [`target_exit_data_raw`] are `unsafe` for interop: a
//! mapping that outlives its memory would alias the next allocation at that address.

use core::ffi::c_void;
use std::panic::Location;

use super::device::{self, Decision, Device};
use super::map::{self, ExitKind, MapKind, Modifiers, Section};
use super::repr::Pod;
use super::result::{DataOp, Ident, MapArgs, Rt};
use super::{queue, registry};
use crate::Error;

/// # Safety
/// `addr..addr+bytes` stays valid and unmoved until the matching exit.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn enter_raw(
    rt: Rt,
    loc: &'static Ident,
    device: i32,
    addr: usize,
    bytes: usize,
    kind: MapKind,
    mods: Modifiers,
    var: &str,
) -> Result<(), Error> {
    if bytes == 0 {
        return Ok(());
    }
    // The check and the map that follows it see the same table (map::changing_mappings).
    let changing = map::changing_mappings();
    map::check_sections(rt, device, &[Section { addr, bytes, present: mods.present, var: var.into() }])?;
    let p = addr as *mut c_void;
    let mut a = MapArgs::with_capacity(1);
    a.push(p, p, bytes as i64, kind.bits() | mods.bits());
    // Queued kernels may still use data an `always` copy overwrites.
    queue::settle(device);
    // SAFETY: checked above; validity guaranteed by the caller; the queue is settled.
    unsafe { rt.data(DataOp::Begin, loc, device, &mut a) };
    map::shadow_add(device, addr, bytes, var);
    drop(changing);
    queue::take_error(device)
}

/// # Safety
/// `addr..addr+bytes` is valid (writable for `From`) and was mapped by a matching enter.
pub(crate) unsafe fn exit_raw(rt: Rt, loc: &'static Ident, device: i32, addr: usize, bytes: usize, kind: ExitKind) {
    if bytes == 0 {
        return;
    }
    let p = addr as *mut c_void;
    let mut a = MapArgs::with_capacity(1);
    a.push(p, p, bytes as i64, kind.bits());
    // Held until the shadow agrees with the table again: a launch that looked in between would find the section
    // absent from libomptarget's table yet still in the shadow, a conflict that is not there.
    let _changing = map::changing_mappings();
    // Queued kernels may still use the data this copies back or frees.
    queue::settle(device);
    // SAFETY: guaranteed by the caller; the table does not change under a queued launch's lookups (held above);
    // the queue is settled.
    unsafe { rt.data(DataOp::End, loc, device, &mut a) };
    map::mappings_changed();
    map::shadow_remove(device, addr, bytes, kind == ExitKind::Delete);
}

/// `target enter data map(kind: x)` on borrowed memory, for interop and macro expansions that cannot own the
/// buffer. Returns the device it mapped on (`None`: host, nothing mapped).
///
/// # Safety
/// `x` must stay allocated, unmoved and not written through other paths the device copy should see, until a
/// matching [`target_exit_data_raw`] on the same slice and device (or forever). Freeing mapped memory leaves a
/// stale present-table entry that silently aliases the next allocation at that address.
///
/// # Errors
/// Device selection errors, [`Error::MappingConflict`] for a section overlapping another mapping, [`Error::NotPresent`]
/// for `present` on unmapped data.
#[track_caller]
pub unsafe fn target_enter_data_raw<T: Pod>(x: &[T], kind: MapKind, mods: Modifiers, device: Option<i64>) -> Result<Option<Device>, Error> {
    let loc = Ident::at(Location::caller(), "target enter data");
    let Decision::Offload(d) = device::resolve(device, true)? else { return Ok(None) };
    let rt = registry::runtime()?.rt;
    // SAFETY: forwarded to the caller.
    unsafe { enter_raw(rt, loc, d.0, x.as_ptr() as usize, std::mem::size_of_val(x), kind, mods, "target_enter_data_raw section")? };
    Ok(Some(d))
}

/// `target exit data map(kind: x)` on borrowed memory.
///
/// # Safety
/// `x` was mapped on `device` by [`target_enter_data_raw`] (or an enclosing mapping holds it) and is valid;
/// for [`ExitKind::From`] the caller must not hold other references into `x` that assume it is unchanged.
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped (libomptarget would ignore or abort), [`Error::InvalidDevice`].
#[track_caller]
pub unsafe fn target_exit_data_raw<T: Pod>(x: &[T], kind: ExitKind, device: Device) -> Result<(), Error> {
    // SAFETY: forwarded to the caller.
    unsafe { exit_section(x, kind, device, "target_exit_data_raw section") }
}

/// [`target_exit_data_raw`] naming the variable in errors.
///
/// # Safety
/// As [`target_exit_data_raw`].
#[track_caller]
pub(crate) unsafe fn exit_section<T: Pod>(x: &[T], kind: ExitKind, device: Device, var: &str) -> Result<(), Error> {
    let loc = Ident::at(Location::caller(), "target exit data");
    let rt = registry::runtime()?.rt;
    let bytes = std::mem::size_of_val(x);
    if bytes == 0 {
        return Ok(());
    }
    map::check_sections(rt, device.0, &[Section { addr: x.as_ptr() as usize, bytes, present: true, var: var.into() }])?;
    // SAFETY: present (checked); the rest is guaranteed by the caller.
    unsafe { exit_raw(rt, loc, device.0, x.as_ptr() as usize, bytes, kind) };
    queue::take_error(device.0)
}
