//! Data environments over libomptarget's present table: structured regions ([`DataRegion`], `target data`) and
//! unstructured ones ([`target_enter_data`] / [`target_exit_data`] on owned buffers, [`Resident`]).
//!
//! The present table is reference counted: a section mapped while already present only gains a reference
//! (no copy); `to` copies when the count goes 0 → 1, `from` when it goes 1 → 0, `always` copies regardless,
//! exit `delete` drops it to 0. A `DataRegion<'a>` borrows everything it maps for `'a`, so host code cannot
//! touch mapped data behind the device's back (a compile error); it reads or writes the host copy through
//! [`DataRegion::host`] / [`DataRegion::host_mut`] after [`DataRegion::update_from`] / before
//! [`DataRegion::update_to`]. Kernels get the device copy through [`DataRegion::arg`].
//!
//! # Why enter data takes ownership
//! `target enter data` starts a mapping that outlives the statement, keyed by host address. If the host
//! memory were freed while mapped, the stale entry would silently alias the next allocation at that address
//! (libomptarget would skip the copy and hand kernels old device data). A safe `enter` therefore takes the
//! buffer itself (`Vec<T>`) and returns a [`Resident<T>`] that owns it: the memory cannot be freed or moved
//! while mapped, and `exit` hands it back. A guard borrowing a slice would be a structured region (use
//! `DataRegion`), and `&'static mut` buffers are covered by `Vec::leak`'s inverse: own a `Vec`. For code that
//! must map borrowed memory without a guard (C interop, macro expansions of `target_enter_data!` on arbitrary
//! places), [`target_enter_data_raw`] / [`target_exit_data_raw`] are `unsafe` with that contract spelled out.

use core::ffi::c_void;
use std::any::{type_name, TypeId};
use std::marker::PhantomData;
use std::panic::Location;

use super::device::{self, Decision, Device};
use super::map::{self, ExitKind, MapKind, Modifiers, Section};
use super::registry;
use super::repr::Pod;
use super::result::{DataOp, Ident, MapArgs, Rt};
use crate::Error;

/// One mapped section of a region.
#[derive(Debug)]
struct Entry {
    addr: usize,
    len: usize,
    bytes: usize,
    elem: TypeId,
    elem_name: &'static str,
    mutable: bool,
    kind: MapKind,
    mods: Modifiers,
    var: String,
}

impl Entry {
    fn section(&self) -> Section {
        Section { addr: self.addr, bytes: self.bytes, present: self.mods.present, var: self.var.as_str().into() }
    }
}

/// Builder of a [`DataRegion`]: add sections, then [`DataRegionBuilder::begin`].
#[derive(Debug)]
#[must_use = "a data region maps nothing until `.begin()`"]
pub struct DataRegionBuilder<'a> {
    device: Option<i64>,
    if_cond: bool,
    entries: Vec<Entry>,
    _borrows: PhantomData<&'a mut ()>,
}

/// An active `target data` region: everything it maps stays mapped (and borrowed) until it is dropped or
/// [`end`](DataRegion::end)ed, which copies `from`/`tofrom` sections back.
///
/// On the host (offload disabled, no device under `DEFAULT`, `if(false)`) the region maps nothing and every
/// method is a no-op on the host data.
#[derive(Debug)]
pub struct DataRegion<'a> {
    device: Option<Device>,
    entries: Vec<Entry>,
    loc: &'static Ident,
    ended: bool,
    _borrows: PhantomData<&'a mut ()>,
    /// `!Sync`: two threads must not launch kernels on the same mapped (device) data at once.
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

/// A kernel argument for data already mapped on a device (a section of a [`DataRegion`] or a [`Resident`]).
/// Passing it maps nothing and copies nothing; it only borrows the owner.
#[derive(Debug, Clone, Copy)]
pub struct MappedArg<'r, T> {
    pub(crate) addr: usize,
    pub(crate) len: usize,
    pub(crate) device: Option<Device>,
    pub(crate) var: &'r str,
    _t: PhantomData<&'r [T]>,
}

impl<'r, T> MappedArg<'r, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device it is mapped on (`None` when the owner runs on the host).
    pub fn device(&self) -> Option<Device> {
        self.device
    }
}

impl DataRegion<'static> {
    /// Start building a region on the default device.
    pub fn builder<'a>() -> DataRegionBuilder<'a> {
        DataRegionBuilder { device: None, if_cond: true, entries: Vec::new(), _borrows: PhantomData }
    }
}

impl<'a> DataRegionBuilder<'a> {
    /// `device(n)`.
    pub fn device(mut self, n: i64) -> Self {
        self.device = Some(n);
        self
    }

    /// `if(cond)`: when false the region stays on the host.
    pub fn if_(mut self, cond: bool) -> Self {
        self.if_cond = cond;
        self
    }

    fn push<T: Pod>(mut self, ptr: *const T, len: usize, mutable: bool, kind: MapKind) -> Self {
        let n = self.entries.len();
        self.entries.push(Entry {
            addr: ptr as usize,
            len,
            bytes: len * std::mem::size_of::<T>(),
            elem: TypeId::of::<T>(),
            elem_name: type_name::<T>(),
            mutable,
            kind,
            mods: Modifiers::default(),
            var: format!("map #{n} ({}[{len}])", type_name::<T>()),
        });
        self
    }

    /// `map(to: x)`. A sub-slice maps an array section.
    pub fn to<T: Pod>(self, x: &'a [T]) -> Self {
        self.push(x.as_ptr(), x.len(), false, MapKind::To)
    }

    /// `map(tofrom: x)`.
    pub fn tofrom<T: Pod>(self, x: &'a mut [T]) -> Self {
        self.push(x.as_ptr(), x.len(), true, MapKind::ToFrom)
    }

    /// `map(from: x)`.
    pub fn from<T: Pod>(self, x: &'a mut [T]) -> Self {
        self.push(x.as_ptr(), x.len(), true, MapKind::From)
    }

    /// `map(alloc: x)`: device storage for `x`, never copied back (initialised from `x`: see `MapKind::bits`).
    pub fn alloc<T: Pod>(self, x: &'a mut [T]) -> Self {
        self.push(x.as_ptr(), x.len(), true, MapKind::Alloc)
    }

    /// `map(alloc: x)` over a shared borrow (the host copy is never written).
    pub fn alloc_shared<T: Pod>(self, x: &'a [T]) -> Self {
        self.push(x.as_ptr(), x.len(), false, MapKind::Alloc)
    }

    /// Add the `always` modifier to the last section.
    pub fn always(mut self) -> Self {
        if let Some(e) = self.entries.last_mut() {
            e.mods.always = true;
        }
        self
    }

    /// Add the `present` modifier to the last section: [`begin`](Self::begin) fails with
    /// [`Error::NotPresent`] unless it is already mapped.
    pub fn present(mut self) -> Self {
        if let Some(e) = self.entries.last_mut() {
            e.mods.present = true;
        }
        self
    }

    /// Name the last section in error messages.
    pub fn var(mut self, name: &str) -> Self {
        if let Some(e) = self.entries.last_mut() {
            e.var = name.to_owned();
        }
        self
    }

    /// Map everything (`__tgt_target_data_begin_mapper`) and return the region.
    ///
    /// # Errors
    /// [`Error::NotPresent`] for a `present` section that is not mapped, [`Error::MappingConflict`] for a
    /// section that would extend an existing mapping, [`Error::InvalidDevice`], and under `MANDATORY`
    /// [`Error::NoDevice`]/[`Error::LibraryNotFound`]. Nothing is mapped when it fails.
    #[track_caller]
    pub fn begin(self) -> Result<DataRegion<'a>, Error> {
        let loc = Ident::at(Location::caller(), "target data");
        let device = match device::resolve(self.device, self.if_cond)? {
            Decision::Offload(d) => Some(d),
            Decision::Host(r) => {
                super::policy::log(|| format!("target data at {}: host ({r})", Location::caller()));
                None
            }
        };
        let region = DataRegion { device, entries: self.entries, loc, ended: false, _borrows: PhantomData, _not_sync: PhantomData };
        if let Some(d) = device {
            let rt = registry::runtime()?.rt;
            let secs: Vec<Section> = region.entries.iter().map(Entry::section).collect();
            // The check and the map that follows it see the same table (map::changing_mappings).
            let changing = map::changing_mappings();
            map::check_sections(rt, d.0, &secs)?;
            let mut args = region.args(|e| e.kind.bits() | e.mods.bits());
            // SAFETY: every section is borrowed for 'a (writable where `from` may copy back) and checked above.
            unsafe { rt.data(DataOp::Begin, loc, d.0, &mut args) };
            for e in &region.entries {
                map::shadow_add(d.0, e.addr, e.bytes);
            }
            drop(changing);
            super::queue::take_error(d.0)?;
        }
        Ok(region)
    }
}

impl<'a> DataRegion<'a> {
    fn args(&self, ty: impl Fn(&Entry) -> i64) -> MapArgs {
        let mut a = MapArgs::with_capacity(self.entries.len());
        for e in self.entries.iter().filter(|e| e.bytes > 0) {
            let p = e.addr as *mut c_void;
            a.push(p, p, e.bytes as i64, ty(e));
        }
        a
    }

    /// The device the region maps to (`None` on the host).
    pub fn device(&self) -> Option<Device> {
        self.device
    }

    /// Number of sections.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the region maps nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn entry<T: 'static>(&self, i: usize) -> Result<&Entry, Error> {
        let e = self.entries.get(i).ok_or_else(|| Error::InvalidAccess {
            detail: format!("data region has {} sections; index {i} is out of range", self.entries.len()),
        })?;
        if e.elem != TypeId::of::<T>() {
            return Err(Error::InvalidAccess {
                detail: format!("section {i} (`{}`) holds {}, not {}; use the element type it was mapped with", e.var, e.elem_name, type_name::<T>()),
            });
        }
        Ok(e)
    }

    fn update(&mut self, i: usize, bits: i64) -> Result<(), Error> {
        let e = self.entries.get(i).ok_or_else(|| Error::InvalidAccess {
            detail: format!("data region has {} sections; index {i} is out of range", self.entries.len()),
        })?;
        if bits == libomptarget_sys::maptype::FROM && !e.mutable {
            return Err(Error::InvalidAccess {
                detail: format!("`{}` is mapped from a shared borrow; map it with `tofrom`/`from`/`alloc` (a `&mut` borrow) to update the host copy", e.var),
            });
        }
        let (Some(d), true) = (self.device, e.bytes > 0) else { return Ok(()) };
        let rt = registry::runtime()?.rt;
        let p = e.addr as *mut c_void;
        let mut a = MapArgs::with_capacity(1);
        a.push(p, p, e.bytes as i64, bits);
        // SAFETY: the section is mapped by this region (so `update` finds it) and borrowed for 'a; a FROM
        // update writes host memory borrowed mutably (checked above) while `&mut self` excludes host access.
        unsafe { rt.data(DataOp::Update, self.loc, d.0, &mut a) };
        super::queue::take_error(d.0)
    }

    /// `target update to(section i)`: copy the host copy to the device.
    ///
    /// # Errors
    /// [`Error::InvalidAccess`] for an index out of range.
    pub fn update_to(&mut self, i: usize) -> Result<(), Error> {
        self.update(i, libomptarget_sys::maptype::TO)
    }

    /// `target update from(section i)`: copy the device copy to the host.
    ///
    /// # Errors
    /// [`Error::InvalidAccess`] for an index out of range or a section mapped from a shared borrow.
    pub fn update_from(&mut self, i: usize) -> Result<(), Error> {
        self.update(i, libomptarget_sys::maptype::FROM)
    }

    /// The host copy of section `i` (current after [`update_from`](Self::update_from)).
    ///
    /// # Errors
    /// [`Error::InvalidAccess`] for a wrong index or element type.
    pub fn host<T: Pod>(&self, i: usize) -> Result<&[T], Error> {
        let e = self.entry::<T>(i)?;
        // SAFETY: the region borrows this section for 'a (shared or unique) and `&self` excludes host writes
        // through the region; the pointer, length and type were recorded from that borrow.
        Ok(unsafe { std::slice::from_raw_parts(e.addr as *const T, e.len) })
    }

    /// The host copy of section `i`, writable (push it with [`update_to`](Self::update_to)).
    ///
    /// # Errors
    /// [`Error::InvalidAccess`] for a wrong index or type, or a section mapped from a shared borrow.
    pub fn host_mut<T: Pod>(&mut self, i: usize) -> Result<&mut [T], Error> {
        let e = self.entry::<T>(i)?;
        if !e.mutable {
            return Err(Error::InvalidAccess {
                detail: format!("`{}` is mapped from a shared borrow and cannot be written; map it from a `&mut`", e.var),
            });
        }
        // SAFETY: the section came from a `&'a mut [T]` held by the region; `&mut self` makes this the only
        // access for the returned lifetime.
        Ok(unsafe { std::slice::from_raw_parts_mut(e.addr as *mut T, e.len) })
    }

    /// Section `i` as a kernel argument (its device copy; nothing is copied at launch).
    ///
    /// # Errors
    /// [`Error::InvalidAccess`] for a wrong index or element type.
    pub fn arg<T: Pod>(&self, i: usize) -> Result<MappedArg<'_, T>, Error> {
        let e = self.entry::<T>(i)?;
        Ok(MappedArg { addr: e.addr, len: e.len, device: self.device, var: &e.var, _t: PhantomData })
    }

    /// End the region now (`__tgt_target_data_end_mapper`): copy `from`/`tofrom` sections back and release
    /// every mapping. Dropping the region does the same.
    ///
    /// # Errors
    /// None today (kept for errors recorded by asynchronous work in the region).
    pub fn end(mut self) -> Result<(), Error> {
        self.end_impl()
    }

    fn end_impl(&mut self) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        let Some(d) = self.device else { return Ok(()) };
        let rt = registry::runtime()?.rt;
        // Present-modifier bits are dropped at the end: presence was checked at begin.
        let mut args = self.args(|e| e.kind.bits() | if e.mods.always { libomptarget_sys::maptype::ALWAYS } else { 0 });
        // SAFETY: the same sections `begin` mapped, still borrowed; `from` sections are `&mut` borrows.
        unsafe { rt.data(DataOp::End, self.loc, d.0, &mut args) };
        for e in &self.entries {
            map::shadow_remove(d.0, e.addr, e.bytes, false);
        }
        super::queue::take_error(d.0)
    }
}

impl Drop for DataRegion<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.end_impl() {
            eprintln!("omp-rs: error ending a target data region: {e}");
        }
    }
}

/// An owned buffer mapped by [`target_enter_data`]: it stays mapped (one reference) until
/// [`target_exit_data`] / [`Resident::exit`], or until dropped (then released without copying back).
#[derive(Debug)]
pub struct Resident<T: Pod> {
    data: Vec<T>,
    device: Option<Device>,
    loc: &'static Ident,
    exited: bool,
    /// `!Sync`, as `DataRegion`.
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

/// `target enter data map(to|alloc: data)` on an owned buffer. `device = None` is the default device.
///
/// # Errors
/// As [`DataRegionBuilder::begin`]; `MapKind::From`/`ToFrom` are entry kinds of `exit`, so they are
/// rejected with [`Error::InvalidAccess`].
#[track_caller]
pub fn target_enter_data<T: Pod>(data: Vec<T>, kind: MapKind, device: Option<i64>) -> Result<Resident<T>, Error> {
    let loc = Ident::at(Location::caller(), "target enter data");
    if kind.writes_host() {
        return Err(Error::InvalidAccess {
            detail: "target_enter_data takes MapKind::To or MapKind::Alloc; `from` belongs to target_exit_data".into(),
        });
    }
    let device = match device::resolve(device, true)? {
        Decision::Offload(d) => Some(d),
        Decision::Host(_) => None,
    };
    if let Some(d) = device {
        let rt = registry::runtime()?.rt;
        // SAFETY: `data` is owned by the returned `Resident`, which keeps it alive and unmoved while mapped.
        unsafe { enter_raw(rt, loc, d.0, data.as_ptr() as usize, std::mem::size_of_val(&data[..]), kind, Modifiers::default(), "target_enter_data buffer")? };
    }
    Ok(Resident { data, device, loc, exited: false, _not_sync: PhantomData })
}

/// `target exit data map(from|release|delete: r)`: end the mapping and return the buffer (copied back for
/// `ExitKind::From`).
///
/// # Errors
/// None today (the buffer is known to be mapped).
pub fn target_exit_data<T: Pod>(r: Resident<T>, kind: ExitKind) -> Result<Vec<T>, Error> {
    r.exit(kind)
}

impl<T: Pod> Resident<T> {
    /// The device it is mapped on (`None` when it stayed on the host).
    pub fn device(&self) -> Option<Device> {
        self.device
    }

    /// The host copy.
    pub fn host(&self) -> &[T] {
        &self.data
    }

    /// The host copy, writable (push it with [`update_to`](Self::update_to)).
    pub fn host_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The device copy as a kernel argument.
    pub fn arg(&self) -> MappedArg<'_, T> {
        MappedArg { addr: self.data.as_ptr() as usize, len: self.data.len(), device: self.device, var: "resident buffer", _t: PhantomData }
    }

    fn update(&mut self, bits: i64) -> Result<(), Error> {
        let (Some(d), false) = (self.device, self.data.is_empty()) else { return Ok(()) };
        let rt = registry::runtime()?.rt;
        let p = self.data.as_mut_ptr().cast::<c_void>();
        let mut a = MapArgs::with_capacity(1);
        a.push(p, p, std::mem::size_of_val(&self.data[..]) as i64, bits);
        // SAFETY: mapped by this `Resident`; owned and exclusively borrowed through `&mut self`.
        unsafe { rt.data(DataOp::Update, self.loc, d.0, &mut a) };
        super::queue::take_error(d.0)
    }

    /// `target update to(self)`.
    ///
    /// # Errors
    /// None today.
    pub fn update_to(&mut self) -> Result<(), Error> {
        self.update(libomptarget_sys::maptype::TO)
    }

    /// `target update from(self)`.
    ///
    /// # Errors
    /// None today.
    pub fn update_from(&mut self) -> Result<(), Error> {
        self.update(libomptarget_sys::maptype::FROM)
    }

    /// End the mapping (see [`target_exit_data`]).
    ///
    /// # Errors
    /// None today.
    pub fn exit(mut self, kind: ExitKind) -> Result<Vec<T>, Error> {
        self.exit_impl(kind)?;
        Ok(std::mem::take(&mut self.data))
    }

    fn exit_impl(&mut self, kind: ExitKind) -> Result<(), Error> {
        if self.exited {
            return Ok(());
        }
        self.exited = true;
        let Some(d) = self.device else { return Ok(()) };
        let rt = registry::runtime()?.rt;
        // SAFETY: mapped by `enter` on this device, owned by `self`.
        unsafe { exit_raw(rt, self.loc, d.0, self.data.as_mut_ptr() as usize, std::mem::size_of_val(&self.data[..]), kind) };
        Ok(())
    }
}

impl<T: Pod> Drop for Resident<T> {
    fn drop(&mut self) {
        if let Err(e) = self.exit_impl(ExitKind::Release) {
            eprintln!("omp-rs: error releasing a target_enter_data buffer: {e}");
        }
    }
}

/// # Safety
/// `addr..addr+bytes` stays valid and unmoved until the matching exit.
#[allow(clippy::too_many_arguments)]
unsafe fn enter_raw(rt: Rt, loc: &'static Ident, device: i32, addr: usize, bytes: usize, kind: MapKind, mods: Modifiers, var: &str) -> Result<(), Error> {
    if bytes == 0 {
        return Ok(());
    }
    // The check and the map that follows it see the same table (map::changing_mappings).
    let changing = map::changing_mappings();
    map::check_sections(rt, device, &[Section { addr, bytes, present: mods.present, var: var.into() }])?;
    let p = addr as *mut c_void;
    let mut a = MapArgs::with_capacity(1);
    a.push(p, p, bytes as i64, kind.bits() | mods.bits());
    // SAFETY: checked above; validity guaranteed by the caller.
    unsafe { rt.data(DataOp::Begin, loc, device, &mut a) };
    map::shadow_add(device, addr, bytes);
    drop(changing);
    super::queue::take_error(device)
}

/// # Safety
/// `addr..addr+bytes` is valid (writable for `From`) and was mapped by a matching enter.
unsafe fn exit_raw(rt: Rt, loc: &'static Ident, device: i32, addr: usize, bytes: usize, kind: ExitKind) {
    if bytes == 0 {
        return;
    }
    let p = addr as *mut c_void;
    let mut a = MapArgs::with_capacity(1);
    a.push(p, p, bytes as i64, kind.bits());
    // SAFETY: guaranteed by the caller.
    unsafe { rt.data(DataOp::End, loc, device, &mut a) };
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
/// As [`DataRegionBuilder::begin`].
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
    super::queue::take_error(device.0)
}
